"""The one cache database under .mdmem/: the snapshot's tables and the search index's, one file.

One file, so one walk of the fact files can fill both in one process and `rm .mdmem/index.sqlite`
resets every derived state at once. It is only a cache: a file that is not a database (torn,
foreign, truncated) is deleted and built anew, and a vault whose .mdmem/ cannot be written still
works from a database in memory.

SQLite opens its files by name, so they are opened through the vault's boundary as far as it can
be (`open_db`): the folders on the way are walked without following links, the database and its
journal must not be links, the file is made by mdmem if missing, and once connected SQLite must
have opened that very file. A link swapped in between that check and SQLite's own open (or
before SQLite makes its journal) is not seen: RELIABILITY.md says what that leaves.
"""

from __future__ import annotations

import contextlib
import gc
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mdmem import boundary
from mdmem.files import unlink

CACHE_FILE = "index.sqlite"
SIDE_FILES = ("-journal", "-wal", "-shm")  # what SQLite keeps beside a database, by its name


def open_db(path: Path | str, **options: Any) -> sqlite3.Connection:
    """sqlite3.connect(path, **options) with the database inside the vault, checked (above)."""
    where = os.fspath(path)
    hit = boundary.vault_of(where)
    if where == ":memory:" or hit is None:
        if where != ":memory:":
            os.makedirs(os.path.dirname(where) or ".", exist_ok=True)
        return sqlite3.connect(where, **options)
    root, rel = hit
    parent, _, name = rel.rpartition("/")
    fd, real = boundary.folder(root, parent, make=True)
    try:
        for n in (name, *(name + s for s in SIDE_FILES)):
            target = boundary.link_target(fd, n)
            if target is not None:
                raise boundary.OutsideVault(
                    f"{parent}/{n} is a symbolic link (to {target}); mdmem keeps its caches inside"
                    " the vault as plain files: delete the link (the cache is rebuilt)",
                    path=f"{parent}/{n}",
                )
        with contextlib.suppress(FileExistsError):
            os.close(os.open(name, os.O_RDWR | os.O_CREAT | os.O_EXCL | boundary.NOFOLLOW, 0o644, dir_fd=fd))  # fmt: skip
        mine = os.stat(name, dir_fd=fd, follow_symlinks=False)
        full = "/".join([root, *real, name])
        db = sqlite3.connect(full, **options)
        try:
            opened = next((r[2] for r in db.execute("PRAGMA database_list") if r[1] == "main"), "")
            now = os.stat(full)
        except BaseException:
            db.close()
            raise
        if opened != full or (now.st_dev, now.st_ino) != (mine.st_dev, mine.st_ino):
            db.close()
            raise boundary.OutsideVault(f"{rel} was replaced while mdmem opened it; run the command again", path=rel)  # fmt: skip
        return db
    finally:
        boundary.release(fd)


def _connect(where: str) -> sqlite3.Connection:
    db = open_db(where, timeout=30, isolation_level=None, check_same_thread=False)
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
            unlink(p)  # never through a link out of the vault


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


def settle_journals(meta: Path) -> list[str]:
    """Roll back or remove the rollback journals (`*.sqlite-journal`) a killed process left
    beside the cache databases under meta; the journals dealt with. A journal whose database
    another process has open is theirs and stays. Run as a vault is opened (`Vault.settle`)."""
    names = boundary.listdir(meta)
    done: list[str] = []
    for name in names:
        if not name.endswith(".sqlite-journal"):
            continue
        journal, db_path = meta / name, meta / name.removesuffix("-journal")
        if db_path.name not in names:  # no database: nothing to roll back into
            if unlink(journal):
                done.append(name)
            continue
        try:
            db = open_db(db_path, timeout=0, isolation_level=None)
        except (sqlite3.Error, OSError):
            continue
        broken = False
        try:
            db.execute("BEGIN EXCLUSIVE")  # a hot journal is rolled back first; then none writes
            unlink(journal)  # still there: not hot (cut before its header was whole), stale
            db.execute("COMMIT")
            done.append(name)
        except sqlite3.OperationalError:  # locked: a live process is using it
            pass
        except sqlite3.DatabaseError:  # not a database any more: only a cache, made anew
            broken = True
        finally:
            db.close()
        if broken:
            discard(db_path)
            done.append(name)
    return done
