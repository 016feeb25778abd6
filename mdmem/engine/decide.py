"""The decision table (docs/decisions.md): one statement against the vault → ADD, UPDATE, … and cascades."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from mdmem.engine import plans
from mdmem.engine.cascade import Change, Effect, archive, cascade
from mdmem.engine.correct import plan_correction
from mdmem.engine.statement import Statement
from mdmem.model import life
from mdmem.model.factfile import Fact
from mdmem.model.rules import Rules

__all__ = ["Plan", "Statement", "decide", "keeps_value", "plan_statements"]


@dataclass
class Plan:
    """Ordered changes; `decisions` has one entry per statement (NOOP included)."""

    changes: list[Change] = field(default_factory=list)
    decisions: list[tuple[Statement, str]] = field(default_factory=list)

    def extend(self, other: Plan) -> None:
        self.changes.extend(other.changes)
        self.decisions.extend(other.decisions)


def plan_statements(
    facts: Mapping[str, Fact], rules: Rules, statements: list[Statement], *, now: str,
    today: str | None = None,
) -> Plan:
    """Decide each statement in order against the evolving state, cascading as it goes; with
    `today`, plans whose day has passed with no word then become uncertain (engine/plans.py)."""
    state = dict(facts)
    plan = Plan()
    stated: dict[str, str] = {}  # key → date stated in this batch
    queue = list(reversed(statements))  # what a fulfilled plan sets joins the queue
    lives = plans.Lives(state)  # the events and plans, by person
    while queue:
        st = queue.pop()
        if st.form in life.KINDS:
            aimed = plans.aim(lives, st)
            if aimed is None:
                plan.decisions.append((st, "NOOP"))
                continue
            st = aimed
        before = state.get(st.key)
        if st.kind == "correct":
            if before is not None and before.status != "deleted" and before.last_value() is not None:
                decision, changes = plan_correction(
                    state, rules, before, st.value, source=st.source, evidence=st.evidence, now=now
                )
                plan.decisions.append((st, decision))
                plan.changes.extend(changes)
                stated[st.key] = st.at
                continue
            st = replace(st, kind="assert")  # nothing to correct: the value is simply said
        linked: list[Change] = []
        after: Fact | None
        if before is not None and plans.is_open(before) and st.kind == "keep":
            after, event, more = plans.confirmed(state, before, st, now)  # "yes, it happened"
            decision = "CONFIRM"
            linked.append(Change(event.key, "UPDATE" if event.key in state else "ADD", state.get(event.key), event, cause=st.key))
            queue.extend(reversed(more))
        elif before is not None and before.kind in life.KINDS and st.form == before.kind and st.kind == "assert" and before.status != "deleted":
            decision, after = plans.restate(before, st, now)  # the same plan or event, said again
        else:
            decision, after = decide(before, st, rules, now)
        plan.decisions.append((st, decision))
        if after is None or (before is not None and after == before):
            continue
        if decision == "ADD" and (done := plans.fulfilment(lives, after, now)) is not None:
            plan_after, after, more = done  # "we finally did the canoe trip": the plan came true
            linked.append(Change(plan_after.key, "CONFIRM", state[plan_after.key], plan_after, cause=st.key))
            queue.extend(reversed(more))
        elif decision in ("ADD", "UPDATE", "CONFIRM") and after.kind is None and after.status == "active":
            for plan_after, event in plans.state_fulfilment(lives, rules, st, now):  # "we moved to Utrecht"
                linked += [Change(event.key, "ADD", state.get(event.key), event, cause=st.key),
                           Change(plan_after.key, "CONFIRM", state[plan_after.key], plan_after, cause=st.key)]  # fmt: skip
        elif decision == "DELETE" and before is not None and (other := plans.unlinked(state, before, now)):
            linked.append(Change(other.key, "UPDATE", state[other.key], other, cause=st.key))
        state[st.key] = after
        lives.note(st.key, after)
        plan.changes.append(Change(st.key, decision, before, after))
        for c in linked:
            state[c.key] = c.after  # type: ignore[assignment]
            lives.note(c.key, c.after)
        plan.changes.extend(linked)
        stated[st.key] = st.at
        effect = Effect.between(before, after, _effect_date(st, now))
        if effect is None and decision == "ADD" and st.change and after.value is not None:
            # The old value was never told, but the person said it changed: what hung on it
            # is in doubt all the same.
            effect = Effect(st.key, "changed", _effect_date(st, now), new=after.value)
        if effect is None or decision == "BACKFILL":
            continue
        justified = [k for k, at in stated.items() if at >= effect.at and k != st.key]
        plan.changes.extend(cascade(state, rules, effect, now=now, justified=justified))
    if today is not None:
        for key, before, after in plans.overdue(state, rules, today, now):
            state[key] = after
            plan.changes.append(Change(key, "UNCERTAIN", before, after))
    return plan


def _effect_date(st: Statement, now: str) -> str:
    return st.at or now[:10]


def decide(before: Fact | None, st: Statement, rules: Rules, now: str) -> tuple[str, Fact | None]:
    """One row of the decision table: the decision and the fact after it (None: no change)."""
    at = _effect_date(st, now)
    live = before is not None and before.status != "deleted"
    if st.kind == "forget":
        if not live:
            return "NOOP", None
        assert before is not None
        return "DELETE", Fact(
            entity=st.entity,
            attribute=st.attribute,
            status="deleted",
            recorded_at=now,
            source=st.source,
        )
    if st.kind in ("invalidate", "reject"):
        if not live or before is None or before.status == "expired":
            return "NOOP", None
        if st.value is not None and isinstance(before.value, list):
            return _drop(before, st, rules, now, at)  # "I stopped singing in the choir": that item
        reason = (
            "rejected by the person" if st.kind == "reject"
            else "cancelled, said the person" if before.kind == life.PLAN
            else "no longer true, said the person"
        )  # fmt: skip
        history = list(before.history)
        if before.value is not None or before.kind:
            history.append(archive(before, at, reason))
        return "EXPIRE", before.evolve(
            value=None, status="expired", history=history, recorded_at=now, source=st.source,
            evidence=st.evidence or None, uncertain_because=None, derived_from=None, kind=None,
            items={}, **life.CLEARED,
        )  # fmt: skip
    if st.kind == "keep":
        if not live or before is None or before.status == "active":
            return "NOOP", None
        if before.status == "expired":
            return "NOOP", None  # nothing to keep: the value is already known to be gone
        return "CONFIRM", before.evolve(status="active", uncertain_because=None, recorded_at=now)
    return _assert(before if live else None, st, rules, now, at)


def _assert(
    before: Fact | None, st: Statement, rules: Rules, now: str, at: str
) -> tuple[str, Fact | None]:
    attr = rules.attribute(st.attribute)
    status = "tentative" if st.tentative else "active"
    value = None if st.form in ("none", "unnamed") else st.value
    if attr.cardinality == "many" and isinstance(value, str):
        value = [value]
    items = (
        {v: {"polarity": "dislike"} for v in value}
        if st.polarity == "dislike" and isinstance(value, list) else {}
    )  # fmt: skip
    new = Fact(
        entity=st.entity, attribute=st.attribute, value=value, status=status, valid_from=at,
        recorded_at=now, source=st.source, evidence=st.evidence or None,
        depends_on=list(st.depends_on), body=st.body, kind=st.form or None, items=items,
        **_life_fields(st),
    )  # fmt: skip
    if before is None:
        return "ADD", new
    deps = _merge_deps(before.depends_on, st.depends_on)
    if st.form in ("none", "unnamed") or (before.kind in ("none", "unnamed") and before.status != "expired"):
        return _shape(before, st, new, now, at, deps)
    current = before.last_value()
    if attr.cardinality == "many" and isinstance(current, list) and isinstance(value, list):
        missing = [
            v for v in value if not any(rules.same_value(st.attribute, v, c) for c in current)
        ]
        flipped = _flipped(before, st, rules, value)
        if flipped:
            return "UPDATE", _flip(before, st, flipped, now, at, deps)
        if not missing and before.status == "active":
            return (
                ("NOOP", None)
                if deps == before.depends_on
                else ("UPDATE", before.evolve(depends_on=deps))
            )
        if missing:  # a list grows: nothing stopped being true, so nothing is archived
            grown = copy.deepcopy(before.items)
            for v in missing:  # each item keeps its own start and polarity
                fields = dict(new.items.get(v, {}))
                if at != before.valid_from:
                    fields["valid_from"] = at
                if fields:
                    grown[v] = {k: fields[k] for k in sorted(fields)}
            return "UPDATE", before.evolve(
                value=[*current, *missing], status="active", recorded_at=now, source=st.source,
                evidence=st.evidence or None, uncertain_because=None, depends_on=deps, items=grown,
                kind=None,
            )  # fmt: skip
    if rules.same_value(st.attribute, current, value):
        if before.status == "active" or st.tentative:
            if deps != before.depends_on:
                return "UPDATE", before.evolve(depends_on=deps)
            return "NOOP", None
        return "CONFIRM", _confirm(before, st, now, deps)
    kept = keeps_value(before.status, before.valid_from, at, tentative=st.tentative)
    if kept is not None:
        return kept, _backfill(before, st, now) if kept == "BACKFILL" else None
    history = list(before.history)
    if before.value is not None or before.kind:
        history.append(archive(before, at, "superseded by a new statement"))
    return "UPDATE", new.evolve(
        history=history, body=before.body, extra=before.extra, depends_on=deps
    )


def _life_fields(st: Statement) -> dict[str, Any]:
    """An event's or a plan's own fields, from its statement (model/life.py); an unnamed
    member's statement holds the noun it was mentioned as ("my husband") as its value."""
    if st.form == life.UNNAMED:
        return {"mentioned_as": [st.value]} if isinstance(st.value, str) and st.value else {}
    if st.form not in life.KINDS:
        return {}
    return {"when": st.when or None, "due": st.due or None, "when_said": st.when_said or None,
            "where": st.where or None, "with_": list(st.with_), "sets": dict(st.sets)}  # fmt: skip


