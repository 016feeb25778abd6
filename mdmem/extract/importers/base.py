"""What a reader is, and what it gives: conversations of messages.

A reader is one module with one `Importer`: a name (`ingest --format NAME`), whether it claims
an opened file (by its content, never its name), and how to read it. A transcript file is one
conversation, named after the file; an export holds many, each its own source with its own id,
title and dates. Adding a format is one module here and one line in `registry.py`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from mdmem.errors import TranscriptError
from mdmem.extract.importers.source import Input
from mdmem.extract.message import Message

EXPECTED = (
    "expected lines like 'User: …', JSON lines like "
    '{"role": "user", "content": "…"}, a JSON array of such objects, or a ChatGPT, Claude '
    "or `llm logs --json` export"
)


class NoMessages(TranscriptError):
    """A file that holds no message at all: empty, or text with no 'Speaker:' line.

    In a folder walk such a file (a README.txt beside the chats) is passed over with a note; a
    file named on its own is still an error."""


@dataclass
class Conversation:
    """One conversation read from a file."""

    messages: list[Message]
    digest: str  # what says whether it was ingested before: the file's bytes, or its messages
    key: str | None = None  # its own source name ('chatgpt:<id>'); None: the file is the source
    title: str | None = None
    day: str | None = None  # YYYY-MM-DD: when it was held, for messages that carry no time
    error: str | None = None  # why it could not be read (the file's other conversations are)
    line: int | None = None  # where it starts in the file


@dataclass(frozen=True)
class Importer:
    """One format: its name, a one-line description, how it is told, and how it is read."""

    name: str
    about: str
    claims: Callable[[Input], bool]
    read: Callable[[Input, str | None], Iterator[Conversation]]


def per_element(convert: Callable[[Any, int], Conversation]) -> Callable[[Input, str | None], Iterator[Conversation]]:  # fmt: skip
    """The reader of an export whose every array element is one conversation."""

    def read(inp: Input, default_time: str | None) -> Iterator[Conversation]:
        for line, obj in inp.elements():
            yield convert(obj, line)

    return read


def conversation_digest(key: str, messages: list[Message]) -> str:
    """An export's conversation is the same when its messages are: who said what, when."""
    h = hashlib.sha256(key.encode())
    for m in messages:
        h.update("\0".join(("", m.speaker, m.time or "", m.text)).encode())
    return h.hexdigest()


def bad_shape(line: int, what: str) -> Conversation:
    """A conversation of an export that is not shaped as that export's are: reported at its
    line and skipped; the file's other conversations are still read."""
    return Conversation([], "", error=f"{what}; this conversation was skipped", line=line)
