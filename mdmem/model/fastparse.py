"""A fast road through `factfile.parse` for frontmatter in the simple layout mdmem writes.

A cold start parses every fact file, and the YAML parser is most of that time. mdmem's own
emitter (model/emit.py) writes a small, regular subset of YAML: block mappings and indentless
sequences, plain or single-quoted one-line text, `[]` and `{}`. This module reads only that
subset and builds the Fact with `factfile.from_parsed` (from_mapping's validation). Within the
subset, YAML as mdmem loads it (model/yaml_text.py: every plain scalar but null stays text)
reads the same values, so no proof by rendering is needed; anything outside it (a comment, a
`|` block, double quotes, anchors, tags, a tab, a character YAML reads as a line break or
refuses, a problem to report) returns None, and the caller parses the file in full.
tests/model/test_fastparse.py checks both roads agree on rendered and on edited bytes.
"""

from __future__ import annotations

from typing import Any

from mdmem.errors import MdmemError
from mdmem.lazy_regex import lazy
from mdmem.model.factfile import EARLIER_EVIDENCE, FIELDS, HISTORY_FIELDS, VALUES, Fact, from_parsed
from mdmem.model.limits import MAX_DEPTH, MAX_FACT_CHARS, MAX_FIELDS, fact_text_problem

_KEY = lazy(r"[A-Za-z_][A-Za-z0-9_]*")
_NULLS = frozenset(("null", "Null", "NULL", "~"))
# What a plain scalar may not start with (an indicator, a quote, a space, '-', ':').
_NOT_PLAIN = frozenset("'\"|>[]{}&*!%@`#?,-: ")
# What YAML does not read as the plain character it is: tabs and other controls, the line
# breaks beyond \n (NEL, LS, PS), a byte-order mark, anything outside its printable set.
_UNSAFE = lazy("[^\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]")
# The keys mdmem writes (and those of its nested mappings): known good without a regex.
_KNOWN = frozenset((*FIELDS, *HISTORY_FIELDS, VALUES, EARLIER_EVIDENCE, "fact", "change", "changed_at",
                    "question", "en", "zh", "on", "action", "rule", "from", "statement"))  # fmt: skip
_INDENTED = ("  ", "- ")
# `key: scalar` lines already read, with what they read as (text or null, never a container):
# a vault repeats most of its lines (status, source, dates, names), each read once a process.
_LINES: dict[str, tuple[str, str | None]] = {}


class _Doubt(Exception):
    """Outside the subset: parse in full."""


def parse_canonical(text: str, path: str, expect: tuple[str, str] | None) -> Fact | None:
    """The fact in text if it is exactly as mdmem renders it, else None (parse it in full)."""
    if not text.startswith("---\n") or "\r" in text or (_near_limits(text) and fact_text_problem(text) is not None):
        return None  # the full parse says what is wrong
    end = text.find("\n---\n", 3)
    if end < 0:
        return None
    head = text[4 : end + 1]
    if _UNSAFE().search(head):
        return None
    lines = head.split("\n")
    lines.pop()  # after the last line break
    try:
        data = _mapping(lines)
    except (_Doubt, RecursionError):
        return None
    if expect is not None and (data.get("entity"), data.get("attribute")) != expect:
        return None  # the full parse says what is wrong
    try:
        return from_parsed(data, text[end + 5 :], path)
    except MdmemError:
        return None


def _near_limits(text: str) -> bool:
    """False when no limit of `fact_text_problem` can be reached (it then finds nothing): each
    check there needs more lines, brackets, '- ' runs or indentation than the text has."""
    return (
        len(text) > MAX_FACT_CHARS or text.count("\n") > MAX_FIELDS
        or text.count("[") + text.count("{") > MAX_DEPTH or text.count("- ") > MAX_DEPTH
        or "\n" + " " * (MAX_DEPTH + 1) in text
    )  # fmt: skip


def _key(key: str, out: dict[str, Any]) -> str:
    if (key not in _KNOWN and (not _KEY().fullmatch(key) or key in _NULLS)) or key in out:
        raise _Doubt
    return key


def _mapping(lines: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    i, n = 0, len(lines)
    seen = _LINES
    while i < n:
        line = lines[i]
        i += 1
        hit = seen.get(line)
        if hit is not None:  # a line read before: its key (checked) and its text or null
            if hit[0] in out:
                raise _Doubt
            out[hit[0]] = hit[1]
            continue
        key, sep, rest = line.partition(": ")
        if sep:
            value = out[_key(key, out)] = _scalar(rest)
            if (value is None or type(value) is str) and len(line) <= 120:
                if len(seen) >= 16384:
                    seen.clear()
                seen[line] = (key, value)
            continue
        if line[-1:] != ":":
            raise _Doubt
        key = _key(line[:-1], out)
        start = i
        while i < n and lines[i].startswith(_INDENTED):
            i += 1
        out[key] = _block(lines[start:i])
    return out


def _block(lines: list[str]) -> Any:
    if not lines:
        raise _Doubt  # `key:` with nothing after: null, which mdmem writes as `null`
    if lines[0].startswith("- "):
        return _sequence(lines)
    if not all(line.startswith("  ") for line in lines):
        raise _Doubt
    return _mapping([line[2:] for line in lines])


def _sequence(lines: list[str]) -> list[Any]:
    items: list[list[str]] = []
    for line in lines:
        if line.startswith("- "):
            items.append([line[2:]])
        elif items and line.startswith("  "):
            items[-1].append(line[2:])
        else:
            raise _Doubt
    out: list[Any] = []
    for item in items:
        first = item[0]
        if first[:1] != "'" and (": " in first or first.endswith(":")):
            out.append(_mapping(item))
        elif len(item) == 1:
            out.append(_scalar(first))
        else:
            raise _Doubt
    return out


def _scalar(s: str) -> Any:
    if not s or s[-1] == " ":
        raise _Doubt
    first = s[0]
    if first == "'":
        if len(s) < 2 or s[-1] != "'":
            raise _Doubt
        inner = s[1:-1]
        if "'" not in inner:
            return inner
        if "'" in inner.replace("''", ""):
            raise _Doubt
        return inner.replace("''", "'")
    if s == "[]":
        return []
    if s == "{}":
        return {}
    if first in _NOT_PLAIN or " #" in s or ": " in s or s[-1] == ":":
        raise _Doubt
    return None if s in _NULLS else s
