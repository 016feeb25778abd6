"""The one module that writes files: atomic, only when bytes change; and reading them with clear errors."""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from pathlib import Path

from mdmem.errors import MdmemError


def sha256(data: bytes | str) -> str:
    if isinstance(data, str):
        data = data.encode("utf-8")
    return hashlib.sha256(data).hexdigest()


def atomic_write(path: Path, data: bytes | str, *, durable: bool = True) -> None:
    """Write through a temporary file in the same folder and an atomic rename.

    durable=False skips the fsyncs, for a caller that flushes a whole batch at once.
    """
    if isinstance(data, str):
        data = data.encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
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


def remove(path: Path, *, durable: bool = True) -> bool:
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
