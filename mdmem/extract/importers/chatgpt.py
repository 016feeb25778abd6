"""ChatGPT's data export: `conversations.json`, a JSON array of conversations.

Each conversation is a tree of nodes (`mapping`: id → {message, parent, children}): editing a
message or regenerating an answer starts a new branch beside the old one, and `current_node` is
the leaf of the branch the person kept. That branch, read from the root down, is the
conversation; the branches left behind are not. Each message has its own `create_time` (seconds
since the epoch); text is in `content.parts` (images, audio and files are parts that are not
text, and are passed over). Hidden turns (the custom instructions, system and tool turns) are
not messages. Each conversation is its own source, `chatgpt:<conversation id>`.
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
from mdmem.extract.message import ASSISTANT, USER, Message, from_epoch

_TEXT_TYPES = ("text", "multimodal_text")
_MAX_DEPTH = 1_000_000  # a cycle in `parent` links is cut, not followed forever


def _claims(inp: Input) -> bool:
    return "mapping" in inp.array_keys()


def conversation(obj: Any, line: int) -> Conversation:
    """One element of `conversations.json` as a conversation."""
    if not isinstance(obj, dict) or not isinstance(obj.get("mapping"), dict):
        return bad_shape(line, 'is not a ChatGPT conversation: it has no "mapping" object')
    mapping: dict[str, Any] = obj["mapping"]
    cid = obj.get("conversation_id") or obj.get("id")
    if not isinstance(cid, str) or not cid:  # never seen in an export; stable all the same
        cid = hashlib.sha256(repr((obj.get("title"), obj.get("create_time"))).encode()).hexdigest()[:16]  # fmt: skip
    key = f"chatgpt:{cid}"
    start = _seconds(obj.get("create_time"))
    messages: list[Message] = []
    for node in _kept_branch(mapping, obj.get("current_node")):
        msg = node.get("message") if isinstance(node, dict) else None
        if not isinstance(msg, dict) or _hidden(msg):
            continue
        author = msg.get("author")
        role = author.get("role") if isinstance(author, dict) else None
        if role not in (USER, ASSISTANT):
            continue  # system and tool turns: nobody said them
        text = _text(msg.get("content"))
        if not text:
            continue  # an image or a file with no words, or an empty turn
        when = _seconds(msg.get("create_time")) or start
        stamp = from_epoch(when) if when else None
        speaker = "User" if role == USER else "ChatGPT"
        messages.append(Message(speaker, role, text, stamp, len(messages) + 1, None))
    title = obj.get("title") if isinstance(obj.get("title"), str) else None
    first = next((m.time for m in messages if m.time), None)
    day = from_epoch(start)[:10] if start else first[:10] if first else None
    return Conversation(messages, conversation_digest(key, messages), key, title, day, line=line)


def _kept_branch(mapping: dict[str, Any], current: Any) -> list[Any]:
    """The nodes from the root to `current_node`; without one, the newest child at each step."""
    if not isinstance(current, str) or current not in mapping:
        current = _newest_leaf(mapping)
    path, seen = [], set()
    while isinstance(current, str) and current in mapping and current not in seen:
        seen.add(current)
        node = mapping[current]
        path.append(node)
        current = node.get("parent") if isinstance(node, dict) else None
        if len(path) > _MAX_DEPTH:
            break
    return path[::-1]


def _newest_leaf(mapping: dict[str, Any]) -> str | None:
    def node(k: Any) -> dict[str, Any]:
        n = mapping.get(k) if isinstance(k, str) else None
        return n if isinstance(n, dict) else {}

    def born(k: str) -> float:
        msg = node(k).get("message")
        return _seconds(msg.get("create_time")) if isinstance(msg, dict) else 0.0

    roots = [k for k in mapping if node(k) and not node(k).get("parent")]
    at = roots[0] if roots else None
    seen: set[str] = set()
    while at is not None and at not in seen:
        seen.add(at)
        kids = node(at).get("children")
        children = [c for c in kids if isinstance(c, str) and c in mapping] if isinstance(kids, list) else []  # fmt: skip
        if not children:
            return at
        at = max(children, key=lambda c: (born(c), children.index(c)))  # the last edit
    return at


def _hidden(msg: dict[str, Any]) -> bool:
    meta = msg.get("metadata")
    if isinstance(meta, dict) and (meta.get("is_visually_hidden_from_conversation") or meta.get("is_user_system_message")):  # fmt: skip
        return True
    recipient = msg.get("recipient")
    return isinstance(recipient, str) and recipient not in ("all", "")  # a call to a tool


def _text(content: Any) -> str:
    if not isinstance(content, dict) or content.get("content_type") not in _TEXT_TYPES:
        return ""  # code run, browsing results, custom instructions: not words said
    parts = content.get("parts")
    if not isinstance(parts, list):
        return ""
    return "\n".join(p for p in parts if isinstance(p, str) and p.strip()).strip()


def _seconds(value: Any) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool) and 0 < value < 1e11:
        return float(value)
    return 0.0


IMPORTER = Importer(
    "chatgpt", "ChatGPT's data export, conversations.json (the branch kept of each conversation)",
    claims=_claims, read=per_element(conversation),
)  # fmt: skip