def _shape(
    before: Fact, st: Statement, new: Fact, now: str, at: str, deps: list[dict[str, object]]
) -> tuple[str, Fact | None]:
    """A stated absence ("I don't have any pets") or an unnamed one ("my husband"), or a value
    said where one of those is held (docs/states.md#kinds)."""
    if st.form and before.kind == st.form:
        nouns = life.more_nouns(before.mentioned_as, new.mentioned_as)
        if before.status == "active" or st.tentative:
            if nouns == before.mentioned_as:
                return "NOOP", None
            return "UPDATE", before.evolve(mentioned_as=nouns, recorded_at=now, depends_on=deps)
        return "CONFIRM", before.evolve(status="active", uncertain_because=None, recorded_at=now, mentioned_as=nouns)
    if st.form == "unnamed" and before.value is not None and before.status != "expired":
        return "NOOP", None  # a name is known: "my husband" says nothing more
    kept = keeps_value(before.status, before.valid_from, at, tentative=st.tentative)
    if kept is not None:
        return "NOOP", None  # an earlier or weaker word leaves what is held
    if before.kind == "unnamed" and not st.form:
        # The one who was unnamed has a name now: the same thing, known better; since then.
        start = min(x for x in (before.valid_from, at) if x)
        return "UPDATE", new.evolve(valid_from=start, history=list(before.history),
                                    body=before.body, extra=before.extra, depends_on=deps)  # fmt: skip
    history = list(before.history)
    if before.value is not None or before.kind:
        reason = "none now, said the person" if st.form == "none" else "superseded by a new statement"
        history.append(archive(before, at, reason))
    return "UPDATE", new.evolve(
        history=history, body=before.body, extra=before.extra, depends_on=deps
    )


