"""Reading many fact files of a vault: each entity folder opened once through its boundary.

`files.current` checks the whole path of every file it reads (each folder on the way, a link
at the last name), which is most of what a first build pays to read 100,000 small files. A
`FolderReader` opens each entity folder through `boundary.folder` once (every component
checked, as `current` checks them) and reads its files relative to that descriptor without
following a link. Anything else goes `current`'s whole way, so what is read, refused or
missing is exactly what `current` says: a fact file that is a link (followed inside the vault,
refused out of it), one that is not a regular file, a folder that cannot be opened, a vault
not registered with the boundary.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from mdmem import boundary
from mdmem.files import current, unlink

_FLAGS = os.O_RDONLY | boundary.NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


class FolderReader:
    """`current(root/rel)` (and `unlink`) for vault-relative paths, folder by folder; `close()`
    when done."""

    def __init__(self, root: Path | str) -> None:
        self.base = os.fspath(root)
        self._folder: str | None = None
        self._fd: int | None = None

    def read(self, rel: str) -> bytes | None:
        """The bytes of root/rel now, or None when there is none (OutsideVault for a link out,
        IsADirectoryError for a folder: as `current`)."""
        folder, _, name = rel.rpartition("/")
        if folder != self._folder:
            self._open(folder)
        if self._fd is None or not name:
            return current(f"{self.base}/{rel}")
        try:
            fd = os.open(name, _FLAGS, dir_fd=self._fd)
        except FileNotFoundError:
            return None
        except OSError:  # a link (ELOOP), or anything unusual: the whole way
            return current(f"{self.base}/{rel}")
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                return current(f"{self.base}/{rel}")
            parts = [os.read(fd, st.st_size + 1)]
            while len(parts[-1]) and sum(map(len, parts)) > st.st_size:  # it grew meanwhile
                parts.append(os.read(fd, 1 << 16))
            return parts[0] if len(parts) == 1 else b"".join(parts)
        finally:
            os.close(fd)

    def unlink(self, rel: str) -> bool:
        """`files.unlink(root/rel)`: remove the file (True if there was one); a link at the
        last name goes that function's whole way."""
        folder, _, name = rel.rpartition("/")
        if folder != self._folder:
            self._open(folder)
        if self._fd is None or not name or boundary.link_target(self._fd, name) is not None:
            return unlink(f"{self.base}/{rel}")
        try:
            os.unlink(name, dir_fd=self._fd)
        except FileNotFoundError:
            return False
        return True

    def _open(self, folder: str) -> None:
        self.close()
        self._folder = folder
        hit = boundary.vault_of(f"{self.base}/{folder}")
        if hit is None:
            return  # not a registered vault's: `current` reads it as it would
        try:
            self._fd, _ = boundary.folder(hit[0], hit[1])
        except (OSError, boundary.OutsideVault):
            self._fd = None  # `current` says what is wrong, file by file

    def close(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                boundary.release(self._fd)
        self._fd, self._folder = None, None

    def __enter__(self) -> FolderReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
