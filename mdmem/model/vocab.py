"""A pack's shared word lists (`vocab:`) and the <<name>> placeholders its patterns use them by.

A word list becomes a non-capturing alternation of its escaped words, longest first, so
"New York City" is tried before "New York" whatever order a person wrote them in. A raw
fragment (`{regex: …}`) is inserted as written, inside `(?-x:…)` so that it reads the same
in a verbose `(?x)` pattern as in a one-line one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

# `<<` never starts a regex construct, and `{…}` is taken by quantifiers such as `{2,4}`.
PLACEHOLDER = re.compile(r"<<([A-Za-z_][A-Za-z0-9_]*)>>")


class UnknownList(LookupError):
    """A placeholder naming no list; `name` and `pos` (in the pattern) say which and where."""

    def __init__(self, name: str, pos: int) -> None:
        super().__init__(name)
        self.name = name
        self.pos = pos


def alternation(words: Iterable[str]) -> str:
    """`(?:…|…)` of the escaped words, longest first (words of equal length keep their order)."""
    ordered = sorted(dict.fromkeys(words), key=len, reverse=True)  # sorted() is stable
    return "(?:" + "|".join(re.escape(w) for w in ordered) + ")"


def fragment(regex: str) -> str:
    """A raw regex fragment as a group that ignores the verbose flag of the pattern around it."""
    return f"(?-x:{regex})"


def expand(pattern: str, vocab: Mapping[str, str]) -> str:
    """The pattern with every <<name>> replaced by its list's regex; UnknownList if unnamed."""
    if "<<" not in pattern:
        return pattern

    def one(m: re.Match[str]) -> str:
        if m[1] not in vocab:
            raise UnknownList(m[1], m.start())
        return vocab[m[1]]

    return PLACEHOLDER.sub(one, pattern)
