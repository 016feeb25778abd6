"""Transcripts in, messages out: `Speaker: text` text/Markdown, JSONL and JSON arrays, auto-detected."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
import sys
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, timezone
from pathlib import Path
from typing import Any

from mdmem.errors import TranscriptError
from mdmem.extract.encoding import binary_error, decode

USER, ASSISTANT, PERSON = "user", "assistant", "person"

# Speaker names (text) and roles (JSON) share one vocabulary, matched case-insensitively.
_USER_NAMES = frozenset({"user", "human", "me", "you", "用户", "我", "人类"})
_ASSISTANT_NAMES = frozenset(
    {"assistant", "ai", "bot", "system", "model", "chatgpt", "claude", "gemini", "copilot"}
    | {"tool", "function", "developer", "助手", "助理", "ai助手", "系统", "机器人"}
)

_EXPECTED = (
    "expected lines like 'User: …', JSON lines like "
    '{"role": "user", "content": "…"}, or a JSON array of such objects'
)
_NOT_A_MESSAGE = (
    'not a message: expected a JSON object with "role" (or "speaker"/"name") '
    'and "content" (or "text")'
)

_DATE = r"(\d{4})\s*[-/.年]\s*(\d{1,2})\s*[-/.月]\s*(\d{1,2})(?:\s*日)?"
_CLOCK = r"(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,]\d+)?)?"
_STAMP = re.compile(rf"{_DATE}(?:(?:T|\s+){_CLOCK})?\s*(Z|UTC|[+-]\d{{2}}(?::?\d{{2}})?)?", re.I)
_CLOCK_ONLY = re.compile(_CLOCK)
_HEADER_STAMP = re.compile(rf"{_DATE}(?:(?:T|\s+|\s*[,@]\s*){_CLOCK})?")

_HEADING = re.compile(r"[ \t]{0,3}#{1,6}[ \t]+(?P<title>.*)")
_RULE = re.compile(r"[ \t]{0,3}(?:-{3,}|={3,})[ \t]*(?P<title>.*?)[ \t]*[-=]*[ \t]*")
_SESSION_WORD = re.compile(r"\bsession\s*#?\s*\d+|会话\s*\d+|第\s*\d+\s*[次轮场]", re.I)
_FENCE = re.compile(r"[ \t]{0,3}(?:```|~~~)")
_JSON_ARRAY = re.compile(r"\[\s*(?:[{\[\"\]]|$)")
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


@dataclass(frozen=True)
class Message:
    """One turn of a transcript."""

    speaker: str
    role: str
    text: str
    time: str | None
    line: int
    session: int | None


def role_for_speaker(name: str) -> str:
    """Map a speaker name or JSON role to "user", "assistant" or "person"."""
    key = _key(name)
    if key in _USER_NAMES:
        return USER
    return ASSISTANT if key in _ASSISTANT_NAMES else PERSON


def is_user_role(role: str) -> bool:
    """True for the assistant's user (the vault's owner)."""
    return role == USER


def is_human_role(role: str) -> bool:
    """True for turns said by a human (the user or a named person), whose statements are facts."""
    return role in (USER, PERSON)


def normalize_time(value: str) -> str:
    """Turn an ISO-like date or datetime into 'YYYY-MM-DD' or 'YYYY-MM-DDTHH:MM:SS' (UTC if zoned)."""
    m = _STAMP.fullmatch(value.strip())
    if m is None:
        raise ValueError(f"{value!r} is not a date: use YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS")
    return _stamp(m.groups(), value)


def parse_transcript(
    text: str, *, source: str = "<stdin>", default_time: str | None = None
) -> list[Message]:
    """Parse a transcript in any supported format into its messages, in order."""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    if (nul := text.find("\x00")) >= 0:
        raise binary_error(source, text.count("\n", 0, nul) + 1)
    fallback = None
    if default_time is not None:
        try:
            fallback = normalize_time(default_time)
        except ValueError as e:
            raise TranscriptError(f"default time {e}") from None
    if not text.strip():
        raise TranscriptError(f"is empty: {_EXPECTED}", path=source)
    head = text.lstrip()
    if head.startswith("{") or _JSON_ARRAY.match(head):
        messages = _parse_json(text, source)
        messages = [m if m.time else dataclasses.replace(m, time=fallback) for m in messages]
    else:
        messages = _parse_text(text.split("\n"), source, fallback)
    if not messages:
        raise TranscriptError(f"no messages found: {_EXPECTED}", path=source)
    return messages


def read_transcript(
    path: Path | str, *, default_time: str | None = None
) -> tuple[list[Message], str]:
    """Read a transcript file ("-" for stdin); return its messages and the SHA-256 of its bytes."""
    if str(path) == "-":
        source, data = "<stdin>", sys.stdin.buffer.read()
    else:
        source = str(path)
        try:
            data = Path(path).read_bytes()
            mtime = Path(path).stat().st_mtime
        except OSError as e:  # missing, a directory, no permission, …
            raise TranscriptError(
                f"cannot be read ({e.strerror or e}): give the path of a readable transcript file",
                path=source,
            ) from None
        if default_time is None:
            default_time = date.fromtimestamp(mtime).isoformat()
    messages = parse_transcript(decode(data, source), source=source, default_time=default_time)
    return messages, hashlib.sha256(data).hexdigest()


def _key(name: str) -> str:
    return " ".join(name.casefold().split())


def _stamp(groups: tuple[str | None, ...], raw: str) -> str:
    y, mo, d, hh, mm, ss, zone = groups
    try:
        day = date(int(y or 0), int(mo or 0), int(d or 0))
        if hh is None:
            return day.isoformat()
        moment = datetime.combine(day, time(int(hh), int(mm or 0), int(ss or 0)))
        if zone:
            moment = moment.replace(tzinfo=_zone(zone)).astimezone(UTC).replace(tzinfo=None)
    except (ValueError, OverflowError):
        raise ValueError(f"{raw.strip()!r} is not a valid date or time") from None
    return moment.isoformat()


def _zone(zone: str) -> timezone:
    if zone.upper() in ("Z", "UTC"):
        return UTC
    digits = zone[1:].replace(":", "")
    offset = timedelta(hours=int(digits[:2]), minutes=int(digits[2:] or 0))
    return timezone(-offset if zone[0] == "-" else offset)


# --- JSON and JSONL ---------------------------------------------------------------------


def _loads(text: str, source: str, line: int | None = None) -> Any:
    """json.loads, with what it cannot hold said as a TranscriptError: nesting deeper than
    the interpreter's stack, a number longer than int() converts (4,300 digits)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise
    except RecursionError:
        raise TranscriptError(
            "nests JSON arrays or objects too deeply to read: a transcript is a list of "
            "messages, each a flat object",
            path=source,
            line=line,
        ) from None
    except ValueError as e:  # "Exceeds the limit (4300 digits) for integer string conversion"
        why = "a number too long to read" if "digits" in str(e) else str(e)
        raise TranscriptError(
            f"holds a JSON value that cannot be read ({why}): fix or remove that value",
            path=source,
            line=line,
        ) from None


