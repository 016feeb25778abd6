"""A pack's `grammar:`: the words the grammar of life reads (extract/happenings.py, extract/grammar/).

Patterns describe a value's shape; events and plans need clauses, subjects and time words, so
the grammar lives in code and the pack gives it its words, per language, and names the slots a
plan fills when it comes true (docs/rules.md#grammar):

    grammar:
      event_verbs: {en: [did, ran, went, adopted, had], zh: [去, 参加, 跑]}
      event_nouns: {en: [party, surgery, audition, interview]}   # "had" is an event only with one
      plan_words: {en: [going to, planning to, thinking about], zh: [打算, 准备, 计划]}
      timed_plan_words: {en: [will, want to], zh: [要, 想]}   # a plan only with a day to come
      cancel_words: {en: [not anymore, called off], zh: [不去了, 取消了]}
      doing_verbs: {en: [writing, teaming up, working on]}   # "I'm writing a novel": an event of the day
      sets:                                               # a plan that changes a slot
        home_city: {en: [move to, moving to], zh: [搬到, 搬去]}
      names: {pets: {en: [dog, cat, parrot], zh: [狗, 猫]}}   # and people, activities, skills, things
      counts: {pets: pet_count}                           # "I have two rabbits"

The dimensions (`names` … `things`) are the words of extract/grammar/ (habits, names, other
people), shaped like `sets`: dimension → attribute → language → words.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import wraps
from typing import Any, TypeVar

T = TypeVar("T")

LANGS = ("en", "zh")
LISTS = ("event_verbs", "event_nouns", "plan_words", "timed_plan_words", "cancel_words", "doing_verbs")
# attribute → words, per dimension: what each dimension's words are (docs/rules.md#grammar)
DIMENSIONS = {
    "sets": "the words that open a plan which changes the slot when it comes true ('moving to')",
    "names": "nouns for one of the slot's members, named or not ('my parrot Kiwi', 'two rabbits')",
    "people": "nouns for a person the slot holds ('my brother Tomas'): the person gets facts of their own",
    "activities": "activities the slot lists ('some swimming, sketching or a bit of cello')",
    "skills": "what a person can do or knows ('a lot of Go and some Rust', 'I speak Portuguese')",
    "things": "things a person owns or runs ('my new Prius', 'my clothing store')",
}
KEYS = frozenset((*LISTS, *DIMENSIONS, "counts"))

Words = dict[str, tuple[str, ...]]  # language → words


@dataclass(frozen=True)
class Grammar:
    event_verbs: Words = field(default_factory=dict)
    event_nouns: Words = field(default_factory=dict)  # what "had" takes to be an event ("had a party")
    plan_words: Words = field(default_factory=dict)
    timed_plan_words: Words = field(default_factory=dict)
    cancel_words: Words = field(default_factory=dict)
    doing_verbs: Words = field(default_factory=dict)  # "I'm writing a novel": done these days, not a plan
    sets: dict[str, Words] = field(default_factory=dict)  # attribute → language → words
    names: dict[str, Words] = field(default_factory=dict)
    people: dict[str, Words] = field(default_factory=dict)
    activities: dict[str, Words] = field(default_factory=dict)
    skills: dict[str, Words] = field(default_factory=dict)
    things: dict[str, Words] = field(default_factory=dict)
    counts: dict[str, str] = field(default_factory=dict)  # attribute → the one-valued slot of how many

    def words(self, name: str, lang: str) -> tuple[str, ...]:
        return getattr(self, name).get(lang, ())  # type: ignore[no-any-return]

    def dimension(self, name: str) -> dict[str, Words]:
        """One dimension's words: attribute → language → words."""
        return getattr(self, name)  # type: ignore[no-any-return]

    def to_plain(self) -> dict[str, Any]:
        out: dict[str, Any] = {n: {k: list(v) for k, v in getattr(self, n).items()} for n in LISTS}
        for d in DIMENSIONS:
            out[d] = {a: {k: list(v) for k, v in w.items()} for a, w in self.dimension(d).items()}
        out["counts"] = dict(self.counts)
        return out


# error(container, key, message) -> an exception naming the line (rules_yaml's _Validator.error)
Error = Callable[[Any, Any, str], Exception]


