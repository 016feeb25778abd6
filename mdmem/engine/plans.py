"""The life of a plan, and of the events that tell it (pure; docs/states.md#plans).

A plan is `tentative` while its day is to come. The event that tells it ("we finally did the
canoe trip") fulfils it: the plan becomes `active`, each links to the other, and what the plan
`sets` (a move: `home_city`) is stated on the day the event says it happened. A plan whose
`due` passes with no word becomes `uncertain` with a gentle question ("Did the canoe trip happen
in June?"); `confirm --keep` answers yes (an event is made for it, dated by the due, and what it
sets is stated on the day of the answer), `--reject` no. A cancelled plan ("we were going to
move, but not anymore") expires without a fulfilment.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from datetime import timedelta
from typing import Any

from mdmem.engine.statement import Statement
from mdmem.lang.phrases import LANGS, phrase
from mdmem.model import life
from mdmem.model.factfile import Fact
from mdmem.model.rules import Rules

OVERDUE = "overdue"  # uncertain_because.change of a plan whose day passed with no word
OPEN = ("tentative", "uncertain")


def link(key: str) -> str:
    return f"[[facts/{key}]]"


def is_open(fact: Fact) -> bool:
    """A plan still waiting to happen (not fulfilled, cancelled or forgotten)."""
    return fact.kind == life.PLAN and fact.status in OPEN and not fact.fulfilled_by


class Lives:
    """The keys of every event and plan of a state, by entity: what aiming and fulfilling look
    through, built once a batch so that a statement costs the person's events, not the vault."""

    def __init__(self, state: Mapping[str, Fact]) -> None:
        self.state = state
        self.keys: dict[str, set[str]] = {}
        for key, f in state.items():
            self.note(key, f)

    def note(self, key: str, fact: Fact | None) -> None:
        if fact is not None and (fact.kind in life.KINDS or life.family(fact.attribute)):
            self.keys.setdefault(fact.entity, set()).add(key)

    def of(self, entity: str) -> list[Fact]:
        return [f for k in sorted(self.keys.get(entity, ())) if (f := self.state.get(k)) is not None]


def _held_plan(lives: Lives, entity: str, what: Any) -> Fact | None:
    if not isinstance(what, str):
        return None
    found = [f for f in lives.of(entity) if is_open(f) and isinstance(f.value, str)
             and life.same_happening(f.value, what)]  # fmt: skip
    return min(found, key=lambda f: (f.valid_from or "", f.attribute), default=None)


def _held_event(lives: Lives, st: Statement) -> Fact | None:
    if not isinstance(st.value, str):
        return None
    for f in lives.of(st.entity):
        if (f.kind == life.EVENT and f.status == "active"
                and isinstance(f.value, str) and life.same_happening(f.value, st.value)
                and life.overlaps(f.when, st.when or st.at)):  # fmt: skip
            return f
    return None


def aim(lives: Lives, st: Statement) -> Statement | None:
    """The statement pointed at the plan or event it speaks of (a plan said again, an event told
    twice), or a fresh name for a new one; None for a cancellation of no plan held."""
    if st.form == life.PLAN:
        held = _held_plan(lives, st.entity, st.value)
        if held is not None:
            return replace(st, attribute=held.attribute)
        if st.kind != "assert":
            return None  # "we were going to move, but not anymore", "the party was great": no plan held
        taken = {f.attribute for f in lives.of(st.entity)}
        if st.attribute in taken or life.family(st.attribute) != life.PLAN:
            return replace(st, attribute=life.plan_attribute(str(st.value), taken))
        return st
    if st.form == life.EVENT and st.kind == "assert":
        held = _held_event(lives, st)
        if held is not None:
            return replace(st, attribute=held.attribute)
        if life.family(st.attribute) != life.EVENT:
            return replace(st, attribute=life.event_attribute(str(st.value), st.when or st.at))
    return st


