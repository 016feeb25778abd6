"""Writing files atomically (with compare-and-swap where a person may be editing), and reading them
with clear errors. Their temporary files are `temps.py`'s.

Every function here opens its paths through the vault's boundary (`boundary.anchored`): inside a
vault, no component of a path may be a link leading out of it, checked as each folder is opened.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import stat
import sys
from pathlib import Path
from typing import Any

from mdmem.boundary import NOFOLLOW, OutsideVault, anchored
from mdmem.errors import MdmemError, RefusedError
from mdmem.temps import write_temp

# A file's path as a Path or as text: the write path takes text, since a cascade replaces a
# thousand files and pathlib's object per step costs more than the system calls it wraps.
StrPath = str | Path


class WriteConflict(RefusedError):
    """A file changed between the moment a writer read it and the moment it would replace it."""

    def __init__(self, rel: str, kept: str | None = None) -> None:
        also = (
            f" (two saves raced: the newer is {rel}, the other was kept as {kept})" if kept else ""
        )
        super().__init__(
            f"{rel} was saved by someone else while mdmem was writing; nothing was written{also}."
            " Run `mdmem sync` to take in that edit, then run this command again"
        )
        self.rel = rel
        self.kept = kept


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
    expect (bytes, or None for "no file") makes it a compare-and-swap (`swap`): the file must
    hold exactly these bytes when it is replaced, else WriteConflict and nothing is replaced.
    """
    if isinstance(data, str):
        data = data.encode("utf-8")
    with anchored(path, make=True) as p:
        if not isinstance(expect, bool):
            aside = _swap(p, data, expect, durable=durable)
            if aside is not None and not _release(aside, expect):
                raise WriteConflict(os.path.basename(path), _restore(p, aside, data, expect))
            return
        tmp = write_temp(p, data, durable=durable)
        try:
            os.replace(tmp, p)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            raise
        if durable:
            _fsync_dir(os.path.dirname(p))


# Compare-and-swap without a lock the other side respects (an editor takes none). A plain
# "check, then rename" loses a save landing between the two. Instead the new file and the old
# one trade places in one atomic step (Linux renameat2 RENAME_EXCHANGE): the old file, whatever
# was at the path at that instant (saved in place or by rename), is now the "aside" file and
# is compared with what the plan read; if it differs they trade back. Where the system cannot
# exchange, the old file is renamed aside first and the new one linked into the empty path
# (link never replaces a file saved there meanwhile). The aside is kept until the whole batch
# is in and checked once more (`release`): a save written into the old file by an editor that
# had it open lands there, and is put back (`restore`).


def swap(path: StrPath, data: bytes | None, expect: bytes | None, *, durable: bool = False) -> str | None:  # fmt: skip
    """Put data (None: no file) where the file holds exactly expect (None: no file); the old
    file, set aside, for `release` (None if there was none); WriteConflict, nothing changed, if
    the file holds anything else."""
    with anchored(path, make=True) as p:
        aside = _swap(p, data, expect, durable=durable)
    return None if aside is None else os.path.join(os.path.dirname(path), os.path.basename(aside))


def _swap(path: StrPath, data: bytes | None, expect: bytes | None, *, durable: bool = False) -> str | None:  # fmt: skip
    """`swap` of an anchored path; the aside as a path in the same folder."""
    if data is None:
        return _set_aside(path, expect) if expect is not None else None
    new = write_temp(path, data, durable=durable)
    tmp: str | None = new  # what to remove if this fails
    try:
        if expect is None:
            _place(new, path)
            return None
        aside = aside_of(path)
        os.rename(new, aside)  # complete: a kill from here leaves a whole file recovery knows
        tmp = aside
        try:
            exchanged = _exchange(aside, path)
        except FileNotFoundError:  # deleted since the plan read it
            raise WriteConflict(os.path.basename(path)) from None
        if not exchanged:
            os.rename(aside, aside_of(path, "new"))
            tmp = aside_of(path, "new")
            aside = _set_aside(path, expect)
            try:
                _place(tmp, path)
            except WriteConflict:  # a save made the path again: it is newer than ours
                os.unlink(aside)  # it held exactly `expect`: nobody's edit
                raise
            return aside
        tmp = None
        if _read(aside) != expect:
            raise WriteConflict(os.path.basename(path), _trade_back(aside, path, data))
        return aside
    except BaseException:
        if tmp is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
        raise