def _parse_json(text: str, source: str) -> list[Message]:
    try:
        doc = _loads(text, source)
    except json.JSONDecodeError as e:
        if text.lstrip().startswith("{"):
            return _parse_jsonl(text, source)
        raise TranscriptError(
            f"is not valid JSON ({e.msg}, column {e.colno}): fix the JSON array, "
            "or write one JSON object per line (JSONL)",
            path=source,
            line=e.lineno,
        ) from None
    if isinstance(doc, dict) and "messages" in doc:
        doc = doc["messages"]
        if not isinstance(doc, list):
            raise TranscriptError('"messages" is not a JSON array: ' + _EXPECTED, path=source)
    if isinstance(doc, dict):  # a JSONL file of one line
        first = text[: len(text) - len(text.lstrip())].count("\n") + 1
        return [m for m in [_record(doc, source, first, jsonl=True)] if m]
    if not isinstance(doc, list):
        raise TranscriptError(f"is JSON but not a list of messages: {_EXPECTED}", path=source)
    return [m for i, item in enumerate(doc, 1) if (m := _record(item, source, i, jsonl=False))]


def _parse_jsonl(text: str, source: str) -> list[Message]:
    messages = []
    for lineno, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            obj = _loads(line, source, lineno)
        except json.JSONDecodeError as e:
            raise TranscriptError(
                f"is not valid JSON ({e.msg}, column {e.colno}): write one JSON object per line",
                path=source,
                line=lineno,
            ) from None
        if m := _record(obj, source, lineno, jsonl=True):
            messages.append(m)
    return messages


def _record(obj: Any, source: str, index: int, *, jsonl: bool) -> Message | None:
    """One JSON message, or None when its content is empty (e.g. a tool call with no text)."""
    where = f"item {index} of the JSON array is " if not jsonl else ""

    def fail(problem: str) -> TranscriptError:
        return TranscriptError(where + problem, path=source, line=index if jsonl else None)

    if not isinstance(obj, dict):
        raise fail(f"{_NOT_A_MESSAGE}, got {type(obj).__name__}")
    role = obj.get("role")
    name = obj.get("speaker") or obj.get("name")
    content_key = next((k for k in ("content", "text") if k in obj), None)
    if not (role or name) or content_key is None:
        raise fail(f"{_NOT_A_MESSAGE}, got keys {', '.join(sorted(obj)) or 'none'}")
    if not isinstance(role or "", str) or not isinstance(name or "", str):
        raise fail('not a message: "role", "speaker" and "name" must be strings')
    content = obj[content_key]
    if isinstance(content, list):  # OpenAI-style parts: [{"type": "text", "text": "…"}, …]
        parts = [p.get("text") if isinstance(p, dict) else p for p in content]
        content = "\n".join(p for p in parts if isinstance(p, str))
    if content is not None and not isinstance(content, str):
        raise fail(f'not a message: "{content_key}" must be text')
    body = (content or "").strip()
    if not body:
        return None
    stamp = next((obj[k] for k in ("timestamp", "time", "date", "created_at") if obj.get(k)), None)
    try:
        if isinstance(stamp, int | float) and not isinstance(stamp, bool):
            seconds = stamp / 1000 if stamp > 1e11 else stamp  # milliseconds since the epoch
            stamp = datetime.fromtimestamp(seconds, UTC).replace(tzinfo=None).isoformat()
        elif stamp is not None:
            stamp = normalize_time(str(stamp))
    except (ValueError, OverflowError, OSError) as e:
        raise fail(f"timestamp {e}") from None
    return Message(str(name or role), role_for_speaker(str(role or name)), body, stamp, index, None)


# --- Plain text and Markdown ------------------------------------------------------------


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
        elif kind[0] == "speaker" and (current is None or _key(kind[1]) in known):
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
    counts = Counter(_key(n) for n in names)
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
        if stamp := _STAMP.fullmatch(raw.strip()):
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
        return _stamp(groups, raw)
    except ValueError as e:
        raise TranscriptError(
            f"{e}: use YYYY-MM-DD or YYYY-MM-DD HH:MM", path=source, line=lineno
        ) from None
