"""What a served session keeps and every tool call does first, without pydantic or the MCP SDK.

tools.py's `Memory` (the tools with the argument descriptions the client sees) builds on this;
lean.py answers a session's common first requests with it before the SDK is imported at all.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from datetime import date as Date
from pathlib import Path
from typing import Any

from mdmem.errors import MdmemError
from mdmem.model.slug import check_slug
from mdmem.store.vault import Vault

_CALL = threading.local()  # the vaults the tool call running in this thread opened


class BadArgument(MdmemError):
    """A tool argument the library would refuse; the message says how to write it."""


def day_arg(value: str | None, name: str) -> str | None:
    """A real calendar day YYYY-MM-DD, or None."""
    if value is None:
        return None
    try:
        if len(value) == 10:
            return Date.fromisoformat(value).isoformat()
    except ValueError:
        pass
    raise BadArgument(f"{name} {value!r} is not a day: write it like 2026-02-10")


def entity_arg(value: str | None) -> str | None:
    return None if value is None else check_slug(value, "entity")


class MemoryBase:
    """One vault served to agents; `wait` bounds how long a write waits for the vault lock."""

    def __init__(self, root: Path | str, wait: float = 10.0) -> None:
        self.root = Path(root)
        self.wait = wait
        self.last_about: list[str] = []  # whom the session's last question was about ('she' after it)

    def vault(self) -> Vault:
        """The vault as it is on disk now, a crash's unfinished transaction finished or undone."""
        v = Vault(self.root, wait=self.wait)
        v.settle()  # first, so that what recovery did is told with this call's result
        opened = getattr(_CALL, "vaults", None)
        if opened is not None:
            opened.append(v)
        return v

    @contextlib.contextmanager
    def noting(self, notes: list[str]) -> Iterator[None]:
        """Add to notes what recovering the vaults opened meanwhile (in this thread) did."""
        _CALL.vaults = []
        try:
            yield
        finally:
            notes += [note for v in _CALL.vaults for note in v.notes]
            _CALL.vaults = None

    def answer(self, question: str, as_of: str | None = None, entity: str | None = None,
               evidence: int = 3) -> dict[str, Any]:  # fmt: skip
        """The `ask` tool's result (see tools.py's `Memory.ask`)."""
        from mdmem.read.ask import ask

        answer = ask(self.vault(), question, as_of=day_arg(as_of, "as_of"), entity=entity_arg(entity),
                     evidence=evidence, about=self.last_about)  # fmt: skip
        self.last_about = answer.about
        return answer.to_json()
