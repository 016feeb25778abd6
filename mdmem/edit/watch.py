"""`mdmem watch`: run `sync` whenever the vault's files change, and say what it did, one line each.

Editors save in several steps (vim renames the old file to `name~` and writes a new one; JetBrains
writes `name___jb_tmp___` and renames it over; others write a temporary file and rename it), so
events are collected until the vault has been quiet for the debounce time, then synced at once.
Only fact files (`facts/<entity>/<name>.md`, not starting with a dot) and rules.yaml count:
swap, backup and temporary files (vim `.name.swp` and `name~`, emacs `#name#` and `.#name`, JetBrains
`___jb_tmp___`, Kate, gedit, Syncthing, mdmem's own `.name.*.tmp`), hidden folders (`.mdmem/`,
`.git/`, `.obsidian/`) and reads are ignored. mdmem's own writes are recognised by the manifest
(their bytes are what mdmem last wrote) and never start another sync.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from types import FrameType
from typing import Any

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from mdmem.edit.sync import SyncResult, result_lines, sync
from mdmem.errors import MdmemError, VaultLocked
from mdmem.files import current, read_text, sha256
from mdmem.model.slug import is_fact_name
from mdmem.store.lastgood import GOOD_RULES_FILE
from mdmem.store.manifest import Manifest
from mdmem.store.vault import RULES_FILE, Vault

DEBOUNCE = 0.3  # seconds of quiet before a sync
IGNORED_EVENTS = ("opened", "closed_no_write")  # reading a file is not a change
ANY = "*"  # a pending marker: sync whatever the files hold


class Watcher:
    """Collects file events for one vault and syncs it when they settle."""

    def __init__(
        self,
        root: Path | str,
        *,
        debounce: float = DEBOUNCE,
        wait: float = 10.0,
        log: Callable[[str], None] = print,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.root = Path(root).resolve()
        Vault(self.root)  # refuse a folder that is not a vault before watching it
        self.debounce = debounce
        # A folder that never stops changing (a long git checkout) is synced at least this often.
        self.max_delay = max(10 * debounce, 2.0)
        self.wait = wait
        self.log = log
        self.clock = clock
        self._cond = threading.Condition()
        self._pending: set[str] = set()
        self._first = self._last = 0.0
        self._stopping = threading.Event()
        self._shown: dict[str, str] = {}  # path → the problem last shown for it

    # --- events ---------------------------------------------------------------------------------

    def relevant(self, path: str, is_directory: bool = False, event_type: str = "") -> str | None:
        """The vault-relative path an event is about, or None when it does not matter."""
        try:
            rel = Path(os.path.abspath(path)).relative_to(self.root).as_posix()
        except ValueError:
            return None
        parts = rel.split("/")
        if rel == "." or any(p.startswith(".") for p in parts):
            return None  # .mdmem/, .git/, .obsidian/, swap and temporary files
        if rel == RULES_FILE and not is_directory:
            return rel
        if parts[0] == "episodes":  # an episode edited by hand: sync re-reads it for search
            return rel if len(parts) == 3 and rel.endswith(".md") and not is_directory else None
        if parts[0] != "facts":
            return None
        if is_directory:  # a folder of facts created, removed or renamed at once
            return rel + "/" if len(parts) <= 2 and event_type != "modified" else None
        return rel if len(parts) == 3 and is_fact_name(parts[2]) else None

    def notice(self, event: FileSystemEvent) -> bool:
        """Take one watchdog event; True if it will lead to a sync check."""
        if event.event_type in IGNORED_EVENTS:
            return False
        paths = [event.src_path, getattr(event, "dest_path", "") or ""]
        rels = [
            r
            for p in paths
            if p
            for r in [self.relevant(os.fsdecode(p), event.is_directory, event.event_type)]
            if r
        ]
        if not rels:
            return False
        with self._cond:
            now = self.clock()
            if not self._pending:
                self._first = now
            self._pending.update(rels)
            self._last = now
            self._cond.notify_all()
        return True

    def due(self) -> float | None:
        """Seconds until the pending changes are synced (0: now), or None when none are pending."""
        with self._cond:
            if not self._pending:
                return None
            now = self.clock()
            quiet = self._last + self.debounce - now
            return max(0.0, min(quiet, self._first + self.max_delay - now))

    # --- syncing --------------------------------------------------------------------------------

    def request(self) -> None:
        """Sync at the next turn whatever the files hold (the catch-up when watching starts)."""
        with self._cond:
            self._pending.add(ANY)
            self._first = self._last = self.clock() - self.debounce
            self._cond.notify_all()

    def flush(self) -> list[str]:
        """Sync the pending changes unless they are all mdmem's own writes; log and return lines."""
        with self._cond:
            paths, self._pending = self._pending, set()
        if not paths or not (ANY in paths or self._needs_sync(paths)):
            return []
        try:
            return self.sync_now()
        except VaultLocked as e:
            with self._cond:  # an ingest or `set` holds the vault: try again shortly
                self._pending.update(paths)
                self._first = self._last = self.clock()
            return self._emit([f"waiting: {e.bare_message}"])

    def sync_now(self) -> list[str]:
        """Sync the whole vault now; log and return what happened."""
        try:
            result = sync(Vault(self.root, wait=self.wait))
        except VaultLocked:
            raise
        except (MdmemError, OSError) as e:  # reported; the watcher goes on
            return self._emit([f"error: {e}"])
        return self._emit(self._fresh(result))

    def _needs_sync(self, paths: set[str]) -> bool:
        """False when every path holds exactly what mdmem last wrote (its own write, an echo)."""
        manifest = Manifest(self.root / ".mdmem" / "written.json").data
        for rel in paths:
            if rel.endswith("/") or rel in self._shown:  # a folder, or a broken file put back
                return True
            path = self.root / rel
            if rel == RULES_FILE:
                if read_text(path) != read_text(self.root / ".mdmem" / GOOD_RULES_FILE):
                    return True
                continue
            try:
                data = current(path)
            except IsADirectoryError:
                data = None
            digest = sha256(data) if data is not None else None
            if digest != manifest.get(rel):
                return True
        return False

    def _fresh(self, result: SyncResult) -> list[str]:
        """The result's lines, without repeating a broken file already shown as it is."""
        broken = {a.rel: a.message for a in result.actions if a.kind == "broken"}
        broken.update({p.path: p.message for p in result.problems if p.path == RULES_FILE})
        lines = []
        for line in result_lines(result):
            rel = line.split(":", 1)[0]
            if rel in self._shown and self._shown[rel] == broken.get(rel):
                continue
            lines.append(line)
        for rel in sorted(set(self._shown) - set(broken)):
            if rel == RULES_FILE and result.rules == "reloaded":
                continue  # the reload line says it
            if not any(a.rel == rel for a in result.actions):
                lines.append(f"{rel}: fixed")
        self._shown = broken
        return lines

    def _emit(self, lines: list[str]) -> list[str]:
        stamp = datetime.now().strftime("%H:%M:%S")
        for line in lines:
            self.log(f"{stamp} {line}")
        return lines

    # --- running --------------------------------------------------------------------------------

    def stop(self) -> None:
        """Ask `run` to finish after the sync in progress, if any."""
        self._stopping.set()
        with self._cond:
            self._cond.notify_all()

    def run(self) -> int:
        """Watch until stopped: 0 when `stop()` is called, 130 on Ctrl-C."""
        observer = Observer()
        observer.schedule(_Handler(self), str(self.root), recursive=True)
        interrupted = threading.Event()
        restore = _on_interrupt(interrupted, self.stop)
        observer.start()
        self.request()  # catch up with what changed while no watcher ran
        try:
            while not self._stopping.is_set():
                with self._cond:
                    delay = self.due()
                    if delay is None or delay > 0:
                        self._cond.wait(timeout=min(delay or 0.5, 0.5))
                        continue
                self.flush()
        except KeyboardInterrupt:  # a second Ctrl-C, or one outside the main thread's handler
            interrupted.set()
        finally:
            restore()
            observer.stop()
            observer.join(timeout=5)
        return 130 if interrupted.is_set() else 0


class _Handler(FileSystemEventHandler):
    def __init__(self, watcher: Watcher) -> None:
        self.watcher = watcher

    def on_any_event(self, event: FileSystemEvent) -> None:
        self.watcher.notice(event)


def _on_interrupt(flag: threading.Event, stop: Callable[[], None]) -> Callable[[], None]:
    """Ctrl-C finishes the sync in progress, then stops; a second Ctrl-C stops at once."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None

    def handler(signum: int, frame: FrameType | None) -> Any:
        if flag.is_set():
            raise KeyboardInterrupt
        flag.set()
        stop()

    previous = signal.signal(signal.SIGINT, handler)

    def restore() -> None:
        signal.signal(signal.SIGINT, previous)

    return restore