_EXCHANGE: list[Any] = []  # the libc function, once looked up ([None]: the system has none)


def _exchange(a: StrPath, b: StrPath) -> bool:
    """Atomically trade the files at a and b; False where the system cannot."""
    if not _EXCHANGE:
        _EXCHANGE.append(_renameat2())
    fn = _EXCHANGE[0]
    if fn is None:
        return False
    if fn(-100, os.fsencode(a), -100, os.fsencode(b), 2) == 0:  # AT_FDCWD, RENAME_EXCHANGE
        return True
    import ctypes  # here, not at the top: importing it costs milliseconds every command

    err = ctypes.get_errno()
    if err == errno.ENOENT:
        raise FileNotFoundError(err, os.strerror(err), str(b))
    if err in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.EPERM):
        _EXCHANGE[0] = None  # this file system (or kernel) cannot: rename and link from now on
        return False
    raise OSError(err, os.strerror(err), str(b))


def _renameat2() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        fn = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):  # an older C library
        return None
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    return fn


def _trade_back(aside: StrPath, path: StrPath, ours: bytes, expect: bytes | None | bool = True) -> str | None:  # fmt: skip
    """After an exchange, put the old file (aside) back where ours is. If a newer save had
    replaced ours, that one stays; the old file is dropped if it holds expect, else kept
    beside as `<name>.conflict` (its name returned)."""
    try:
        _exchange(aside, path)
    except FileNotFoundError:  # ours was deleted since: the old file goes back
        return _put_back(aside, path, expect)
    if _read(aside) == ours:
        os.unlink(aside)
        return None
    _exchange(aside, path)  # a newer save: it stays at the path
    return _keep_beside(aside, path, expect)


def aside_of(path: StrPath, tag: str = "aside") -> str:
    """Where `swap` moves path's file aside ("ours": where `restore` moves mdmem's own)."""
    folder, name = os.path.split(path)
    return os.path.join(folder, f".{name}.{os.getpid()}.{tag}.tmp")


def _set_aside(path: StrPath, expect: bytes, tag: str = "aside") -> str:
    aside = aside_of(path, tag)
    try:
        os.rename(path, aside)
    except FileNotFoundError:
        raise WriteConflict(os.path.basename(path)) from None
    if _read(aside) != expect:
        raise WriteConflict(os.path.basename(path), _put_back(aside, path))
    return aside


def _place(tmp: StrPath, path: StrPath) -> None:
    """Rename tmp to path only where no file is (WriteConflict if one is)."""
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise WriteConflict(os.path.basename(path)) from None
    except OSError:  # a file system without hard links: check, then rename (a narrow window)
        if os.path.lexists(path):
            raise WriteConflict(os.path.basename(path)) from None
        os.rename(tmp, path)
        return
    os.unlink(tmp)


def put_back(aside: StrPath, path: StrPath, expect: bytes | None | bool = True) -> str | None:
    """Return a file set aside to its path. If a newer save took the path meanwhile, that one
    stays; the aside is dropped if it holds expect (nobody's edit), else kept beside as
    `<name>.conflict` (whose name is returned)."""
    with anchored(aside) as a, anchored(path) as p:
        return _put_back(a, p, expect)


def _put_back(aside: StrPath, path: StrPath, expect: bytes | None | bool = True) -> str | None:
    try:
        _place(aside, path)
        return None
    except WriteConflict:
        return _keep_beside(aside, path, expect)


def _keep_beside(aside: StrPath, path: StrPath, expect: bytes | None | bool) -> str | None:
    if expect is not True and _read(aside) == expect:
        os.unlink(aside)  # nobody's edit
        return None
    target = Path(path)
    keep = target.with_name(target.name + ".conflict")
    n = 1
    while os.path.lexists(keep):
        n += 1
        keep = target.with_name(f"{target.name}.conflict{n}")
    os.rename(aside, keep)
    return keep.name


