"""Transcripts in, messages out: any format of `extract/importers/`, told by its content.

`read_conversations` reads a file (or stdin) as the conversations it holds: one for a
transcript, many for an export. `read_transcript` and `parse_transcript` are for a single
conversation: a file, or a text given whole.
"""

from __future__ import annotations

import dataclasses
import io
import sys
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import IO

from mdmem.errors import TranscriptError
from mdmem.extract.importers.base import Conversation, NoMessages
from mdmem.extract.importers.registry import by_name, detect
from mdmem.extract.importers.source import Input
from mdmem.extract.message import (
    ASSISTANT,
    PERSON,
    USER,
    Message,
    is_human_role,
    is_user_role,
    normalize_time,
    role_for_speaker,
)

__all__ = [
    "ASSISTANT", "PERSON", "USER", "Conversation", "Message", "NoMessages", "is_human_role",
    "is_user_role", "normalize_time", "parse_transcript", "read_conversations",
    "read_transcript", "role_for_speaker",
]  # fmt: skip


def read_conversations(
    path: Path | str, *, default_time: str | None = None, fmt: str | None = None
) -> Iterator[Conversation]:
    """The conversations of a file ("-": stdin), read as `fmt` or as its content says.

    A file with no message at all raises `NoMessages`; an export's conversations are read one
    at a time, so the file is never held whole."""
    if str(path) == "-":
        yield from _conversations(sys.stdin.buffer, "<stdin>", default_time, fmt)
        return
    source = str(path)
    try:
        stream = Path(path).open("rb")  # noqa: SIM115 - closed by the `with` below, once open
        mtime = Path(path).stat().st_mtime
    except OSError as e:  # missing, a directory, no permission, …
        raise TranscriptError(
            f"cannot be read ({e.strerror or e}): give the path of a readable transcript file",
            path=source,
        ) from None
    with stream:
        if default_time is None:
            default_time = date.fromtimestamp(mtime).isoformat()
        yield from _conversations(stream, source, default_time, fmt)


def read_transcript(
    path: Path | str, *, default_time: str | None = None, fmt: str | None = None
) -> tuple[list[Message], str]:
    """A file of one conversation: its messages and its digest (the SHA-256 of its bytes)."""
    source = "<stdin>" if str(path) == "-" else str(path)
    return _one(read_conversations(path, default_time=default_time, fmt=fmt), source)


def parse_transcript(
    text: str, *, source: str = "<stdin>", default_time: str | None = None, fmt: str | None = None
) -> list[Message]:
    """Parse a transcript of one conversation, in any supported format, into its messages."""
    stream = io.BytesIO(text.encode("utf-8", "surrogatepass"))
    return _one(_conversations(stream, source, default_time, fmt), source)[0]


def _conversations(stream: IO[bytes], source: str, default_time: str | None,
                   fmt: str | None) -> Iterator[Conversation]:  # fmt: skip
    fallback = None
    if default_time is not None:
        try:
            fallback = normalize_time(default_time)
        except ValueError as e:
            raise TranscriptError(f"default time {e}") from None
    inp = Input(stream, source)
    importer = by_name(fmt) if fmt else detect(inp)
    found = False
    for conv in importer.read(inp, fallback):
        found = found or bool(conv.messages) or conv.error is not None
        yield conv
    if not found:
        raise NoMessages(f"holds no conversation with a message (read as {importer.name})", path=source)  # fmt: skip


def _one(conversations: Iterator[Conversation], source: str) -> tuple[list[Message], str]:
    got = [c for c in conversations if c.messages or c.error]
    if len(got) != 1 or got[0].error:
        if got and got[0].error and len(got) == 1:
            raise TranscriptError(got[0].error, path=source, line=got[0].line)
        raise TranscriptError(
            f"holds {len(got)} conversations: give the file to `mdmem ingest`, which reads "
            "each as its own source",
            path=source,
        )
    conv = got[0]
    if conv.day and any(m.time is None for m in conv.messages):
        conv.messages = [m if m.time else dataclasses.replace(m, time=conv.day) for m in conv.messages]
    return conv.messages, conv.digest
