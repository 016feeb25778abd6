"""What the English and Chinese readers of forget requests share: a request, and the slot a
piece of text names by a label or alias."""

from __future__ import annotations

import re
from dataclasses import dataclass

from mdmem.extract.candidates import Resolver
from mdmem.model.rules import norm

KINDS = ("that", "this", "named", "about", "all")


@dataclass(frozen=True)
class Request:
    """One request to forget, at text[start:end]."""

    kind: str
    start: int
    end: int
    attribute: str | None = None  # named: the slot
    words: str = ""  # about: what it is about, as said
    owner: str | None = None  # named: whose it is ("my mum's phone number": mum)



def overlap(a: Request, b: Request) -> bool:
    return a.start < b.end and b.start < a.end


_CJK = re.compile(r"[\u4e00-\u9fff]")
_SLOT_KEYS: dict[int, tuple[Resolver, int, list[tuple[str, str]]]] = {}


def _slot_keys(resolver: Resolver) -> list[tuple[str, str]]:
    """(label or alias, attribute) pairs, longest first: the words that can name a slot."""
    cached = _SLOT_KEYS.get(id(resolver))
    size = len(resolver.exact) + len(resolver.alias)
    if cached is not None and cached[0] is resolver and cached[1] == size:
        return cached[2]
    pairs = dict(resolver.alias)
    pairs.update(resolver.exact)  # a name or label beats another attribute's alias
    keys = sorted(pairs.items(), key=lambda ka: (-len(ka[0]), ka[0]))
    if len(_SLOT_KEYS) > 16:
        _SLOT_KEYS.clear()
    _SLOT_KEYS[id(resolver)] = (resolver, size, keys)
    return keys


def named_in(text: str, resolver: Resolver) -> tuple[str, str] | None:
    """(attribute, the words naming it) for the longest label or alias in a piece of text."""
    low = norm(text)
    for key, attr in _slot_keys(resolver):
        if len(key) < 2 and not _CJK.search(key):
            continue
        if key not in low:
            continue
        if key.isascii() and not re.search(rf"(?<![a-z0-9]){re.escape(key)}(?![a-z0-9])", low):
            continue
        return attr, key
    return None
