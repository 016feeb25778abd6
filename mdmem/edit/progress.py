"""The progress of an ingest on a terminal: a rich bar per file; nothing under cron."""

from __future__ import annotations

import sys


class FileProgress:
    """A rich progress bar on a terminal, per file; nothing at all under cron (no TTY). An
    export's conversations move it too: `conversation(title)` counts one more."""

    def __init__(self, wanted: bool, total: int) -> None:
        self.on = wanted and sys.stderr.isatty()
        self.total = total
        self.done = 0

    def __enter__(self) -> FileProgress:
        if self.on:
            from rich.console import Console
            from rich.progress import Progress

            self._bar = Progress(console=Console(stderr=True), transient=True)
            self._bar.start()
            self._task = self._bar.add_task("ingesting", total=self.total)
        return self

    def __call__(self, source: str) -> None:
        """One more file done."""
        if self.on:
            self._bar.update(self._task, advance=1, description=source[-40:])

    def conversation(self, name: str) -> None:
        """One more conversation of an export done."""
        self.done += 1
        if self.on:
            self._bar.update(self._task, description=f"{self.done} conversations: {name[-30:]}")

    def __exit__(self, *exc: object) -> None:
        if self.on:
            self._bar.stop()
