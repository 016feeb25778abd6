"""ingest (transcripts → facts) and undo (reverse one journal entry)."""

from __future__ import annotations

from typing import Annotated

import typer

from mdmem.commands import render
from mdmem.commands.app import (
    DryRunOpt,
    JsonOpt,
    VaultOpt,
    WaitOpt,
    command,
    date_option,
    open_vault,
    print_json,
)
from mdmem.commands.ingest_run import run_ingest
from mdmem.commands.llm_options import (
    LLMConcurrencyOpt,
    LLMRetriesOpt,
    LLMTimeoutOpt,
    NoCacheOpt,
)
from mdmem.edit.undo import find_entry, lost_words
from mdmem.edit.undo import undo as undo_entry
from mdmem.engine import describe


@command()
def ingest(
    paths: Annotated[
        list[str], typer.Argument(help="Transcript files, folders (name order), or - for stdin.")
    ],
    date: Annotated[
        str | None,
        typer.Option(
            "--date",
            callback=date_option("--date"),
            help="Date of messages that carry none: a day, or words like 'yesterday' (default: the file's modification time).",
        ),
    ] = None,  # fmt: skip
    llm: Annotated[
        str | None,
        typer.Option("--llm", help="Extract with this litellm model instead of the rules."),
    ] = None,
    api_base: Annotated[
        str | None, typer.Option("--api-base", help="URL of an OpenAI-compatible server for --llm.")
    ] = None,
    llm_timeout: LLMTimeoutOpt = None,
    llm_retries: LLMRetriesOpt = None,
    llm_concurrency: LLMConcurrencyOpt = None,
    no_cache: NoCacheOpt = False,
    commit: Annotated[
        bool, typer.Option("--commit", help="Make one git commit of what this ingest changed.")
    ] = False,
    reprocess: Annotated[
        bool,
        typer.Option(
            "--reprocess",
            help="Read sources already ingested again; apply only what the vault never had.",
        ),
    ] = False,
    fmt: Annotated[
        str | None,
        typer.Option(
            "--format",
            metavar="FORMAT",
            help="Read every file as this format (chatgpt, claude, llm, json, jsonl, text); "
            "default: told by each file's content.",
        ),
    ] = None,
    ext: Annotated[
        list[str] | None,
        typer.Option(
            "--ext",
            help="A transcript type a folder is read for (repeatable; default: md txt jsonl json).",
        ),
    ] = None,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="Print only errors, changes and the summary.")
    ] = False,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Also name the folder files passed over.")
    ] = False,
    vault: VaultOpt = None,
    wait: WaitOpt = 10.0,
    dry_run: DryRunOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Read conversations and update the facts they state; cascades follow."""
    code = run_ingest(open_vault(vault, wait), paths, date=date, llm=llm, api_base=api_base,
                      llm_timeout=llm_timeout, llm_retries=llm_retries, llm_concurrency=llm_concurrency,
                      no_cache=no_cache, commit=commit, reprocess=reprocess, fmt=fmt, ext=ext,
                      quiet=quiet, verbose=verbose, dry_run=dry_run, as_json=as_json)  # fmt: skip
    if code:
        raise typer.Exit(code)


@command()
def undo(
    entry_id: Annotated[str, typer.Argument(help="Journal entry id (or a unique prefix).")],
    vault: VaultOpt = None,
    wait: WaitOpt = 10.0,
    dry_run: DryRunOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Reverse one journal entry, if nothing it touched has changed since."""
    v = open_vault(vault, wait)
    result = undo_entry(v, entry_id, dry_run=dry_run)
    lost = lost_words(find_entry(v, entry_id))
    if as_json:
        undoes = (result.entry or {}).get("source", {}).get("undoes")
        print_json({**describe.result_json(result), "undoes": undoes, "not_restored": lost})
        return
    render.print_changes(result.plan.changes, dry_run=result.dry_run)
    if lost:
        typer.echo(f"Note: {lost}.", err=True)
    if result.entry:
        typer.echo(
            f"Undone; the undo is journal entry {result.entry['id']}"
            f" (`mdmem undo {result.entry['id']}` reverses it).",
            err=True,
        )
