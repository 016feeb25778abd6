"""A cache in .mdmem/index.sqlite of the last good parsed state of every fact file.

Keyed by vault-relative path with each file's stat signature (mtime_ns, ctime_ns, size, inode)
and SHA-256, so a scan of an unchanged vault only stats files and parses nothing. A file that
stops parsing keeps its last good state here, which keeps serving reads; and the parse of the
bytes mdmem last wrote is kept beside an edited file's, so `sync` can tell what the person
changed. Kept in tables of the cache database shared with the search index (snapshot_db.py):
entries are read only when a file changed since the last walk that found them all settled,
parsed facts only those needed, and a save writes only what changed. A cache: delete it and
it is rebuilt (edits not yet synced then fall back to the journal).
"""

from __future__ import annotations

import functools
import os
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from mdmem import boundary
from mdmem.files import current, sha256
from mdmem.model.factfile import Fact
from mdmem.store.cachedb import CACHE_FILE, paused_gc
from mdmem.store.folder_read import FolderReader
from mdmem.store.snapshot_db import SnapStore, changed, everything
from mdmem.store.snapshot_entry import Entry, Record, decode, new_entry, row_text
from mdmem.store.snapshot_queries import SnapshotQueries, locked
from mdmem.store.walk import (
    Sig,
    digest_of,
    folder_digest,
    iter_walk,
    stat_paths,
    walk,
    walk_digest,
    walk_paths,
)

SNAPSHOT_FILE = CACHE_FILE
# A file modified this close to the moment it was read may be rewritten within the file
# system's timestamp granularity without its signature changing ("racily clean", as git
# calls it): such entries are verified by their bytes until they are older than this.
RACY_NS = 2_000_000_000
# Saving costs about as much as reading a few hundred files, so an ordinary read saves the
# snapshot only after reading at least this many; `sync` and `watch` always save it.
SAVE_AFTER = 200
FILL_CHUNK = 1000  # files parsed and saved at a time when a snapshot is filled (`_fill`)

