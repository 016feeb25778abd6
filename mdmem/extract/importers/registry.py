"""Every transcript format mdmem reads, one line each, in the order they are tried.

A file's format is told by its content: the first reader that claims it reads it (the exports
by the keys of their first conversation, JSON by its first character, text last, taking
anything). `ingest --format NAME` skips the telling.
"""

from __future__ import annotations

from mdmem.errors import TranscriptError
from mdmem.extract.importers import chatgpt, claude, json_messages, llm_logs, text
from mdmem.extract.importers.base import Importer
from mdmem.extract.importers.source import Input

IMPORTERS: tuple[Importer, ...] = (
    chatgpt.IMPORTER,
    claude.IMPORTER,
    llm_logs.IMPORTER,
    json_messages.JSON,
    json_messages.JSONL,
    text.IMPORTER,
)


def names() -> list[str]:
    return [i.name for i in IMPORTERS]


def by_name(name: str) -> Importer:
    """The reader called `name`, or an error listing them."""
    for importer in IMPORTERS:
        if importer.name == name.strip().lower():
            return importer
    listed = "; ".join(f"{i.name} ({i.about})" for i in IMPORTERS)
    raise TranscriptError(f"no transcript format {name!r}: choose one of {', '.join(names())}: {listed}")


def detect(inp: Input) -> Importer:
    """The first reader that claims this content."""
    return next(i for i in IMPORTERS if i.claims(inp))
