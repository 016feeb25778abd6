"""Values of the past: said in the past tense, for a closed period, or as a change of state.

"I lived in Wuhan from 2018 to 2021", "I was working at Bench back then", "I don't eat meat any
more": the weigher (`weigh.Extractor`) hands such candidates here, and they become history
(or an ending) instead of the current value.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

from mdmem.extract.candidates import Found
from mdmem.extract.dates import When
from mdmem.extract.modality import Mood
from mdmem.extract.values import day_before
from mdmem.model.factfile import Value
from mdmem.model.rules import Rules


@dataclass
class Slot:
    """The batch's view of one fact: what it holds now, and what it last held."""

    value: Value
    status: str
    valid_from: str | None
    was: Value = None  # the value it last held, when it holds none now


class PastValues:
    """The past-value part of the weigher; `weigh.Extractor` is the class that uses it."""

    rules: Rules
    path: str
    state: dict[str, Slot]
    notes: list[str]
    emit: Callable[..., None]  # Extractor.emit: adds one statement

    def _bygone(self, key: str, value: Value, when: When | None, at: str, where: str) -> None:
        """A value said in the past tense: history before the current value, never current."""
        slot = self.state.get(key)
        start = when.start if when is not None else None
        body = f"Learned from {self.path} (a past value)."
        if slot is not None and slot.value is not None:
            attribute = key.split("/", 1)[1]
            held = slot.value if isinstance(slot.value, list) else [slot.value]
            if any(self.rules.same_value(attribute, value, v) for v in held):
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
        self.emit(key, kind="invalidate", value=None, at=min(end, at), where=where)

    def _no_longer(self, key: str, f: Found, md: Mood) -> tuple[Found, Mood]:
        """ "I don't eat meat any more", "我不吃素了": the current value, if it is this one, ends."""
        slot = self.state.get(key)
        if slot is not None and slot.value is not None and self.rules.same_value(f.attribute or "", slot.value, f.value):  # fmt: skip
            return dataclasses.replace(f, kind="invalidate", value=None), dataclasses.replace(md, negated=False)  # fmt: skip
        return f, md

    def _period(self, key: str, f: Found, value: Value, when: When, where: str) -> None:
        """A value that held for a closed period in the past ("from 2019 to 2021")."""
        slot = self.state.get(key)
        assert when.end is not None
        body = f"Learned from {self.path} (a past period)."
        if slot is None:  # nothing current known: it held then, and ended
            self.emit(key, kind="assert", value=value, at=when.start, where=where, body=body)
            self.emit(key, kind="invalidate", value=None, at=when.end, where=where)
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

