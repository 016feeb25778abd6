"""mdmem: an AI assistant's long-term memory about a person, as a vault of Markdown files.

The public face, for agents and scripts::

    from mdmem import Vault, ingest, ask

    vault = Vault("my-memory")
    ingest(vault, "User: I moved to Shanghai for a new job.", date="2026-02-10")
    print(ask(vault, "Where do I live?").text)

Names are imported on first use, so `import mdmem` (and the CLI's start-up) stays cheap.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mdmem.edit.ingest import ingest_paths, ingest_text
    from mdmem.edit.ingest import ingest_text as ingest
    from mdmem.engine.decide import Statement
    from mdmem.errors import MdmemError
    from mdmem.model.factfile import Fact
    from mdmem.read.ask import Answer, ask
    from mdmem.store.vault import Vault

_EXPORTS = {
    "Vault": ("mdmem.store.vault", "Vault"),
    "ingest": ("mdmem.edit.ingest", "ingest_text"),
    "ingest_text": ("mdmem.edit.ingest", "ingest_text"),
    "ingest_paths": ("mdmem.edit.ingest", "ingest_paths"),
    "ask": ("mdmem.read.ask", "ask"),
    "Answer": ("mdmem.read.ask", "Answer"),
    "Fact": ("mdmem.model.factfile", "Fact"),
    "Statement": ("mdmem.engine.decide", "Statement"),
    "MdmemError": ("mdmem.errors", "MdmemError"),
}

__all__ = [
    "Answer", "Fact", "MdmemError", "Statement", "Vault",
    "ask", "ingest", "ingest_paths", "ingest_text",
]  # fmt: skip
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    try:
        module, attr = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'mdmem' has no attribute {name!r}") from None
    value = getattr(import_module(module), attr)
    globals()[name] = value
    return value
