"""The one cache database under .mdmem/: the snapshot's tables and the search index's, one file.

One file, so one walk of the fact files can fill both in one process and `rm .mdmem/index.sqlite`
resets every derived state at once. It is only a cache: a file that is not a database (torn,
foreign, truncated) is deleted and built anew, and a vault whose .mdmem/ cannot be written still
works from a database in memory.
"""

from __future__ import annotations

import contextlib
import gc
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

CACHE_FILE = "index.sqlite"


def _connect(where: str) -> sqlite3.Connection:
    db = sqlite3.connect(where, timeout=30, isolation_level=None, check_same_thread=False)
    try:
        # Freed pages are zeroed, so a forgotten value does not linger in the file's bytes.
        db.execute("PRAGMA secure_delete = ON")
        db.execute("PRAGMA journal_mode = DELETE")
        db.execute("SELECT count(*) FROM sqlite_master").fetchone()  # reads the header and schema
    except sqlite3.DatabaseError:
        db.close()
        raise
    return db


def connect(path: Path) -> sqlite3.Connection:
    """A connection to the cache database at path; a corrupt one is replaced by an empty one."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        return _connect(str(path))
    except (sqlite3.DatabaseError, OSError):
        discard(path)
    try:
        return _connect(str(path))
    except (sqlite3.DatabaseError, OSError):
        return _connect(":memory:")  # a read-only vault still answers


def discard(path: Path) -> None:
    """Delete a cache database found corrupt (and its journal): it is rebuilt from the files."""
    for p in (path, path.with_name(path.name + "-journal")):
        with contextlib.suppress(OSError):
            if not p.is_dir():
                os.unlink(p)


def file_id(path: Path) -> tuple[int, int] | None:
    """(device, inode) of the database file: another one put in its place has another."""
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


@contextlib.contextmanager
def paused_gc(*, freeze: bool = False) -> Iterator[None]:
    """No cyclic collection while many acyclic containers are built (rows, facts, entries):
    the collector would otherwise sweep the growing heap again and again.

    With freeze (for data kept, such as 100,000 loaded facts: a million containers, none of
    which can form a cycle), what was built is frozen, kept out of later sweeps though still
    freed when no longer used; garbage cycles from before are collected first, so none is
    frozen with it."""
    enabled = gc.isenabled()
    if enabled and freeze:
        gc.collect()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            if freeze:
                gc.freeze()
            gc.enable()
