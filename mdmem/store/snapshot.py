"""A cache under .mdmem/ of the last good parsed state of every fact file.

Keyed by vault-relative path with each file's stat signature (mtime_ns, ctime_ns, size, inode)
and SHA-256, so a scan of an unchanged vault only stats files and parses nothing. A file that
stops parsing keeps its last good state here, which keeps serving reads; and the parse of the
bytes mdmem last wrote is kept beside an edited file's, so `sync` can tell what the person
changed. Two files: `snapshot.json` (signatures, digests, problems: all a no-change `sync`
needs) and `snapshot.facts.json` (the parsed facts, read only when facts are). Both are caches:
delete them and they are rebuilt (edits not yet synced then fall back to the journal).
"""

from __future__ import annotations

import contextlib
import functools
import gc
import json
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, TypeVar

from mdmem.files import atomic_write, sha256
from mdmem.model.factfile import Fact
from mdmem.store.snapshot_entry import Entry, decode, new_entry
from mdmem.store.walk import Sig, stat_paths, stat_sig, walk, walk_paths

SNAPSHOT_FILE = "snapshot.json"
FACTS_FILE = "snapshot.facts.json"
VERSION = 3  # 3: facts gained `upstream`
# A file modified this close to the moment it was read may be rewritten within the file
# system's timestamp granularity without its signature changing ("racily clean", as git
# calls it): such entries are verified by their bytes until they are older than this.
RACY_NS = 2_000_000_000
# Saving costs about as much as reading a few hundred files, so an ordinary read saves the
# snapshot only after reading at least this many; `sync` and `watch` always save it.
SAVE_AFTER = 200

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
        self.path = meta / SNAPSHOT_FILE
        self.facts_path = meta / FACTS_FILE
        self.entries: dict[str, Entry] = {}
        self.gone: dict[str, Entry] = {}  # files that vanished, until `sync` has dealt with them
        self.dirty = False  # the index changed since it was loaded or saved
        self.rows_dirty = False  # a parsed fact changed
        self.read = 0  # files read by the last refresh
        self.parsed = 0  # of which parsed (new bytes)
        self._rows_loaded = True  # every entry's row is in memory (none pending in FACTS_FILE)
        self._sig: Sig | None = None
        self._mutex = threading.RLock()

    @classmethod
    def open(cls, meta: Path) -> Snapshot:
        """The snapshot under meta; one in-memory copy per process while its file is unchanged."""
        path = meta / SNAPSHOT_FILE
        sig = stat_sig(path)
        cached = _OPEN.get(str(path))
        if cached is not None and cached._sig == sig:  # None == None: not saved yet, still ours
            return cached
        snap = cls(meta)
        snap._load(sig)
        _OPEN[str(path)] = snap
        while len(_OPEN) > 8:  # a test run opens many vaults; keep the recent ones
            del _OPEN[next(iter(_OPEN))]
        return snap

    @classmethod
    def warm(cls, meta: Path) -> bool:
        """Whether this process holds the snapshot under meta, current and with its facts read."""
        cached = _OPEN.get(str(meta / SNAPSHOT_FILE))
        return cached is not None and cached._rows_loaded and cached._sig == stat_sig(cached.path)

    def _load(self, sig: Sig | None) -> None:
        if sig is None:
            return
        try:
            with _no_gc():
                data = json.loads(self.path.read_bytes())
                if data.get("version") != VERSION:
                    return
                unpack = Entry.unpack
                entries = {k: unpack(v) for k, v in data["entries"].items()}
                gone = {k: unpack(v[:-1]) for k, v in data.get("gone", {}).items()}
                for k, v in data.get("gone", {}).items():
                    gone[k].row = v[-1]
        except (OSError, ValueError, TypeError, KeyError, AttributeError, IndexError):
            return  # a torn or foreign cache: rebuild it
        self.entries, self.gone = entries, gone
        self._rows_loaded = not any(e.good_sha for e in entries.values())
        self._sig = sig

    @_locked
    def load_rows(self, root: Path) -> None:
        """Read the parsed facts of entries loaded from the index (once per process)."""
        if self._rows_loaded:
            return
        try:
            with _no_gc():
                rows = json.loads(self.facts_path.read_bytes()).get("rows", {})
        except (OSError, ValueError, AttributeError):
            rows = {}
        for rel, e in self.entries.items():
            if e.row is not None or e.good_sha is None:
                continue
            kept = rows.get(rel)
            if isinstance(kept, list) and len(kept) == 2 and kept[0] == e.good_sha:
                e.row = kept[1]
            else:  # saved by another process in between, or lost: parse the file again
                self._heal(root, rel, e)
        self._rows_loaded = True

    def _heal(self, root: Path, rel: str, e: Entry) -> None:
        try:
            data = (root / rel).read_bytes()
        except OSError:
            data = b""
        fresh = new_entry(rel, data, sha256(data), e.sig, True, None, dict, dict)
        e.sha, e.racy, e.good_sha, e.row = fresh.sha, True, fresh.good_sha, fresh.row
        e.problem, e.volatile = fresh.problem, fresh.volatile
        self.dirty = self.rows_dirty = True

    @_locked
    def save(self, root: Path, force: bool = False) -> None:
        """Write what changed, if (unless forced) reading it again would cost more.

        A cache: a read-only vault just goes without."""
        if not (self.dirty or self.rows_dirty) or (not force and self.read < SAVE_AFTER):
            return
        with contextlib.suppress(OSError):
            if self.rows_dirty:  # first, so the index never names rows that are not there
                self.load_rows(root)
                rows = {
                    k: [e.good_sha, e.row]
                    for k, e in self.entries.items()
                    if e.row is not None and not e.volatile
                }
                atomic_write(self.facts_path, _dumps({"version": VERSION, "rows": rows}))
                self.rows_dirty = False
            kept = {k: e.pack() for k, e in self.entries.items() if not e.volatile}
            gone = {k: [*e.pack(), e.row] for k, e in self.gone.items() if not e.volatile}
            atomic_write(self.path, _dumps({"version": VERSION, "entries": kept, "gone": gone}))
            self._sig = stat_sig(self.path)
            self.dirty = False

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
                self.load_rows(root)  # the last good state must survive this change
            changed[rel] = new_entry(
                rel, data, digest, sig, racy, old, last_written, last_journaled
            )
            self.parsed += 1
            self.rows_dirty = True
        checked = entries.keys() if only is None else [r for r in only if r in entries]
        vanished = [rel for rel in checked if rel not in found]
        if vanished:
            self.load_rows(root)  # what a deleted file held: sync's forget needs it
        if changed or vanished:
            self.dirty = True
            for rel in vanished:
                gone[rel] = entries.pop(rel)
                self.rows_dirty = True
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
                self.dirty = True

    # --- reading --------------------------------------------------------------------------------

    @_locked
    def facts_of(self, rels: list[str]) -> dict[str, Fact | None]:
        """The facts of these files as last refreshed: None for one that does not parse, and
        nothing for one the snapshot does not hold or whose fact is not read yet."""
        out: dict[str, Fact | None] = {}
        for rel in rels:
            e = self.entries.get(rel)
            if e is not None and e.problem is not None:
                out[rel] = None
            elif e is not None and e.row is not None:
                out[rel] = decode(e.row)
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


def _dumps(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))
