"""Timeline output: a rich table, Markdown, JSON and a Mermaid Gantt chart (pure but for rich)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from rich.markup import escape
from rich.table import Table

from mdmem.engine.describe import SHAPE_WORDS
from mdmem.lang.phrases import doc
from mdmem.model.factfile import Fact
from mdmem.model.periods import Period, periods
from mdmem.read.timeline import Event, flatten

# How a cause changed → the words for it (lang/documents.py).
CHANGE_WORDS = {
    "changed": "how_changed", "uncertain": "how_uncertain", "expired": "how_expired",
    "deleted": "how_removed", "purged": "how_removed",
}  # fmt: skip
STYLE = {
    "stated": "green", "derived": "blue", "confirmed": "green", "uncertain": "yellow",
    "expired": "magenta", "deleted": "red",
}  # fmt: skip


def value_text(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return "" if value is None else str(value)


def describe(e: Event) -> str:
    """Why the value changed, in words."""
    if e.shape in ("event", "plan") and not e.redacted and (said := _life_change(e)):
        return said
    how = doc(CHANGE_WORDS.get(str(e.cause_change), "how_changed"))
    if e.kind == "stated":
        said = doc("stated_later") if e.backfilled else doc("stated")
        return said + (doc("stated_unconfirmed") if e.status == "tentative" else "")
    if e.kind == "derived":
        return doc("derived_from", cause=e.cause) if e.cause else doc("derived_by_rule")
    if e.kind == "uncertain":
        return doc("uncertain_because", cause=e.cause, how=how) if e.cause else doc("uncertain")
    if e.kind == "expired":
        return doc("expired_because", cause=e.cause, how=how) if e.cause else doc("no_longer_true")
    if e.kind == "deleted":
        return doc("forgotten_by_request")
    return e.kind


def _life_change(e: Event) -> str:
    """What became of an event or a plan: it happened, was planned, came true, is overdue, was
    called off or did not happen ('' for a change the plain words say)."""
    if e.shape == "event":
        return doc("life_happened") if e.kind == "stated" else ""
    if e.kind == "stated":
        return doc("life_planned")
    if e.kind == "confirmed" and e.detail.get("fulfilled_by"):
        return doc("life_came_true")
    if e.kind == "uncertain" and e.cause_change == "overdue":
        return doc("life_overdue")
    if e.kind == "expired":
        return doc("life_not_done") if e.detail.get("reason") == "rejected by the person" else doc("life_called_off")
    return ""


def life_text(value: Any, detail: dict[str, Any]) -> str:
    """An event or a plan in a line: what, the words its time was said in, where, with whom,
    when it is due: 'canoe trip (“two weekends ago”; with Mia)', 'move to Utrecht, due 2024-03'."""
    parts = [f"“{detail['when_said']}”"] if detail.get("when_said") else []
    if detail.get("where") and str(detail["where"]) not in str(value):
        parts.append(doc("life_where", where=detail["where"]))
    if detail.get("with"):
        parts.append(doc("life_with", people=", ".join(detail["with"])))
    text = value_text(value) + (f" ({'; '.join(parts)})" if parts else "")
    if detail.get("due"):
        text = doc("life_due", value=text, due=detail["due"])
    return text


def when_text(e: Event) -> str:
    """The day an event row is shown at: its own time at the precision said, else the change's."""
    if e.shape == "event" and e.kind == "stated" and e.detail.get("when") and not e.redacted:
        return str(e.detail["when"])
    return e.at[:10]


def change_text(e: Event) -> str:
    """The value before and after, as far as it may be shown."""
    if e.redacted:
        return doc("value_removed")
    if e.shape in ("event", "plan"):
        return life_text(e.value if e.value is not None else e.detail.get("value") or e.previous, e.detail)
    new, old = value_text(e.value), value_text(e.previous)
    if e.shape in SHAPE_WORDS:  # what kind of fact it became says more
        new = doc(SHAPE_WORDS[e.shape], value=new)
    if e.kind == "expired":
        return doc("value_to_unknown", old=old) if old else doc("unknown")
    if e.kind == "uncertain":
        return doc("value_doubtful", value=new or old)
    if old and new and old != new:
        return doc("value_change", old=old, new=new)
    return new


def to_json(heads: list[Event]) -> str:
    events = [e.to_json(h.id if h is not None else None) for e, h in flatten(heads)]
    return json.dumps({"events": events}, ensure_ascii=False, indent=2) + "\n"


def to_markdown(heads: list[Event]) -> str:
    """A nested Markdown list: each change, and under it the cascade it caused."""
    lines = [doc("timeline_title"), ""]
    if not heads:
        lines.append(doc("timeline_empty"))
    for h in heads:
        lines.append(f"- **{when_text(h)}** {_md_line(h)}")
        lines.extend(f"  - {_md_line(c)}" for c in h.children)
    return "\n".join(lines) + "\n"