def restate(before: Fact, st: Statement, now: str) -> tuple[str, Fact | None]:
    """A plan or event said again: its new time, place or company, or nothing new (NOOP)."""
    fields: dict[str, Any] = {}
    for name in ("when", "due", "when_said", "where"):
        new = getattr(st, name)
        if new and new != getattr(before, name):
            fields[name] = new
    people = [p for p in st.with_ if p not in before.with_]
    if people:
        fields["with_"] = [*before.with_, *people]
    sets = {**before.sets, **dict(st.sets)}
    if sets != before.sets:
        fields["sets"] = sets
    if before.kind == life.EVENT:
        fields.pop("when", None)  # the first telling dates it; a later one may only add to it
        fields.pop("when_said", None)
    reopened = before.status == "uncertain" and "due" in fields  # "now in July": waiting again
    if not fields:
        return "NOOP", None
    after = before.evolve(**fields, recorded_at=now, source=st.source, evidence=st.evidence or before.evidence)
    if "due" in fields and before.due:
        after.history = [*before.history, _archived_due(before, st.at, now)]
    if reopened:
        after.status, after.uncertain_because = "tentative", None
    return "UPDATE", after


def _archived_due(before: Fact, at: str, now: str) -> dict[str, Any]:
    entry: dict[str, Any] = {"value": before.value, "kind": life.PLAN, "due": before.due}
    if before.when_said:
        entry["when_said"] = before.when_said
    entry |= {"status": "archived", "valid_from": before.valid_from, "valid_to": at,
              "recorded_at": before.recorded_at or now, "source": before.source, "reason": "rescheduled"}  # fmt: skip
    return entry


def fulfilment(lives: Lives, event: Fact, now: str) -> tuple[Fact, Fact, list[Statement]] | None:
    """An event just told, and the open plan it fulfils: (plan after, event after, what the plan
    sets, stated on the event's day), or None when it fulfils none."""
    if event.kind != life.EVENT or event.fulfils or not isinstance(event.value, str) or life.is_prelude(event.value):
        return None
    end = life.end_day(event.when) or event.valid_from or ""
    plan = _held_plan(lives, event.entity, event.value)
    if plan is None or end <= (plan.valid_from or ""):
        return None  # it happened before the plan was made: another time
    on = max(event.valid_from or "", plan.valid_from or "")
    return (*_fulfilled(plan, event, now), _sets(plan, on, event.source or "", event.evidence))


def state_fulfilment(lives: Lives, rules: Rules, st: Statement, now: str) -> list[tuple[Fact, Fact]]:
    """Plans whose `sets` a plain statement just made true ("we moved to Utrecht"): each with
    the event made for it, dated by the statement, fulfilled."""
    out = []
    for f in lives.of(st.entity):
        held = f.sets.get(st.attribute) if is_open(f) else None
        if held is None or not rules.same_value(st.attribute, held, st.value) or st.at < (f.valid_from or ""):
            continue
        event = _event_for(f, st.at, st.source, st.evidence, now, f"Learned from {st.source} (the plan came true).")
        out.append(_fulfilled(f, event, now))
    return out


def confirmed(state: Mapping[str, Fact], plan: Fact, st: Statement, now: str) -> tuple[Fact, Fact, list[Statement]]:
    """`confirm --keep` of a plan: it happened. The event is dated by the plan's due when that
    has begun (the question asked about it), else by the answer; what it sets, by the answer."""
    due = life.first_day(plan.due)
    when = plan.due if plan.due and due is not None and due <= st.at else st.at
    event = _event_for(plan, str(when), st.source, st.evidence, now, f"Confirmed with `mdmem confirm` on {st.at}.")
    held = state.get(event.key)
    if held is not None and held.status == "active":
        event = held.evolve(fulfils=None)
    return (*_fulfilled(plan, event, now), _sets(plan, st.at, st.source, st.evidence))


def _event_for(plan: Fact, when: str, source: str, evidence: str, now: str, body: str) -> Fact:
    return Fact(
        entity=plan.entity, attribute=life.event_attribute(str(plan.value), when), value=plan.value,
        kind=life.EVENT, valid_from=life.first_day(when), when=when, where=plan.where,
        with_=list(plan.with_), recorded_at=now, source=source, evidence=evidence or None, body=body,
    )  # fmt: skip


def _fulfilled(plan: Fact, event: Fact, now: str) -> tuple[Fact, Fact]:
    done = plan.evolve(status="active", fulfilled_by=link(event.key), uncertain_because=None, recorded_at=now)
    return done, event.evolve(fulfils=link(plan.key))