def read_grammar(data: Any, parent: Any, error: Error, attributes: Any) -> Grammar | None:
    """The `grammar:` mapping checked: every list a list of words per language, every slot a
    declared attribute. None when the pack has none (no events or plans are read)."""
    if data is None:
        return None
    if not isinstance(data, dict):
        raise error(parent, "grammar", "'grammar' must be a mapping of word lists (see docs/rules.md#grammar)")
    for key in data:
        if key not in KEYS:
            raise error(data, key, f"unknown key {key!r} in grammar; allowed: {', '.join(sorted(KEYS))}")
    lists = {name: _words(data.get(name), data, name, error) for name in LISTS}
    dims: dict[str, dict[str, Words]] = {}
    for dim in DIMENSIONS:
        raw = data.get(dim) or {}
        if not isinstance(raw, dict):
            raise error(data, dim, f"'{dim}' must map attributes to their words, like pets: {{en: [dog, cat]}}")
        for attr in raw:
            if attr not in attributes:
                raise error(raw, attr, f"grammar '{dim}' names undeclared attribute {attr!r}; declare it under 'attributes'")
        dims[dim] = {str(a): _words(w, raw, str(a), error) for a, w in raw.items()}
    counts = data.get("counts") or {}
    if not isinstance(counts, dict):
        raise error(data, "counts", "'counts' must map a slot to the one-valued slot of how many, like pets: pet_count")
    for attr, slot in counts.items():
        if attr not in attributes:
            raise error(counts, attr, f"grammar 'counts' names undeclared attribute {attr!r}; declare it under 'attributes'")
        if not isinstance(slot, str) or slot not in attributes or attributes[slot].cardinality != "one":
            raise error(counts, attr, f"grammar 'counts' {attr}: must name a declared one-valued attribute, not {slot!r}")
    return Grammar(**lists, sets=dims["sets"], names=dims["names"], people=dims["people"],
                   activities=dims["activities"], skills=dims["skills"], things=dims["things"],
                   counts={str(a): str(c) for a, c in counts.items()})  # fmt: skip


def _words(value: Any, parent: Any, key: str, error: Error) -> Words:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise error(parent, key, f"'{key}' must map languages to word lists, like {{en: [did, went], zh: [去]}}")
    out: Words = {}
    for lang, words in value.items():
        if lang not in LANGS:
            raise error(value, lang, f"'{key}' has language {lang!r}; use {' or '.join(LANGS)}")
        if not isinstance(words, list) or not all(isinstance(w, str) and w.strip() for w in words):
            raise error(value, lang, f"'{key}' {lang}: must be a list of words")
        out[str(lang)] = tuple(" ".join(w.split()) for w in words)
    return out


def from_plain(data: Any) -> Grammar | None:
    """The grammar back from `to_plain` (the rules cache); ValueError for anything else."""
    if data is None:
        return None

    def words(x: Any) -> Words:
        if not isinstance(x, dict) or not all(
            k in LANGS and isinstance(v, list) and all(isinstance(w, str) for w in v) for k, v in x.items()
        ):
            raise ValueError("not a grammar")
        return {k: tuple(v) for k, v in x.items()}

    if not isinstance(data, dict) or set(data) != KEYS or not all(isinstance(data[d], dict) for d in (*DIMENSIONS, "counts")):
        raise ValueError("not a grammar")
    if not all(isinstance(a, str) and isinstance(c, str) for a, c in data["counts"].items()):
        raise ValueError("not a grammar")
    dims = {d: {str(a): words(w) for a, w in data[d].items()} for d in DIMENSIONS}
    return Grammar(**{n: words(data[n]) for n in LISTS}, sets=dims["sets"], names=dims["names"],
                   people=dims["people"], activities=dims["activities"], skills=dims["skills"],
                   things=dims["things"], counts=dict(data["counts"]))  # fmt: skip


def per_grammar(build: Callable[[Grammar], T]) -> Callable[[Grammar], T]:
    """`build` run once per Grammar object, its result kept by the object's identity (a pack's
    words are compiled once, not hashed at every sentence); a few grammars are held at most."""
    held: dict[int, tuple[Grammar, T]] = {}

    @wraps(build)
    def built(g: Grammar) -> T:
        got = held.get(id(g))
        if got is not None and got[0] is g:
            return got[1]
        if len(held) > 8:
            held.clear()
        out = held[id(g)] = (g, build(g))
        return out[1]

    return built
