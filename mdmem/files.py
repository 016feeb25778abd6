"""The one module that writes files: atomic, only when bytes change; and reading them with clear errors."""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path

from mdmem.errors import MdmemError, RefusedError

# What `atomic_write` names its temporary files: `.{name}.{writer's pid}.{8 random}.tmp`; the pid
# tells a file a live writer is still filling from one a killed writer left.
TEMP_RE = re.compile(r"^\.(?P<name>.+?)\.(?:(?P<pid>\d+)\.)?[A-Za-z0-9_]{8}\.tmp$")
STALE_TEMP = 3600.0  # seconds: a temporary file without a pid this old is abandoned


class WriteConflict(RefusedError):
    """A file changed between the moment a writer read it and the moment it would replace it."""

    def __init__(self, rel: str) -> None:
        super().__init__(
            f"{rel} was saved by someone else while mdmem was writing; nothing was written."
            " Run `mdmem sync` to take in that edit, then run this command again"
        )
        self.rel = rel


def sha256(data: bytes | str) -> str:
    if isinstance(data, str):
        data = data.encode("utf-8")
    return hashlib.sha256(data).hexdigest()


def atomic_write(
    path: Path,
    data: bytes | str,
    *,
    durable: bool = True,
    expect: bytes | None | bool = True,
) -> None:
    """Write through a temporary file in the same folder and an atomic rename.

    durable=False skips the fsyncs, for a caller that flushes a whole batch at once.
    expect (bytes, or None for "no file") makes it a compare-and-swap: just before the rename
    the file must still hold exactly these bytes, else WriteConflict and nothing is replaced.
    """
    if isinstance(data, str):
        data = data.encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(
        dir=path.parent, prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp"
    )
    try:
        # mkstemp makes 0600 files; keep the replaced file's mode, else the usual umask default.
        try:
            mode = path.stat().st_mode & 0o777
        except FileNotFoundError:
            mode = 0o666 & ~_umask()
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            if durable:
                os.fsync(f.fileno())
        if expect is not True and current(path) != expect:
            raise WriteConflict(path.name)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    if durable:
        _fsync_dir(path.parent)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_if_changed(path: Path, text: str) -> bool:
    """Write text unless the file already holds exactly these bytes; True if written."""
    data = text.encode("utf-8")
    try:
        if path.read_bytes() == data:
            return False
    except FileNotFoundError:
        pass
    atomic_write(path, data)
    return True


def current(path: Path) -> bytes | None:
    """The bytes of a file now, or None when there is none."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def remove(path: Path, *, durable: bool = True, expect: bytes | None | bool = True) -> bool:
    """Delete a file (True if there was one); with expect, only if it still holds those bytes."""
    if expect is not True and current(path) != expect:
        raise WriteConflict(path.name)
    try:
        path.unlink()
    except FileNotFoundError:
        return False
    if durable:
        _fsync_dir(path.parent)
    return True


def read_text(path: Path) -> str | None:
    try:
        return path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        return None


def read_required(path: Path, error: type[MdmemError], missing: str = "not found") -> str:
    """A UTF-8 text file the caller cannot go on without; error (with path) says why not."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise error(missing, path=str(path)) from None
    except (OSError, UnicodeDecodeError) as e:
        raise error(f"cannot be read: {e}", path=str(path)) from None


def _fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):  # not every file system lets a folder be fsynced
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def remove_temps(
    folder: Path, names: Iterable[str] | None = None, *, abandoned: bool = False
) -> list[Path]:
    """Remove temporary files `atomic_write` left in folder (a crash mid-write): those for
    these names, or all; with abandoned, only those whose writer is gone (safe without the lock)."""
    wanted = set(names) if names is not None else None
    removed: list[Path] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for e in entries:
        m = TEMP_RE.match(e.name)
        if m is None or (wanted is not None and m["name"] not in wanted):
            continue
        with contextlib.suppress(OSError):
            if abandoned and not _abandoned(e, m["pid"]):
                continue
            os.unlink(e.path)
            removed.append(Path(e.path))
    return removed


def _abandoned(entry: os.DirEntry[str], pid: str | None) -> bool:
    if pid is None:
        return entry.stat(follow_symlinks=False).st_mtime < time.time() - STALE_TEMP
    if int(pid) == os.getpid():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # alive, someone else's
        return False
    return False