def _drop(before: Fact, st: Statement, rules: Rules, now: str, at: str) -> tuple[str, Fact | None]:
    """One item of a list stopped holding: it goes to history with its own period; the rest
    stays. The last item gone leaves the fact expired, as a plain ending would."""
    assert isinstance(before.value, list)
    said = st.value if isinstance(st.value, list) else [st.value]
    gone = [v for v in before.value if any(rules.same_value(st.attribute, v, x) for x in said)]
    if not gone:
        return "NOOP", None
    items, history = copy.deepcopy(before.items), list(before.history)
    for v in gone:
        own = items.pop(v, {})
        entry: dict[str, Any] = {"value": v, "status": "archived",
                                 "valid_from": own.get("valid_from") or before.valid_from, "valid_to": at,
                                 "recorded_at": now, "source": st.source}  # fmt: skip
        if st.evidence:
            entry["evidence"] = st.evidence
        if own.get("polarity"):
            entry["items"] = {v: {"polarity": own["polarity"]}}
        history.append(entry | {"reason": "no longer true, said the person"})
    keep = [v for v in before.value if v not in gone]
    after = before.evolve(value=keep or None, items=items, history=history, recorded_at=now,
                          source=st.source, evidence=st.evidence or None, uncertain_because=None)  # fmt: skip
    if keep:
        return "UPDATE", after
    after.status, after.kind, after.derived_from = "expired", None, None
    return "EXPIRE", after


