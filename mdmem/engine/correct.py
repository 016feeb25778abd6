"""A correction: a wrong value replaced as if it had never been said (docs/decisions.md#corrections).

The wrong value is the current one, or, when the fact already holds the corrected value (the
person used `set` first), the value that one replaced. It leaves the history; the corrected value
takes its place from the date the wrong one was said, and joins an equal value before it into one
period. The dependents the wrong value's cascade touched are put back as they were, then the
cascade runs again for the corrected value (nothing happens when the value never really changed).
"""

from __future__ import annotations

from typing import Any

from mdmem.engine.cascade import Change, Effect, cascade
from mdmem.model.factfile import Fact, Value
from mdmem.model.graph import Graph
from mdmem.model.rules import Rules


def plan_correction(
    state: dict[str, Fact], rules: Rules, before: Fact, value: Value, *, source: str,
    evidence: str, now: str,
) -> tuple[str, list[Change]]:  # fmt: skip
    """The decision and changes of correcting live fact `before` to `value`; updates `state`."""
    key = before.key
    if rules.attribute(before.attribute).cardinality == "many" and isinstance(value, str):
        value = [value]
    history = [dict(h) for h in before.history]
    if rules.same_value(before.attribute, before.last_value(), value) and before.value is not None:
        if not history or before.status != "active":
            return "NOOP", []
        wrong = history.pop()  # set first, fixed after: the value `set` replaced was the wrong one
        at = str(wrong.get("valid_from") or before.valid_from or now[:10])
        after = before.evolve(history=list(history), valid_from=at, recorded_at=now)
    else:
        at = before.valid_from or now[:10]
        after = before.evolve(
            value=value, status="active", valid_to=None, recorded_at=now, source=source,
            evidence=evidence or None, uncertain_because=None, derived_from=None,
            history=list(history),
        )  # fmt: skip
    previous = _previous(before, history, at)
    _join(after, rules)
    if after == before:
        return "NOOP", []
    state[key] = after
    changes = [Change(key, "CORRECT", before, after)]
    changes += _rewind(state, rules, key, at, now)
    effect = Effect.between(previous, after, at)
    if effect is not None:
        changes += cascade(state, rules, effect, now=now)
    return "CORRECT", changes


def _join(fact: Fact, rules: Rules) -> None:
    """An equal value just before the corrected one is the same period: one entry, not two."""
    while fact.history:
        last = fact.history[-1]
        same = rules.same_value(fact.attribute, last.get("value"), fact.value)
        if not same or (last.get("valid_to") and fact.valid_from and last["valid_to"] < fact.valid_from):
            return
        fact.history.pop()
        fact.valid_from = last.get("valid_from") or fact.valid_from
        # Learned where the value was first said.
        fact.source, fact.evidence = last.get("source"), last.get("evidence")


def _previous(before: Fact, history: list[dict[str, Any]], at: str) -> Fact | None:
    """The fact as it was before the wrong value was said (None: it had no value then)."""
    for h in reversed(history):
        if h.get("valid_to") and str(h["valid_to"]) <= at and h.get("value") is not None:
            return before.evolve(value=h["value"], status="active", history=[])
    return None


def _rewind(state: dict[str, Fact], rules: Rules, key: str, at: str, now: str) -> list[Change]:
    """Put back the dependents the wrong value's cascade changed (those not changed since)."""
    changes: list[Change] = []
    touched = {key}
    for dep_key in Graph(rules, state).downstream_order([key]):
        fact = state.get(dep_key)
        if fact is None or dep_key == key:
            continue
        back = _rewound(fact, touched, at, now)
        if back is None:
            continue
        touched.add(dep_key)
        changes.append(Change(dep_key, "CORRECT", fact, back, cause=key))
        state[dep_key] = back
    return changes


def _rewound(fact: Fact, touched: set[str], at: str, now: str) -> Fact | None:
    why: dict[str, Any] = fact.uncertain_because or {}
    last = fact.history[-1] if fact.history else {}
    ended_then = last.get("valid_to") == at
    if why and (why.get("fact") in touched or why.get("origin") in touched):
        if str(why.get("changed_at", ""))[:10] != at[:10]:
            return None
        back = fact.evolve(status="active", uncertain_because=None, recorded_at=now)
        if fact.value is None and ended_then and str(last.get("reason", "")).startswith("expired"):
            _unarchive(back)
        return back
    derived = fact.derived_from or {}
    if derived.get("fact") in touched and derived.get("valid_from") == at and ended_then:
        back = fact.evolve(recorded_at=now)
        _unarchive(back)
        src = str(back.source or "")
        back.derived_from = {"fact": derived["fact"], "valid_from": back.valid_from} if src.startswith("rule:") else None  # fmt: skip
        return back
    return None


def _unarchive(fact: Fact) -> None:
    """The last archived value becomes the current one again."""
    last = fact.history.pop()
    fact.value, fact.status = last.get("value"), "active"
    fact.valid_from, fact.valid_to = last.get("valid_from"), None
    fact.source, fact.evidence = last.get("source"), last.get("evidence")
