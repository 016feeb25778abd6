"""Human-readable output with rich: changes, facts, pending questions and the graph."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text
from rich.tree import Tree

from mdmem.engine.cascade import Change
from mdmem.engine.describe import change_line, show_value
from mdmem.lang.phrases import doc
from mdmem.model.factfile import Fact
from mdmem.model.graph import Graph

STATUS_STYLE = {
    "active": "green", "tentative": "cyan", "uncertain": "yellow",
    "expired": "magenta", "deleted": "red", "archived": "dim",
}  # fmt: skip

stdout = Console(highlight=False, soft_wrap=True)


def _text(cell: object) -> Text:
    if isinstance(cell, Text):
        return cell
    return Text.from_markup(cell) if isinstance(cell, str) else Text(str(cell))


def _plain(cell: object) -> str:
    return _text(cell).plain.replace("\t", " ").replace("\n", " ")


def _width(cells: list[object]) -> int:
    return max((_text(c).cell_len for c in cells), default=0)


def tsv(table: Table) -> str:
    """The table as tab-separated rows, header first, no cell ever cut or wrapped."""
    columns = [[col.header, *col._cells] for col in table.columns]
    rows = zip(*columns, strict=True) if columns else iter(())
    return "".join("\t".join(_plain(c) for c in row).rstrip("\t") + "\n" for row in rows)


def print_table(table: Table, console: Console | None = None, *, wrap: int = 1) -> None:
    """A table for a person on a terminal, or plain tab-separated rows for a pipe or a log.

    On a terminal the names (every column but the last `wrap` ones) keep their full width and
    the last columns share what is left, wrapping at whole words: each is at least its longest
    word wide. A terminal too narrow even for that gets longer lines from mdmem, never a word
    cut in two.
    """
    out = console or stdout
    if not out.is_terminal:
        out.file.write(tsv(table))
        out.file.flush()
        return
    cols = table.columns
    if not cols:
        return
    wrap = max(1, min(wrap, len(cols)))
    _, right, _, left = table.padding
    fixed = (left + right) * (len(cols) - (0 if table.pad_edge else 1))  # padding between cells
    for col in cols[:-wrap]:
        col.no_wrap, col.overflow = True, "ignore"
        col.width = _width([col.header, *col._cells])
        fixed += col.width
    mins = [_longest_word([c.header, *c._cells]) for c in cols[-wrap:]]
    maxs = [_width([c.header, *c._cells]) for c in cols[-wrap:]]
    widths = _share(out.width - fixed, mins, maxs)
    for col, width in zip(cols[-wrap:], widths, strict=True):
        col.no_wrap, col.overflow, col.width = False, "fold", width
    needed = fixed + sum(widths)
    if needed <= out.width:
        out.print(table)
        return
    wide = Console(file=out.file, width=needed, color_system=out.color_system,  # type: ignore[arg-type]
                   force_terminal=True, highlight=False, soft_wrap=True)  # fmt: skip
    wide.print(table)


def _share(space: int, mins: list[int], maxs: list[int]) -> list[int]:
    """Column widths from their minimums: the space left goes first to the columns that need
    little to be whole (a short "said at" is never wrapped to give a long one a cell more)."""
    widths = list(mins)
    space -= sum(widths)
    order = sorted(range(len(widths)), key=lambda i: maxs[i] - widths[i])
    for left, i in zip(range(len(order), 0, -1), order, strict=True):
        give = max(0, min(maxs[i] - widths[i], space // left))
        widths[i] += give
        space -= give
    for i in order:  # what integer shares left over
        give = max(0, min(maxs[i] - widths[i], space))
        widths[i] += give
        space -= give
    return widths


def _longest_word(cells: list[object]) -> int:
    return max((Text(w).cell_len for c in cells for w in _text(c).plain.split()), default=0)


def prose(markup: str) -> None:
    """A line of text with markup: wrapped at whole words on a terminal, one line in a pipe."""
    stdout.print(markup, soft_wrap=not stdout.is_terminal)


def print_changes(changes: list[Change], *, dry_run: bool = False) -> None:
    if not changes:
        stdout.print(doc("nothing_changed"))
        return
    # One Text, one print: a cascade can list a thousand changes, and rich's cost is per call.
    lines = Text()
    for c in changes:
        style = STATUS_STYLE.get(c.after.status if c.after else "deleted", "")
        lines.append(change_line(c), style=style)
        lines.append("\n")
    stdout.print(lines, end="")
    if dry_run:
        stdout.print(f"[dim]{escape(doc('dry_run'))}[/]")


def facts_table(facts: list[Fact]) -> Table:
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    for col in ("fact", "value", "status", "since", "note"):
        table.add_column(col)
    for f in facts:
        note = ""
        why = f.uncertain_because or {}
        if why:
            note = doc("changed_on", fact=why.get("origin") or why.get("fact"),
                       date=why.get("changed_at"))  # fmt: skip
        elif f.derived_from:
            note = doc("derived_from", cause=f.derived_from.get("fact"))
        style = STATUS_STYLE.get(f.status, "")
        table.add_row(
            escape(f.key),
            escape(show_value(f)),
            f"[{style}]{f.status}[/]",
            escape(f.valid_from or ""),
            escape(note),
        )
    return table


def graph_tree(graph: Graph, attributes: list[str]) -> Tree:
    """Declared rules per attribute, then learned edges between facts."""
    root = Tree("dependencies")
    by_when: dict[str, list[str]] = {}
    for d in graph.rules.dependencies:
        by_when.setdefault(d.when, []).append(f"{d.then}  [dim]({d.action})[/]")
    for when in attributes:
        if when in by_when:
            node = root.add(escape(when))
            for line in by_when[when]:
                node.add(line)
    learned = [e for e in graph.edges() if e.dep.learned]
    if learned:
        node = root.add("[bold]learned from conversation[/]")
        for e in learned:
            node.add(f"{escape(e.trigger)} → {escape(e.dependent)}  [dim]({e.dep.action})[/]")
    return root


def _edges(graph: Graph) -> list[tuple[str, str, str]]:
    declared = [(d.when, d.then, d.action) for d in graph.rules.dependencies]
    learned = [(e.trigger, e.dependent, e.dep.action) for e in graph.edges() if e.dep.learned]
    return declared + learned


def graph_json(graph: Graph, attributes: list[str]) -> dict[str, object]:
    """The graph as data: every attribute, the declared rules, and the edges learned between
    facts (the same edges `--format tree|mermaid|dot` draw)."""
    declared = [
        {"when": d.when, "then": d.then, "action": d.action, "id": d.id or None, "learned": False}
        for d in graph.rules.dependencies
    ]
    learned = [
        {"when": e.trigger, "then": e.dependent, "action": e.dep.action, "id": e.dep.id, "learned": True}
        for e in graph.edges() if e.dep.learned
    ]  # fmt: skip
    return {"attributes": attributes, "edges": declared + learned}


def graph_mermaid(graph: Graph) -> str:
    lines = ["graph TD"]
    ids: dict[str, str] = {}

    def node(name: str) -> str:
        if name not in ids:
            ids[name] = f"n{len(ids)}"
            lines.append(f'  {ids[name]}["{name}"]')
        return ids[name]

    for a, b, action in _edges(graph):
        na, nb = node(a), node(b)
        lines.append(f"  {na} -->|{action}| {nb}")
    return "\n".join(lines) + "\n"


def graph_dot(graph: Graph) -> str:
    lines = ["digraph mdmem {", "  rankdir=LR;"]
    for a, b, action in _edges(graph):
        lines.append(f'  "{a}" -> "{b}" [label="{action}"];')
    lines.append("}")
    return "\n".join(lines) + "\n"
