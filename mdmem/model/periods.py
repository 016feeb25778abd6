"""Validity periods of a fact: each value it had, from when until when (pure)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mdmem.model.factfile import Fact


@dataclass(frozen=True)
class Period:
    """One value and the world time it held: [start, end), end None while it still holds."""

    value: Any
    start: str | None
    end: str | None
    status: str  # archived, or the fact's status for its current value
    current: bool
    source: str | None = None
    reason: str | None = None


def periods(fact: Fact) -> list[Period]:
    """The fact's values in time order: history first, then the current value (if any)."""
    if fact.status == "deleted":
        return []
    hist = sorted(
        (h for h in fact.history if h.get("value") is not None),
        key=lambda h: instant(h.get("valid_from")),
    )
    out = [
        Period(
            h["value"],
            h.get("valid_from"),
            h.get("valid_to"),
            "archived",
            False,
            h.get("source"),
            h.get("reason"),
        )  # fmt: skip
        for h in hist
    ]
    if fact.value is not None:
        out.append(
            Period(fact.value, fact.valid_from, fact.valid_to, fact.status, True, fact.source)
        )
    return out


def instant(when: str | None, *, end_of_day: bool = False) -> str:
    """A sortable 'YYYY-MM-DDTHH:MM:SS' for a date or ISO time ('' when unknown)."""
    if not when:
        return ""
    if len(when) == 10:
        return when + ("T23:59:59" if end_of_day else "T00:00:00")
    return when.replace(" ", "T")[:19].ljust(19, "0")


def at_time(ps: list[Period], when: str) -> Period | None:
    """The period holding on `when`; a date means the end of that day, so a change on it counts."""
    t = instant(when, end_of_day=True)
    holding = [p for p in ps if instant(p.start) <= t and (p.end is None or t < instant(p.end))]
    return max(holding, key=lambda p: instant(p.start), default=None)


def added_history(before: Fact | None, after: Fact) -> list[dict[str, Any]]:
    """The history entries a change added (a BACKFILL's earlier value), oldest first.

    An entry counts as already there when `before` held the same value from the same day: a
    backfill slotted in after it only moves its end ("Vancouver from 2019" then "Calgary
    from 2021" shortens Vancouver's period; Calgary is the one added)."""
    had = [h for h in (before.history if before is not None else [])]
    seen = {(_ident(h.get("value")), h.get("valid_from")) for h in had}
    added = [h for h in after.history if (_ident(h.get("value")), h.get("valid_from")) not in seen]
    return sorted(added, key=lambda h: instant(h.get("valid_from")))


def _ident(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value
