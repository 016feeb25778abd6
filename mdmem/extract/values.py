"""What the extractor makes of candidate values: one reading per slot, list items, days."""

from __future__ import annotations

import datetime as dt
import re

from mdmem.extract.candidates import Found, canonical
from mdmem.model.factfile import Value
from mdmem.model.rules import Rules

_ING_VERB = re.compile(r"^[a-z]{2,}ing$")
_DET = re.compile(r"^(?:the|a|an|my|our|this|that|these|those|some)\s", re.I)
_LIST = re.compile(r"\s*(?:,\s*(?:and\s+|&\s*)?|\s+and\s+|\s*&\s*|[、，]|以及|还有|和|跟)\s*")


def day_before(day: str) -> str:
    """The ISO day before `day`."""
    return (dt.date.fromisoformat(day[:10]) - dt.timedelta(days=1)).isoformat()


def tidy(found: list[Found]) -> list[Found]:
    """One reading per slot of a sentence: of two patterns whose values overlap ("南山" and
    "南山科技园") the longer value wins; an ending beside a new value of the same slot ("I left
    Lumen for Northwind") is the change to it, not a second statement."""
    asserts = [f for f in found if f.kind == "assert" and isinstance(f.value, str)]
    out = []
    for f in found:
        if f.kind == "invalidate" and any(a.attribute == f.attribute for a in asserts):
            continue
        if any(f is a for a in asserts) and any(
            o is not f
            and o.attribute == f.attribute
            and _value_overlap(o, f)
            and (len(str(o.value)), -o.value_start) > (len(str(f.value)), -f.value_start)
            for o in asserts
        ):
            continue
        out.append(f)
    return out


def _value_overlap(a: Found, b: Found) -> bool:
    # A value may be longer than the words said ("watch movies" read as "watching movies"):
    # it ends where its words end, at the latest.
    a_end, b_end = min(a.value_start + len(str(a.value)), a.end), min(b.value_start + len(str(b.value)), b.end)
    return a.value_start < b_end and b.value_start < a_end


def split_items(rules: Rules, attribute: str, value: Value) -> list[Value]:
    """A list said of a many-valued slot ("bouldering and sourdough baking") item by item."""
    if not isinstance(value, str) or rules.attribute(attribute).cardinality != "many":
        return [value]
    parts = [p.strip(" .,;:!?，。；：！？") for p in _LIST.split(value)]
    if len(parts) < 2 or any(len(p) < 2 for p in parts):
        return [value]  # "和平精英" is one game, not 平精英 and nothing
    # "watching the waves and the sunset colors": a later object of the first item's -ing verb
    # is watched too, not an item of its own
    verb = parts[0].split()[0]
    if _ING_VERB.match(verb) and len(parts[0].split()) > 1:
        parts = [parts[0], *(f"{verb} {p}" if _DET.match(p) else p for p in parts[1:])]
    return [canonical(rules, attribute, p) for p in parts]
