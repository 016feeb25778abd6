"""The temporary files mdmem writes beside a file before it takes the file's place, and the
removal of those a crash left behind.

Made with plain os calls: a cascade writes a thousand of them, and tempfile.mkstemp, pathlib
and a buffered file object cost more than the system calls themselves.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import time
from collections.abc import Iterable
from pathlib import Path

from mdmem.boundary import open_folder

# What `atomic_write` names its temporary files: `.{name}.{writer's pid}.{8 random}.tmp`; the pid
# tells a file a live writer is still filling from one a killed writer left. A file `swap` moved
# out of the way is `.{name}.{pid}.aside.tmp` (recovery looks for those by name).
TEMP_RE = re.compile(
    r"^\.(?P<name>.+?)\.(?:(?P<pid>\d+)\.)?(?:[A-Za-z0-9_]{8}|aside|ours|new)\.tmp$"
)
ASIDE_GLOB = ".{name}.*.aside.tmp"
STALE_TEMP = 3600.0  # seconds: a temporary file without a pid this old is abandoned


def write_temp(path: str | Path, data: bytes, *, durable: bool) -> str:
    """data in a new temporary file beside path, with path's mode (or the umask default)."""
    target = os.fspath(path)
    folder, name = os.path.split(target)
    try:
        mode = os.stat(target).st_mode & 0o777
    except FileNotFoundError:
        mode = None
    fd, tmp = _new_temp(folder or ".", name)
    try:
        # Made 0600, as mkstemp would; then the replaced file's mode, else the umask default.
        os.fchmod(fd, mode if mode is not None else 0o666 & ~umask())
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        if durable:
            os.fsync(fd)
    except BaseException:
        os.close(fd)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    os.close(fd)
    return tmp


def _new_temp(folder: str, name: str) -> tuple[int, str]:
    """A new, empty file `.{name}.{pid}.{8 random}.tmp` in folder (made if missing), open for writing."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    for _ in range(100):
        tmp = os.path.join(folder, f".{name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
        try:
            return os.open(tmp, flags, 0o600), tmp
        except FileExistsError:
            continue
        except FileNotFoundError:
            os.makedirs(folder, exist_ok=True)
    raise FileExistsError(errno.EEXIST, "no free temporary file name", folder)


def umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def remove_temps(
    folder: Path, names: Iterable[str] | None = None, *, abandoned: bool = False
) -> list[Path]:
    """Remove temporary files `atomic_write` left in folder (a crash mid-write): those for
    these names, or all; with abandoned, only those whose writer is gone (safe without the lock)."""
    wanted = set(names) if names is not None else None
    removed: list[Path] = []
    try:
        fd = open_folder(folder)  # its components checked: a link out of the vault is not swept
    except OSError:
        return removed
    try:
        with os.scandir(fd) as it:
            entries = list(it)
        for e in entries:
            m = TEMP_RE.match(e.name)
            if m is None or (wanted is not None and m["name"] not in wanted):
                continue
            with contextlib.suppress(OSError):
                if abandoned and not _abandoned(e, m["pid"], fd):
                    continue
                os.unlink(e.name, dir_fd=fd)
                removed.append(Path(folder) / e.name)
    finally:
        os.close(fd)
    return removed


def _abandoned(entry: os.DirEntry[str], pid: str | None, fd: int) -> bool:
    if pid is None:
        return os.stat(entry.name, dir_fd=fd, follow_symlinks=False).st_mtime < time.time() - STALE_TEMP
    if int(pid) == os.getpid():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # alive, someone else's
        return False
    return False
