"""`llm logs --json` (Simon Willison's `llm`): a JSON array of responses.

Each response has a `prompt` (what the person typed), a `response` (the model's answer), a
`datetime_utc` and a `conversation_id`; the responses of one conversation, in time order, are
one conversation, its own source `llm:<conversation_id>`, titled by `conversation_name`. The
system prompt is not something the person said and is passed over. The responses of a
conversation are gathered before it is read, so this file is held whole (logs are text; an
export with attachments is ChatGPT's or Claude's).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from mdmem.extract.importers.base import Conversation, Importer, bad_shape, conversation_digest
from mdmem.extract.importers.source import Input
from mdmem.extract.message import ASSISTANT, USER, Message, time_or_none


def _claims(inp: Input) -> bool:
    keys = inp.array_keys()
    return "prompt" in keys and bool(keys & {"response", "datetime_utc", "model"})


def _read(inp: Input, default_time: str | None) -> Iterator[Conversation]:
    groups: dict[str, list[tuple[str, int, dict[str, Any]]]] = {}
    first_line: dict[str, int] = {}
    for line, obj in inp.elements():
        if not isinstance(obj, dict) or "prompt" not in obj:
            yield bad_shape(line, 'is not an `llm logs --json` response: it has no "prompt"')
            continue
        cid = str(obj.get("conversation_id") or obj.get("id") or f"line-{line}")
        groups.setdefault(cid, []).append((_time(obj.get("datetime_utc")) or "", line, obj))
        first_line.setdefault(cid, line)
    for cid, items in sorted(groups.items(), key=lambda kv: (min(t for t, _, _ in kv[1]), kv[0])):
        yield _conversation(cid, sorted(items, key=lambda i: (i[0], i[1])), first_line[cid])


def _conversation(cid: str, items: list[tuple[str, int, dict[str, Any]]], line: int) -> Conversation:
    key = f"llm:{cid}"
    messages: list[Message] = []
    title = None
    for stamp, _, obj in items:
        title = title or (obj.get("conversation_name") if isinstance(obj.get("conversation_name"), str) else None)  # fmt: skip
        for role, speaker, field in ((USER, "User", "prompt"), (ASSISTANT, "Model", "response")):
            text = obj.get(field)
            if isinstance(text, str) and text.strip():
                messages.append(Message(speaker, role, text.strip(), stamp or None, len(messages) + 1, None))  # fmt: skip
    day = (items[0][0] or "")[:10] or None
    return Conversation(messages, conversation_digest(key, messages), key, title or None, day, line=line)


def _time(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    # llm writes UTC without a zone: 2024-07-01T12:34:56.789012
    return time_or_none(value if value.endswith("Z") or "+" in value[10:] else value + "Z")


IMPORTER = Importer(
    "llm", "`llm logs --json` from Simon Willison's llm (prompt, response, datetime_utc)",
    claims=_claims, read=_read,
)  # fmt: skip
