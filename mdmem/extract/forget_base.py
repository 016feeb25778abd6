"""What the English and Chinese readers of forget requests share: a request, and the slot a
piece of text names by a label or alias."""

from __future__ import annotations

import re
from dataclasses import dataclass

from mdmem.extract.candidates import Resolver, words
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


# --- the words every English request is said with (forget_requests._EN_ANY) ---------------

_ASK_WORDS = words(
    "delete erase remove wipe scrap scratch strike purge discard disregard unlearn expunge redact clear drop toss"
    " ditch trash bin nix ignore forget lose reset empty pretend"
)
_PHRASAL_VERBS = words("take cross strike wipe scrub rub throw get leave cut pull knock rip")
_KEEP_WORDS = words(
    "remember remembering keep keeping store storing save saving record recording log logging memorise memorize"
    " memorising memorizing retain retaining note noting write writing jot jotting track tracking hold holding"
    " hang hanging file filing put putting add adding have having know knowing"
)
_ASK_PAIRS = frozenset(
    [("get", "rid"), ("throw", "away"), ("throw", "out"), ("cross", "out"), ("take", "out"), ("take", "off"),
     ("black", "out"), ("let", "go"), ("not", "for"), ("off", "the")]
    + [(v, o) for v in _PHRASAL_VERBS for o in ("that", "this", "it", "those", "them", "all")]
    + [(k, o) for k in _KEEP_WORDS for o in ("that", "this", "it", "those", "these", "them", "any", "track", "my", "our", "down", "up")]
)  # fmt: skip
_KEPT = ("remember", "keep", "store", "save", "note")
_LETTERS = re.compile(r"[a-z]+")


def may_ask(low: str) -> bool:
    """False only when no English expression can match the text whose `lowered()` form is
    `low`, as one pass over its words: `_EN_ANY` starts with a word of `_ASK_WORDS`, a pair of
    `_ASK_PAIRS` ("keep that", "take it"), "to" before a word for keeping, "on to" ("hold on to
    it"), "a record" after a word for keeping, or "unsay"; words of the letters a-z, as the
    expressions spell them (each of those words stands between characters that are not)."""
    if "unsay" in low or "un-say" in low:
        return True
    words = _LETTERS.findall(low)
    if not _ASK_WORDS.isdisjoint(words):
        return True
    for a, b, c in zip(words, words[1:], [*words[2:], ""], strict=False):
        if ((a, b) in _ASK_PAIRS or (a == "to" and b.startswith(_KEPT)) or (a, b) == ("on", "to")  # "hold on to"
                or (b == "a" and c == "record" and a in _KEEP_WORDS)):
            return True
    return False
