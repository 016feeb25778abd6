"""Human-readable output with rich: changes, facts, pending questions and the graph."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table
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


def print_changes(changes: list[Change], *, dry_run: bool = False) -> None:
    if not changes:
        stdout.print(doc("nothing_changed"))
        return
    for c in changes:
        style = STATUS_STYLE.get(c.after.status if c.after else "deleted", "")
        stdout.print(f"[{style}]{escape(change_line(c))}[/]")
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