def _sets(plan: Fact, on: str, source: str, evidence: str | None) -> list[Statement]:
    body = f"Learned from {source}: the plan “{plan.value}” came true."
    return [Statement(plan.entity, attr, "assert", value, on, source, body=body, change=True,
                      evidence=evidence or "") for attr, value in sorted(plan.sets.items())]  # fmt: skip


def unlinked(state: Mapping[str, Fact], gone: Fact, now: str) -> Fact | None:
    """The plan or event that linked to a fact now forgotten, without the link."""
    target = gone.fulfils or gone.fulfilled_by
    if not target:
        return None
    key = target.removeprefix("[[facts/").removesuffix("]]")
    other = state.get(key)
    if other is None or link(gone.key) not in (other.fulfils, other.fulfilled_by):
        return None
    return other.evolve(fulfils=None, fulfilled_by=None, recorded_at=now)


# --- overdue ---------------------------------------------------------------------------------


def is_overdue(fact: Fact, today: str) -> bool:
    end = life.end_day(fact.due)
    return fact.status == "tentative" and is_open(fact) and end is not None and end <= today


def doubted(fact: Fact, rules: Rules, today: str, now: str) -> Fact:
    """The plan, overdue: uncertain, with the question to ask."""
    why = {"fact": fact.key, "change": OVERDUE, "changed_at": life.end_day(fact.due),
           "question": question(fact, rules, today)}  # fmt: skip
    return fact.evolve(status="uncertain", uncertain_because=why, recorded_at=now)


def seen_on(fact: Fact, rules: Rules, today: str) -> Fact:
    """A fact as a reader sees it on `today`: a plan past its day is uncertain, whether or not
    an ingest or sync has written that yet (reading never writes)."""
    return doubted(fact, rules, today, fact.recorded_at or "") if is_overdue(fact, today) else fact


def overdue(state: Mapping[str, Fact], rules: Rules, today: str, now: str) -> list[tuple[str, Fact, Fact]]:
    """(key, before, after) for every open plan whose day ended before `today`."""
    return [(k, f, doubted(f, rules, today, now)) for k, f in sorted(state.items()) if f.kind == life.PLAN and is_overdue(f, today)]  # fmt: skip


def question(fact: Fact, rules: Rules, today: str) -> dict[str, str]:
    """"Did your canoe trip happen in June?", "Did you move to Utrecht in March?",
    "你原本打算6月去划独木舟，后来成了吗？": what the plan was, and when it was for."""
    what = str(fact.value or "?")
    user = fact.entity == "user"
    name = fact.entity.replace("_", " ").replace("-", " ").title()
    out = {}
    for lang in LANGS:
        when = time_words(fact.due, lang, today)
        who = phrase("who_user" if user else "who_other", lang, Name=name, name=name)
        whose = phrase("whose_user" if user else "whose_other", lang, Name=name, name=name)
        if lang != "en" or life.starts_with_verb(what):
            text = phrase("ask_plan_did", lang, who=who.lower() if user and lang == "en" else who, value=what, when=when)
        else:
            text = phrase("ask_plan_happen", lang, whose_lower=whose.lower() if user else whose, value=life.bare(what), when=when)
        out[lang] = " ".join(text.split())
    return out


_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]  # fmt: skip


def time_words(text: str | None, lang: str, today: str = "") -> str:
    """A time in words: "in June" (this year), "in June 2024", "on 14 June 2024", "in 2025",
    "between 1 June and 7 June 2024"; "6月", "2024年6月14日" … ('' for no time)."""
    s = life.span(text)
    if s is None:
        return ""
    first, last = s[0], s[1] - timedelta(days=1)
    precision = life.precision(str(text))
    mon = _MONTHS[first.month - 1]
    if precision == "month" and today[:4] == str(first.year):
        return f"in {mon}" if lang == "en" else f"{first.month}月"
    if lang == "en":
        return {"day": f"on {first.day} {mon} {first.year}", "month": f"in {mon} {first.year}",
                "year": f"in {first.year}"}.get(precision) or (
            f"between {first.day} {mon} and {last.day} {_MONTHS[last.month - 1]} {last.year}")  # fmt: skip
    return {"day": f"{first.year}年{first.month}月{first.day}日", "month": f"{first.year}年{first.month}月",
            "year": f"{first.year}年"}.get(precision) or (
        f"{first.year}年{first.month}月{first.day}日至{last.month}月{last.day}日")  # fmt: skip
