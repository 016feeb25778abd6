"""`Speaker: text` transcripts, plain or Markdown, with dated session headers."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from mdmem.errors import TranscriptError
from mdmem.extract.importers.base import EXPECTED, Conversation, Importer, NoMessages
from mdmem.extract.importers.source import Input
from mdmem.extract.message import (
    CLOCK,
    DATE,
    PERSON,
    STAMP,
    Message,
    key,
    role_for_speaker,
    stamp,
)

_CLOCK_ONLY = re.compile(CLOCK)
_HEADER_STAMP = re.compile(rf"{DATE}(?:(?:T|\s+|\s*[,@]\s*){CLOCK})?")

_HEADING = re.compile(r"[ \t]{0,3}#{1,6}[ \t]+(?P<title>.*)")
_RULE = re.compile(r"[ \t]{0,3}(?:-{3,}|={3,})[ \t]*(?P<title>.*?)[ \t]*[-=]*[ \t]*")
_SESSION_WORD = re.compile(r"\bsession\s*#?\s*\d+|会话\s*\d+|第\s*\d+\s*[次轮场]", re.I)
_FENCE = re.compile(r"[ \t]{0,3}(?:```|~~~)")
_SPEAKER = re.compile(
    r"[ \t]{0,3}(?:[-*+][ \t]+)?"  # optional list marker
    r"(?:\[(?P<bracket>\d[^\]]{0,30})\][ \t]*)?"  # optional [2026-02-10 09:12]
    r"(?P<open>\*\*|__)?"
    r"(?P<name>[^\W_](?:[\w' \-]{0,38}[^\W_])?)"
    # Possessive runs of blanks: three greedy ones in a row are cubic on a line of spaces.
    r"[ \t]*+(?:\((?P<paren>\d[^)]{0,30})\))?"  # optional (2026-02-10 09:12)
    r"[ \t]*+(?P<close>\*\*|__)?[ \t]*+"
    # An ASCII colon must be followed by a space, the line end or non-ASCII text, so that
    # "localhost:8080", "12:30", "C:\" and "https://" never read as speakers.
    r"(?:：|:(?=\s|$|[^\x00-\x7f]|\*\*|__))"
    r"(?P<text>.*)"
)


def parse_text(text: str, source: str, fallback: str | None) -> list[Message]:
    """The messages of a text transcript (`text` already free of BOM and CR)."""
    return _parse_text(text.split("\n"), source, fallback)


def _read(inp: Input, default_time: str | None) -> Iterator[Conversation]:
    text, digest = inp.text()
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    if not text.strip():
        raise NoMessages(f"is empty: {EXPECTED}", path=inp.source)
    messages = parse_text(text, inp.source, default_time)
    if not messages:
        raise NoMessages(f"no messages found: {EXPECTED}", path=inp.source)
    yield Conversation(messages, digest)


IMPORTER = Importer(
    "text", "'Speaker: text' lines, plain or Markdown, with dated session headers",
    claims=lambda inp: True, read=_read,
)  # fmt: skip


@dataclass
class _Open:
    speaker: str
    when: tuple[str | None, int, int | None]  # time, line, session
    body: list[str]


def _parse_text(lines: list[str], source: str, fallback: str | None) -> list[Message]:
    fenced = {i for start, end in _fenced(lines) for i in range(start, end + 1)}
    # Inside ``` fences every line is message text, never a speaker or a header.
    kinds = [
        ("text",) if n - 1 in fenced else _classify(line, n, source)
        for n, line in enumerate(lines, 1)
    ]
    known = _known_speakers([k[1] for k in kinds if k[0] == "speaker"])
    messages: list[Message] = []
    current: _Open | None = None
    session, session_time = None, None
    for lineno, (line, kind) in enumerate(zip(lines, kinds, strict=True), 1):
        if kind[0] == "header":
            _close(current, messages)
            current = None
            session, session_time = (session or 0) + 1, kind[1]
        elif kind[0] == "speaker" and (current is None or key(kind[1]) in known):
            _close(current, messages)
            own = kind[2]
            if own and own.startswith("T"):  # a clock time only: take the day from context
                base = session_time or fallback
                own = base[:10] + own if base else None
            current = _Open(kind[1], (own or session_time or fallback, lineno, session), [kind[3]])
        elif current is not None:
            current.body.append(line)
        # Anything else before the first speaker line (titles, preamble) is not a message.
    _close(current, messages)
    return messages


def _close(current: _Open | None, messages: list[Message]) -> None:
    if current and (text := "\n".join(current.body).strip()):
        role = role_for_speaker(current.speaker)
        messages.append(Message(current.speaker, role, text, *current.when))


def _known_speakers(names: list[str]) -> set[str]:
    # A line like "Note: the build broke" or "City: Shanghai" inside a message looks exactly
    # like a speaker line. Rule: a candidate starts a new message only if its name is a role
    # name (User, Assistant, 用户, …) or appears as a speaker at least twice; a candidate with
    # no message open (the first, or the first after a session header) always does. In a chat
    # between named people with no role names, where fewer than two names repeat, every
    # candidate counts (a short chat in which someone speaks once).
    counts = Counter(key(n) for n in names)
    roles = {n for n in counts if role_for_speaker(n) != PERSON}
    known = roles | {n for n, c in counts.items() if c >= 2}
    return set(counts) if not roles and len(known) < 2 else known


def _fenced(lines: list[str]) -> list[tuple[int, int]]:
    marks = [i for i, line in enumerate(lines) if _FENCE.match(line)]
    return list(zip(marks[0::2], marks[1::2], strict=False))  # an unclosed fence is ignored


def _classify(line: str, lineno: int, source: str) -> tuple[Any, ...]:
    """("header", time), ("heading",), ("speaker", name, own_time, text) or ("text",)."""
    heading, rule = _HEADING.fullmatch(line), _RULE.fullmatch(line)
    if titled := heading or (rule if rule and rule["title"] else None):
        title = titled["title"]
        if m := _HEADER_STAMP.search(title):
            return ("header", _checked(m.groups() + (None,), m[0], source, lineno))
        if _SESSION_WORD.search(title):
            return ("header", None)
        return ("heading",) if heading else ("text",)
    m = _SPEAKER.fullmatch(line)
    if m is None:
        return ("text",)
    name = " ".join(m["name"].split())
    if len(name.split()) > 4 or not any(c.isalpha() for c in name):
        return ("text",)
    own = None
    for raw in (m["bracket"], m["paren"]):
        if raw is None:
            continue
        if stamp := STAMP.fullmatch(raw.strip()):
            own = _checked(stamp.groups(), raw, source, lineno)
        elif clock := _CLOCK_ONLY.fullmatch(
            raw.strip()
        ):  # kept as "THH:MM:SS" until a day is known
            own = _checked(("2000", "1", "1", *clock.groups(), None), raw, source, lineno)[10:]
        else:
            return ("text",)  # "[1] Note: …" or "Alice (2): …" are not timestamps
    text = m["text"]
    if m["open"] and not m["close"] and text.lstrip().startswith(m["open"]):
        text = text.lstrip()[2:]  # "**User:** hi"
    return ("speaker", name, own, text)


def _checked(groups: tuple[str | None, ...], raw: str, source: str, lineno: int) -> str:
    try:
        return stamp(groups, raw)
    except ValueError as e:
        raise TranscriptError(
            f"{e}: use YYYY-MM-DD or YYYY-MM-DD HH:MM", path=source, line=lineno
        ) from None
