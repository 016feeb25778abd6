"""The vault's boundary: the one way a path inside a vault is opened.

A vault is registered when it is opened (`register`). From then on every path below its root
that `files` (and the few modules that open files themselves: the walk of facts/, the lock, the
journal, the cache databases) opens is walked from the root one component at a time: each
folder is opened with O_NOFOLLOW relative to the one before it (openat), so the check and the
open are one system call and no folder can be swapped for a link between them. The operation
is then done relative to the last folder opened (`anchored`: on Linux through its descriptor's
/proc/self/fd entry, which names that very folder wherever it is), and a file is read with
O_NOFOLLOW. A component that is a symbolic link is read (readlink) and followed only when it
leads to a place inside the vault, walked again the same way from the root; one that leads
out is refused (`OutsideVault`), before anything is read or written.

Where /proc/self/fd is missing (not Linux), the operation uses the path the walk just checked:
a link put in its place in between is not seen. SQLite opens its files by name (its path is
checked, then verified once connected: `sqlite_path`); see RELIABILITY.md for what remains.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

from mdmem.errors import RefusedError, SlugError

_DIR = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
NOFOLLOW = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
FOLDER = _DIR  # os.open flags of a folder opened relative to a checked one, never through a link
MAX_HOPS = 40  # links followed for one path, as the kernel allows
_ROOTS: set[str] = set()  # the resolved roots of every vault this process opened
_LOCAL = threading.local()  # .dirs, .kept: folder descriptors a `batch` keeps open
_PROC = sys.platform.startswith("linux") and os.path.isdir("/proc/self/fd")


class OutsideVault(SlugError, RefusedError):
    """A path inside the vault that is, or passes through, a link leading out of it."""


def register(root: str | Path) -> str:
    """Guard every path below this (resolved) vault root from now on; the root as text."""
    text = os.fspath(root)
    _ROOTS.add(text)
    return text


def vault_of(path: str) -> tuple[str, str] | None:
    """(root, relative path) when path lies below a registered vault root (the innermost)."""
    if not _ROOTS or not path.startswith("/"):
        return None
    i = len(path)
    while (i := path.rfind("/", 0, i)) > 0:
        if path[:i] in _ROOTS:
            return path[:i], path[i + 1 :]
    return None


def _parts(rel: str) -> list[str]:
    parts = [p for p in rel.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise OutsideVault(f"{rel} climbs out of the vault with '..'; refusing to touch it")
    return parts


def _follow(root: str, real: Sequence[str], name: str, target: str, hops: list[int]) -> list[str]:
    """Where the link `name` in folder `real` points, as parts below root; OutsideVault if out."""
    rel = "/".join([*real, name])
    hops[0] += 1
    if hops[0] > MAX_HOPS:
        raise OutsideVault(f"{rel}: too many symbolic links on the way (a loop?); replace them with real folders")  # fmt: skip
    if os.path.isabs(target):
        full = os.path.normpath(target)
        if full != root and not full.startswith(root + "/"):
            full = os.path.realpath(full)  # a path through a link above the vault, perhaps
    else:
        full = os.path.normpath(os.path.join(root, *real, target))
    if full == root:
        return []
    if not full.startswith(root + "/"):
        raise OutsideVault(
            f"{rel} is a symbolic link to {target}, which leads outside the vault ({root});"
            " mdmem reads and writes only inside the vault: replace the link with the file or"
            " folder itself, or move what it points to into the vault",
            path=rel,
        )
    return full[len(root) + 1 :].split("/")


def link_target(fd: int, name: str) -> str | None:
    """The target of `name` in folder fd when it is a symbolic link, else None."""
    try:
        return os.readlink(name, dir_fd=fd)
    except OSError:
        return None


def _open_folder(root: str, parts: Sequence[str], make: bool, hops: list[int]) -> tuple[int, list[str]]:  # fmt: skip
    """A descriptor of root/parts, walked one O_NOFOLLOW open at a time (links inside the vault
    followed from the root again), and the folder's real parts; `make` creates missing folders."""
    fd = os.open(root, _DIR)
    real: list[str] = []
    todo = list(parts)
    made = 0
    try:
        while todo:
            name = todo[0]
            try:
                nxt = os.open(name, _DIR, dir_fd=fd)
            except FileNotFoundError:
                if not make or made > 2 * MAX_HOPS:
                    raise
                made += 1
                with contextlib.suppress(FileExistsError):
                    os.mkdir(name, 0o777, dir_fd=fd)
                continue
            except OSError as e:
                if e.errno not in (errno.ENOTDIR, errno.ELOOP):
                    raise
                target = link_target(fd, name)
                if target is None:
                    raise NotADirectoryError(errno.ENOTDIR, "not a folder", "/".join([*real, name])) from None  # fmt: skip
                todo = _follow(root, real, name, target, hops) + todo[1:]
                os.close(fd)
                fd, real = os.open(root, _DIR), []
                continue
            os.close(fd)
            fd = nxt
            real.append(name)
            todo.pop(0)
    except BaseException:
        os.close(fd)
        raise
    return fd, real


