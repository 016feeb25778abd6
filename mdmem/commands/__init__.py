"""CLI commands: each module registers its commands on the shared Typer app."""

from __future__ import annotations

import sys

from . import core  # noqa: F401  (registers commands)
from .app import app


def main() -> None:
    """Console entry point."""
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)
