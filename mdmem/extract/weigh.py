"""Weighing candidates into statements: mood, time and the batch's view of the vault.

Every finder ends here. It hands over the candidates it found in a message (`Found`, with the
sentence each stands in); the `Extractor` weighs each for mood (a question, a hedge, a denial …)
and time ("from 2019 to 2021", "last year") before it becomes a `Statement`, and keeps a view of
the vault as the batch so far has changed it. Deciding what the vault does with a statement is
`decide.plan_statements`' job, not this module's.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from typing import Any

from mdmem.engine.decide import Statement, keeps_value
from mdmem.extract.candidates import Found, Resolver, canonical, slot_names
from mdmem.extract.dates import When, find_when, minutes, parse_date
from mdmem.extract.finder import Extraction
from mdmem.extract.guard import UNREAD, Budget
from mdmem.extract.life_statements import LifeWeigher, life_kind
from mdmem.extract.members import MemberCounts
from mdmem.extract.modality import Mood, clause_end, clause_start, mood, said_as_change
from mdmem.extract.past import PastValues, Slot, lasted
from mdmem.extract.speakers import owner_entity
from mdmem.extract.transcript import Message
from mdmem.extract.values import split_items
from mdmem.model.factfile import Fact, Value
from mdmem.model.rules import Rules
from mdmem.model.slug import VERBATIM_SLOT

# How far from a statement a date said in passing is looked for, either way: a clause of a
# thousand characters with no comma is a pasted log, and the date patterns are quadratic in it.
WHEN_WINDOW = 240
# Past-tense words that end what they name now: "I quit Crumb Bakery", "I left Lumen".
_ENDING = re.compile(r"\b(?:quit|left|lost|stopped|gave\s+up)\b", re.I)


class Extractor(PastValues, MemberCounts):
    """Turns messages into statements against a snapshot of the vault, as one batch."""

    def __init__(self, rules: Rules, facts: Mapping[str, Fact], *, source: str, default_date: str) -> None:  # fmt: skip
        self.rules = rules
        self.resolver = Resolver(rules, {f.attribute for f in facts.values()})
        self.path = source
        self.default_date = default_date[:10]
        self.state = {
            k: Slot(f.value, f.status, f.valid_from, f.history[-1].get("value") if f.history else None, f.kind)
            for k, f in facts.items() if f.status != "deleted"
        }  # fmt: skip
        self.out: list[Statement] = []
        self.lives = LifeWeigher(facts)
        self.notes: list[str] = []
        self.errors: list[str] = []
        self._last: dict[str, list[str]] = {}  # entity → keys said in its previous message
        self._current: list[str] = []
        self._ended: list[str] = []
        self._masked: dict[str, str] = {}  # sentence → with the values said in it blanked
        self._slot_names: dict[str | None, tuple[str, ...]] = {}
        self._relations: dict[str, tuple[str, str, str]] = {}
        self._persons = {k.split("/", 1)[0] for k in self.state if k.endswith("/relation")}
        self._people: dict[str, tuple[int, dict[str, str]]] = {}
        self._kin: dict[str, tuple[tuple[int, int], dict[str, str]]] = {}
        self._version = 0
        self._waiting: dict[
            str, list[dict[str, Any]]
        ] = {}  # key → dependencies said before a value

    def result(self) -> Extraction:
        """The statements so far, and the notes and errors on what was passed over."""
        return Extraction(self.out, self.notes, self.errors)

    # --- one message ------------------------------------------------------------------

    def message(self, msg: Message, entity: str, found: list[tuple[str, Found]],
                budget: Budget | None = None) -> None:  # fmt: skip
        """Statements of one message from its (sentence, candidate) pairs, in order. When
        `budget` runs out, the candidates left are not weighed (a note says how many)."""
        self._current = []
        self._ended = []  # keys this message said are over
        # Words that are some statement's value ("my birthday is 3 March 1990") are not the
        # time another statement of the same sentence speaks of.
        values: dict[str, list[tuple[int, int]]] = {}
        for sentence, f in found:
            if isinstance(f.value, str) and f.kind in ("assert", "verbatim"):
                values.setdefault(sentence, []).append(
                    (f.value_start, f.value_start + len(f.value))
                )
        self._masked = {}
        for sentence, spans in values.items():
            masked = sentence
            for a, b in spans:
                masked = masked[:a] + " " * (b - a) + masked[b:]
            self._masked[sentence] = masked
        for n, (sentence, f) in enumerate(found):
            if budget is not None and budget.spent():
                self.notes.append(
                    f"L{msg.line}: {len(found) - n:,} of {len(found):,} candidate statements "
                    f"{UNREAD}: weighing them took longer than {budget.seconds:g} s"
                )
                break
            self.take(msg, entity, sentence, f)
        self._last[entity] = list(self._current)

    # --- one candidate ----------------------------------------------------------------

    def take(self, msg: Message, entity: str, sentence: str, f: Found) -> None:
        """Weigh one candidate and add the statement(s) it justifies."""
        at = (msg.time or self.default_date)[:10]
        where = f"L{msg.line}"
        if f.kind == "forget":
            self._forget(f, entity, at, where)
            return
        if f.kind == "depends":
            self._depends(f, entity, at, where)
            return
        if f.kind == "correct":
            self._correct(f, entity, at, where)
            return
        if f.kind == "switch":  # "…, switched to Y": the slot is the one just given up
            if not self._ended:
                return
            f = dataclasses.replace(f, kind="assert", attribute=self._ended[-1].split("/", 1)[1])
        if f.kind == "verbatim" and f.attribute is None:
            f = dataclasses.replace(f, attribute=self._note_slot(entity, f.value))
        if f.form == "named":  # "we ended up naming her Juno": the member still unnamed
            named = self._unnamed_slot(entity, f, where)
            if named is None:
                return
            f = named
        owner = owner_entity(entity, f.owner)
        key = f"{owner}/{f.attribute}"
        if f.attribute == "relation" and f.owner and isinstance(f.value, str):
            self._relate(key, f.value, at, where)  # written with the person's first fact
            return
        if life_kind(f) is not None:  # an event or a plan, weighed by its grammar (life_statements.py)
            for st in self.lives.take(f, sentence, owner, at, f"{self.path}#{where}", self.notes):
                self.add(st)
            return
        tentative = False
        md = Mood()
        if f.kind != "verbatim":
            md = mood(sentence, f.start, f.value_start, f.end, self._names(f.attribute))
            if f.kind == "invalidate" or f.form in ("none", "ended") or f.polarity:
                # "I no longer commute", "I don't have any pets", "I don't like bowling", "I
                # used to sing in a choir": the denial is the statement's very form, already read
                md = dataclasses.replace(md, negated=False, no_longer=False, past=f.form != "ended" and md.past)
            elif md.negated and md.no_longer and not (md.question or md.hypothetical):
                f, md = self._no_longer(key, f, md)
            if md.bygone and f.kind == "assert":  # "I was working at Bench back then"
                md = dataclasses.replace(md, past=False)
            if md.blocked or (md.weak and f.kind == "invalidate"):
                why = [n for n in ("question", "hypothetical", "negated", "past", "reported", "hedged", "future") if getattr(md, n)]  # fmt: skip
                self.notes.append(f"{where}: {key}: {', '.join(why)} statement; nothing written")
                return
            tentative = md.weak
        when = self._when(sentence, f, at)
        if f.form == "ended":
            for item in self._items(f.attribute, f.value):
                self._over(key, item, when, at, where)
            return
        value = f.value
        if isinstance(value, str) and f.kind != "verbatim":
            value = canonical(self.rules, f.attribute or "", " ".join(value.split()).strip(" .,;:!?，。；：！？"))  # fmt: skip
            if (f.attribute or "").endswith("_minutes"):  # "四十分钟", "half an hour" → '40', '30'
                value = minutes(value)
                if value is None:
                    self.notes.append(f"{where}: {key}: not a number of minutes; nothing written")
                    return
        if f.form in ("at_least", "more"):  # a count said by an ordinal or "another"
            value = self._count_value(key, f)
            if value is None:
                return
            f = dataclasses.replace(f, form="")
        if f.form == "unnamed" and any(s.key == key and s.kind == "forget" for s in self.out):
            return  # "please forget my partner": the words of the request state nothing
        if f.form in ("none", "unnamed") or f.polarity:
            for item in self._items(f.attribute, value):
                self.emit(key, kind="assert", value=item, at=at, where=where, tentative=tentative,
                          body=f"Learned from {self.path} on {at}.", form=f.form,
                          polarity=f.polarity)  # fmt: skip
            return
        if when is not None and when.start > at:
            tentative, when = True, None  # a date still to come: a plan, not a fact
        if when is not None and when.end is not None and when.end <= at and f.kind != "invalidate":
            for item in self._items(f.attribute, value):
                self._period(key, f, item, when, where)
            return
        if md.bygone and f.kind == "assert":
            when = when or lasted(sentence[f.end : clause_end(sentence, f.end)], at)  # "… after five years"
            ending = _ENDING.search(sentence, clause_start(sentence, f.value_start), f.value_start) is not None
            for item in self._items(f.attribute, value):
                self._bygone(key, item, when, at, where, ending)
            return
        start = when.start if when is not None else at
        kind = "invalidate" if f.kind == "invalidate" else "assert"
        body = (
            f"Kept word for word, as asked on {at} ({self.path})."
            if f.kind == "verbatim"
            else f"Learned from {self.path} on {at}."
        )
        change = kind == "assert" and said_as_change(sentence, f.value_start)
        for item in self._items(f.attribute, value) if kind == "assert" else [None]:
            self.emit(key, kind=kind, value=item, at=start, where=where, tentative=tentative,
                      body=body, change=change)  # fmt: skip
        if kind == "assert" and not tentative:
            self._recount(key, start, where)

    def _names(self, attribute: str | None) -> tuple[str, ...]:
        """What a slot is called: its name, labels and aliases (cached)."""
        if attribute not in self._slot_names:
            self._slot_names[attribute] = slot_names(self.rules, attribute or "")
        return self._slot_names[attribute]

    def _items(self, attribute: str | None, value: Value) -> list[Value]:
        """A list said of a many-valued slot ("bouldering and sourdough baking") item by item."""
        return split_items(self.rules, attribute or "", value)

    def _note_slot(self, entity: str, value: Value) -> str:
        """`note`, or `note_2`, `note_3` … so that a second note never overwrites the first."""
        n = 1
        while True:
            slot = VERBATIM_SLOT if n == 1 else f"{VERBATIM_SLOT}_{n}"
            held = self.state.get(f"{entity}/{slot}")
            if held is None or held.value == value:
                return slot
            n += 1

    def _when(self, sentence: str, f: Found, at: str) -> When | None:
        if f.kind == "verbatim":
            return None
        if f.date:
            day = parse_date(f.date, at)
            return When(day) if day else None
        masked = self._masked.get(sentence, sentence)
        start, end = f.start, clause_end(sentence, f.end)
        end = min(end, f.end + WHEN_WINDOW)
        while start < f.value_start and sentence[start] in "，,；;：: \t":
            start += 1
        if (
            start != f.start
        ):  # "…，2018年到2021年住在武汉": the clause after the boundary has its own time
            lo = max(clause_start(sentence, start), start - WHEN_WINDOW)
            when = find_when(masked[lo:end], at)
            if when is not None:
                return when
        lo = max(clause_start(sentence, f.start), f.start - WHEN_WINDOW)
        return find_when(masked[lo:end], at)

    def _forget(self, f: Found, entity: str, at: str, where: str) -> None:
        keys = (
            [f"{entity}/{f.attribute}"]
            if f.attribute
            else (self._current or self._last.get(entity, []))
        )
        if not keys:
            self.notes.append(
                f"{where}: a forget request, but nothing said just before it to forget"
            )
            return
        self._version += 1
        for key in dict.fromkeys(keys):
            # A value said and retracted in one ingest never reaches a file or the journal.
            self.out = [s for s in self.out if s.key != key]
            self._current = [k for k in self._current if k != key]
            self.state.pop(key, None)
            e, a = key.split("/", 1)
            self.out.append(Statement(e, a, "forget", at=at, source=f"{self.path}#{where}"))

    def _depends(self, f: Found, entity: str, at: str, where: str) -> None:
        if f.attribute:
            key = f"{entity}/{f.attribute}"
        else:
            recent = self._current or self._last.get(entity, [])
            if not recent:
                self.notes.append(
                    f"{where}: a dependency on 'this', but no statement just before it"
                )
                return
            key = recent[-1]
        dep = dict(f.dep)
        dep["on"] = self._trigger_key(key.split("/", 1)[0], str(dep["on"]))
        if dep["on"] in (key, key.split("/", 1)[1]):
            return
        for i in range(len(self.out) - 1, -1, -1):  # said in this message: attach it there
            st = self.out[i]
            if st.key == key and st.kind == "assert" and key in self._current:
                self.out[i] = dataclasses.replace(st, depends_on=_merge(st.depends_on, dep))
                return
        slot = self.state.get(key)
        if slot is not None and (slot.value is None or slot.status not in ("active", "tentative", "uncertain")):  # fmt: skip
            self.notes.append(f"{where}: {key} has no current value to attach the dependency to")
            return
        if slot is None:
            # Nothing known yet: a fact of nothing would answer "unknown" as if it were known.
            # The dependency waits for a value said later in this batch (see `emit`).
            self._waiting.setdefault(key, []).append(dep)
            self.notes.append(f"{where}: {key}: no value yet; the dependency waits for one")
            return
        value = slot.value
        tentative = slot.status != "active"
        self.emit(key, kind="assert", value=value, at=at, where=where, tentative=tentative,
                  body=f"Learned from {self.path} on {at}.", depends_on=(dep,))  # fmt: skip

    def _correct(self, f: Found, entity: str, at: str, where: str) -> None:
        """"No, I said Munich": the fact holding the wrong value, else the one just said."""
        wrong = f.dep.get("wrong")
        keys = [k for k, s in self.state.items() if wrong and k.startswith(f"{entity}/") and s.value is not None and self.rules.same_value(k.split("/", 1)[1], s.value, wrong)]  # fmt: skip
        keys = keys or (self._current or self._last.get(entity) or [])[-1:]
        if not keys:
            self.notes.append(f"{where}: a correction, but nothing just said to correct")
            return
        self.emit(keys[-1], kind="correct", value=f.value, at=at, where=where)
        slot = self.state.get(keys[-1])
        if slot is not None:
            slot.value, slot.status = f.value, "active"

    def _trigger_key(self, entity: str, attribute: str) -> str:
        """`attr` when the dependent's entity has it (or nobody does), else `entity/attr`."""
        if f"{entity}/{attribute}" in self.state:
            return attribute
        others = sorted(k for k in self.state if k.split("/", 1)[1] == attribute)
        return others[0] if len(others) == 1 else attribute

    def add(self, st: Statement) -> None:
        """Add a statement made whole elsewhere (an event, a plan), once per message."""
        self._version += 1
        if st.entity in self._relations:  # a person's first fact: how they are related, first
            self._related(st.entity)
        if not any(_same(old, st, self.rules) for old in self.out[-8:]):
            self.out.append(st)
            self._current.append(st.key)

    def emit(self, key: str, *, kind: str, value: Value, at: str, where: str,
             tentative: bool = False, body: str = "", depends_on: tuple[dict[str, Any], ...] = (),
             until: str = "", change: bool = False, form: str = "",
             polarity: str = "") -> None:  # fmt: skip
        """Add a statement (once per message) and update the extractor's view of the vault."""
        entity, attribute = key.split("/", 1)
        self._version += 1
        if attribute == "relation":
            self._persons.add(entity)
        elif entity in self._relations:
            self._related(entity)
        if kind == "assert" and value is not None and key in self._waiting:
            for dep in self._waiting.pop(key):
                depends_on = _merge(depends_on, dep)
        st = Statement(entity, attribute, kind, value, at, f"{self.path}#{where}", tentative, body, depends_on, until, change, form=form, polarity=polarity)  # fmt: skip
        for old in self.out[-8:]:
            if _same(old, st, self.rules):
                return
        self.out.append(st)
        self._current.append(key)
        self.resolver.learn(attribute)
        slot = self.state.get(key)
        if kind == "invalidate":
            self._ended.append(key)
            if slot is not None and isinstance(slot.value, list) and value is not None:
                slot.value = [v for v in slot.value if not self.rules.same_value(attribute, v, value)] or None
            elif slot is not None:
                slot.value, slot.status, slot.was = None, "expired", slot.value
            return
        # What decide will keep, this view keeps too (BACKFILL and NOOP leave the value).
        if slot is None or keeps_value(slot.status, slot.valid_from, at, tentative=tentative) is None:
            if form == "unnamed" and slot is not None and slot.value is not None and slot.status != "expired":
                return  # a name is known: "my husband" says nothing more
            many = self.rules.attribute(attribute).cardinality == "many"
            if many and slot is not None and isinstance(slot.value, list) and isinstance(value, str) and not form:
                known = any(self.rules.same_value(attribute, v, value) for v in slot.value)
                grown = list(slot.value) if known else [*slot.value, value]
                self.state[key] = Slot(grown, "tentative" if tentative else "active", slot.valid_from or at)
                return
            held = None if form in ("none", "unnamed") else [value] if many and isinstance(value, str) else value  # an unnamed one's value: its noun
            self.state[key] = Slot(held, "tentative" if tentative else "active", at, kind=form or None)


def _same(a: Statement, b: Statement, rules: Rules) -> bool:
    return (a.key, a.kind, a.tentative, a.depends_on, a.at, a.form, a.polarity) == (b.key, b.kind, b.tentative, b.depends_on, b.at, b.form, b.polarity) and (
        rules.same_value(a.attribute, a.value, b.value)
    )  # fmt: skip


def _merge(deps: tuple[dict[str, Any], ...], dep: dict[str, Any]) -> tuple[dict[str, Any], ...]:
    return tuple(d for d in deps if d.get("on") != dep["on"]) + (dep,)
