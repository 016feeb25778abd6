"""ingest (transcripts → facts) and undo (reverse one journal entry)."""

from __future__ import annotations

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
    check_date,
    command,
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
from mdmem.engine.cascade import Change

if TYPE_CHECKING:  # the extractors cost ~80 ms to import: only `ingest` itself loads them
    from mdmem.edit.ingest_result import IngestResult


def _table(result: IngestResult) -> Table:
    """One row per fact, in its final state: the changes a batch made to one fact (stated, then
    cascaded into, say) are one row, its causes joined, each message it was said in listed."""
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    for col in ("decision", "fact", "change", "because", "said at"):
        table.add_column(col)
    said: dict[str, list[str]] = {}
    for st, decision in result.plan.decisions:
        where = st.source.rpartition("#")[2] if "#" in st.source else ""
        lines = said.setdefault(st.key, [])
        if decision != "NOOP" and where and where not in lines:
            lines.append(where)
    by_key: dict[str, list[Change]] = {}
    for c in result.plan.changes:
        by_key.setdefault(c.key, []).append(c)
    for key, changes in by_key.items():
        last = changes[-1]
        # A cause counts only after the fact was last stated: a statement overrides its doubt.
        direct = max((n for n, c in enumerate(changes) if c.cause is None), default=-1)
        causes = list(dict.fromkeys(c.cause for c in changes[direct + 1 :] if c.cause))
        style = render.STATUS_STYLE.get(last.after.status if last.after else "deleted", "")
        # New to the vault is an ADD, whatever the batch did to it after.
        decision = "ADD" if changes[0].before is None and last.after is not None else last.decision
        table.add_row(
            f"[{style}]{decision}[/]", render.escape(key), render.escape(_text(changes)),
            render.escape(f"{', '.join(causes)} changed" if causes else ""),
            ", ".join(said.get(key, [])) if direct >= 0 else "",
        )  # fmt: skip
    return table


def _text(changes: list[Change]) -> str:
    """From the fact before the batch to the fact after it."""
    first, last = changes[0], changes[-1]
    if last.decision == "DELETE":
        return "forgotten"
    if all(c.decision == "BACKFILL" for c in changes):
        added = [t for c in changes if (t := describe.backfilled(c))]
        if added:  # the earlier values it added, not the unchanged current one
            return "; ".join(added)
    before, after = describe.show_value(first.before), describe.show_value(last.after)
    if first.before is None or before == after:
        status = last.after.status if last.after else ""
        return after + (f" ({status})" if status and status != "active" else "")
    return f"{before} → {after}"


def _print(r: IngestResult, *, quiet: bool = False, reprocess: bool = False) -> None:
    """One source's outcome; `quiet` keeps only errors and changes."""
    if r.skipped:
        if not quiet:
            prev = r.previous or {}
            done = "read again, nothing new" if reprocess else "nothing to do"
            typer.echo(
                f"{r.source}: already ingested (journal {prev.get('id', '?')},"
                f" {prev.get('time', '?')}); {done}.",
                err=True,
            )
        return
    for e in r.errors:
        typer.echo(f"Error: {e}", err=True)
    for w in r.warnings:
        typer.echo(f"Warning: {w}", err=True)
    if r.failed or (quiet and not r.plan.changes):
        return
    noops = sum(d == "NOOP" for _, d in r.plan.decisions)
    head = f"[bold]{render.escape(r.source)}[/]"
    if r.entry:
        head += f"  [dim]journal {r.entry['id']}[/]"
    render.stdout.print(head)
    if r.plan.changes:
        render.print_table(_table(r), wrap=3)
    else:
        render.stdout.print("  nothing changed")
    if noops and not quiet:
        render.stdout.print(f"  [dim]{noops} statement{'s' * (noops != 1)} already known (NOOP)[/]")


@command()
def ingest(
    paths: Annotated[
        list[str], typer.Argument(help="Transcript files, folders (name order), or - for stdin.")
    ],
    date: Annotated[
        str | None,
        typer.Option(
            "--date",
            callback=check_date,
            help="Date of messages that carry none (default: the file's modification time).",
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
    from mdmem.edit.ingest import TRANSCRIPT_TYPES, ingest_paths
    from mdmem.edit.ingest_result import summary
    from mdmem.extract.model_cache import VAULT_CACHE
    from mdmem.extract.plugins import finder_for

    options = {} if llm is None else {
        "timeout": llm_timeout, "retries": llm_retries, "concurrency": llm_concurrency,
        "cache_dir": None if no_cache else v.meta / VAULT_CACHE,
    }  # fmt: skip
    extractor = finder_for(llm, api_base, **options)  # the rules, or with --llm the model finder
    types = [t for e in ext for t in e.replace(",", " ").split()] if ext else TRANSCRIPT_TYPES
    passed: list[str] = []

    def passed_over(path: Path) -> None:
        passed.append(str(path))
        if verbose and not as_json:
            typer.echo(f"{path}: not a transcript type ({' '.join(types)}); passed over.", err=True)

    results = ingest_paths(v, paths, date=date, extractor=extractor, dry_run=dry_run,
                           commit=commit, progress=not as_json, reprocess=reprocess,
                           types=types, passed_over=passed_over)  # fmt: skip
    usage = getattr(getattr(extractor, "config", None), "usage", None)
    if as_json:
        data = {"dry_run": dry_run, "summary": summary(results),
                "results": [r.to_json() for r in results], "passed_over": passed}  # fmt: skip
        if usage is not None:
            data["usage"] = usage.to_json()
        print_json(data)
    else:
        for r in results:
            _print(r, quiet=quiet, reprocess=reprocess)
        if dry_run:
            render.stdout.print("[dim](dry run: nothing was written)[/]")
        line = summary(results)
        if verbose and passed:
            line += f"; {len(passed)} other file{'s' * (len(passed) != 1)} passed over"
        typer.echo(line, err=True)
        sha = next((r.commit for r in results if r.commit), None)
        if sha:
            typer.echo(f"Committed {sha[:12]}.", err=True)
        if usage is not None:  # what the model candidates cost, and why any were refused
            for r in results:
                for note in r.notes:
                    if "model candidate refused" in note:
                        typer.echo(f"Note: {r.source}:{note}", err=True)
            typer.echo(usage.summary(), err=True)
    if any(r.errors for r in results):
        raise typer.Exit(1)


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
