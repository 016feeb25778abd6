"""ingest (transcripts → facts) and undo (reverse one journal entry)."""

from __future__ import annotations

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
from mdmem.edit.undo import undo as undo_entry
from mdmem.engine import describe

if TYPE_CHECKING:  # the extractors cost ~80 ms to import: only `ingest` itself loads them
    from mdmem.edit.ingest_result import IngestResult


def _table(result: IngestResult) -> Table:
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    for col in ("decision", "fact", "change", "because", "said at"):
        table.add_column(col)
    said = {st.key: st.source.rsplit("#", 1)[-1] for st, _ in result.plan.decisions}
    for c in result.plan.changes:
        before, after = describe.show_value(c.before), describe.show_value(c.after)
        added = describe.backfilled(c)
        if c.decision == "DELETE":
            text = "forgotten"
        elif added is not None:
            text = added  # the earlier value it added, not the unchanged current one
        elif c.before is None or before == after:
            text = after + (
                f" ({c.after.status})" if c.after and c.after.status != "active" else ""
            )
        else:
            text = f"{before} → {after}"
        style = render.STATUS_STYLE.get(c.after.status if c.after else "deleted", "")
        table.add_row(
            f"[{style}]{c.decision}[/]", render.escape(c.key), render.escape(text),
            render.escape(f"{c.cause} changed" if c.cause else ""),
            "" if c.cause else said.get(c.key, ""),
        )  # fmt: skip
    return table


def _print(r: IngestResult) -> None:
    if r.skipped:
        prev = r.previous or {}
        typer.echo(
            f"{r.source}: already ingested (journal {prev.get('id', '?')}, {prev.get('time', '?')});"
            " nothing to do.",
            err=True,
        )
        return
    for e in r.errors:
        typer.echo(f"Error: {e}", err=True)
    for w in r.warnings:
        typer.echo(f"Warning: {w}", err=True)
    if r.failed:
        return
    noops = sum(d == "NOOP" for _, d in r.plan.decisions)
    head = f"[bold]{render.escape(r.source)}[/]"
    if r.entry:
        head += f"  [dim]journal {r.entry['id']}[/]"
    render.stdout.print(head)
    if r.plan.changes:
        render.stdout.print(_table(r))
    else:
        render.stdout.print("  nothing changed")
    if noops:
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
    commit: Annotated[
        bool, typer.Option("--commit", help="Make one git commit of what this ingest changed.")
    ] = False,
    vault: VaultOpt = None,
    wait: WaitOpt = 10.0,
    dry_run: DryRunOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Read conversations and update the facts they state; cascades follow."""
    v = open_vault(vault, wait)
    from mdmem.edit.ingest import ingest_paths
    from mdmem.edit.ingest_result import summary
    from mdmem.extract.plugins import finder_for

    extractor = finder_for(llm, api_base)  # the rule finder, or with --llm the model finder
    results = ingest_paths(v, paths, date=date, extractor=extractor, dry_run=dry_run,
                           commit=commit, progress=not as_json)  # fmt: skip
    if as_json:
        print_json({"dry_run": dry_run, "summary": summary(results),
                    "results": [r.to_json() for r in results]})  # fmt: skip
    else:
        for r in results:
            _print(r)
        if dry_run:
            render.stdout.print("[dim](dry run: nothing was written)[/]")
        typer.echo(summary(results), err=True)
        sha = next((r.commit for r in results if r.commit), None)
        if sha:
            typer.echo(f"Committed {sha[:12]}.", err=True)
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
    if as_json:
        undoes = (result.entry or {}).get("source", {}).get("undoes")
        print_json({**describe.result_json(result), "undoes": undoes})
        return
    render.print_changes(result.plan.changes, dry_run=result.dry_run)
    if result.entry:
        typer.echo(f"Undone; the undo is journal entry {result.entry['id']}.", err=True)
