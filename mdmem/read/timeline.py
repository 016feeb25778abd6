"""The timeline of a vault: every value change in time order with its cause (pure).

Events come from `.mdmem/journal.jsonl` (each applied change with its decision and cause);
facts the journal does not cover (written by hand, or from before the journal) get events
from their files' history. A cascade is grouped under the change that started it. A fact the
person asked to forget shows only that it was forgotten: its values are left out of every
event, even while an unpurged journal still holds them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from mdmem.errors import MdmemError
from mdmem.model.factfile import Fact, from_mapping
from mdmem.model.life import FIELDS, family, fields_of
from mdmem.model.periods import added_history, instant, periods

KINDS = ("stated", "derived", "uncertain", "expired", "deleted", "confirmed")
_DECISION_KIND = {
    "ADD": "stated", "UPDATE": "stated", "BACKFILL": "stated", "DERIVE": "derived",
    "UNCERTAIN": "uncertain", "EXPIRE": "expired", "DELETE": "deleted", "CONFIRM": "confirmed",
    "CORRECT": "stated",
}  # fmt: skip


@dataclass
class Event:
    """One change of one fact."""

    id: str
    at: str  # world time the change speaks of
    fact: str
    kind: str  # stated | derived | uncertain | expired | deleted | confirmed | …
    value: Any = None
    previous: Any = None
    status: str = "active"
    source: str | None = None
    cause: str | None = None  # the fact whose change caused this one
    cause_change: str | None = None  # changed | uncertain | expired | deleted
    recorded: str = ""  # when mdmem learned it
    journal_id: str | None = None
    backfilled: bool = False
    redacted: bool = False
    seq: int = -1  # the journal entry's position: ties on a day keep the order things happened
    shape: str | None = None  # the fact's kind after the change: none | unnamed | event | plan
    # An event's or a plan's own fields after the change (when, when_said, due, where, with,
    # fulfilled_by …: model/life.py), or for a plan called off, the ones it had.
    detail: dict[str, Any] = field(default_factory=dict)
    children: list[Event] = field(default_factory=list)
    forgot: frozenset[str] = frozenset()  # FORGET: the values it took from the fact

    @property
    def entity(self) -> str:
        return self.fact.split("/", 1)[0]

    @property
    def attribute(self) -> str:
        return self.fact.split("/", 1)[-1]

    def to_json(self, caused_by: str | None = None) -> dict[str, Any]:
        return {
            "id": self.id, "at": self.at, "fact": self.fact, "kind": self.kind,
            "value": self.value, "previous": self.previous, "status": self.status,
            "source": self.source, "cause": self.cause, "cause_change": self.cause_change,
            "recorded": self.recorded, "journal_id": self.journal_id,
            "backfilled": self.backfilled, "redacted": self.redacted, "caused_by": caused_by,
            **({"shape": self.shape} if self.shape else {}),
            **({"detail": self.detail} if self.detail else {}),
        }  # fmt: skip


def build_timeline(
    facts: Mapping[str, Fact],
    entries: Iterable[dict[str, Any]],
    *,
    attribute: str | None = None,
    entity: str | None = None,
    since: str | None = None,
    until: str | None = None,
    present: Iterable[str] | None = None,
) -> list[Event]:
    """Head events in time order, each with the cascade it caused as children.

    `present` names the facts whose files exist (parsed or not); a fact the journal mentions
    whose file is gone is treated as forgotten. Default: the keys of `facts`.
    """
    heads: list[Event] = []
    seen: set[str] = set()
    firsts: dict[str, Fact] = {}  # the state before the journal's first change of a fact
    for seq, entry in enumerate(entries):
        by_key: dict[str, Event] = {}
        for i, change in enumerate(entry.get("changes") or []):
            key = str(change.get("fact"))
            before = _fact(change.get("before"), key)
            if key not in seen and before is not None:
                firsts[key] = before
            seen.add(key)
            for ev in _journal_events(entry, i, change, before):
                ev.seq = seq
                parent = by_key.get(str(change.get("cause"))) if change.get("cause") else None
                while parent is not None and parent.cause is not None and parent.cause in by_key:
                    parent = by_key[parent.cause]  # the root of the cascade in this entry
                by_key[key] = ev
                (parent.children if parent is not None else heads).append(ev)
    for key, before in sorted(firsts.items()):
        heads.extend(_file_events(before, f"before:{key}"))
    for key, fact in sorted(facts.items()):
        if key not in seen:
            heads.extend(_file_events(fact, f"file:{key}"))
    _redact(heads, facts, set(facts) if present is None else set(present))
    heads.sort(key=lambda e: (instant(e.at), e.seq, e.recorded, e.id))
    return [h for h in heads if _wanted(h, attribute, entity, since, until)]


def flatten(heads: list[Event]) -> list[tuple[Event, Event | None]]:
    """(event, its head or None) in display order."""
    return [(e, None if e is h else h) for h in heads for e in (h, *h.children)]


def _wanted(head: Event, attribute: str | None, entity: str | None, since: str | None,
            until: str | None) -> bool:  # fmt: skip
    day = head.at[:10]
    if (since and day < since) or (until and day > until):
        return False
    group = (head, *head.children)
    if attribute and not any(e.attribute == attribute for e in group):
        return False
    return not entity or any(e.entity == entity for e in group)


def _fact(mapping: Any, key: str) -> Fact | None:
    if not isinstance(mapping, dict) or mapping.get("purged"):
        return None
    try:
        return from_mapping(mapping, path=f"journal:{key}")
    except MdmemError:  # an odd journal record is skipped, not fatal to a read
        return None


def _journal_events(
    entry: dict[str, Any], i: int, change: dict[str, Any], before: Fact | None
) -> list[Event]:
    """The events of one journal change: one, or one per value a BACKFILL added."""
    ev = _journal_event(entry, i, change, before)
    if ev is None or not ev.backfilled:
        return [] if ev is None else [ev]
    after = _fact(change.get("after"), ev.fact)
    assert after is not None  # a backfill event is only made from a readable `after`
    out = []
    for n, h in enumerate(added_history(before, after)):
        out.append(replace(
            ev, id=ev.id if n == 0 else f"{ev.id}.{n}", value=h.get("value"),
            at=str(h.get("valid_from") or ev.at), source=h.get("source"), children=[],
        ))  # fmt: skip
    return out


def _journal_event(
    entry: dict[str, Any], i: int, change: dict[str, Any], before: Fact | None
) -> Event | None:
    key = str(change.get("fact"))
    decision = str(change.get("decision") or "")
    after_map = change.get("after")
    after = _fact(after_map, key)
    purged = isinstance(after_map, dict) and bool(after_map.get("purged"))
    kind = _DECISION_KIND.get(decision, decision.lower() or "changed")
    old = before.last_value() if before is not None and before.status != "deleted" else None
    ev = Event(
        id=f"{entry.get('id', '?')}:{i}", at=str(entry.get("time") or "")[:10], fact=key,
        kind=kind, previous=old, recorded=str(entry.get("time") or ""),
        journal_id=entry.get("id"), cause=change.get("cause"), redacted=purged,
    )  # fmt: skip
    if after is None:
        if purged or kind == "deleted":
            ev.status = "deleted" if kind == "deleted" else "purged"
            return ev
        return None
    ev.status, ev.source, ev.value = after.status, after.source, after.value
    ev.shape, ev.detail = _life(after)
    if decision == "FORGET" and before is not None:  # some values forgotten: never shown again
        ev.forgot = frozenset(_held(before) - _held(after))
    why = after.uncertain_because or {}
    if decision == "BACKFILL":
        # The event is the earlier value that was added, not the (unchanged) current one.
        if not added_history(before, after):
            return None
        ev.previous, ev.backfilled, ev.status = None, True, "archived"
    elif kind == "expired" and before is not None and before.status == "expired":
        return None  # already unknown; only the recorded cause changed
    elif kind in ("uncertain", "expired") and why:
        ev.at = str(why.get("changed_at") or ev.at)
        ev.cause_change = why.get("change")
        ev.value = after.value if after.value is not None else None
    elif kind == "expired" and after.history:
        ev.at = str(after.history[-1].get("valid_to") or ev.at)
    elif kind == "derived":
        ev.at = str((after.derived_from or {}).get("valid_from") or after.valid_from or ev.at)
        ev.cause_change = "changed"
    elif kind in ("stated", "changed") and after.valid_from:
        ev.at = after.valid_from
        if before is not None and before.value == after.value and before.status == after.status:
            return None  # only learned dependencies changed: no value change to show
    return ev


def _file_events(fact: Fact, prefix: str) -> list[Event]:
    """Events read from a fact file's history and state, for changes the journal lacks."""
    out: list[Event] = []
    previous: Any = None
    for n, p in enumerate(periods(fact)):
        derived = (p.current and bool(fact.derived_from)) or "derived" in (p.reason or "")
        status = p.status if p.current else "archived"
        out.append(Event(f"{prefix}:{n}", p.start or fact.recorded_at or "", fact.key,
                         "derived" if derived else "stated", p.value, previous, status, p.source,
                         cause=(fact.derived_from or {}).get("fact") if derived and p.current else None,
                         recorded=fact.recorded_at or "", shape=fact.kind if p.current else None,
                         detail=fields_of(fact) if p.current else {}))  # fmt: skip
        previous = p.value
    why = fact.uncertain_because or {}
    if fact.status in ("uncertain", "expired"):
        at = why.get("changed_at") or (fact.history[-1].get("valid_to") if fact.history else None)
        out.append(Event(f"{prefix}:{fact.status}", str(at or fact.recorded_at or ""), fact.key,
                         fact.status, fact.value, previous, fact.status, fact.source,
                         cause=why.get("fact"), cause_change=why.get("change"),
                         recorded=fact.recorded_at or ""))  # fmt: skip
    if fact.status == "deleted":
        out.append(Event(f"{prefix}:deleted", (fact.recorded_at or "")[:10], fact.key, "deleted",
                         status="deleted", source=fact.source, recorded=fact.recorded_at or ""))  # fmt: skip
    return out


