"""Weighing names and counts of members against what is held (grammar/names.py finds them).

"We ended up naming her Juno" names the member still unnamed; "I have two rabbits" keeps a
count, which a named third raises to three ("my third rabbit Juno", "another rabbit, Pip") and
which more names than it says raise to their number; naming one already counted leaves it.
"""

from __future__ import annotations

from collections.abc import Callable

from mdmem.extract.candidates import Found
from mdmem.extract.grammar.lexicon import lexicon
from mdmem.extract.grammar.names import members_of
from mdmem.extract.past import Slot
from mdmem.model.rules import Rules


class MemberCounts:
    """The member part of the weigher; `weigh.Extractor` is the class that uses it."""

    rules: Rules
    state: dict[str, Slot]
    notes: list[str]
    _current: list[str]
    _last: dict[str, list[str]]
    emit: Callable[..., None]
    # person entity → (relation, date, line): written with the first fact said of them, so
    # that a person merely mentioned ("my brother called") gets no folder of their own
    _relations: dict[str, tuple[str, str, str]]

    _people: dict[str, tuple[int, dict[str, str]]]  # entity → (`_version` when worked out, people_of)
    _kin: dict[str, tuple[tuple[int, int], dict[str, str]]]  # entity → ((`_version`, relations kept), kin_of)
    _version: int  # changes whenever `state` may have: each statement emitted or forgotten

    def people_of(self, entity: str) -> dict[str, str]:
        """The people `entity` has spoken of, by name (casefolded) → owner token: the names in
        its people slots (partner, siblings, friends …) and the persons it has facts of."""
        cached = self._people.get(entity)
        if cached is not None and cached[0] == self._version:
            return cached[1]
        lex = lexicon(self.rules)
        out: dict[str, str] = {}
        for slot in sorted(lex.people):
            held = self.state.get(f"{entity}/{slot}")
            names = held.value if held is not None and isinstance(held.value, list) else [held.value] if held is not None and held.value else []  # fmt: skip
            out.update({str(n).casefold(): str(n) for n in names if n})
        prefix = "" if entity == "user" else f"{entity}-"
        for person in (e for e in self._persons if e.startswith(prefix) and e != entity):
            out.setdefault(person[len(prefix) :].replace("_", " "), person[len(prefix) :])
        self._people[entity] = (self._version, out)
        return out

    def kin_of(self, entity: str) -> dict[str, str]:
        """How `entity` is related to the people it has spoken of, where one person alone is so
        related: relation noun (casefolded) → owner token ("哥" → 李想 after 我哥叫李想), so that
        a later "我哥…" or "my brother …" speaks of that person, not of someone new. Worked out
        again only when what it reads may have changed: a statement (`_version`) or a relation
        kept for a person's first fact (`_relations` only grows between statements)."""
        when = (self._version, len(self._relations))
        cached = self._kin.get(entity)
        if cached is not None and cached[0] == when:
            return cached[1]
        prefix = "" if entity == "user" else f"{entity}-"
        seen: dict[str, set[str]] = {}
        said = {p: held.value for p in self._persons if (held := self.state.get(f"{p}/relation")) is not None}
        said.update({p: noun for p, (noun, _, _) in self._relations.items() if p not in said})  # not yet written
        for person, noun in said.items():
            if person.startswith(prefix) and person != entity and isinstance(noun, str) and noun:
                seen.setdefault(noun.casefold(), set()).add(person[len(prefix) :])
        out = {noun: owners.pop() for noun, owners in seen.items() if len(owners) == 1}
        self._kin[entity] = (when, out)
        return out

    _persons: set[str]  # entities with a relation: the people spoken of before

    def _relate(self, key: str, value: str, at: str, where: str) -> None:
        """Keep how a person is related, to be written with their first fact."""
        entity = key.split("/", 1)[0]
        if f"{entity}/relation" not in self.state:
            self._relations.setdefault(entity, (value, at, where))

    def _related(self, entity: str) -> None:
        """Before the first fact of a person: how they are related, when it was said."""
        if entity in self._relations and f"{entity}/relation" not in self.state:
            value, at, where = self._relations.pop(entity)
            self.emit(f"{entity}/relation", kind="assert", value=value, at=at, where=where,
                      body="How they are related, as said.")  # fmt: skip

    def _unnamed_slot(self, entity: str, f: Found, where: str) -> Found | None:
        """The member a later name is for: the speaker's slot that holds one unnamed (a pet, a
        child), the one spoken of most recently first; None (with a note) when there is none."""
        lex = lexicon(self.rules)
        # one names a pet or a child, never a friend or a parent ("I named her Tilly": a toy)
        slots = {s for s in members_of(lex).slot.values() if s not in lex.people or s in lex.count}
        held = [k for k in (f"{entity}/{s}" for s in sorted(slots)) if (s := self.state.get(k)) and s.kind == "unnamed"]
        recent = [k for k in reversed(self._current + self._last.get(entity, [])) if k in held]
        key = recent[0] if recent else held[0] if len(held) == 1 else None
        if key is None:
            self.notes.append(f"{where}: a name ({f.value}) for no member still unnamed; nothing written")
            return None
        return Found(key.split("/", 1)[1], f.value, "assert", f.start, f.value_start, f.end)

    def _count_value(self, key: str, f: Found) -> str | None:
        """The count an ordinal says ("my third rabbit": at least three) or "another" (one more
        than held; None when no count is held, as there is nothing to add to)."""
        held = _number(self.state.get(key))
        if f.form == "more":
            return None if held is None else str(held + int(str(f.value)))
        return str(max(int(str(f.value)), held or 0))

    def _recount(self, key: str, at: str, where: str) -> None:
        """After a member is named: a count lower than the names now held rises to their number."""
        entity, attribute = key.split("/", 1)
        count = lexicon(self.rules).count.get(attribute)
        slot = self.state.get(key)
        if count is None or slot is None or not isinstance(slot.value, list):
            return
        held = _number(self.state.get(f"{entity}/{count}"))
        if held is not None and held < len(slot.value):
            self.emit(f"{entity}/{count}", kind="assert", value=str(len(slot.value)), at=at, where=where,
                      body="Counted from the names said.")  # fmt: skip


def _number(slot: Slot | None) -> int | None:
    if slot is None or slot.value is None or not str(slot.value).isdigit():
        return None
    return int(str(slot.value))
