"""The hashes of the bytes mdmem last wrote to each file, so a hand edit can be told from its own."""

from __future__ import annotations

import json
from pathlib import Path

from mdmem.files import atomic_write, current, read_text, sha256


class Manifest:
    """What mdmem last wrote, per fact file (relative path → SHA-256), so hand edits show."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._data: dict[str, str] | None = None

    @property
    def data(self) -> dict[str, str]:
        if self._data is None:
            try:
                self._data = json.loads(read_text(self.path) or "{}")
            except ValueError:
                self._data = {}
        return self._data

    def record(self, rel: str, text: str | None) -> None:
        if text is None:
            self.data.pop(rel, None)
        else:
            self.data[rel] = sha256(text)

    def edited(self, root: Path, rel: str) -> bool:
        """Whether the file at rel differs from the bytes mdmem last wrote there (gone, or a
        folder in its place, counts)."""
        try:
            data = current(root / rel)
        except IsADirectoryError:
            return True
        return data is None or sha256(data) != self.data.get(rel)

    def save(self) -> None:
        # One line, by the C encoder (an indent takes the pure-Python one: 10x slower, which
        # at 100,000 files was most of a one-file sync).
        text = json.dumps(self.data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        atomic_write(self.path, text + "\n")
