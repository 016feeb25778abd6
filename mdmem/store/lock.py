"""One writer per vault: an advisory lock under .mdmem/, waited for up to --wait seconds."""

from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path
from types import TracebackType

from mdmem.boundary import open_fd
from mdmem.errors import VaultLocked


class VaultLock:
    """Exclusive lock on `<vault>/.mdmem/lock`; raises VaultLocked after `wait` seconds."""

    def __init__(self, path: Path, wait: float = 10.0) -> None:
        self.path = path
        self.wait = wait
        self._fd: int | None = None
        self._depth = 0

    def __enter__(self) -> VaultLock:
        if self._depth:  # re-entrant within one process
            self._depth += 1
            return self
        fd = open_fd(self.path, os.O_RDWR | os.O_CREAT, 0o644)  # inside the vault, never a link
        deadline = time.monotonic() + max(self.wait, 0)
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    holder = (
                        os.pread(fd, 32, 0).decode(errors="replace").strip() or "another process"
                    )
                    os.close(fd)
                    raise VaultLocked(
                        f"the vault is locked by {holder} (another mdmem is writing);"
                        f" waited {self.wait:g}s. Try again, or pass a longer --wait",
                        path=str(self.path.parent.parent),
                    ) from None
                time.sleep(0.05)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()}\n".encode(), 0)
        self._fd = fd
        self._depth = 1
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._depth -= 1
        if self._depth == 0 and self._fd is not None:
            os.ftruncate(self._fd, 0)
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None