def _held(fact: Fact) -> set[str]:
    values = [fact.value, *(h.get("value") for h in fact.history)]
    return {str(i) for v in values for i in (v if isinstance(v, list) else [v]) if i is not None}


def _life(fact: Fact) -> tuple[str | None, dict[str, Any]]:
    """(kind, its own fields) of a fact after a change; a plan called off is still a plan, its
    fields taken from the history entry that archived it."""
    if fact.kind is None and family(fact.attribute) and fact.status == "expired" and fact.history:
        last = fact.history[-1]
        return family(fact.attribute), {k: last[k] for k in (*FIELDS, "reason") if last.get(k)}
    return fact.kind, fields_of(fact)


def _redact(heads: list[Event], facts: Mapping[str, Fact], present: set[str]) -> None:
    """Blank every value of a forgotten fact up to its (last) deletion, and every value a
    forget took from a fact that kept others."""
    events = [e for h in heads for e in (h, *h.children)]
    last_delete: dict[str, int] = {}
    forgot: dict[str, set[str]] = {}
    for e in events:
        if e.kind == "deleted":
            last_delete[e.fact] = max(e.seq, last_delete.get(e.fact, -1))
        forgot.setdefault(e.fact, set()).update(e.forgot)
    for e in events:
        went = forgot.get(e.fact, set())
        if went and (str(e.value) in went or str(e.previous) in went):
            e.value = None if str(e.value) in went else e.value
            e.previous = None if str(e.previous) in went else e.previous
            e.redacted = True
    for e in events:
        fact = facts.get(e.fact)
        gone = e.fact not in present or (fact is not None and fact.status == "deleted")
        if gone or (e.fact in last_delete and e.seq <= last_delete[e.fact]) or e.redacted:
            e.value = e.previous = None
            e.detail = {}
            e.redacted = True
