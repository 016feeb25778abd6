"""What `remember` is given, made a transcript: one message, or a conversation as written."""

from __future__ import annotations

import json
import re
from typing import Literal

from mdmem.errors import TranscriptError
from mdmem.extract.transcript import PERSON, parse_transcript

# What the transcript reader takes for JSON ('[note] …' is not): a JSON text is read as messages.
_JSON = re.compile(r"\{|\[\s*(?:[{\[\"\]]|$)")


def as_transcript(
    text: str, speaker: Literal["user", "assistant"] | None, day: str
) -> tuple[str, str]:
    """The transcript to ingest and how TEXT was read: 'message' or 'conversation'.

    One message is wrapped as a JSON message, so lines inside it that look like 'Assistant: …'
    or a session header stay part of what that speaker said.
    """
    if speaker is None and _is_conversation(text, day):
        return text, "conversation"
    message = {"role": speaker or "user", "content": text, "time": day}
    return json.dumps([message], ensure_ascii=False), "message"


def _is_conversation(text: str, day: str) -> bool:
    """True for JSON messages, and for text whose 'Name: …' lines make a conversation: two
    turns or more, or one by a role (User:, Assistant:, 用户：). A lone 'I moved to Berlin: …'
    is a sentence with a colon, not a turn by someone called 'I moved to Berlin'."""
    if _JSON.match(text.lstrip()):
        return True  # JSON is a transcript or nothing: a malformed one is reported, not guessed at
    try:
        messages = parse_transcript(text, source="mcp:remember", default_time=day)
    except TranscriptError:
        return False
    return len(messages) > 1 or messages[0].role != PERSON
