"""Regular expressions compiled on first use: a module-level table that only some commands
need costs its compile at every start otherwise (a warm `ask` runs a few dozen of them)."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache


def lazy(pattern: str, flags: int = 0) -> Callable[[], re.Pattern[str]]:
    """A getter that compiles pattern once, when first called (`cache_info()` tells whether)."""
    return cache(lambda: re.compile(pattern, flags))
