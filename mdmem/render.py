"""Human-readable output with rich: changes, facts, pending questions and the graph."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.tree import Tree

from .cascade import Change
from .factfile import Fact
from .graph import Graph
from .periods import added_history
from .rules import has_cjk

STATUS_STYLE = {
    "active": "green", "tentative": "cyan", "uncertain": "yellow",
    "expired": "magenta", "deleted": "red", "archived": "dim",
}  # fmt: skip

stdout = Console(highlight=False, soft_wrap=True)


def show_value(fact: Fact | None) -> str:
    if fact is None:
        return "—"
    if fact.status == "deleted":
        return "(removed)"
    v = fact.value
    if v is None:
        return "(unknown)"
    return ", ".join(v) if isinstance(v, list) else v


def backfilled(c: Change) -> str | None:
    """'+ Vancouver (2019-01-01 – 2021-01-01)' for a BACKFILL: the earlier value it added
    (the current value is unchanged, so showing it would say nothing); None otherwise."""
    if c.decision != "BACKFILL" or c.after is None:
        return None
    added = added_history(c.before, c.after)
    if not added:
        return None
    parts = []
    for h in added:
        v = h.get("value")
        shown = ", ".join(v) if isinstance(v, list) else "?" if v is None else str(v)
        start, end = (str(h.get(k) or "?")[:10] for k in ("valid_from", "valid_to"))
        parts.append(f"+ {shown} ({start} – {end})")
    return "; ".join(parts)


def change_line(c: Change) -> str:
    before, after = show_value(c.before), show_value(c.after)
    added = backfilled(c)
    if c.decision == "DELETE":
        text = "forgotten"
    elif added is not None:
        text = added
    elif c.before is None:
        text = after
    elif before == after:
        text = f"{after} ({c.after.status if c.after else ''})"
    else:
        text = f"{before} → {after}"
    cause = f"  (because {c.cause} changed)" if c.cause else ""
    return f"{c.decision:<9} {c.key}  {text}{cause}"


def print_changes(changes: list[Change], *, dry_run: bool = False) -> None:
    if not changes:
        stdout.print("Nothing changed.")
        return
    for c in changes:
        style = STATUS_STYLE.get(c.after.status if c.after else "deleted", "")
        stdout.print(f"[{style}]{escape(change_line(c))}[/]")
    if dry_run:
        stdout.print("[dim](dry run: nothing was written)[/]")


def change_json(c: Change) -> dict[str, Any]:
    return {
        "fact": c.key,
        "decision": c.decision,
        "cause": c.cause,
        "before": c.before.to_mapping() if c.before else None,
        "after": c.after.to_mapping() if c.after else None,
    }


def result_json(result: Any) -> dict[str, Any]:
    """A write's outcome (vault.Result) for --json: decisions, changes and the journal id."""
    return {
        "dry_run": result.dry_run,
        "journal_id": result.entry["id"] if result.entry else None,
        "decisions": [{"fact": st.key, "decision": d} for st, d in result.plan.decisions],
        "changes": [change_json(c) for c in result.plan.changes],
    }


def facts_table(facts: list[Fact]) -> Table:
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    for col in ("fact", "value", "status", "since", "note"):
        table.add_column(col)
    for f in facts:
        note = ""
        why = f.uncertain_because or {}
        if why:
            note = f"{why.get('origin') or why.get('fact')} changed on {why.get('changed_at')}"
        elif f.derived_from:
            note = f"derived from {f.derived_from.get('fact')}"
        style = STATUS_STYLE.get(f.status, "")
        table.add_row(
            escape(f.key),
            escape(show_value(f)),
            f"[{style}]{f.status}[/]",
            escape(f.valid_from or ""),
            escape(note),
        )
    return table


def pick_lang(question: dict[str, str], sample: Any, lang: str | None) -> str:
    if lang is None:
        lang = "zh" if isinstance(sample, str) and has_cjk(sample) else "en"
    return question.get(lang) or question.get("en") or next(iter(question.values()), "")


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
