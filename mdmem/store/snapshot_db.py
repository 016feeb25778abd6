"""The snapshot's tables in the cache database (store/cachedb.py), and nothing else.

`snap` holds one row per fact file (signature, SHA-256, problem, whether it was gone, whether
its fact has depends_on), `snap_rows` the parse of its last good bytes as JSON, `snap_meta`
the version, the generation of the last save (so a process knows whether its copy is still
current) and the digest of the last walk that found every entry settled (so a check of an
unchanged vault reads no entry at all). Anything wrong with the database is a cache miss:
it is deleted and rebuilt from the files, never trusted and never fatal.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from mdmem.store.cachedb import CACHE_FILE, connect, discard, file_id
from mdmem.store.snapshot_entry import Entry, row_text

VERSION = "5"  # bump when a stored row would read differently (a Fact field added)
OLD_FILES = ("snapshot.json", "snapshot.facts.json")  # before the snapshot moved into SQLite
_DDL = """
CREATE TABLE IF NOT EXISTS snap_meta(k TEXT PRIMARY KEY, v TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS snap(
    path TEXT PRIMARY KEY, mtime_ns INTEGER, ctime_ns INTEGER, size INTEGER, ino INTEGER,
    sha TEXT NOT NULL, racy INTEGER, good TEXT, base TEXT, problem TEXT, gone INTEGER,
    learned INTEGER) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS snap_rows(path TEXT PRIMARY KEY, sha TEXT NOT NULL, row TEXT NOT NULL);
"""
_COLS = "path, mtime_ns, ctime_ns, size, ino, sha, racy, good, base, problem, gone, learned"
_PUT = f"INSERT OR REPLACE INTO snap VALUES({','.join('?' * 12)})"
Rows = dict[str, tuple[str, Any]]  # path -> (sha of the parsed bytes, their parse)


class SnapStore:
    """The snapshot's side of the cache database of one vault."""

    def __init__(self, meta: Path) -> None:
        self.path = meta / CACHE_FILE
        self._meta_dir = meta
        self._db: sqlite3.Connection | None = None
        self._file: tuple[int, int] | None = None

    def conn(self) -> sqlite3.Connection:
        """The connection, opened (and the tables made, an earlier version's cache dropped)."""
        if self._db is None:
            for old in OLD_FILES:  # the JSON snapshot of an earlier version: never read
                with contextlib.suppress(OSError):
                    os.unlink(self._meta_dir / old)
            db = connect(self.path)
            try:
                _tables(db)
            except sqlite3.DatabaseError:
                db.close()
                discard(self.path)  # not a database we can use: start afresh
                db = connect(self.path)
                with contextlib.suppress(sqlite3.DatabaseError):
                    _tables(db)
            self._db, self._file = db, file_id(self.path)
        return self._db

    def close(self) -> None:
        if self._db is not None:
            with contextlib.suppress(sqlite3.Error):
                self._db.close()
            self._db = None

    def reset(self) -> None:
        """Throw away a database that failed to read: the files are the truth."""
        self.close()
        discard(self.path)

    def same_file(self) -> bool:
        """Whether the database is still the file this connection opened."""
        return self._db is None or self._file == file_id(self.path)

    def meta(self, key: str) -> str | None:
        try:
            row = self.conn().execute("SELECT v FROM snap_meta WHERE k = ?", (key,)).fetchone()
        except sqlite3.Error:
            self.reset()
            return None
        return row[0] if row else None

    @contextlib.contextmanager
    def _at(self, gen: str | None) -> Iterator[tuple[sqlite3.Connection, bool]]:
        """One write transaction (committed, or rolled back on any error), with whether the
        saved entries are still those of generation gen (another process may have saved)."""
        db = self.conn()
        db.execute("BEGIN IMMEDIATE")
        try:
            row = db.execute("SELECT v FROM snap_meta WHERE k = 'gen'").fetchone()
            yield db, (row[0] if row else None) == gen
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    def note(self, key: str, value: str, gen: str | None) -> None:
        """Record a fact about the saved entries, if they are still those of generation gen."""
        with contextlib.suppress(sqlite3.Error, OSError), self._at(gen) as (db, current):
            if current:
                db.execute("INSERT OR REPLACE INTO snap_meta VALUES(?, ?)", (key, value))

    def entries(self, where: str = "", args: Iterable[Any] = ()) -> tuple[dict[str, Entry], dict[str, Entry]]:  # fmt: skip
        """(present, gone) entries, all or those `where` selects, in path order."""
        live: dict[str, Entry] = {}
        gone: dict[str, Entry] = {}
        sql = f"SELECT {_COLS} FROM snap {'WHERE ' + where if where else ''} ORDER BY path"
        try:
            unpack = Entry.from_db
            for row in self.conn().execute(sql, tuple(args)):
                (gone if row[10] else live)[row[0]] = unpack(row)
        except (sqlite3.Error, ValueError, TypeError, IndexError):
            self.reset()  # a torn or foreign cache: rebuilt from the files
            return {}, {}
        return live, gone

    def any_entry(self) -> bool:
        """Whether the snapshot holds any entry at all."""
        try:
            return self.conn().execute("SELECT 1 FROM snap LIMIT 1").fetchone() is not None
        except sqlite3.Error:
            self.reset()
            return False

    def append(self, gen: str | None, new_gen: str, put: list[Any], rows: list[Any]) -> bool:
        """Add entries and rows in one transaction if the saved generation is still `gen`;
        False (nothing written) otherwise, or when the database cannot be written."""
        try:
            with self._at(gen) as (db, current):
                if not current:
                    return False
                db.executemany(_PUT, put)
                db.executemany("INSERT OR REPLACE INTO snap_rows VALUES(?, ?, ?)", rows)
                db.execute("INSERT OR REPLACE INTO snap_meta VALUES('gen', ?)", (new_gen,))
                db.execute("DELETE FROM snap_meta WHERE k IN ('sweep', 'agreed')")
        except (sqlite3.Error, OSError):
            return False
        return True

    def shas(self) -> dict[str, str]:
        """Path -> SHA-256 of every present file's entry."""
        try:
            return dict(self.conn().execute("SELECT path, sha FROM snap WHERE gone = 0"))
        except sqlite3.Error:
            self.reset()
            return {}

    def good_shas(self) -> dict[str, str]:
        """Path -> SHA-256 of every present entry whose bytes parse."""
        try:
            return dict(self.conn().execute("SELECT path, sha FROM snap WHERE gone = 0 AND problem IS NULL"))
        except sqlite3.Error:
            self.reset()
            return {}

    def count_good(self) -> int:
        """How many present entries have a last good state ('' in `good`: the current bytes)."""
        try:
            row = self.conn().execute("SELECT count(*) FROM snap WHERE gone = 0 AND good IS NOT NULL").fetchone()
        except sqlite3.Error:
            self.reset()
            return 0
        return int(row[0])

    def rows(self, rels: Iterable[str] | None) -> Rows:
        """(sha, parse) of these paths' stored rows (of every path when None)."""
        out: Rows = {}
        try:
            db = self.conn()
            if rels is None:
                cur = db.execute("SELECT path, sha, row FROM snap_rows")
                return {p: (s, json.loads(r)) for p, s, r in cur}
            todo = list(rels)
            for i in range(0, len(todo), 500):
                part = todo[i : i + 500]
                cur = db.execute("SELECT path, sha, row FROM snap_rows WHERE path IN"
                                 f" ({','.join('?' * len(part))})", part)  # fmt: skip
                out.update((p, (s, json.loads(r))) for p, s, r in cur)
        except (sqlite3.Error, ValueError):
            return {}  # lost or torn: the files are parsed again
        return out

    def write(
        self,
        gen: str | None,
        new_gen: str | None,
        changes: tuple[list[Any], list[Any], list[Any], list[Any]] | None,
        everything: Callable[[], tuple[list[Any], list[Any]]],
        sweep: str | None,
    ) -> bool:
        """Write in one transaction: `changes` (entries to put and drop, rows to put and
        drop) when the saved generation is still `gen`, else all of `everything()` instead;
        then the sweep digest, if the entries saved are the ones it describes. False when
        the database could not be written (a read-only vault goes without)."""
        try:
            with self._at(gen) as (db, current):
                if new_gen is not None:
                    if current and changes is not None:
                        put, drop, rows, unrow = changes
                        db.executemany("DELETE FROM snap WHERE path = ?", drop)
                        db.executemany("DELETE FROM snap_rows WHERE path = ?", unrow)
                        db.executemany(_PUT, put)
                        db.executemany("INSERT OR REPLACE INTO snap_rows VALUES(?, ?, ?)", rows)
                    else:  # another process saved meanwhile: ours replaces it
                        put, rows = everything()
                        db.execute("DELETE FROM snap")
                        db.execute("DELETE FROM snap_rows")
                        db.executemany(_PUT, put)
                        db.executemany("INSERT INTO snap_rows VALUES(?, ?, ?)", rows)
                    db.execute("INSERT OR REPLACE INTO snap_meta VALUES('gen', ?)", (new_gen,))
                    db.execute("DELETE FROM snap_meta WHERE k = 'agreed'")
                if new_gen is not None or current:
                    if sweep is None:
                        db.execute("DELETE FROM snap_meta WHERE k = 'sweep'")
                    else:
                        db.execute("INSERT OR REPLACE INTO snap_meta VALUES('sweep', ?)", (sweep,))
        except (sqlite3.Error, OSError):
            return False
        return True


def changed(
    entries: dict[str, Entry], gone: dict[str, Entry], touched: set[str], rows_touched: set[str]
) -> tuple[list[Any], list[Any], list[Any], list[Any]]:
    """(entries to put, paths to drop, rows to put, rows to drop) for the touched paths."""
    put: list[Any] = []
    drop: list[Any] = []
    rows: list[Any] = []
    unrow: list[Any] = []
    for rel in sorted(touched):
        e = entries.get(rel)
        was_gone = e is None
        e = e if e is not None else gone.get(rel)
        if e is None or e.volatile:  # settled, or values only this process can hold
            drop.append((rel,))
            unrow.append((rel,))
            continue
        if rel in rows_touched:
            text = e.text if e.text is not None else (row_text(e.row) if e.row else None)
            e.text = None  # kept once: the row itself is what serves
            if text is not None and e.good_sha is not None:
                rows.append((rel, e.good_sha, text))
            else:
                unrow.append((rel,))
        put.append(e.db_row(rel, was_gone))
    return put, drop, rows, unrow


def everything(entries: dict[str, Entry], gone: dict[str, Entry]) -> tuple[list[Any], list[Any]]:
    """(every entry, every row) to save, their parses all read."""
    put: list[Any] = []
    rows: list[Any] = []
    for table, was_gone in ((entries, False), (gone, True)):
        for rel, e in table.items():
            if e.volatile:
                continue
            put.append(e.db_row(rel, was_gone))
            text = row_text(e.row) if e.row is not None else None
            if text is not None and e.good_sha is not None:
                rows.append((rel, e.good_sha, text))
    return put, rows


def _tables(db: sqlite3.Connection) -> None:
    db.executescript(_DDL)
    found = db.execute("SELECT v FROM snap_meta WHERE k = 'version'").fetchone()
    if found is None or found[0] != VERSION:
        db.executescript("BEGIN IMMEDIATE; DELETE FROM snap; DELETE FROM snap_rows;"
                         " DELETE FROM snap_meta; COMMIT")  # fmt: skip
        db.execute("INSERT INTO snap_meta VALUES('version', ?)", (VERSION,))
