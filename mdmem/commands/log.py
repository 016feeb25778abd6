"""log: the journal, newest first, with the ids `undo` takes."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.table import Table

from mdmem.commands import render
from mdmem.commands.app import JsonOpt, VaultOpt, command, here, open_vault, print_json
from mdmem.model.slug import split_key
from mdmem.store.journal import recent_entries


@command()
def log(
    attribute: Annotated[
        str | None,
        typer.Argument(help="Only entries touching this attribute (or entity/attribute)."),
    ] = None,
    limit: Annotated[
        int | None, typer.Option("--limit", "-n", min=1, help="Only the newest N entries.")
    ] = None,
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Journal entries, newest first: id, time, what caused them and what they changed."""
    v = open_vault(vault)
    fact = "/".join(split_key(attribute)) if attribute is not None else None
    entries = recent_entries(v.journal, limit=limit, fact=fact)
    if as_json:
        print_json(entries)
        return
    if not entries:
        typer.echo(
            "The journal is empty." if fact is None else f"No entry touches {fact}.", err=True
        )
        return
    for e in entries:  # a transcript named from the current folder, as ingest prints it
        src = e.get("source")
        if isinstance(src, dict) and src.get("kind") == "transcript" and isinstance(src.get("path"), str):
            e["source"] = {**src, "path": here(v, src["path"])}
    if not render.stdout.is_terminal:
        render.print_table(log_table(entries))
    else:  # on a terminal, git log's shape: the entry, then what it changed
        for e in entries:
            render.stdout.print(f"[bold yellow]{e.get('id')}[/]  {_time(e.get('time'))}  "
                                f"{render.escape(_source(e.get('command'), e.get('source')))}")  # fmt: skip
            render.print_table(change_table(e.get("changes") or []))
            render.stdout.print()
    typer.echo("`mdmem undo ID` reverses an entry (a unique start of the id is enough).", err=True)


def log_table(entries: list[dict[str, Any]]) -> Table:
    """Every change as a row of its own, with its entry's id, time and source, for pipes."""
    table = Table(show_header=True, box=None, pad_edge=False)
    for col in ("id", "time", "source", "fact", "decision", "change"):
        table.add_column(col)
    for e in entries:
        head = [
            str(e.get("id") or "?"),
            _time(e.get("time")),
            _source(e.get("command"), e.get("source")),
        ]
        for c in e.get("changes") or [{}]:
            table.add_row(*(render.escape(x) for x in head), *_cells(c))
    return table


def change_table(changes: list[dict[str, Any]]) -> Table:
    """One entry's changes: fact, decision, and what changed and why (the column that wraps)."""
    table = Table(show_header=False, box=None)  # the edge padding indents it under its entry
    for col in ("fact", "decision", "change"):
        table.add_column(col)
    for c in changes or [{}]:
        table.add_row(*_cells(c))
    return table


def _cells(c: dict[str, Any]) -> tuple[str, str, str]:
    decision = render.escape(str(c.get("decision") or ""))
    style = render.STATUS_STYLE.get(str(c.get("status") or "deleted"), "") if c else ""
    return (
        render.escape(str(c.get("fact") or "")),
        f"[{style}]{decision}[/]" if style and decision else decision,
        render.escape(_change(c)),
    )


def _time(value: Any) -> str:
    """'2026-02-10T20:00:00Z' → '2026-02-10 20:00'."""
    text = str(value or "")
    return text[:16].replace("T", " ") if len(text) >= 16 else text


def _source(command: Any, source: Any) -> str:
    """What the entry came from: a transcript's path, the undone id, the edited files, or the command."""
    src = source if isinstance(source, dict) else {}
    kind = str(src.get("kind") or command or "?")
    if kind == "transcript":
        return f"ingest {src.get('path', '?')}" + (" (reprocess)" if src.get("reprocess") else "")
    if kind == "undo":
        return f"undo {src.get('undoes', '?')}"
    if kind == "edit" and isinstance(src.get("files"), list):
        return "edit " + ", ".join(str(f) for f in src["files"])
    return str(command or kind)


def _change(c: dict[str, Any]) -> str:
    if not c:
        return "nothing changed"
    before, after = _value(c.get("before")), _value(c.get("after"))
    if c.get("decision") == "DELETE":
        text = "forgotten"
    elif c.get("decision") == "LINKS":
        text = "upstream links now " + (", ".join(map(str, c.get("upstream") or [])) or "none")
    elif c.get("before") is None:
        text = after
    elif before == after:
        text = f"{after} ({c.get('status') or '?'})"
    else:
        text = f"{before} → {after}"
    return text + (f" (because {c['cause']} changed)" if c.get("cause") else "")


def _value(v: Any) -> str:
    if isinstance(v, list):
        return ", ".join(str(x) for x in v)
    return "(unknown)" if v is None else str(v)
