"""`mdmem` console script: the commands live in mdmem.commands."""

from mdmem.commands import app, main

__all__ = ["app", "main"]
