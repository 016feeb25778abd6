"""CLI commands: each module registers its commands on the shared Typer app."""

from __future__ import annotations

import sys

from mdmem.commands import core, eval, fix, ingest, log, mcp, read, sync  # noqa: F401  (each registers)
from mdmem.commands.app import app


def main() -> None:
    """Console entry point."""
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)
