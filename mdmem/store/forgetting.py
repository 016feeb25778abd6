"""Planning a forget (pure): which values go, what was derived from them, what quoted them.

- A whole fact becomes a tombstone (DELETE); some of its values (`forget --text`) leave it
  (FORGET): a past value leaves the history, a current one leaves the fact with no value known.
- A value a rule derived from a forgotten value goes with it, level after level: a fact holding
  nothing else is forgotten whole, one that holds values of its own keeps those.
- A doubt that quotes a forgotten value (`uncertain_because`: old, new, its question) is asked
  again without it.
The engine plans the tombstones and their cascades; this module adds the rest to its plan.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from mdmem.engine.cascade import Change, Effect, cascade, question
from mdmem.engine.decide import Plan, Statement, plan_statements
from mdmem.model.factfile import Fact
from mdmem.model.graph import Graph
from mdmem.model.rules import Rules, norm
from mdmem.store.redaction import Target, target
from mdmem.store.statements import said_values

WHOLE = None  # `wanted[key] = WHOLE`: every value of the fact


@dataclass
class ForgetPlan:
    """What a forget writes, and what it takes from what was said and from the journal."""

    plan: Plan = field(default_factory=Plan)
    targets: list[Target] = field(default_factory=list)  # statements to cut from the episodes
    purge: dict[str, str] = field(default_factory=dict)  # key → "all" | "derived" (journal)
    values: list[str] = field(default_factory=list)  # every value that went, for the caches

    @property
    def keys(self) -> list[str]:
        return list(self.purge)


def plan_forget(facts: Mapping[str, Fact], rules: Rules, wanted: Mapping[str, Iterable[str] | None],
                *, now: str, source: str | Mapping[str, str] = "cli") -> ForgetPlan:  # fmt: skip
    """Forget `wanted` (key → the values to forget, or WHOLE) with what hangs on them;
    `source` is where it was asked (per fact, or one for all): `cli`, `edit`, a transcript line."""
    out = ForgetPlan()
    whole: list[str] = []
    partial: dict[str, set[str]] = {}
    noop: list[str] = []  # forgotten already
    for key, values in wanted.items():
        fact = facts.get(key)
        if fact is None or fact.status == "deleted":
            noop.append(key)
            continue
        held = _values(fact)
        chosen = held if values is None else {v for v in values if v in held}
        if not chosen and values is not None:
            continue
        if values is None or chosen == held:  # a fact that holds no value ("no pets") too
            whole.append(key)
        else:
            partial[key] = chosen
        t = target(fact, None if chosen == held else chosen)
        if t is not None:
            out.targets.append(t)
        out.values += sorted(chosen)
        out.purge[key] = "all" if chosen == held else "values"
    derived = _derived(facts, rules, {k: None for k in whole} | partial)
    state = dict(facts)
    changes: list[Change] = []
    at = now[:10]
    for key, values in partial.items():
        fact = state[key]
        kept = _without_values(fact, values)
        after = _no_value(kept, now) if kept.value is None else kept
        changes.append(Change(key, "FORGET", fact, after))
        state[key] = after
        if kept.value is None:
            changes += cascade(state, rules, Effect(key, "deleted", at, origin=key), now=now)
    engine = plan_statements(state, rules, [_forget(k, at, source) for k in whole], now=now)
    for c in engine.changes:
        state[c.key] = c.after  # type: ignore[assignment]
    changes += engine.changes
    # What was derived from a forgotten value goes, whatever the cascade made of it.
    for key, dates in derived.items():
        was, fact = facts[key], state[key]
        kept = _without(fact, dates, was)
        out.values += sorted(_values(was) - _values(kept))
        origin = str((was.derived_from or {}).get("fact") or "") or None
        if not _values(kept):
            out.purge[key] = "all"
            after = Fact(fact.entity, fact.attribute, status="deleted", recorded_at=now,
                         source=_forget(key, at, source).source)  # fmt: skip
            changes.append(Change(key, "DELETE", fact, after, cause=origin))
            state[key] = after
            continue
        out.purge[key] = "derived"
        after = kept
        if kept.value is None and was.value is not None:  # its current value went: ask for it
            after = _no_value(kept, now)
            eff = Effect(origin or key, "deleted", at)
            after.uncertain_because = {"fact": eff.key, "change": "deleted", "changed_at": at,
                                       "question": question(after, None, eff, state, rules)}  # fmt: skip
        changes.append(Change(key, "FORGET", fact, after, cause=origin))
        state[key] = after
    changes += _unquote(state, rules, out.purge, out.values, now)
    decisions = [(_forget(k, now[:10], source), "NOOP") for k in noop]
    decisions += [(_forget(k, at, source), "FORGET") for k in partial]
    out.plan = Plan(_collapse(changes), decisions + engine.decisions)
    return out


def _forget(key: str, at: str, source: str | Mapping[str, str]) -> Statement:
    entity, attribute = key.split("/", 1)
    said = source if isinstance(source, str) else source.get(key, "cli")
    return Statement(entity, attribute, kind="forget", at=at, source=said)


def _values(fact: Fact) -> set[str]:
    entries = [{"value": fact.value}, *fact.history]
    return {v for e in entries for v in said_values(e)}


def _derived(facts: Mapping[str, Fact], rules: Rules, gone: dict[str, set[str] | None]) -> dict[str, set[str]]:  # fmt: skip
    """Facts with values derived from forgotten ones: key → the `valid_from` dates of those
    values (WHOLE source: all its derivations), deepest first."""
    graph = Graph(rules, facts)
    dates: dict[str, set[str] | None] = {}
    for key, values in gone.items():
        fact = facts[key]
        dates[key] = None if values is None else {
            str(e.get("valid_from")) for e in [{"value": fact.value, "valid_from": fact.valid_from}, *fact.history]
            if set(said_values(e)) & values
        }  # fmt: skip
    out: dict[str, set[str]] = {}
    todo = list(gone)
    while todo:
        key = todo.pop(0)
        for edge in graph.dependents(key):
            dep = facts.get(edge.dependent)
            if dep is None or dep.status == "deleted" or edge.dependent in gone:
                continue
            mine = _derived_dates(dep, key, edge.dep.id, dates.get(key))
            new = mine - out.get(edge.dependent, set())
            if new:
                out.setdefault(edge.dependent, set()).update(new)
                dates[edge.dependent] = out[edge.dependent]
                todo.append(edge.dependent)
    order = graph.downstream_order(list(gone))
    return {k: out[k] for k in reversed(order) if k in out}


def _derived_dates(fact: Fact, source: str, rule: str, dates: set[str] | None) -> set[str]:
    """The valid_from of each value of `fact` derived from `source` (from these dates)."""
    found = set()
    if fact.value is not None and (fact.derived_from or {}).get("fact") == source:
        found.add(str(fact.valid_from))
    for h in fact.history:
        if str(h.get("source") or "") == f"rule:{rule}":
            found.add(str(h.get("valid_from")))
    return found if dates is None else found & dates


def _without(fact: Fact, dates: set[str], was: Fact) -> Fact:
    """The fact (as the cascade left it) less the derived values that began on these dates;
    `was` is the fact before, which still says whether its current value was derived."""
    history = [h for h in fact.history
               if not (str(h.get("source") or "").startswith("rule:") and str(h.get("valid_from")) in dates)]  # fmt: skip
    derived = was.value is not None and was.derived_from is not None and str(was.valid_from) in dates
    current = derived and fact.value is not None and fact.value == was.value
    return fact.evolve(history=history, **({"value": None} if current else {}))


def _without_values(fact: Fact, values: set[str]) -> Fact:
    """The fact less these values (a list loses those items; a value left empty goes)."""

    def keep(v: Any) -> Any:
        if isinstance(v, list):
            left = [x for x in v if x not in values]
            return left or None
        return None if v in values else v

    history = []
    for h in fact.history:
        v = keep(h.get("value"))
        if v is not None:
            history.append({**h, "value": v})
    return fact.evolve(value=keep(fact.value), history=history)


def _no_value(kept: Fact, now: str) -> Fact:
    """A fact whose current value was forgotten: its value is not known any more."""
    return kept.evolve(
        value=None, status="expired", kind=None, items={}, evidence=None, derived_from=None,
        recorded_at=now, uncertain_because=None,
    )  # fmt: skip


def _unquote(state: dict[str, Fact], rules: Rules, forgotten: Mapping[str, str], values: list[str],
             now: str) -> list[Change]:  # fmt: skip
    """Doubts that quote a forgotten value, asked again without it."""
    words = [norm(v) for v in values if v.strip()]
    out = []
    for key, fact in sorted(state.items()):
        why = fact.uncertain_because
        if fact is None or fact.status == "deleted" or not why:
            continue
        if why.get("fact") not in forgotten and why.get("origin") not in forgotten:
            continue
        said = norm(" ".join(str(why.get(k) or "") for k in ("old", "new")) + " "
                    + " ".join(str(q) for q in (why.get("question") or {}).values()))  # fmt: skip
        if not any(w in said for w in words):
            continue
        eff = Effect(str(why.get("fact")), "deleted", str(why.get("changed_at") or now[:10]),
                     origin=str(why.get("origin") or ""))  # fmt: skip
        because: dict[str, Any] = {"fact": eff.key, "change": "deleted", "changed_at": eff.at}
        if eff.origin and eff.origin != eff.key:
            because["origin"] = eff.origin
        after = fact.evolve(uncertain_because=because)
        because["question"] = question(after, None, eff, state, rules)
        out.append(Change(key, "UNCERTAIN" if fact.status != "expired" else "EXPIRE", fact, after, cause=eff.key))
        state[key] = after
    return out


def _collapse(changes: list[Change]) -> list[Change]:
    """One change per fact: from its first `before` to its last `after`, where the last was."""
    first: dict[str, Change] = {}
    last: dict[str, Change] = {}
    for c in changes:
        first.setdefault(c.key, c)
        last[c.key] = c
    out = []
    for c in changes:
        if last[c.key] is c:
            out.append(replace(c, before=first[c.key].before))
    return out