def release(aside: StrPath, expect: bytes | None) -> bool:
    """The last check of a file set aside: still exactly expect? Then it is removed (True);
    else (a save landed in it after it was set aside) it is left for `restore` (False)."""
    with anchored(aside) as a:
        return _release(a, expect)


def _release(aside: StrPath, expect: bytes | None) -> bool:
    if _read(aside) != expect:
        return False
    os.unlink(aside)
    return True


def restore(path: StrPath, aside: StrPath | None, ours: bytes | None, expect: bytes | None) -> str | None:  # fmt: skip
    """Undo one `swap` that put ours (None: deleted) over expect: the set-aside file (what
    mdmem had written, or a save that landed in it) goes back. If someone saved over ours
    meanwhile, that save stays; the aside is dropped if it holds expect, else kept beside (its
    name returned)."""
    with anchored(path) as p:
        if aside is None:
            return _restore(p, None, ours, expect)
        with anchored(aside) as a:
            return _restore(p, a, ours, expect)


def _restore(path: StrPath, aside: StrPath | None, ours: bytes | None, expect: bytes | None) -> str | None:  # fmt: skip
    if ours is not None and aside is not None and _EXCHANGE and _EXCHANGE[0] is not None:
        return _trade_back(aside, path, ours, expect)
    if ours is not None:
        try:
            mine = _set_aside(path, ours, "ours")
        except WriteConflict:  # ours was saved over: that save is the newest state
            if aside is None or _release(aside, expect):
                return None
            return _put_back(aside, path)
        os.unlink(mine)
    return _put_back(aside, path, expect) if aside is not None else None


def write_if_changed(path: Path, text: str) -> bool:
    """Write text unless the file already holds exactly these bytes; True if written."""
    data = text.encode("utf-8")
    if current(path) == data:
        return False
    atomic_write(path, data)
    return True


def current(path: StrPath) -> bytes | None:
    """The bytes of a file now, or None when there is none (OutsideVault for a link out)."""
    try:
        with anchored(path) as p:
            return _read(p)
    except FileNotFoundError:  # no folder on the way
        return None


def _read(path: StrPath) -> bytes | None:
    """The bytes at an anchored path, never through a link at its last name."""
    try:
        fd = os.open(path, os.O_RDONLY | NOFOLLOW)
    except FileNotFoundError:
        return None
    except OSError as e:
        if e.errno == errno.ELOOP:  # made a link since it was located: not followed
            raise OutsideVault(f"{os.path.basename(path)} became a symbolic link while mdmem read it; run the command again") from None  # fmt: skip
        raise
    if stat.S_ISDIR(os.fstat(fd).st_mode):
        os.close(fd)
        raise IsADirectoryError(errno.EISDIR, "a folder, not a file", os.path.basename(path))
    with open(fd, "rb") as f:
        return f.read()


def unlink(path: StrPath) -> bool:
    """Remove a file (True if there was one), its folders checked as `current` checks them."""
    try:
        with anchored(path) as p:
            os.unlink(p)
    except FileNotFoundError:
        return False
    return True


def remove(path: Path, *, durable: bool = True, expect: bytes | None | bool = True) -> bool:
    """Delete a file (True if there was one); with expect, only if it still holds those bytes."""
    with anchored(path, make=True) as p:
        if not isinstance(expect, bool):
            aside = _swap(p, None, expect)
            if aside is not None and not _release(aside, expect):
                raise WriteConflict(os.path.basename(path), _restore(p, aside, None, expect))
            return aside is not None
        try:
            os.unlink(p)
        except FileNotFoundError:
            return False
        if durable:
            _fsync_dir(os.path.dirname(p))
    return True


def read_text(path: StrPath) -> str | None:
    data = current(path)
    return data.decode("utf-8") if data is not None else None


def read_required(path: Path, error: type[MdmemError], missing: str = "not found") -> str:
    """A UTF-8 text file the caller cannot go on without; error (with path) says why not."""
    try:
        data = current(path)
        if data is None:
            raise error(missing, path=str(path))
        return data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise error(f"cannot be read: {e}", path=str(path)) from None


def _fsync_dir(folder: StrPath) -> None:
    with contextlib.suppress(OSError):  # not every file system lets a folder be fsynced
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
