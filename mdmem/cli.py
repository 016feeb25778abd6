"""`mdmem` console script: the commands live in mdmem.commands and load on demand."""

from __future__ import annotations

from typing import Any

from mdmem.commands import main

__all__ = ["app", "main"]  # noqa: F822  (app: module __getattr__ below)


def __getattr__(name: str) -> Any:
    if name == "app":  # the full Typer app (every command imported), for tests and embedding
        from mdmem.commands import load

        return load()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
