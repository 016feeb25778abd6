"""A cache in .mdmem/index.sqlite of the last good parsed state of every fact file.

Keyed by vault-relative path with each file's stat signature (mtime_ns, ctime_ns, size, inode)
and SHA-256, so a scan of an unchanged vault only stats files and parses nothing. A file that
stops parsing keeps its last good state here, which keeps serving reads; and the parse of the
bytes mdmem last wrote is kept beside an edited file's, so `sync` can tell what the person
changed. Two tables in the cache database shared with the search index (store/cachedb.py):
`snap` (signatures, digests, problems: all a no-change `sync` needs) and `snap_rows` (the
parsed facts, read only when facts are, and then only those needed). A save writes only the
files that changed. Both are caches: delete them and they are rebuilt (edits not yet synced
then fall back to the journal); the JSON files of earlier versions are deleted unread.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, TypeVar

from mdmem.errors import SlugError
from mdmem.files import sha256
from mdmem.model.factfile import Fact
from mdmem.model.slug import split_key
from mdmem.store.cachedb import CACHE_FILE, connect, discard, file_id
from mdmem.store.snapshot_entry import Entry, decode, new_entry, row_text
from mdmem.store.walk import stat_paths, walk, walk_paths

SNAPSHOT_FILE = CACHE_FILE
OLD_FILES = ("snapshot.json", "snapshot.facts.json")  # before the snapshot moved into SQLite
VERSION = 3
# A file modified this close to the moment it was read may be rewritten within the file
# system's timestamp granularity without its signature changing ("racily clean", as git
# calls it): such entries are verified by their bytes until they are older than this.
RACY_NS = 2_000_000_000
# Saving costs about as much as reading a few hundred files, so an ordinary read saves the
# snapshot only after reading at least this many; `sync` and `watch` always save it.
SAVE_AFTER = 200

_DDL = """
CREATE TABLE IF NOT EXISTS snap_meta(k TEXT PRIMARY KEY, v TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS snap(
    path TEXT PRIMARY KEY, mtime_ns INTEGER, ctime_ns INTEGER, size INTEGER, ino INTEGER,
    sha TEXT NOT NULL, racy INTEGER, good TEXT, base TEXT, problem TEXT, gone INTEGER,
    learned INTEGER) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS snap_rows(path TEXT PRIMARY KEY, sha TEXT NOT NULL, row TEXT NOT NULL);
"""
_COLS = "path, mtime_ns, ctime_ns, size, ino, sha, racy, good, base, problem, gone, learned"

F = TypeVar("F", bound=Callable[..., Any])


def _locked(method: F) -> F:
    """One thread at a time per snapshot: a process shares one copy between its Vaults."""

    @functools.wraps(method)
    def wrapper(self: Snapshot, *args: Any, **kwargs: Any) -> Any:
        with self._mutex:
            return method(self, *args, **kwargs)

    return wrapper  # type: ignore[return-value]


@contextlib.contextmanager
def _no_gc() -> Iterator[None]:
    """Build many small containers without the cyclic collector looking at them.

    Loading 100,000 facts makes a million containers, none of which can form a cycle: the
    collector would run hundreds of times during the load and then sweep them all once more.
    So it is paused, and what was built is frozen (kept out of later sweeps; it is still
    freed when no longer used). Garbage cycles from before are collected first, so none is
    frozen with it.
    """
    enabled = gc.isenabled()
    if enabled:
        gc.collect()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.freeze()
            gc.enable()


class Snapshot:
    """The snapshot of one vault; `open` it, `refresh` it against the files, read `facts()`."""

    def __init__(self, meta: Path) -> None:
        self.meta = meta
        self.path = meta / SNAPSHOT_FILE
        self.entries: dict[str, Entry] = {}
        self.gone: dict[str, Entry] = {}  # files that vanished, until `sync` has dealt with them
        self.touched: set[str] = set()  # paths whose entry changed since loaded or saved
        self.rows_touched: set[str] = set()  # paths whose parsed fact changed
        self.read = 0  # files read by the last refresh
        self.parsed = 0  # of which parsed (new bytes)
        self._rows_loaded = True  # every entry's row is in memory (none pending in the database)
        self._gen: str | None = None  # the save this copy is of (None: never saved)
        self._file: tuple[int, int] | None = None
        self._db: sqlite3.Connection | None = None
        self._mutex = threading.RLock()

    @property
    def dirty(self) -> bool:
        """Whether an entry changed since the snapshot was loaded or saved."""
        return bool(self.touched)

    @classmethod
    def open(cls, meta: Path) -> Snapshot:
        """The snapshot under meta; one in-memory copy per process while no one else saved."""
        path = meta / SNAPSHOT_FILE
        cached = _OPEN.get(str(path))
        if cached is not None and cached._current():
            return cached
        if cached is not None:
            cached.close()
        snap = cls(meta)
        snap._load()
        _OPEN[str(path)] = snap
        while len(_OPEN) > 8:  # a test run opens many vaults; keep the recent ones
            _OPEN.pop(next(iter(_OPEN))).close()
        return snap

    @classmethod
    def warm(cls, meta: Path) -> bool:
        """Whether this process holds the snapshot under meta, current and with its facts read."""
        cached = _OPEN.get(str(meta / SNAPSHOT_FILE))
        return cached is not None and cached._rows_loaded and cached._current()

    def close(self) -> None:
        if self._db is not None:
            with contextlib.suppress(sqlite3.Error):
                self._db.close()
            self._db = None

    # --- the database ---------------------------------------------------------------------------

    def _conn(self) -> sqlite3.Connection:
        if self._db is None:
            for old in OLD_FILES:  # an earlier version's cache: never read, just removed
                with contextlib.suppress(OSError):
                    os.unlink(self.meta / old)
            db = connect(self.path)
            try:
                db.executescript(_DDL)
                found = db.execute("SELECT v FROM snap_meta WHERE k = 'version'").fetchone()
                if found is None or found[0] != str(VERSION):
                    db.executescript("BEGIN IMMEDIATE; DELETE FROM snap; DELETE FROM snap_rows;"
                                     " DELETE FROM snap_meta; COMMIT")  # fmt: skip
                    db.execute("INSERT INTO snap_meta VALUES('version', ?)", (str(VERSION),))
            except sqlite3.DatabaseError:
                db.close()
                discard(self.path)  # not a database we can use: start afresh
                db = connect(self.path)
                with contextlib.suppress(sqlite3.DatabaseError):
                    db.executescript(_DDL)
                    db.execute("INSERT OR REPLACE INTO snap_meta VALUES('version', ?)",
                               (str(VERSION),))  # fmt: skip
            self._db = db
            self._file = file_id(self.path)
        return self._db

    def _saved_gen(self) -> str | None:
        row = self._conn().execute("SELECT v FROM snap_meta WHERE k = 'gen'").fetchone()
        return row[0] if row else None

    def _current(self) -> bool:
        """Whether no other process saved since this copy was loaded or saved."""
        try:
            return self._file == file_id(self.path) and self._saved_gen() == self._gen
        except sqlite3.Error:
            return False

    def _load(self) -> None:
        try:
            self._gen = self._saved_gen()
            if self._gen is None:
                return
            with _no_gc():
                unpack = Entry.from_db
                entries: dict[str, Entry] = {}
                gone: dict[str, Entry] = {}
                for row in self._conn().execute(f"SELECT {_COLS} FROM snap ORDER BY path"):
                    (gone if row[10] else entries)[row[0]] = unpack(row)
        except (sqlite3.Error, ValueError, TypeError, IndexError):
            self.close()  # a torn or foreign cache: rebuild it
            discard(self.path)
            self._gen = None
            return
        self.entries, self.gone = entries, gone
        self._rows_loaded = not any(e.good_sha for e in (*entries.values(), *gone.values()))

    def _stored_rows(self, rels: Iterable[str] | None) -> dict[str, tuple[str, Any]]:
        """(sha, parse) of these paths' stored rows (of every path when None)."""
        out: dict[str, tuple[str, Any]] = {}
        db = self._conn()
        try:
            with _no_gc():
                if rels is None:
                    cur = db.execute("SELECT path, sha, row FROM snap_rows")
                    out = {p: (s, json.loads(r)) for p, s, r in cur}
                else:
                    todo = list(rels)
                    for i in range(0, len(todo), 500):
                        part = todo[i : i + 500]
                        cur = db.execute("SELECT path, sha, row FROM snap_rows WHERE path IN"
                                         f" ({','.join('?' * len(part))})", part)  # fmt: skip
                        out.update((p, (s, json.loads(r))) for p, s, r in cur)
        except (sqlite3.Error, ValueError):
            return {}  # lost or torn: the files are parsed again
        return out

    @_locked
    def load_rows(self, root: Path, rels: Iterable[str] | None = None) -> None:
        """Read the parsed facts of entries loaded from the database (of just `rels`, if given)."""
        if self._rows_loaded:
            return
        if rels is None:
            pending = [(r, e) for m in (self.entries, self.gone) for r, e in m.items()]
        else:
            pending = [(r, e) for r in rels if (e := self.entries.get(r) or self.gone.get(r))]
        pending = [(r, e) for r, e in pending if e.row is None and e.good_sha is not None]
        if pending:
            rows = self._stored_rows(None if rels is None else [r for r, _ in pending])
            for rel, e in pending:
                kept = rows.get(rel)
                if kept is not None and kept[0] == e.good_sha:
                    e.row = kept[1]
                elif rel in self.entries:  # lost: parse the file again
                    self._heal(root, rel, e)
        if rels is None:
            self._rows_loaded = True

    def _heal(self, root: Path, rel: str, e: Entry) -> None:
        try:
            data = (root / rel).read_bytes()
        except OSError:
            data = b""
        fresh = new_entry(rel, data, sha256(data), e.sig, True, None, dict, dict)
        e.sha, e.racy, e.good_sha, e.row = fresh.sha, True, fresh.good_sha, fresh.row
        e.problem, e.volatile, e.text = fresh.problem, fresh.volatile, fresh.text
        e.learned = fresh.learned
        self.touched.add(rel)
        self.rows_touched.add(rel)

    @_locked
    def save(self, root: Path, force: bool = False) -> None:
        """Write what changed, if (unless forced) reading it again would cost more.

        A cache: a read-only vault just goes without."""
        if not self.touched or (not force and self.read < SAVE_AFTER):
            return
        put, drop, rows, unrow = [], [], [], []
        for rel in sorted(self.touched):
            e = self.entries.get(rel)
            was_gone = e is None
            e = e if e is not None else self.gone.get(rel)
            if e is None or e.volatile:
                drop.append((rel,))
                unrow.append((rel,))
                continue
            if rel in self.rows_touched:
                text = e.text if e.text is not None else (row_text(e.row) if e.row else None)
                e.text = None  # kept once: the row itself is what serves
                if text is not None and e.good_sha is not None:
                    rows.append((rel, e.good_sha, text))
                else:
                    unrow.append((rel,))
            put.append(e.db_row(rel, was_gone))
        gen = os.urandom(8).hex()
        try:
            db = self._conn()
            db.execute("BEGIN IMMEDIATE")
            try:
                if self._saved_gen() != self._gen:
                    self._rewrite_all(db)  # another process saved meanwhile: ours replaces it
                else:
                    db.executemany("DELETE FROM snap WHERE path = ?", drop)
                    db.executemany("DELETE FROM snap_rows WHERE path = ?", unrow)
                    db.executemany(f"INSERT OR REPLACE INTO snap VALUES({','.join('?' * 12)})", put)
                    db.executemany("INSERT OR REPLACE INTO snap_rows VALUES(?, ?, ?)", rows)
                db.execute("INSERT OR REPLACE INTO snap_meta VALUES('gen', ?)", (gen,))
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        except (sqlite3.Error, OSError):
            return
        self._gen = gen
        self.touched.clear()
        self.rows_touched.clear()

    def _rewrite_all(self, db: sqlite3.Connection) -> None:
        """Replace the saved snapshot by this one (its rows too, read first where not yet)."""
        self.load_rows(self.meta.parent)
        db.execute("DELETE FROM snap")
        db.execute("DELETE FROM snap_rows")
        for table, gone in ((self.entries, False), (self.gone, True)):
            live = [(r, e) for r, e in table.items() if not e.volatile]
            db.executemany(f"INSERT INTO snap VALUES({','.join('?' * 12)})",
                           [e.db_row(r, gone) for r, e in live])  # fmt: skip
            texts = [(r, e.good_sha, row_text(e.row)) for r, e in live if e.row is not None]
            db.executemany("INSERT INTO snap_rows VALUES(?, ?, ?)",
                           [t for t in texts if t[2] is not None])  # fmt: skip

    # --- bringing it up to date -----------------------------------------------------------------

    @_locked
    def refresh(
        self,
        root: Path,
        written: Callable[[], Mapping[str, str]],
        journaled: Callable[[], Mapping[str, Fact | None]] = dict,
        only: list[str] | None = None,
    ) -> None:
        """Re-read every file whose signature changed (or just `only` these paths).

        `written()` gives the manifest (path → SHA-256 of what mdmem last wrote), to keep the
        parse of mdmem's bytes beside the person's; `journaled()` what the journal says mdmem
        last wrote per path, the last good state of a broken file the snapshot never saw good.
        Both are called only when some file changed.
        """
        now_ns = time.time_ns()
        self.read = self.parsed = 0
        known: dict[str, Any] = {}

        def lazy(name: str, load: Callable[[], Any]) -> Callable[[], Any]:
            def get() -> Any:
                if name not in known:
                    known[name] = load()
                return known[name]

            return get

        last_written, last_journaled = lazy("w", written), lazy("j", journaled)
        entries, gone = self.entries, self.gone
        changed: dict[str, Entry] = {}
        found: set[str] = set()
        for rel, sig in walk_paths(walk(root)) if only is None else stat_paths(root, only):
            found.add(rel)
            old = entries.get(rel)
            if old is not None and old.sig == sig and not old.racy and not old.volatile:
                continue
            old = old or gone.get(rel)
            try:
                data = (root / rel).read_bytes()
            except (FileNotFoundError, IsADirectoryError):
                found.discard(rel)  # removed while we looked: it is gone
                continue
            self.read += 1
            digest = sha256(data)
            racy = now_ns - sig[0] < RACY_NS
            if old is not None and old.sha == digest and not old.volatile:
                old.sig, old.racy = sig, racy
                changed[rel] = old
                continue
            if old is not None and old.good_sha and old.row is None:
                self.load_rows(root, [rel])  # the last good state must survive this change
            changed[rel] = new_entry(
                rel, data, digest, sig, racy, old, last_written, last_journaled
            )
            self.parsed += 1
            self.rows_touched.add(rel)
        checked = entries.keys() if only is None else [r for r in only if r in entries]
        vanished = [rel for rel in checked if rel not in found]
        if changed or vanished:
            self.touched.update(changed, vanished)
            for rel in vanished:
                gone[rel] = entries.pop(rel)
            if vanished:
                self.load_rows(root, vanished)  # what a deleted file held: sync's forget needs it
            for rel in changed:
                gone.pop(rel, None)
            if any(rel not in entries for rel in changed):  # new files: keep path order
                self.entries = dict(sorted({**entries, **changed}.items()))
            else:
                entries.update(changed)

    @_locked
    def settle(self, rels: list[str]) -> None:
        """Forget vanished files that `sync` has dealt with."""
        for rel in rels:
            if self.gone.pop(rel, None) is not None:
                self.touched.add(rel)

    # --- reading --------------------------------------------------------------------------------

    @_locked
    def facts_of(self, rels: list[str]) -> dict[str, Fact | None]:
        """The facts of these files as last refreshed: None for one that does not parse, and
        nothing for one the snapshot does not hold."""
        self.load_rows(self.meta.parent, rels)
        out: dict[str, Fact | None] = {}
        for rel in rels:
            e = self.entries.get(rel)
            if e is not None and e.problem is not None:
                out[rel] = None
            elif e is not None and e.row is not None:
                out[rel] = decode(e.row)
        return out

    @_locked
    def problems(self) -> list[tuple[str, int | None, str]]:
        """(path, line, message) of each file that does not parse, in path order."""
        return [(rel, *e.problem) for rel, e in self.entries.items() if e.problem is not None]

    @_locked
    def cycle_facts(self) -> dict[str, Fact]:
        """The facts that parse of every entity a dependency cycle can pass through.

        Rules alone cannot close a loop (rules.yaml is refused with one), so a cycle takes at
        least one `depends_on` edge, and every entity on it holds the dependent of one, or
        its trigger: only their facts are read, not the vault's. No path enters that set of
        entities from outside it, so the graph of these facts finds the cycle the whole
        vault's graph would, and the same one first.
        """
        learned = [r for r, e in self.entries.items() if e.learned and e.problem is None]
        if not learned:
            return {}
        root = self.meta.parent
        self.load_rows(root, learned)
        entities: set[str] = set()
        for rel in learned:
            row = self.entries[rel].row or {}
            entity = row.get("entity", rel.split("/")[1])
            entities.add(entity)
            for dep in row.get("depends_on") or []:
                with contextlib.suppress(SlugError, KeyError, TypeError, AttributeError):
                    entities.add(split_key(dep["on"], entity)[0])  # as the graph reads it
        rels = [r for r, e in self.entries.items() if r.split("/")[1] in entities]
        self.load_rows(root, rels)
        out: dict[str, Fact] = {}
        for rel in rels:
            e = self.entries[rel]
            if e.problem is None and e.row is not None:
                out[f"{e.row['entity']}/{e.row['attribute']}"] = decode(e.row)
        return out

    @_locked
    def facts(
        self, root: Path
    ) -> tuple[dict[str, Fact], list[tuple[str, int | None, str]], dict[str, Fact]]:
        """(facts that parse, problems as (path, line, message), facts to serve reads from).

        The last mapping adds, for each file that no longer parses, its last good state.
        """
        self.load_rows(root)
        good: dict[str, Fact] = {}
        last_good: dict[str, Fact] = {}
        problems: list[tuple[str, int | None, str]] = []
        new = Fact.__new__
        with _no_gc():
            for rel, e in self.entries.items():
                row = e.row
                if e.problem is not None:
                    problems.append((rel, *e.problem))
                if row is None:
                    continue
                fact = new(Fact)
                fact.__dict__ = dict(row)
                key = f"{row['entity']}/{row['attribute']}"
                if e.problem is None:
                    good[key] = fact
                else:
                    last_good[key] = fact
        served = dict(sorted({**good, **last_good}.items())) if last_good else good
        return good, problems, served


_OPEN: dict[str, Snapshot] = {}
