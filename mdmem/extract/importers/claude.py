"""Claude's data export: `conversations.json`, a JSON array of conversations.

Each has a `uuid`, a `name`, `created_at` and `chat_messages`, each with `sender` (`human` or
`assistant`), `created_at` (ISO 8601) and its text (`content` blocks of `type: text`, or
`text`). An edited message or a retried answer leaves the earlier one in the list with the same
`parent_message_uuid`: the kept branch is the one that ends in the last message, followed back
through its parents. Attachments and files are not words the person said and are passed over.
Each conversation is its own source, `claude:<uuid>`.
"""

from __future__ import annotations

import hashlib
from typing import Any

from mdmem.extract.importers.base import (
    Conversation,
    Importer,
    bad_shape,
    conversation_digest,
    per_element,
)
from mdmem.extract.importers.source import Input
from mdmem.extract.message import ASSISTANT, USER, Message, time_or_none

_ROLES = {"human": USER, "user": USER, "assistant": ASSISTANT}


def _claims(inp: Input) -> bool:
    return "chat_messages" in inp.array_keys()


def conversation(obj: Any, line: int) -> Conversation:
    """One element of Claude's `conversations.json` as a conversation."""
    if not isinstance(obj, dict) or not isinstance(obj.get("chat_messages"), list):
        return bad_shape(line, 'is not a Claude conversation: it has no "chat_messages" list')
    uid = obj.get("uuid")
    if not isinstance(uid, str) or not uid:
        uid = hashlib.sha256(repr((obj.get("name"), obj.get("created_at"))).encode()).hexdigest()[:16]  # fmt: skip
    key = f"claude:{uid}"
    start = time_or_none(obj.get("created_at"))
    messages: list[Message] = []
    for msg in _kept_branch([m for m in obj["chat_messages"] if isinstance(m, dict)]):
        role = _ROLES.get(str(msg.get("sender") or "").lower())
        text = _text(msg)
        if role is None or not text:
            continue
        speaker = "User" if role == USER else "Claude"
        stamp = time_or_none(msg.get("created_at")) or start
        messages.append(Message(speaker, role, text, stamp, len(messages) + 1, None))
    title = obj.get("name") if isinstance(obj.get("name"), str) and obj.get("name") else None
    day = (start or (messages[0].time if messages else None) or "")[:10] or None
    return Conversation(messages, conversation_digest(key, messages), key, title, day, line=line)


def _kept_branch(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages on the branch that ends in the last one, when they name their parents."""
    if not items or not any(m.get("parent_message_uuid") for m in items):
        return items
    by_id = {m.get("uuid"): m for m in items if m.get("uuid")}
    path, seen = [], set()
    node: dict[str, Any] | None = items[-1]
    while node is not None and id(node) not in seen:
        seen.add(id(node))
        path.append(node)
        node = by_id.get(node.get("parent_message_uuid"))
    return path[::-1]


def _text(msg: dict[str, Any]) -> str:
    blocks = msg.get("content")
    if isinstance(blocks, list) and blocks:
        parts = [b.get("text") for b in blocks if isinstance(b, dict) and b.get("type") == "text"]
        text = "\n\n".join(p.strip() for p in parts if isinstance(p, str) and p.strip())
        if text:
            return text
    plain = msg.get("text")
    return plain.strip() if isinstance(plain, str) else ""


IMPORTER = Importer(
    "claude", "Claude's data export, conversations.json (chat_messages, sender, created_at)",
    claims=_claims, read=per_element(conversation),
)  # fmt: skip