def locate(root: str, rel: str, *, make: bool = False) -> tuple[int, str, list[str]]:
    """(descriptor of the folder holding rel, rel's last name, the folder's real parts), every
    component checked; a last name that is a link inside the vault is followed. The caller
    closes the descriptor. `make` creates missing folders on the way."""
    parts = _parts(rel)
    if not parts:
        raise IsADirectoryError(errno.EISDIR, "the vault's own folder", root)
    hops = [0]
    while True:
        fd, real = _cached(root, parts[:-1], make, hops)
        name = parts[-1]
        target = link_target(fd, name)
        if target is None:
            return fd, name, real
        release(fd)
        parts = _follow(root, real, name, target, hops)
        if not parts:
            raise IsADirectoryError(errno.EISDIR, "the vault's own folder", root)


def folder(root: str, rel: str, *, make: bool = False) -> tuple[int, list[str]]:
    """(descriptor, real parts) of the folder rel below root, every component checked; the
    caller releases the descriptor with `release`."""
    return _cached(root, _parts(rel), make, [0])


def _cached(root: str, parts: list[str], make: bool, hops: list[int]) -> tuple[int, list[str]]:
    dirs: dict[tuple[str, ...], tuple[int, list[str]]] | None = getattr(_LOCAL, "dirs", None)
    key = (root, *parts)
    if dirs is not None and key in dirs:
        return dirs[key]
    found = _open_folder(root, parts, make, hops)
    if dirs is not None:
        dirs[key] = found
        _LOCAL.kept.add(found[0])
    return found


def release(fd: int) -> None:
    """Close a folder descriptor unless a `batch` keeps it."""
    if getattr(_LOCAL, "dirs", None) is None or fd not in _LOCAL.kept:
        os.close(fd)


@contextlib.contextmanager
def batch() -> Iterator[None]:
    """Keep the folders opened meanwhile (in this thread) open until the end, so that a batch of
    a thousand files in one folder walks to it once. Paths `anchored` yields stay valid within."""
    if getattr(_LOCAL, "dirs", None) is not None:
        yield
        return
    _LOCAL.dirs, _LOCAL.kept = {}, set()
    try:
        yield
    finally:
        dirs, _LOCAL.dirs, _LOCAL.kept = _LOCAL.dirs, None, set()
        for fd, _ in dirs.values():
            with contextlib.suppress(OSError):
                os.close(fd)


@contextlib.contextmanager
def anchored(path: str | Path, *, make: bool = False) -> Iterator[str]:
    """The path to use for path: for a path inside a registered vault, one relative to its
    checked folder (valid inside the `with`); any other path unchanged. OutsideVault when a
    component leads out of the vault; `make` creates missing folders on the way."""
    text = os.fspath(path)
    hit = vault_of(text)
    if hit is None or not hit[1]:
        yield text
        return
    root, rel = hit
    fd, name, real = locate(root, rel, make=make)
    try:
        yield f"/proc/self/fd/{fd}/{name}" if _PROC else "/".join([root, *real, name])
    finally:
        release(fd)


def open_fd(path: str | Path, flags: int, mode: int = 0o666) -> int:
    """os.open through the boundary, never following a link at the last name."""
    with anchored(path, make=bool(flags & os.O_CREAT)) as p:
        try:
            return os.open(p, flags | NOFOLLOW, mode)
        except OSError as e:
            if e.errno == errno.ELOOP:  # made a link since it was located: not followed
                raise OutsideVault(f"{path} became a symbolic link while mdmem opened it; run the command again", path=str(path)) from None  # fmt: skip
            raise


def open_folder(path: str | Path) -> int:
    """A descriptor of a folder (for listing, or `dir_fd`), its components checked."""
    text = os.fspath(path)
    hit = vault_of(text)
    if hit is None or not hit[1]:
        return os.open(text, _DIR & ~getattr(os, "O_NOFOLLOW", 0))
    fd, _ = _open_folder(hit[0], _parts(hit[1]), False, [0])
    return fd


def listdir(path: str | Path) -> list[str]:
    """The names in a folder, sorted ([] when there is no such folder), its components checked."""
    try:
        fd = open_folder(path)
    except (FileNotFoundError, NotADirectoryError):
        return []
    try:
        return sorted(os.listdir(fd))
    finally:
        os.close(fd)


def links(root: str | Path, folders: Sequence[tuple[str, int]]) -> list[tuple[str, str, bool]]:
    """Every symbolic link among these vault paths, `(path, depth)` (0: the path itself, 1:
    also its entries, 2: also those of its subfolders): (vault-relative path, target, whether
    it stays inside the vault)."""
    base = os.fspath(root)
    out: list[tuple[str, str, bool]] = []

    def found(rel: str, target: str) -> bool:
        """Note the link at rel; whether it stays inside the vault."""
        parent, _, name = rel.rpartition("/")
        try:
            _follow(base, parent.split("/") if parent else [], name, target, [0])
        except OutsideVault:
            out.append((rel, target, False))
            return False
        out.append((rel, target, True))
        return True

    def scan(rel: str, depth: int) -> None:
        try:  # only the links and the folders to look into are kept and sorted, not every file
            with os.scandir(f"{base}/{rel}") as it:
                kept = sorted((e.name, e.path, link) for e in it
                              if (link := e.is_symlink()) or (depth > 1 and e.is_dir(follow_symlinks=False)))  # fmt: skip
        except OSError:
            return
        for name, path, link in kept:
            if link:
                found(f"{rel}/{name}", os.readlink(path))
            else:
                scan(f"{rel}/{name}", depth - 1)

    for rel, depth in folders:
        try:
            target = os.readlink(f"{base}/{rel}")
        except OSError:  # not a link (or not there)
            target = None
        if (target is None or found(rel, target)) and depth:
            scan(rel, depth)
    return out

