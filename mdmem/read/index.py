"""The vault's full-text index: SQLite FTS5 in .mdmem/index.sqlite, derived and rebuildable.

Each fact file is one row: its parsed frontmatter and four token columns (attribute name,
value, body, history values). `refresh` compares each file's path and stat signature
(store/walk.py) with what was indexed (a digest of all first); after `refresh_as_read` each
read does so for just the entity folders it reads (and lists facts/ only when it changed), so
a warm question about one person costs that person's stats. Only changed files are parsed, and
a value that leaves the files (forgotten, removed) is scrubbed from the database's bytes. The
database file is shared with the snapshot's tables (store/cachedb.py).
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mdmem.errors import MdmemError
from mdmem.files import current
from mdmem.model import life
from mdmem.model.factfile import Fact, parse
from mdmem.model.fastparse import parse_canonical
from mdmem.model.slug import check_slug
from mdmem.read import index_refresh
from mdmem.read.index_refresh import Parser, Refresh
from mdmem.read.index_rows import fact_columns, fact_record, load_record, owner_token
from mdmem.store.cachedb import CACHE_FILE, connect, discard
from mdmem.store.snapshot import is_racy
from mdmem.store.walk import Sig, entity_folders, sig_of

INDEX_FILE = CACHE_FILE  # shared with the snapshot's tables
SCHEMA = 8  # bump when the tokenizer, the tables or the stored record change: rebuilt
COLUMNS = ("name", "value", "body", "history")
BM25_WEIGHTS = (2.0, 3.0, 0.5, 1.5, 0.0)  # name, value, body, history, owner

_DDL = """
CREATE TABLE IF NOT EXISTS meta(k TEXT PRIMARY KEY, v TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files(
    id INTEGER PRIMARY KEY, path TEXT UNIQUE NOT NULL, entity TEXT NOT NULL,
    attribute TEXT NOT NULL, mtime_ns INTEGER NOT NULL, ctime_ns INTEGER NOT NULL,
    size INTEGER NOT NULL, ino INTEGER NOT NULL,
    status TEXT NOT NULL, data TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS files_attr ON files(attribute, entity);
CREATE TABLE IF NOT EXISTS folders(entity TEXT PRIMARY KEY, digest TEXT NOT NULL);
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(
    name, value, body, history, owner, tokenize='unicode61 remove_diacritics 0');
"""


@dataclass(frozen=True)
class Hit:
    """One fact the full-text search found, with the query tokens each column matched."""

    fact: Fact
    rank: float  # FTS5 bm25: lower is better
    matched: dict[str, set[str]]


class Index:
    """The FTS5 index of one vault; open it, `refresh()`, then search or fetch facts."""

    def __init__(self, root: Path | str, path: Path | str | None = None) -> None:
        self.root = Path(root)
        self.path = Path(path) if path is not None else self.root / ".mdmem" / INDEX_FILE
        self.db = self._open()
        self._lazy = False  # refresh_as_read(): reads refresh only the folders they read
        self._parser: Parser | None = None
        self._fresh: set[str] = set()
        self._all_fresh = False

    # --- opening ---------------------------------------------------------------------------

    def _open(self) -> sqlite3.Connection:
        db = connect(self.path)  # the cache database the snapshot shares (store/cachedb.py)
        try:
            self._tables(db)
        except sqlite3.DatabaseError:
            # A corrupt or foreign file is only a cache: throw it away and build anew.
            db.close()
            discard(self.path)
            db = connect(self.path)
            try:
                self._tables(db)
            except sqlite3.DatabaseError:
                db.close()
                db = connect(Path(":memory:"))
                self._tables(db)
        return db

    def _tables(self, db: sqlite3.Connection) -> None:
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version not in (0, SCHEMA):  # another schema: its tables go, the snapshot's stay
            db.executescript("BEGIN IMMEDIATE; DROP TABLE IF EXISTS fts; DROP TABLE IF EXISTS"
                             " files; DROP TABLE IF EXISTS meta; DROP TABLE IF EXISTS folders;"
                             " COMMIT")  # fmt: skip
            version = 0
        db.executescript(_DDL)
        if version == 0:
            db.execute(f"PRAGMA user_version = {SCHEMA}")
        db.execute("SELECT count(*) FROM fts WHERE fts MATCH 'x' LIMIT 1").fetchone()

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Index:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- keeping fresh ---------------------------------------------------------------------

    def refresh_as_read(self, parsed: Parser | None = None) -> None:
        """Stay fresh lazily: each later read first brings up to date the entity folders it
        reads (every folder for a read across entities), so a warm `ask` about one person
        stats that person's files, not the vault's; a hand edit is still seen at once."""
        self._lazy, self._parser, self._fresh, self._all_fresh = True, parsed, set(), False

    def _ensure(self, entities: list[str] | None) -> None:
        if not self._lazy or self._all_fresh:
            return
        if entities is None:
            self.refresh(self._parser)
            self._all_fresh = True
            return
        todo = set(entities) - self._fresh
        if todo:
            self.refresh(self._parser, todo)
            self._fresh |= todo

    def refresh(
        self, parsed: Parser | None = None, entities: Iterable[str] | None = None
    ) -> Refresh:
        """Bring the index up to date with the fact files (or these entities' folders); parse
        only what changed.

        `parsed(paths)` may give changed files' facts already parsed (None: does not parse),
        as `Vault.parsed` does from the snapshot; a file it does not give is parsed here."""
        return index_refresh.refresh(self, parsed, entities)

    def rebuild(self) -> Refresh:
        """Forget everything indexed and index every file again."""
        self.db.execute("BEGIN IMMEDIATE")
        self.db.execute("DELETE FROM files")
        self.db.execute("DELETE FROM fts")
        self.db.execute("DELETE FROM meta")
        self.db.execute("DELETE FROM folders")
        self.db.execute("COMMIT")
        return self.refresh()

    def stored_stats(self, entities: list[str] | None = None) -> dict[str, Sig]:
        sql = "SELECT path, mtime_ns, ctime_ns, size, ino FROM files"
        if entities is None:
            return {p: (m, c, s, i) for p, m, c, s, i in self.db.execute(sql)}
        out: dict[str, Sig] = {}
        for ent in entities:  # a range of the path's unique index: '0' sorts right after '/'
            rows = self.db.execute(sql + " WHERE path >= ? AND path < ?",
                                   (f"facts/{ent}/", f"facts/{ent}0"))  # fmt: skip
            out.update({p: (m, c, s, i) for p, m, c, s, i in rows})
        return out

    def folder_digests(self, entities: list[str] | None) -> dict[str, str]:
        """Entity → the digest of its folder as last indexed ('' for one holding rows whose
        digest is not recorded), of all entities or these."""
        out = {e: "" for e in json.loads(self.meta("entities") or "[]")}
        out.update(self.db.execute("SELECT entity, digest FROM folders"))
        if entities is not None:
            wanted = set(entities)
            out = {e: d for e, d in out.items() if e in wanted}
        return out

    def stats_of(self, rels: list[str]) -> dict[str, Sig]:
        """The stored signatures of these paths (those indexed)."""
        out: dict[str, Sig] = {}
        for i in range(0, len(rels), 500):
            part = rels[i : i + 500]
            rows = self.db.execute("SELECT path, mtime_ns, ctime_ns, size, ino FROM files WHERE"
                                   f" path IN ({','.join('?' * len(part))})", part)  # fmt: skip
            out.update({p: (m, c, s, i) for p, m, c, s, i in rows})
        return out

    def meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT v FROM meta WHERE k = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO meta VALUES(?, ?)", (key, value))

    def row(self, rel: str) -> tuple[int, str] | None:
        return self.db.execute("SELECT id, data FROM files WHERE path = ?", (rel,)).fetchone()

    def delete(self, rowid: int) -> None:
        self.db.execute("DELETE FROM files WHERE id = ?", (rowid,))
        self.db.execute("DELETE FROM fts WHERE rowid = ?", (rowid,))

    def insert(self, rows: list[tuple[str, Fact, Sig, str]]) -> None:
        """Add these files' rows: two statements for the lot, the ids those SQLite would give
        them one by one (after the largest id now)."""
        if not rows:
            return
        last = self.db.execute("SELECT max(id) FROM files").fetchone()[0] or 0
        ids = range(last + 1, last + 1 + len(rows))
        self.db.executemany(
            "INSERT INTO files(id, path, entity, attribute, mtime_ns, ctime_ns, size, ino, status, data)"
            " VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(i, rel, f.entity, f.attribute, *sig, f.status, text) for i, (rel, f, sig, text) in zip(ids, rows, strict=True)],
        )
        self.db.executemany(
            "INSERT INTO fts(rowid, name, value, body, history, owner) VALUES(?, ?, ?, ?, ?, ?)",
            [(i, *fact_columns(f)) for i, (_, f, _, _) in zip(ids, rows, strict=True)],
        )

    def parse(self, rel: str) -> tuple[Fact, str] | None:
        _, entity, name = rel.split("/", 2)
        try:
            expect = (check_slug(entity, "entity"), check_slug(name[:-3]))
            data = current(self.root / rel)  # through the vault's boundary
            if data is None:
                return None
            text = data.decode("utf-8")
            fact = parse_canonical(text, rel, expect) or parse(text, rel, expect=expect)
        except (MdmemError, UnicodeDecodeError, OSError):
            return None
        return fact, fact_record(fact)

    def entities_now(self) -> list[str]:
        return [e for (e,) in self.db.execute("SELECT DISTINCT entity FROM files ORDER BY entity")]

    # --- reading ---------------------------------------------------------------------------

    def entities(self) -> list[str]:
        """Every entity that has a fact file."""
        if self._lazy and not self._all_fresh and not self._folders_seen():
            listed = set(entity_folders(self.root))  # folders added or removed by hand
            stored = set(json.loads(self.meta("entities") or "[]"))
            self._ensure(sorted(listed ^ stored))
            self._folders_seen(record=True)
        found = self.meta("entities")
        return json.loads(found) if found else []

    def _folders_seen(self, record: bool = False) -> bool:
        """Whether facts/ is as when its folders were last listed (making, removing or renaming
        one changes its mtime); `record`: listed now, trusted unless it changed just before."""
        try:
            st = os.stat(self.root / "facts")
        except OSError:
            return False
        sig = f"{st.st_mtime_ns}:{st.st_ctime_ns}:{st.st_ino}"
        if not record:
            return self.meta("folders") == sig
        if not is_racy(sig_of(st), time.time_ns()):
            self.set_meta("folders", sig)
        return True

    def search(
        self, query: Iterable[str], *, limit: int = 40, entities: Iterable[str] | None = None
    ) -> list[Hit]:
        """Facts matching any of the query tokens, best BM25 first."""
        toks = sorted(set(query))
        if not toks:
            return []
        entities = None if entities is None else list(entities)
        self._ensure(entities)
        match = "(" + " OR ".join('"' + t.replace('"', '""') + '"' for t in toks) + ")"
        if entities is not None:
            # Filtered inside FTS (postings intersected), not after scoring every match.
            owners = " OR ".join(f"owner:{owner_token(e)}" for e in sorted(set(entities)))
            match = f"({owners}) AND {match}"
        weights = ", ".join(str(w) for w in BM25_WEIGHTS)
        sql = (
            f"SELECT files.path, files.data, bm25(fts, {weights}) AS r,"
            " fts.name, fts.value, fts.body, fts.history"
            " FROM fts JOIN files ON files.id = fts.rowid WHERE fts MATCH ? ORDER BY r LIMIT ?"
        )
        args: list[Any] = [match, limit]
        wanted = set(toks)
        hits = []
        for path, data, rank, *cols in self.db.execute(sql, args):
            matched = {c: set(text.split()) & wanted for c, text in zip(COLUMNS, cols, strict=True)}
            hits.append(Hit(load_record(data, path), rank, matched))
        return hits

    def facts(
        self,
        *,
        attributes: Iterable[str] | None = None,
        entities: Iterable[str] | None = None,
        numbered: str | None = None,
    ) -> list[Fact]:
        """Indexed facts, optionally only some attributes and entities, in key order;
        `numbered="note"` selects note, note_2, note_3 …"""
        entities = None if entities is None else list(entities)
        self._ensure(entities)
        sql, args = "SELECT path, data FROM files WHERE 1", []
        for col, values in (("attribute", attributes), ("entity", entities)):
            if values is not None:
                vals = sorted(set(values))
                # `events`, `plans` name a family: every event-…, plan-… fact (model/life.py)
                globs = [life.PREFIX[k] + "*" for k, slot in life.FAMILY_SLOT.items() if slot in vals and col == "attribute"]
                sql += f" AND ({col} IN ({','.join('?' * len(vals))}){' OR attribute GLOB ?' * len(globs)})"
                args += vals + globs
        if numbered is not None:
            sql += " AND (attribute = ? OR attribute GLOB ?)"
            args += [numbered, numbered + "_[0-9]*"]
        sql += " ORDER BY entity, attribute"
        return [load_record(data, path) for path, data in self.db.execute(sql, args)]

    def all_rows(self) -> Iterator[tuple[str, str]]:
        """(path, data) of every row: for tests and debugging."""
        yield from self.db.execute("SELECT path, data FROM files ORDER BY path")


def open_index(root: Path | str) -> Index:
    """The vault's index, refreshed."""
    index = Index(root)
    index.refresh()
    return index


def indexed_facts(root: Path | str) -> dict[str, Fact]:
    """Every fact, read from the refreshed index (no YAML parsing for files that did not
    change; a file that stopped parsing keeps serving its last good state)."""
    with open_index(root) as index:
        return {f.key: f for f in index.facts()}
