"""An event or a plan a finder read, weighed into a statement: its time resolved against the day
it was said, and checked to point the right way (an event is past, a plan to come)."""

from __future__ import annotations

from collections.abc import Mapping

from mdmem.engine.statement import Statement
from mdmem.extract.candidates import Found
from mdmem.extract.clauses import told_from
from mdmem.extract.timex import FUTURE, PAST, find_times
from mdmem.model.factfile import Fact
from mdmem.model.life import (
    EVENT,
    PLAN,
    Happening,
    end_day,
    event_attribute,
    family,
    first_day,
    plan_attribute,
    same_happening,
)

KIND_OF_SLOT = {"events": EVENT, "plans": PLAN}


def life_kind(f: Found) -> str | None:
    """`event` or `plan` for a candidate of one: a grammar's, or a `plans`/`events` pattern's."""
    if f.form in (EVENT, PLAN):
        return f.form
    return KIND_OF_SLOT.get(f.attribute or "") or (family(f.attribute) if f.attribute else None)


def life_statement(f: Found, sentence: str, entity: str, at: str, source: str) -> tuple[Statement | None, str]:
    """(the statement, '') or (None, why nothing is written)."""
    kind = life_kind(f)
    if f.happening is None and told_from(sentence) <= f.start:  # a pattern's: asked, supposed, reported …
        return None, "not said as the person's own"
    h = f.happening or Happening(str(f.value or ""), _first_time(sentence, at, kind == PLAN))
    what = " ".join(h.what.split())
    for article in ("a ", "an ", "the ") if f.happening is None else ():
        what = what.removeprefix(article)  # a pattern's value: "a trip to Lisbon"
    if not what:
        return None, "no words for what happened"
    times = find_times(h.time_words, at, future=kind == PLAN) if h.time_words else []
    t = times[0] if times else None
    body = f"Learned from {source.split('#', 1)[0]} on {at}."
    if kind == EVENT:
        if t is not None and (t.tense == FUTURE or (t.when and (first_day(t.when) or "") > at)):
            return None, "an event still to come"
        if t is not None and t.when is None:
            return None, "an event with no day to put it on"  # "a few years back", "小时候"
        when = t.when if t is not None and t.when else at
        return Statement(entity, event_attribute(what, when), "assert", what, first_day(when) or at, source,
                         body=body, form=EVENT, when=when, when_said=t.words if t else "",
                         where=h.where, with_=h.with_), ""  # fmt: skip
    if h.cancel:
        return Statement(entity, plan_attribute(what), "invalidate", what, at, source, form=PLAN), ""
    if f.kind == "keep":  # told as done: the plan held by that name came true (engine/plans.py)
        return Statement(entity, plan_attribute(what), "keep", what, at, source, form=PLAN), ""
    if t is not None and t.tense == PAST:
        return None, "a plan for a day gone by"
    due = t.when if t is not None and t.when else ""
    if due and (end_day(due) or "") <= at:
        return None, "a plan whose day has passed"
    if due == at:
        return None, "a plan for the day it is said (told later as an event, if it matters)"
    if h.needs_future and (not due or (first_day(due) or "") < at):
        return None, "no day to come: not a plan"
    return Statement(entity, plan_attribute(what), "assert", what, at, source, tentative=True, body=body,
                     form=PLAN, due=due, when_said=t.words if t else "", where=h.where, with_=h.with_,
                     sets=h.sets), ""  # fmt: skip


def _first_time(sentence: str, at: str, future: bool) -> str:
    times = find_times(sentence, at, future=future)
    return times[0].words if times else ""


class LifeWeigher:
    """The events and plans of one batch: each candidate weighed into its statement, and a plan
    told as done ("the gaming party was a great success") kept only when that plan is held."""

    def __init__(self, facts: Mapping[str, Fact]) -> None:
        self.plans: dict[str, list[str]] = {}  # entity → what its open plans are
        for f in facts.values():
            if f.kind == PLAN and f.status in ("tentative", "uncertain") and isinstance(f.value, str):
                self.plans.setdefault(f.entity, []).append(f.value)

    def take(self, f: Found, sentence: str, entity: str, at: str, source: str, notes: list[str]) -> list[Statement]:
        st, reason = life_statement(f, sentence, entity, at, source)
        if st is None:
            notes.append(f"{source.rsplit('#', 1)[-1]}: {entity}/{f.attribute}: {reason}; nothing written")
            return []
        if st.kind == "keep" and not any(same_happening(p, str(st.value)) for p in self.plans.get(entity, ())):
            return []  # "my husband and kids went camping": no plan of that name, so nothing to tell
        if st.form == PLAN and st.kind == "assert":
            self.plans.setdefault(entity, []).append(str(st.value))
        return [st]

