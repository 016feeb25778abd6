"""Values of the past: said in the past tense, for a closed period, or as a change of state.

"I lived in Wuhan from 2018 to 2021", "I was working at Bench back then", "I don't eat meat any
more": the weigher (`weigh.Extractor`) hands such candidates here, and they become history
(or an ending) instead of the current value.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass

from mdmem.extract.candidates import Found
from mdmem.extract.dates import When, zh_number
from mdmem.extract.modality import Mood
from mdmem.extract.values import day_before
from mdmem.model.factfile import Value
from mdmem.model.rules import Rules

_LASTED = re.compile(
    r"\b(?:after|for)\s+(?:almost\s+|nearly\s+|about\s+|over\s+)?(?P<n>\d{1,2}|a|an|one|two|three|four|five|six|seven|eight|nine|ten|twelve|fifteen|twenty)"
    r"\s+(?P<unit>years?|months?)\b|(?P<zh>[一二两三四五六七八九十\d]{1,3})(?P<zu>年|个月)(?:后|之后|以后|了)",
    re.I,
)
_DESCRIBED = re.compile(r"(?:the|my|this|that|our)\s", re.I)
_N = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
      "eight": 8, "nine": 9, "ten": 10, "twelve": 12, "fifteen": 15, "twenty": 20}  # fmt: skip


def lasted(text: str, at: str) -> When | None:
    """ "I quit the bakery after five years": the period that ends on `at`, from its length."""
    m = _LASTED.search(text)
    if m is None:
        return None
    n = _N.get((m["n"] or "").lower()) or (int(m["n"]) if m["n"] and m["n"].isdigit() else zh_number(m["zh"] or "") or 0)
    months = n * 12 if (m["unit"] or m["zu"] or "").startswith(("year", "年")) else n
    day = dt.date.fromisoformat(at[:10])
    index = day.year * 12 + day.month - 1 - months
    return When(dt.date(index // 12, index % 12 + 1, 1).isoformat(), through=at) if n else None


@dataclass
class Slot:
    """The batch's view of one fact: what it holds now, and what it last held."""

    value: Value
    status: str
    valid_from: str | None
    was: Value = None  # the value it last held, when it holds none now
    kind: str | None = None  # none | unnamed | plan … (Fact.kind)


class PastValues:
    """The past-value part of the weigher; `weigh.Extractor` is the class that uses it."""

    rules: Rules
    path: str
    state: dict[str, Slot]
    notes: list[str]
    emit: Callable[..., None]  # Extractor.emit: adds one statement

    def _bygone(self, key: str, value: Value, when: When | None, at: str, where: str,
                ending: bool = False) -> None:  # fmt: skip
        """A value said in the past tense: history before the current value, never current;
        `ending` ("I quit Crumb Bakery"): the current value, if it is this one, ends now."""
        slot = self.state.get(key)
        start = when.start if when is not None else None
        body = f"Learned from {self.path} (a past value)."
        if slot is not None and slot.value is not None:
            attribute = key.split("/", 1)[1]
            held = slot.value if isinstance(slot.value, list) else [slot.value]
            # "I quit the bakery" while holding Crumb Bakery: a description, not a name, is the one held.
            described = isinstance(value, str) and _DESCRIBED.match(value) is not None
            if any(self.rules.same_value(attribute, value, v) for v in held) or ending and described and len(held) == 1:
                if ending:
                    value = held[0] if described else value
                    self.emit(key, kind="invalidate", value=self._item(key, value), at=(when.through if when else None) or at, where=where)  # fmt: skip
                    return
                self.notes.append(f"{where}: {key}: the current value said in the past tense")
                return
            if not slot.valid_from:
                self.notes.append(f"{where}: {key}: a past value, but the current one has no date")
                return
            if start is None or start >= str(slot.valid_from):
                start = day_before(str(slot.valid_from))  # just before the current value
            self.emit(key, kind="assert", value=value, at=start, where=where, body=body,
                      until=str(slot.valid_from))  # fmt: skip
            return
        if slot is not None and slot.was is not None and self.rules.same_value(key.split("/", 1)[1], value, slot.was):
            return  # "since I lost my job at X" again: already kept as what it was
        start, end = start or at, (when.through if when is not None else None) or at  # it held, then ended
        self.emit(key, kind="assert", value=value, at=start, where=where, body=body)
        self.emit(key, kind="invalidate", value=self._item(key, value), at=min(end, at), where=where)

    def _no_longer(self, key: str, f: Found, md: Mood) -> tuple[Found, Mood]:
        """ "I don't eat meat any more", "我不吃素了": the current value, if it is this one, ends;
        with nothing held, "I'm not vegan anymore" still says what was, and that it ended."""
        slot = self.state.get(key)
        if slot is None or slot.value is None:
            return dataclasses.replace(f, form="ended"), dataclasses.replace(md, negated=False, no_longer=False)  # fmt: skip
        if self.rules.same_value(f.attribute or "", slot.value, f.value):
            return dataclasses.replace(f, kind="invalidate", value=None), dataclasses.replace(md, negated=False)  # fmt: skip
        return f, md

    def _over(self, key: str, value: Value, when: When | None, at: str, where: str) -> None:
        """An item said to be over ("I used to sing in a choir but stopped last year"): held, it
        ends on the day said (else today); not held, it is kept as what it was, and ended."""
        end = min(when.start, at) if when is not None else at
        slot = self.state.get(key)
        held = [] if slot is None or slot.value is None else slot.value if isinstance(slot.value, list) else [slot.value]
        if not any(self.rules.same_value(key.split("/", 1)[1], value, v) for v in held):
            self.emit(key, kind="assert", value=value, at=end, where=where,
                      body=f"Learned from {self.path} (a past value).", until=end)  # fmt: skip
        self.emit(key, kind="invalidate", value=value, at=end, where=where)

    def _period(self, key: str, f: Found, value: Value, when: When, where: str) -> None:
        """A value that held for a closed period in the past ("from 2019 to 2021")."""
        slot = self.state.get(key)
        assert when.end is not None
        body = f"Learned from {self.path} (a past period)."
        if slot is None:  # nothing current known: it held then, and ended
            self.emit(key, kind="assert", value=value, at=when.start, where=where, body=body)
            self.emit(key, kind="invalidate", value=self._item(key, value), at=when.end, where=where)
        elif slot.valid_from and when.start < slot.valid_from and f.kind == "assert":
            self.emit(
                key,
                kind="assert",
                value=value,
                at=when.start,
                where=where,
                body=body,
                until=when.end,
            )
        else:
            self.notes.append(
                f"{where}: {key}: a past period that overlaps the current value; nothing written"
            )


    def _item(self, key: str, value: Value) -> Value:
        """What an ending names: the item, in a list (it ends alone); nothing, for one value."""
        return value if self.rules.attribute(key.split("/", 1)[1]).cardinality == "many" else None
