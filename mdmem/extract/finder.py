"""The candidate finder: the one seam between a transcript and the statements it makes.

A finder is any callable that takes a transcript's messages, the vault's rules, its current
facts, the source's name and the default date, and returns an `Extraction`. mdmem has two, chosen
once per ingest: the rule finder (`rules`, the default, offline) and the model finder (`model`,
`ingest --llm`). Other packages add theirs through the `mdmem.finders` entry points
(`extract/plugins.py`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from mdmem.engine.decide import Statement
from mdmem.extract.transcript import Message
from mdmem.model.factfile import Fact
from mdmem.model.rules import Rules


@dataclass
class Extraction:
    """What a transcript says: statements to decide, and notes on what was passed over."""

    statements: list[Statement] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


@runtime_checkable
class Finder(Protocol):
    """Finds the statements the people of a transcript made, as one batch."""

    def __call__(self, messages: list[Message], rules: Rules, facts: Mapping[str, Fact], *,
                 source: str, default_date: str) -> Extraction:  # fmt: skip
        """Statements of `messages` against `facts`; an error for a message goes to `errors`."""
        ...