def _polarity(fact: Fact, item: str) -> str:
    return str(fact.items.get(item, {}).get("polarity", "like"))


def _flipped(before: Fact, st: Statement, rules: Rules, value: list[str]) -> dict[str, str]:
    """Held items whose preference the statement turns around: {held item: new polarity}."""
    if not st.polarity or not isinstance(before.value, list):
        return {}
    return {
        c: st.polarity for v in value for c in before.value
        if rules.same_value(st.attribute, v, c) and _polarity(before, c) != st.polarity
    }  # fmt: skip


def _flip(before: Fact, st: Statement, flipped: dict[str, str], now: str, at: str,
          deps: list[dict[str, object]]) -> Fact:  # fmt: skip
    """"I don't like bowling any more": the item stays, its polarity turns; the old one is history."""
    items = copy.deepcopy(before.items)
    history = list(before.history)
    for item, polarity in flipped.items():
        old = items.get(item, {})
        history.append({
            "value": item, "status": "archived",
            "valid_from": old.get("valid_from") or before.valid_from, "valid_to": at,
            "recorded_at": now, "source": st.source, "reason": "preference changed",
            "items": {item: {"polarity": _polarity(before, item)}},
        })  # fmt: skip
        fields = {"valid_from": at} if at != before.valid_from else {}
        if polarity == "dislike":
            fields["polarity"] = "dislike"
        if fields:
            items[item] = {k: fields[k] for k in sorted(fields)}
        else:
            items.pop(item, None)
    return before.evolve(items=items, history=history, recorded_at=now, source=st.source,
                         evidence=st.evidence or None, depends_on=deps)  # fmt: skip


def keeps_value(status: str, valid_from: str | None, at: str, *, tentative: bool) -> str | None:
    """A new value said for `at` leaves the current one in place: 'BACKFILL', 'NOOP' or None.

    The one rule both the decision table and the extractor's view of a batch follow."""
    if valid_from and at < valid_from:
        return "BACKFILL"  # an earlier value, told later: history, not the current value
    if tentative and status in ("active", "uncertain"):
        return "NOOP"  # weak evidence never overwrites what the person said plainly
    return None


def _confirm(before: Fact, st: Statement, now: str, deps: list[dict[str, object]]) -> Fact:
    after = before.evolve(status="active", uncertain_because=None, recorded_at=now, depends_on=deps)
    if before.value is None and before.history:  # an expired value said again: bring it back
        last = before.history[-1]
        after.value = last["value"]
        after.valid_from = last.get("valid_from") or st.at
        after.history = before.history[:-1]
        after.source, after.evidence = st.source, st.evidence or None
    return after


def _backfill(before: Fact, st: Statement, now: str) -> Fact:
    entry = {
        "value": st.value, "status": "archived", "valid_from": st.at, "valid_to": st.until or None,
        "recorded_at": now,
        "source": st.source, "reason": "earlier value, stated later",
    }  # fmt: skip
    if st.evidence:
        entry["evidence"] = st.evidence
    history = sorted(
        [*copy.deepcopy(before.history), entry], key=lambda h: h.get("valid_from") or ""
    )
    # Each entry ends where the next begins; the last one ends where the current value begins.
    ends = [h.get("valid_from") for h in history[1:]] + [before.valid_from]
    for h, end in zip(history, ends, strict=True):
        # One value at a time: a period runs at most until the next one starts.
        if end is not None and (h.get("valid_to") is None or h["valid_to"] > end):
            h["valid_to"] = end
    return before.evolve(history=history)


def _merge_deps(
    old: list[dict[str, object]], new: tuple[dict[str, object], ...]
) -> list[dict[str, object]]:
    merged = {str(d["on"]): d for d in old}
    for d in new:
        merged[str(d["on"])] = dict(d)
    return [merged[k] for k in sorted(merged)]