def _md_line(e: Event) -> str:
    value = change_text(e)
    src = f" _({e.source})_" if e.source and e.kind in ("stated", "confirmed") else ""
    shown = f": {_md_escape(value)}" if value else ""
    return f"`{e.fact}` — {describe(e)}{shown}{src}"


def _md_escape(text: str) -> str:
    return "".join("\\" + c if c in "\\`*_[]<>|" else c for c in text)


def to_table(heads: list[Event]) -> Table:
    """A rich table, coloured by kind; cascades indented under their cause."""
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    table.add_column("when", no_wrap=True)
    table.add_column("fact", no_wrap=True)
    table.add_column("change", ratio=2, overflow="fold")
    table.add_column("value", ratio=2, overflow="fold")
    table.add_column("source", overflow="fold")
    for e, head in flatten(heads):
        style = STYLE.get(e.kind, "")
        name = f"  ↳ {e.fact}" if head is not None else e.fact
        table.add_row(
            "" if head is not None else escape(when_text(e)),
            escape(name),
            f"[{style}]{escape(describe(e))}[/]" if style else escape(describe(e)),
            escape(change_text(e)),
            escape(e.source or "") if e.kind in ("stated", "confirmed") else "",
        )
    return table


# --- validity periods (Gantt) ----------------------------------------------------------------


@dataclass
class Bar:
    label: str
    start: str
    end: str
    status: str  # archived | active | tentative | uncertain
    open: bool  # still holds: drawn up to today


@dataclass
class Marker:
    day: str
    kind: str  # expired | deleted
    label: str


@dataclass
class Row:
    fact: str
    bars: list[Bar] = field(default_factory=list)
    markers: list[Marker] = field(default_factory=list)


def gantt_rows(
    facts: Mapping[str, Fact],
    *,
    today: str,
    attribute: str | None = None,
    entity: str | None = None,
    since: str | None = None,
    until: str | None = None,
) -> list[Row]:
    """One row per fact: its validity periods as bars, expiry and removal as markers."""
    rows = []
    for key, fact in sorted(facts.items()):
        if (attribute and fact.attribute != attribute) or (entity and fact.entity != entity):
            continue
        row = Row(key)
        for p in _split_doubt(fact, periods(fact)):
            start = (p.start or fact.recorded_at or today)[:10]
            end = (p.end or today)[:10]
            if (until and start > until) or (since and end < since):
                continue
            start, end = max(start, since or start), min(end, until or end)
            row.bars.append(Bar(value_text(p.value), start, max(end, start), p.status,
                                p.end is None))  # fmt: skip
        if fact.status == "expired" and fact.history:
            row.markers.append(Marker(str(fact.history[-1].get("valid_to") or today)[:10],
                                      "expired", doc("gantt_unknown_since")))  # fmt: skip
        if fact.status == "deleted":
            row.markers.append(
                Marker((fact.recorded_at or today)[:10], "deleted", doc("gantt_forgotten"))
            )
        row.markers = [m for m in row.markers if not (since and m.day < since)
                       and not (until and m.day > until)]  # fmt: skip
        if row.bars or row.markers:
            rows.append(row)
    return rows


def _split_doubt(fact: Fact, ps: list[Period]) -> list[Period]:
    """An uncertain current value was trusted until its trigger changed: two bars, not one."""
    why = fact.uncertain_because or {}
    at = str(why.get("changed_at") or "")[:10]
    if fact.status != "uncertain" or not ps or not ps[-1].current or not at:
        return ps
    last = ps[-1]
    if not last.start or not (last.start[:10] < at):
        return ps
    trusted = replace(last, end=at, status="active", current=False)
    return [*ps[:-1], trusted, replace(last, start=at)]


_MERMAID_TAG = {"archived": "done", "active": "active", "uncertain": "crit", "tentative": ""}


def to_mermaid(rows: list[Row]) -> str:
    """A Mermaid Gantt chart of validity periods."""
    lines = [
        "gantt",
        "    title " + doc("gantt_title"),
        "    dateFormat YYYY-MM-DD",
        "    axisFormat %Y-%m",
    ]
    n = 0
    for row in rows:
        lines.append(f"    section {_mermaid_text(row.fact)}")
        for bar in row.bars:
            n += 1
            tag = _MERMAID_TAG.get(bar.status, "")
            tags = f"{tag}, " if tag else ""
            label = bar.label + (
                f" ({bar.status})" if bar.status in ("uncertain", "tentative") else ""
            )
            end = bar.end if bar.end > bar.start else "1d"
            lines.append(f"    {_mermaid_text(label) or '-'} :{tags}p{n}, {bar.start}, {end}")
        for m in row.markers:
            n += 1
            lines.append(f"    {m.label} :milestone, crit, p{n}, {m.day}, 0d")
    return "\n".join(lines) + "\n"


def _mermaid_text(text: str) -> str:
    # ':' ends a task name and '#' / ';' start comments or break lines in Mermaid.
    return " ".join(text.replace(":", "∶").replace("#", "＃").replace(";", ",").split())
