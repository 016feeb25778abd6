"""`mdmem` console script: the commands live in mdmem.commands."""

from .commands import app, main

__all__ = ["app", "main"]
