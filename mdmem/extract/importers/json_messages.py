"""JSON transcripts: JSONL (one message object per line) and a JSON array of messages
(or `{"messages": [...]}`), with `role`/`speaker`/`name`, `content`/`text` and a time."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from mdmem.errors import TranscriptError
from mdmem.extract.importers.base import EXPECTED, Conversation, Importer, NoMessages
from mdmem.extract.importers.source import Input
from mdmem.extract.message import Message, from_epoch, normalize_time, role_for_speaker

_NOT_A_MESSAGE = (
    'not a message: expected a JSON object with "role" (or "speaker"/"name") '
    'and "content" (or "text")'
)
_ARRAY = re.compile(r"\[\s*(?:[{\[\"\]]|$)")  # "[09:30] User: hi" is text, not JSON
_EXPORTS = "; an export mdmem reads is ChatGPT's, Claude's or `llm logs --json` (`ingest --format`)"


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
    """A whole JSON document; one that starts with '{' and is not one is read as JSONL."""
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
            raise TranscriptError('"messages" is not a JSON array: ' + EXPECTED, path=source)
    if isinstance(doc, dict):  # a JSONL file of one line
        first = text[: len(text) - len(text.lstrip())].count("\n") + 1
        return [m for m in [_record(doc, source, first, jsonl=True)] if m]
    if not isinstance(doc, list):
        raise TranscriptError(f"is JSON but not a list of messages: {EXPECTED}", path=source)
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
        hint = "" if jsonl else _EXPORTS
        raise fail(f"{_NOT_A_MESSAGE}, got keys {', '.join(sorted(obj)) or 'none'}{hint}")
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
            stamp = from_epoch(stamp)  # seconds or milliseconds since the epoch
        elif stamp is not None:
            stamp = normalize_time(str(stamp))
    except (ValueError, OverflowError, OSError) as e:
        raise fail(f"timestamp {e}") from None
    return Message(str(name or role), role_for_speaker(str(role or name)), body, stamp, index, None)


def _messages(inp: Input, default_time: str | None, parse: Any) -> Iterator[Conversation]:
    text, digest = inp.text()
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    if not text.strip():
        raise NoMessages(f"is empty: {EXPECTED}", path=inp.source)
    messages = [m if m.time else Message(m.speaker, m.role, m.text, default_time, m.line, m.session)
                for m in parse(text, inp.source)]  # fmt: skip
    if not messages:
        raise NoMessages(f"no messages found: {EXPECTED}", path=inp.source)
    yield Conversation(messages, digest)


def _is_array(inp: Input) -> bool:
    head = inp.head().lstrip()
    return bool(_ARRAY.match(head)) or (head.startswith("{") and "messages" in inp.first_keys())


JSON = Importer(
    "json", 'a JSON array of message objects, or {"messages": [...]}',
    claims=_is_array, read=lambda inp, t: _messages(inp, t, _parse_json),
)  # fmt: skip
JSONL = Importer(
    "jsonl", 'one JSON message object per line: {"role": "user", "content": "…"}',
    claims=lambda inp: inp.head().lstrip().startswith("{"),
    read=lambda inp, t: _messages(inp, t, _parse_json if inp.head().lstrip().startswith("{") else _parse_jsonl),
)  # fmt: skip
