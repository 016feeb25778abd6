"""Bringing the fact index up to date with the files: one folder and one chunk at a time.

Each entity folder's digest (of its names and stat signatures, store/walk.py) is kept beside
the rows; a refresh walks the folders one by one and looks at the files of just those whose
digest changed, so what it costs beyond the walk is proportional to what changed, and what it
holds is one folder's signatures and one chunk of parses, however large the vault. A folder's
digest is recorded once its files are indexed; one holding a file that does not parse is left
unrecorded, so it is looked at again next time.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from mdmem.model.factfile import Fact
from mdmem.read.index_rows import vanished
from mdmem.store.cachedb import paused_gc
from mdmem.store.walk import Sig, folder_digest, iter_walk, walk_paths

CHUNK = 1000  # files parsed and indexed per transaction
# Changed files' facts parsed elsewhere, with their stored text: None for one that does not parse.
Parser = Callable[[list[str]], Mapping[str, tuple[Fact, str] | None]]


@dataclass(frozen=True)
class Refresh:
    """What one refresh did."""

    added: int
    updated: int
    removed: int
    broken: int
    scrubbed: bool
    seconds: float


class Index(Protocol):
    """What a refresh uses of read/index.py's Index (which imports this module)."""

    root: Path
    db: sqlite3.Connection

    def folder_digests(self, entities: list[str] | None) -> dict[str, str]: ...
    def stored_stats(self, entities: list[str] | None = None) -> dict[str, Sig]: ...
    def stats_of(self, rels: list[str]) -> dict[str, Sig]: ...
    def parse(self, rel: str) -> tuple[Fact, str] | None: ...
    def row(self, rel: str) -> tuple[int, str] | None: ...
    def delete(self, rowid: int) -> None: ...
    def insert(self, rows: list[tuple[str, Fact, Sig, str]]) -> None: ...
    def set_meta(self, key: str, value: str) -> None: ...
    def entities_now(self) -> list[str]: ...
    def meta(self, key: str) -> str | None: ...


class _Run:
    """One refresh: the changed files not yet indexed, what went, what it did."""

    def __init__(self, index: Index, parsed: Parser | None, known: set[str]) -> None:
        self.index, self.parsed, self.known = index, parsed, known  # known: entities indexed
        self.pending: list[tuple[str, Sig]] = []
        self.gone: list[str] = []
        self.folders: dict[str, str | None] = {}  # entity → its new digest (None: removed)
        self.broken_in: set[str] = set()
        self.added = self.updated = self.removed = self.broken = 0
        self.new_folder = False  # a file added to a folder no row was in
        self.scrub = False

    def change(self, rel: str, sig: Sig) -> None:
        self.pending.append((rel, sig))
        if len(self.pending) >= CHUNK:
            self.flush(final=False)

    def flush(self, final: bool) -> None:
        """Index the pending files in one transaction (the last also settles what went and
        records the folders' digests); parsed first, by the snapshot (which saves to this
        database), before the transaction takes the lock."""
        ix, part = self.index, self.pending
        self.pending = []
        if not part and not final:
            return
        rels = [rel for rel, _ in part]
        given = self.parsed(rels) if self.parsed is not None and rels else {}
        ix.db.execute("BEGIN IMMEDIATE")
        try:
            now = ix.stats_of(rels)  # another reader may have refreshed meanwhile
            new: list[tuple[str, Fact, Sig, str]] = []  # inserted together, in order
            with paused_gc():  # rows and tokens of many files: acyclic
                for rel, sig in part:
                    if now.get(rel) == sig:
                        continue
                    got = given[rel] if rel in given else ix.parse(rel)
                    if got is None:
                        self.broken += 1  # its last good row (if any) keeps serving reads
                        self.broken_in.add(rel.split("/")[1])
                        continue
                    fact, text = got
                    old = ix.row(rel) if rel in now else None  # none on a first build
                    if old is not None:
                        self.scrub |= vanished(old[1], rel, fact)
                        ix.insert(new)  # those before it first: ids as one by one
                        new = []
                        ix.delete(old[0])
                        self.updated += 1
                    else:
                        self.added += 1
                        self.new_folder |= rel.split("/")[1] not in self.known
                    new.append((rel, fact, sig, text))
                ix.insert(new)
            if final:
                self._settle()
            ix.db.execute("COMMIT")
        except BaseException:
            ix.db.execute("ROLLBACK")
            raise

    def _settle(self) -> None:
        ix = self.index
        for rel in self.gone:
            old = ix.row(rel)
            if old is not None:
                self.scrub = True
                self.removed += 1
                ix.delete(old[0])
        if self.scrub:
            # Merge the FTS segments so deleted postings are rewritten, not just masked.
            ix.db.execute("INSERT INTO fts(fts) VALUES('optimize')")
        if self.removed or any(d is None for d in self.folders.values()) or self.new_folder:
            ix.set_meta("entities", json.dumps(ix.entities_now()))  # the entities came or went
        for ent, digest in self.folders.items():
            if digest is None or ent in self.broken_in:
                ix.db.execute("DELETE FROM folders WHERE entity = ?", (ent,))
            else:
                ix.db.execute("INSERT OR REPLACE INTO folders VALUES(?, ?)", (ent, digest))


def refresh(index: Index, parsed: Parser | None, entities: Iterable[str] | None) -> Refresh:
    """See `Index.refresh`."""
    started = time.perf_counter()
    scope = None if entities is None else sorted(set(entities))
    known = index.folder_digests(scope)
    run = _Run(index, parsed, set(json.loads(index.meta("entities") or "[]")))
    for folder in iter_walk(index.root, scope):
        ent = folder[0]
        digest = folder_digest(folder)
        if known.pop(ent, "") == digest:
            continue
        stored = index.stored_stats([ent])
        for rel, sig in walk_paths([folder]):
            if stored.pop(rel, None) != sig:
                run.change(rel, sig)
        run.gone += stored  # indexed, and not there any more
        run.folders[ent] = digest
    for ent in known:  # indexed (or recorded) before, and not walked now: the folder went
        run.gone += index.stored_stats([ent])
        run.folders[ent] = None
    if run.pending or run.gone or run.folders:
        run.flush(final=True)
    return Refresh(run.added, run.updated, run.removed, run.broken, run.scrub,
                   time.perf_counter() - started)  # fmt: skip
