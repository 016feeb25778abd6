"""ingest (transcripts → facts) and undo (reverse one journal entry)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from mdmem.commands import render
from mdmem.commands.app import (
    DryRunOpt,
    JsonOpt,
    VaultOpt,
    WaitOpt,
    command,
    date_option,
    err,
    here,
    open_vault,
    print_json,
)
from mdmem.commands.llm_options import (
    LLMConcurrencyOpt,
    LLMRetriesOpt,
    LLMTimeoutOpt,
    NoCacheOpt,
)
from mdmem.edit.undo import find_entry, lost_words
from mdmem.edit.undo import undo as undo_entry
from mdmem.engine import describe

if TYPE_CHECKING:  # the extractors cost ~80 ms to import: only `ingest` itself loads them
    from mdmem.edit.ingest_result import IngestResult


def _table(result: IngestResult) -> Table:
    """One row per fact, in its final state (`IngestResult.rows`, what the summary counts)."""
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    for col in ("decision", "fact", "change", "because", "said at"):
        table.add_column(col)
    for row in result.rows():
        style = render.STATUS_STYLE.get(row.status, "")
        table.add_row(
            f"[{style}]{row.decision}[/]", render.escape(row.key), render.escape(row.change),
            render.escape(f"{', '.join(row.causes)} changed" if row.causes else ""),
            ", ".join(row.said_at),
        )  # fmt: skip
    return table


def _print(r: IngestResult, name: str, *, quiet: bool = False, reprocess: bool = False) -> None:
    """One source's outcome (`name`: how to show its source); `quiet` keeps only errors and
    changes. Errors go to stderr, the table to stdout, each flushed: in `>>log 2>&1` they stay
    in this order, one source after the other."""
    if r.skipped:
        if not quiet:
            prev = r.previous or {}
            done = "read again, nothing new" if reprocess else "nothing to do"
            err(f"{name}: already ingested (journal {prev.get('id', '?')},"
                f" {prev.get('time', '?')}); {done}.")  # fmt: skip
        return
    for e in r.errors:
        err(f"Error: {e}")
    for w in r.warnings:
        err(f"Warning: {w}")
    if r.failed or (quiet and not r.plan.changes):
        return
    noops = sum(d == "NOOP" for _, d in r.plan.decisions)
    head = f"[bold]{render.escape(name)}[/]"
    if r.title:
        head += f" [bold]“{render.escape(r.title)}”[/]"
    if r.entry:
        head += f"  [dim]journal {r.entry['id']}[/]"
    render.stdout.print(head)
    if r.plan.changes:
        render.print_table(_table(r), wrap=3)
    else:
        render.stdout.print("  nothing changed")
    if noops and not quiet:
        render.stdout.print(f"  [dim]{noops} statement{'s' * (noops != 1)} already known (NOOP)[/]")
    sys.stdout.flush()


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
    v = open_vault(vault, wait)
    from mdmem.edit.ingest import EMPTY, ingest_paths
    from mdmem.edit.ingest_result import summary
    from mdmem.edit.sources import TRANSCRIPT_TYPES
    from mdmem.extract.model_cache import VAULT_CACHE
    from mdmem.extract.plugins import finder_for

    options = {} if llm is None else {
        "timeout": llm_timeout, "retries": llm_retries, "concurrency": llm_concurrency,
        "cache_dir": None if no_cache else v.meta / VAULT_CACHE,
    }  # fmt: skip
    extractor = finder_for(llm, api_base, **options)  # the rules, or with --llm the model finder
    types = [t for e in ext for t in e.replace(",", " ").split()] if ext else TRANSCRIPT_TYPES
    passed: list[dict[str, str]] = []

    def passed_over(path: Path, why: str) -> None:
        passed.append({"path": str(path), "why": why})
        if verbose and not as_json:
            err(f"{path}: {why}; passed over." if EMPTY not in why else f"{path}: {why}.")

    results = ingest_paths(v, paths, date=date, extractor=extractor, dry_run=dry_run,
                           commit=commit, progress=not as_json, reprocess=reprocess,
                           types=types, fmt=fmt, passed_over=passed_over)  # fmt: skip
    usage = getattr(getattr(extractor, "config", None), "usage", None)
    if as_json:
        data = {"dry_run": dry_run, "summary": summary(results),
                "results": [r.to_json() for r in results], "passed_over": passed}  # fmt: skip
        if usage is not None:
            data["usage"] = usage.to_json()
        print_json(data)
    else:
        for r in results:
            if r.file and not (r.errors or r.warnings or r.plan.changes or verbose):
                continue  # an export's thousand quiet conversations: the summary counts them
            _print(r, here(v, r.source), quiet=quiet, reprocess=reprocess)
        if dry_run:
            render.stdout.print("[dim](dry run: nothing was written)[/]")
            sys.stdout.flush()
        err(summary(results) + _passed_note(passed, verbose))
        sha = next((r.commit for r in results if r.commit), None)
        if sha:
            err(f"Committed {sha[:12]}.")
        if usage is not None:  # what the model candidates cost, and why any were refused
            for r in results:
                for note in r.notes:
                    if "model candidate refused" in note:
                        err(f"Note: {r.source}:{note}")
            err(usage.summary())
    if any(r.errors for r in results):
        raise typer.Exit(1)


def _passed_note(passed: list[dict[str, str]], verbose: bool) -> str:
    """The summary's note of the folder files not read: those with no messages always (a
    README.txt beside the chats), the others of another type only with --verbose."""
    from mdmem.edit.ingest import EMPTY, NO_MESSAGES

    empty = sum(p["why"] == NO_MESSAGES for p in passed)
    other = sum(p["why"] != NO_MESSAGES and EMPTY not in p["why"] for p in passed)
    parts = []
    if empty:
        parts.append(f"{empty} file{'s' * (empty != 1)} with no messages passed over"
                     + ("" if verbose else " (--verbose names them)"))  # fmt: skip
    if other and verbose:
        parts.append(f"{other} other file{'s' * (other != 1)} passed over")
    return "".join(f"; {p}" for p in parts)


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
