"""The words an attribute gives the extractor's grammar: its `grammar:` key in rules.yaml.

The grammar (mdmem/extract/grammar/) knows how people say things: a name in apposition, an
answer to "what are your cats called?", a habit said with "most evenings", a skill with "I've
done a lot of"; the pack says which words name what, per language, and so which slot each
finding fills. A pack adds a pet, an instrument or a language by adding a word here, not code.

    pets:
      grammar:
        names: {en: [dog, cat, parrot], zh: [狗, 猫, 鹦鹉]}
        count: pet_count
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

# What each dimension's words are, as rules.md documents them.
DIMENSIONS = {
    "names": "nouns for one of the slot's members, named or not ('my parrot Kiwi', 'two rabbits')",
    "people": "nouns for a person the slot holds ('my brother Tomas'): the person gets facts of their own",
    "activities": "activities the slot lists ('some swimming, sketching or a bit of cello')",
    "skills": "what a person can do or knows ('a lot of Go and some Rust', 'I speak Portuguese')",
    "things": "things a person owns ('my new Prius', 'a pendant')",
}
KEYS = (*DIMENSIONS, "count")


@dataclass(frozen=True)
class Grammar:
    """One attribute's grammar words: dimension → language → words; `count` the slot of how many."""

    words: dict[str, dict[str, tuple[str, ...]]] = field(default_factory=dict)
    count: str | None = None

    def of(self, dimension: str) -> tuple[str, ...]:
        """Every word of a dimension, all languages together."""
        return tuple(w for ws in self.words.get(dimension, {}).values() for w in ws)


def parse_grammar(spec: Any, fail: Callable[[str | None, str], Exception]) -> Grammar | None:
    """The `grammar:` mapping of an attribute, validated; `fail(key, message)` makes the error."""
    if spec is None:
        return None
    if not isinstance(spec, dict):
        raise fail(None, "'grammar' must be a mapping like {names: {en: [dog, cat]}}")
    unknown = sorted(str(k) for k in spec if k not in KEYS)
    if unknown:
        raise fail(unknown[0], f"unknown grammar key {unknown[0]!r}; use {', '.join(KEYS)}")
    words: dict[str, dict[str, tuple[str, ...]]] = {}
    for dim in DIMENSIONS:
        if dim not in spec:
            continue
        langs = spec[dim]
        if not isinstance(langs, dict) or not langs:
            raise fail(dim, f"grammar '{dim}' must map languages to word lists: {{en: [...], zh: [...]}}")  # fmt: skip
        for lang, ws in langs.items():
            if not isinstance(lang, str) or not ws or not isinstance(ws, list) or not all(isinstance(w, str) and w.strip() for w in ws):  # fmt: skip
                raise fail(dim, f"grammar '{dim}' {lang!r}: a non-empty list of words")
        words[dim] = {lang: tuple(w.strip() for w in ws) for lang, ws in langs.items()}
    count = spec.get("count")
    if count is not None and not isinstance(count, str):
        raise fail("count", "grammar 'count' must name the attribute that keeps how many")
    return Grammar(words, count)
