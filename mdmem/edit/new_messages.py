"""Which messages of a source an ingest applies, and where each is kept.

A transcript that grows (a daily chat log re-read by cron) applies only its new messages: the
journal records each applied message's identity (`store.episodes.message_id`), so a message
already applied, or one the person has since had forgotten, never comes back from an old line.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any

from mdmem.engine.decide import Statement
from mdmem.extract.transcript import Message, is_human_role
from mdmem.files import read_text
from mdmem.store.episodes import build_episodes, episode_file, message_id
from mdmem.store.journal import live_entries
from mdmem.store.vault import ExtraOps, Vault

CONTEXT = 6  # earlier messages handed to the finder with the new ones, for what they refer to


def applied_messages(vault: Vault, source: str) -> tuple[set[str], int]:
    """The content hashes of a source's applied messages, and how many messages the entries
    written before message identity existed covered (those count as applied by position)."""
    return applied_index(vault).get(source, (set(), 0))


def applied_index(vault: Vault) -> dict[str, tuple[set[str], int]]:
    """`applied_messages` of every source, from one read of the journal (an export's thousand
    conversations are a thousand sources)."""
    out: dict[str, tuple[set[str], int]] = {}
    for e in live_entries(vault.journal.records()):
        src = e.get("source") or {}
        if not isinstance(src, dict) or src.get("kind") != "transcript" or not isinstance(src.get("path"), str):  # fmt: skip
            continue
        hashes, legacy = out.setdefault(src["path"], (set(), 0))
        ids = src.get("applied")
        if isinstance(ids, list):
            hashes.update(str(i).split(":", 1)[-1] for i in ids)
        elif isinstance(src.get("messages"), int):
            out[src["path"]] = (hashes, max(legacy, src["messages"]))
    return out


@dataclass
class NewMessages:
    """The part of a transcript an ingest applies."""

    source: str
    messages: list[Message]
    new: list[int]  # 1-based positions of the messages applied now
    ids: list[str]  # message_id of every message, by position
    title: str | None = None  # an export's conversation title: it names the episode files

    @classmethod
    def of(cls, vault: Vault, source: str, messages: list[Message],
           applied: tuple[set[str], int] | None = None, title: str | None = None) -> NewMessages:  # fmt: skip
        """`applied`: the source's `applied_messages`, when the caller has them already."""
        hashes, legacy = applied if applied is not None else applied_messages(vault, source)
        ids = [message_id(pos, m) for pos, m in enumerate(messages, 1)]
        new = [pos for pos, mid in enumerate(ids, 1)
               if pos > legacy and mid.split(":", 1)[1] not in hashes]  # fmt: skip
        return cls(source, messages, new, ids, title)

    def window(self) -> list[Message]:
        """The new messages, after a few earlier ones for context."""
        if not self.new:
            return []
        return self.messages[max(0, self.new[0] - 1 - CONTEXT) :]

    def applied_ids(self, errors: list[str]) -> list[str]:
        """The ids to record as applied: all new ones, less those whose message failed or was
        deferred (an error naming no line fails them all), so the next run retries exactly
        those."""
        at = re.compile(re.escape(self.source) + r":(\d+): ")  # '<source>:<line>: why'
        failed = {int(m[1]) for e in errors if (m := at.match(e))}
        if len(failed) < len(errors):
            return []
        return [self.ids[pos - 1] for pos in self.new if self.messages[pos - 1].line not in failed]

    def keep(self, statements: list[Statement], evidence: dict[int, str]) -> list[Statement]:
        """Statements said in a new message, each linked to where it was said."""
        lines = {self.messages[pos - 1].line: pos for pos in self.new}
        out = []
        for st in statements:
            line = _line(st.source)
            if line is not None and line not in lines:
                continue  # said in a message applied before (shown only as context)
            link = evidence.get(lines[line]) if line is not None else None
            out.append(dataclasses.replace(st, evidence=link) if link else st)
        return out

    def episodes(self, vault: Vault, digest: str, default_date: str,
                 journal_id: str | None) -> tuple[list[tuple[str, str | None]], list[str]]:  # fmt: skip
        """The episode writes and notes (the messages as given: a request's cuts made)."""
        built = build_episodes(
            [(pos, self.messages[pos - 1]) for pos in self.new], source=self.source,
            digest=digest, default_date=default_date, journal_id=journal_id,
            existing=lambda rel: read_text(vault.root / rel), title=self.title,
        )  # fmt: skip
        return sorted(built.ops), built.notes

    def evidence(self, vault: Vault, default_date: str, positions: list[int] | None = None) -> dict[int, str]:
        """position → '[[episodes/…#^m3]]' for every new human message (or those given)."""
        out = {}
        files: dict[str, str] = {}  # day → its episode file: looked up once a day, not a message
        for pos in self.new if positions is None else positions:
            m = self.messages[pos - 1]
            if is_human_role(m.role) and m.text.strip():
                day = (m.time or default_date)[:10]
                if day not in files:
                    files[day] = episode_file(day, self.source, lambda r: read_text(vault.root / r), self.title)
                out[pos] = f"[[{files[day].removesuffix('.md')}#^m{pos}]]"
        return out


def _line(source: str) -> int | None:
    _, _, where = source.rpartition("#L")
    return int(where) if where.isdigit() else None


def statement_line(st: Statement) -> int | None:
    """The transcript line of the message a statement was said in (None: not known)."""
    return _line(st.source)


@dataclass(frozen=True)
class Deferred:
    """A message not applied because a fact file it speaks of does not parse; it stays
    pending (not recorded as applied) and is applied by the first ingest after the fix."""

    source: str
    line: int | None
    key: str
    problem: str

    @property
    def error(self) -> str:
        """'<source>:<line>: why', the form `NewMessages.applied_ids` reads a failed line from."""
        where = f"{self.source}:{self.line}" if self.line is not None else self.source
        return (
            f"{where}: not applied yet: {self.key} is in a file that does not parse "
            f"({self.problem}); fix it by hand (`mdmem check`) and ingest again: "
            "this message stays pending"
        )

    def journal(self) -> dict[str, Any]:
        """What the journal entry records of it."""
        return {"line": self.line, "fact": self.key, "problem": self.problem}


def episode_ops(step: NewMessages, vault: Vault, digest: str, default_date: str,
                notes: list[str], written: list[str]) -> ExtraOps:  # fmt: skip
    """The transaction's extra files, once the journal entry's id is known; the paths and
    notes are added to `written` and `notes`."""

    def ops(journal_id: str) -> list[tuple[str, str | None]]:
        files, more = step.episodes(vault, digest, default_date, journal_id)
        notes.extend(more)
        written.extend(rel for rel, _ in files)
        return files

    return ops
