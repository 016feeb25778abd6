"""Bounds on reading one message for facts, so pasted logs, code and hostile text never hang.

Four bounds, each for a different way a message can be expensive:

- code blocks (``` or ~~~ fences) are not read for facts at all: they are kept verbatim in the
  episode file, but "I moved to Paris" inside a pasted script is not the person speaking;
- no pattern scans more than `MAX_PIECE` characters at a time: a sentence longer than that
  (a log line, a minified file, "1111…") is read in pieces, cut at a space where there is one,
  so a pattern that is quadratic in what it scans costs a bounded amount per piece and the
  whole message costs time linear in its length;
- a message has `MESSAGE_BUDGET` seconds to find its candidate statements, and at most
  `MAX_CANDIDATES` of them are weighed; the rules.yaml patterns run under the `regex`
  module's timeout, so even a catastrophic pattern such as `(a+)+$` stops, and the message is
  skipped with a note instead of hanging the ingest.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import regex

from mdmem.extract.prefilter import Pattern
from mdmem.regex_cache import compile_timed

MAX_PIECE = 1000  # characters a pattern may scan at once; real sentences are far shorter
MESSAGE_BUDGET = 2.0  # seconds to read one message for facts before it is skipped
# Candidate statements weighed per message: weighing is not interruptible (it updates the
# batch's view of the vault), so its cost is bounded by count instead of by the clock.
MAX_CANDIDATES = 200

_FENCE = re.compile(r"^[ \t]{0,3}(```|~~~)", re.M)
_FLAGS = re.I | re.M | re.S | re.X | re.A
_COMPILED: dict[tuple[str, int], Any] = {}


class Runaway(Exception):
    """Reading a message took longer than its budget; `seconds` says how long it had, and
    `pattern` the rules.yaml pattern that was running when it ran out (None: mdmem's own)."""

    def __init__(self, seconds: float, pattern: str | None = None) -> None:
        super().__init__(f"took longer than {seconds:g} s")
        self.seconds = seconds
        self.pattern = pattern


class Budget:
    """The wall-time budget of one message: `check` raises Runaway once it is spent.
    `slow` holds the patterns that ran away on an earlier message of the same batch: they are
    not run again, so one bad pattern costs one message, not every message."""

    def __init__(self, seconds: float | None = None, slow: set[str] | None = None) -> None:
        self.seconds = MESSAGE_BUDGET if seconds is None else seconds
        self.deadline = time.monotonic() + self.seconds
        self.slow = slow if slow is not None else set()

    def left(self) -> float:
        """Seconds left (at least a millisecond, so a timeout argument is never zero)."""
        return max(self.deadline - time.monotonic(), 0.001)

    def spent(self) -> bool:
        """True once the budget is spent."""
        return time.monotonic() >= self.deadline

    def check(self) -> None:
        """Raise Runaway when the budget is spent."""
        if time.monotonic() >= self.deadline:
            raise Runaway(self.seconds)

    def finditer(self, rx: Pattern, text: str) -> Iterator[Any]:
        """`rx.finditer(text)` run by the `regex` engine under the time left; Runaway if it
        runs out. The matches have `re`'s interface (groupdict, start, end)."""
        if rx.pattern in self.slow:
            return
        try:
            yield from timed(rx).finditer(text, timeout=self.left())
        except TimeoutError:
            self.slow.add(rx.pattern)
            raise Runaway(self.seconds, rx.pattern) from None


# Every note that says text went unread contains this; `ingest` shows those as warnings.
UNREAD = "not read for facts"


def is_warning(note: str) -> bool:
    """True for a note saying part of a message went unread (shown, not only journaled)."""
    return UNREAD in note


def timed(rx: Pattern) -> Any:
    """The same pattern compiled by the `regex` module (which takes a timeout), cached; from
    its text and flags alone, so a `prefilter.Source` is never compiled by `re` as well.
    Validated by `re` when its rules were; `regex` in VERSION0 reads `re`'s syntax the same way."""
    key = (rx.pattern, rx.flags & _FLAGS)
    found = _COMPILED.get(key)
    if found is None:
        if len(_COMPILED) > 4096:
            _COMPILED.clear()
        found = _COMPILED[key] = compile_timed(rx.pattern, key[1] | regex.V0)  # as compiled before
    return found


def without_code(text: str) -> str:
    """The text with every fenced code block made one line break; an unclosed fence is
    text, as in the transcript reader."""
    if "```" not in text and "~~~" not in text:
        return text
    out: list[str] = []
    pos = 0
    marks = list(_FENCE.finditer(text))
    i = 0
    while i < len(marks):
        opening = marks[i]
        close = next((k for k in range(i + 1, len(marks)) if marks[k][1] == opening[1]), None)
        if close is None:
            break
        out.append(text[pos : opening.start()] + "\n")
        end = text.find("\n", marks[close].end())
        pos = len(text) if end < 0 else end
        i = close + 1
    out.append(text[pos:])
    return "".join(out)


def pieces(sentence: str, limit: int = MAX_PIECE) -> list[str]:
    """The sentence itself, or, when longer than `limit`, consecutive pieces of at most `limit`
    characters, each cut after the last space of its span when there is one."""
    if len(sentence) <= limit:
        return [sentence]
    out = []
    start = 0
    while len(sentence) - start > limit:
        cut = sentence.rfind(" ", start + limit // 2, start + limit)
        end = cut + 1 if cut >= 0 else start + limit
        out.append(sentence[start:end])
        start = end
    out.append(sentence[start:])
    return [p for p in out if p.strip()]