class Snapshot(SnapshotQueries):
    """The snapshot of one vault; `open` it, `refresh` it against the files, read `facts()`."""

    def __init__(self, meta: Path) -> None:
        self.meta = meta
        self.path = meta / SNAPSHOT_FILE
        self.store = SnapStore(meta)
        self._entries: dict[str, Entry] | None = None  # None: not read from the database yet
        self._gone: dict[str, Entry] = {}  # files that vanished, until `sync` dealt with them
        self.touched: set[str] = set()  # paths whose entry changed since loaded or saved
        self.rows_touched: set[str] = set()  # paths whose parsed fact changed
        self.read = 0  # files read by the last refresh
        self.parsed = 0  # of which parsed (new bytes)
        self._rows_loaded = False  # every entry's row is in memory (none pending in the database)
        self._gen: str | None = None  # the save the entries are of (None: never saved)
        self._sweep: str | None = None  # digest of the last walk that left every entry settled
        self._saved_sweep: str | None = None
        self._absorbing = False  # filling an empty snapshot chunk by chunk (`absorb`)
        self._unsettled = False  # an entry absorbed was racy or volatile: no sweep digest
        self._walked: list[tuple[str, list[str]]] | None = None  # names of a walk that changed nothing
        self._mutex = threading.RLock()

    @property
    def entries(self) -> dict[str, Entry]:
        """Path -> Entry of every present fact file (read from the database on first use)."""
        if self._entries is None:
            with self._mutex, paused_gc(freeze=True):
                self._gen = self.store.meta("gen")
                self._entries, self._gone = self.store.entries() if self._gen else ({}, {})
                self._saved_sweep = self.store.meta("sweep") if self._entries else None
                self._rows_loaded = not any(e.good_sha for e in [*self._entries.values(), *self._gone.values()])
        return self._entries

    @entries.setter
    def entries(self, value: dict[str, Entry]) -> None:
        self._entries = value

    @property
    def gone(self) -> dict[str, Entry]:
        """Files that vanished, until `sync` has dealt with them."""
        self.entries  # noqa: B018 - loaded with them
        return self._gone

    @classmethod
    def open(cls, meta: Path) -> Snapshot:
        """The snapshot under meta; one in-memory copy per process while no one else saved."""
        key = str(meta / SNAPSHOT_FILE)
        cached = _OPEN.get(key)
        if cached is not None and cached._current():
            return cached
        if cached is not None:
            cached.store.close()
        snap = _OPEN[key] = cls(meta)
        while len(_OPEN) > 8:  # a test run opens many vaults; keep the recent ones
            _OPEN.pop(next(iter(_OPEN))).store.close()
        return snap

    @classmethod
    def warm(cls, meta: Path) -> bool:
        """Whether this process holds the snapshot under meta, current and with its facts read."""
        cached = _OPEN.get(str(meta / SNAPSHOT_FILE))
        return (cached is not None and cached._entries is not None and cached._rows_loaded
                and cached._current())  # fmt: skip

    def _current(self) -> bool:
        """Whether no other process saved since this copy was read or saved."""
        same = self.store.same_file()
        return same and (self._entries is None or self.store.meta("gen") == self._gen)

    # --- parsed facts -----------------------------------------------------------------------

    @locked
    def load_rows(self, root: Path, rels: list[str] | None = None) -> None:
        """Read the parsed facts of entries read from the database (of just `rels`, if given)."""
        entries, gone = self.entries, self._gone
        if self._rows_loaded:
            return
        if rels is None:
            pending = [(r, e) for m in (entries, gone) for r, e in m.items()]
        else:
            pending = [(r, e) for r in rels if (e := entries.get(r) or gone.get(r))]
        pending = [(r, e) for r, e in pending if e.row is None and e.good_sha is not None]
        if pending:
            with paused_gc(freeze=True):
                rows = self.store.rows(None if rels is None else [r for r, _ in pending])
            for rel, e in pending:
                kept = rows.get(rel)
                if kept is not None and kept[0] == e.good_sha:
                    e.row = kept[1]
                elif rel in entries:  # lost: parse the file again
                    self._heal(root, rel, e)
        if rels is None:
            self._rows_loaded = True

    def _heal(self, root: Path, rel: str, e: Entry) -> None:
        try:
            data = current(root / rel) or b""
        except (OSError, boundary.OutsideVault):
            data = b""
        fresh = new_entry(rel, data, sha256(data), e.sig, True, None, dict, dict)
        e.sha, e.racy, e.good_sha, e.row = fresh.sha, True, fresh.good_sha, fresh.row
        e.problem, e.volatile, e.text = fresh.problem, fresh.volatile, fresh.text
        e.learned = fresh.learned
        self.touched.add(rel)
        self.rows_touched.add(rel)
        self._sweep = None  # racy now: to be looked at again

    # --- saving -------------------------------------------------------------------------------

    @locked
    def save(self, root: Path, force: bool = False) -> None:
        """Write what changed, if (unless forced) reading it again would cost more; and the
        digest of a walk that found nothing to change, so the next check reads no entry.

        A walk that left every entry settled is saved however little it read (files mdmem had
        just written, read again once older) when there are many entries: unsaved, every later
        command would load them all to find the same few again. A cache: a read-only vault just
        goes without."""
        many = self._sweep is not None and len(self._entries or ()) >= SAVE_AFTER
        due = bool(self.touched) and (force or self.read >= SAVE_AFTER or many)
        sweep = self._sweep if not self.touched or due else None
        if not due and (sweep is None or sweep == self._saved_sweep):
            return
        changes = changed(self.entries, self._gone, self.touched, self.rows_touched) if due else None
        gen = os.urandom(8).hex() if due else None
        if not self.store.write(self._gen, gen, changes, self._everything, sweep):
            return
        if due:
            self._gen = gen
            self.touched.clear()
            self.rows_touched.clear()
        self._saved_sweep = sweep

    def _everything(self) -> tuple[list[Any], list[Any]]:
        """Every entry and row, to replace what another process saved meanwhile."""
        self.load_rows(self.meta.parent)
        return everything(self.entries, self._gone)

    # --- bringing it up to date -----------------------------------------------------------------

    @locked
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
        now_ns, base = time.time_ns(), str(root)
        self.read = self.parsed = 0
        self._walked = None
        if only is None and self._entries is None and not self.store.any_entry():
            self._fill(root, written, journaled)  # never filled: a chunk at a time
            return
        folders = walk(root) if only is None else None
        digest = walk_digest(folders) if folders is not None else None
        swept = self._sweep if self._entries is not None else digest and self.store.meta("sweep")
        if digest is not None and digest == swept:
            self._sweep = digest  # not one signature changed since every entry was settled
            if self._entries is None:
                self._saved_sweep = digest
                self._walked = [(ent, names) for ent, names, _ in folders or ()]
            return
        last_written, last_journaled = functools.cache(written), functools.cache(journaled)
        entries, gone = self.entries, self.gone
        changed: dict[str, Entry] = {}
        found: set[str] = set()
        for rel, sig in walk_paths(folders) if folders is not None else stat_paths(root, only or []):
            found.add(rel)
            old = entries.get(rel)
            if old is not None and old.sig == sig and not old.racy and not old.volatile:
                continue
            old = old or gone.get(rel)
            refused = None
            try:
                data = current(f"{base}/{rel}")  # a str path: no pathlib per file
            except (IsADirectoryError, NotADirectoryError):
                data = None
            except boundary.OutsideVault as e:  # a link out of the vault: never read, a problem
                data, refused = b"", e.bare_message
            if data is None:
                found.discard(rel)  # removed while we looked: it is gone
                continue
            self.read += 1
            sha = sha256(data)
            racy = is_racy(sig, now_ns)
            if old is not None and old.sha == sha and not old.volatile:
                old.sig, old.racy = sig, racy
                changed[rel] = old
                continue
            if old is not None and old.good_sha and old.row is None:
                self.load_rows(root, [rel])  # the last good state must survive this change
            changed[rel] = new_entry(rel, data, sha, sig, racy, old, last_written, last_journaled, refused)  # fmt: skip
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
            if only is not None:
                self._sweep = None
        if digest is not None:
            settled = not any(e.racy or e.volatile for e in self.entries.values())
            self._sweep = digest if settled else None

    @property
    def absorbing(self) -> bool:
        """Whether this copy is filling an empty snapshot chunk by chunk (`absorb`)."""
        return self._absorbing

    @locked
    def absorb(
        self,
        root: Path,
        rels: list[str],
        written: Callable[[], Mapping[str, str]],
        journaled: Callable[[], Mapping[str, Fact | None]],
    ) -> dict[str, Record | None] | None:
        """`records_of(rels)` for a snapshot never filled: the files are parsed and their entries
        saved at once, not kept, so the first read of a vault holds one chunk of parses in
        memory, not the vault's. None when the snapshot holds entries it did not absorb (or
        another process saved meanwhile): `refresh` those instead."""
        if self._entries is not None:
            return None
        if not self._absorbing:
            if self.store.meta("gen") is not None and self.store.any_entry():
                return None
            self._absorbing, self._gen = True, self.store.meta("gen")
        return self._absorb(root, rels, written, journaled, keep=True)

    def _absorb(self, root: Path, rels: list[str], written: Callable[[], Mapping[str, str]],
                journaled: Callable[[], Mapping[str, Fact | None]], keep: bool) -> dict[str, Record | None]:  # fmt: skip
        now_ns = time.time_ns()
        put: list[Any] = []
        rows: list[Any] = []
        out: dict[str, Record | None] = {}
        with FolderReader(root) as reader, paused_gc():  # entries and rows: acyclic
            for rel, sig in stat_paths(root, rels):
                refused = None
                try:
                    data = reader.read(rel)  # through the vault's boundary, a folder at a time
                except (IsADirectoryError, NotADirectoryError):
                    continue
                except boundary.OutsideVault as err:  # a link out of the vault: never read, a problem
                    data, refused = b"", err.bare_message
                if data is None:
                    continue
                e = new_entry(rel, data, sha256(data), sig, is_racy(sig, now_ns), None, written, journaled, refused)  # fmt: skip
                self._unsettled |= e.racy or e.volatile
                if keep and e.problem is None and e.row is not None and e.text is not None:
                    out[rel] = (decode(e.row), e.text)
                elif keep and (e.problem is not None or e.row is None):
                    out[rel] = None  # does not parse: nothing to index
                if e.volatile:  # values JSON cannot keep: the index parses it itself, and so does
                    continue  # the next refresh (as every process does for such a file)
                put.append(e.db_row(rel, False))
                text = e.text if e.text is not None else (row_text(e.row) if e.row else None)
                if text is not None and e.good_sha is not None:  # (a broken file's: the journal's)
                    rows.append((rel, e.good_sha, text))
        gen = os.urandom(8).hex()
        if self.store.append(self._gen, gen, put, rows):
            self._gen = gen
        else:  # saved by another process meanwhile, or not writable: refresh from now on
            self._absorbing = False
        return out

    def _fill(self, root: Path, written: Callable[[], Mapping[str, str]],
              journaled: Callable[[], Mapping[str, Fact | None]]) -> None:  # fmt: skip
        """A full refresh of a snapshot never filled: the walk absorbed a chunk at a time, and
        its digest recorded when every entry settled, as `refresh` does; nothing kept."""
        self._absorbing, self._gen, self._unsettled = True, self.store.meta("gen"), False
        last_written, last_journaled = functools.cache(written), functools.cache(journaled)
        digests: list[str] = []
        chunk: list[str] = []
        for folder in iter_walk(root):
            digests.append(folder_digest(folder))
            chunk += [rel for rel, _ in walk_paths([folder])]
            if len(chunk) >= FILL_CHUNK or not self._absorbing:
                self._absorb(root, chunk, last_written, last_journaled, keep=False)
                self.read += len(chunk)
                chunk = []
        if chunk:
            self._absorb(root, chunk, last_written, last_journaled, keep=False)
            self.read += len(chunk)
        self.parsed = self.read
        if self._absorbing:
            self._sweep = None if self._unsettled else digest_of(digests)
        else:  # another process saved meanwhile: what it saved is read and refreshed instead
            self.refresh(root, written, journaled)

    @locked
    def release(self, rels: list[str]) -> None:
        """Let go of these files' parses once saved (read again from the database if needed):
        a caller going through a whole vault in chunks holds one chunk of them."""
        for rel in rels:
            e = self._entries.get(rel) if self._entries is not None else None
            if e is not None and e.row is not None and e.good_sha and rel not in self.rows_touched and not e.volatile:
                e.row = None
                self._rows_loaded = False

    @locked
    def put(self, made: dict[str, Entry]) -> None:
        """Take entries as `refresh` would have made them (store/snapshot_kept.py)."""
        entries = self.entries
        self.touched.update(made)
        self.rows_touched.update(made)
        for rel in made:
            self._gone.pop(rel, None)
        self.entries = dict(sorted({**entries, **made}.items())) if made.keys() - entries.keys() else entries | made
        self._sweep = self._walked = None

    @locked
    def settle(self, rels: list[str]) -> None:
        """Forget vanished files that `sync` has dealt with."""
        for rel in rels:
            if self.gone.pop(rel, None) is not None:
                self.touched.add(rel)


def is_racy(sig: Sig, now_ns: int) -> bool:
    """Whether a file was modified so recently that a rewrite within the file system's
    timestamp granularity could leave its signature as it is: its bytes are compared until it
    is older. A modification time ahead of now (set by hand, a clock that ran ahead or was set
    back) is not racy: any later write stamps the clock as it is, which differs from it; were
    it counted as just written, the file would be read again by every scan, forever."""
    return 0 <= now_ns - sig[0] < RACY_NS


_OPEN: dict[str, Snapshot] = {}
