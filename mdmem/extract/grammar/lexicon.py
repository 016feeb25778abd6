"""The pack's grammar words (rules.yaml `grammar:` names … things), gathered once per Rules.

The grammar's forms find where a word may stand ("my <noun> <Name>", a list after "I squeeze
in"); these tables say whether the words there are a pack's word, and so which slot it fills.
A word with a capital letter ("Go", "Rust") keeps its case, so the verb "go" is never the
language; any other word ignores case, and an English noun also matches its plural
("rabbits", "puppies").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from mdmem.lang.detect import has_cjk
from mdmem.model.rules import Rules

# Nouns whose plural is not the noun with -s/-es (the -y → -ies rule is general).
_IRREGULAR = {"child": "children", "wife": "wives", "fish": "fish", "man": "men", "woman": "women",
              "person": "people", "mouse": "mice", "goose": "geese", "sheep": "sheep", "knife": "knives"}  # fmt: skip


def plural(noun: str) -> str:
    """'rabbit' → 'rabbits', 'puppy' → 'puppies', 'child' → 'children' (last word of a phrase)."""
    head, _, last = noun.rpartition(" ")
    low = last.lower()
    if low in _IRREGULAR:
        out = _IRREGULAR[low]
    elif re.search(r"[^aeiou]y$", low):
        out = last[:-1] + "ies"
    elif re.search(r"(?:s|x|z|ch|sh)$", low):
        out = last + "es"
    else:
        out = last + "s"
    return f"{head} {out}" if head else out


@dataclass
class Words:
    """One dimension's words across the pack, and the slot each word fills."""

    slot: dict[str, str] = field(default_factory=dict)  # word (casefolded unless capitalised) → slot
    singular: dict[str, str] = field(default_factory=dict)  # a plural form → its word
    longest: int = 1  # words in the longest entry

    def add(self, word: str, slot: str, plurals: bool) -> None:
        key = _key(word)
        self.slot.setdefault(key, slot)
        self.longest = max(self.longest, len(key.split()))
        if plurals and not has_cjk(word):
            self.singular.setdefault(_key(plural(word)), key)

    def find(self, text: str) -> str | None:
        """The word (its base form) that `text` is, or None."""
        said = " ".join(text.split())
        for key in (said, said.casefold()):
            if key in self.slot and (key is said or key == _key(key)):
                return key
            if key in self.singular:
                return self.singular[key]
        return None

    def slot_of(self, text: str) -> str | None:
        word = self.find(text)
        return self.slot.get(word) if word is not None else None

    def plural_said(self, text: str) -> bool:
        """Whether `text` is a word's plural ("rabbits"), not the word itself."""
        word = self.find(text)
        return word is not None and " ".join(text.split()).casefold() != word.casefold()


def _key(word: str) -> str:
    w = " ".join(word.split())
    return w if (w != w.lower() or has_cjk(w)) else w.casefold()


@dataclass
class Lexicon:
    """Every grammar word of a pack, per dimension; `count` maps a slot to its count slot."""

    members: Words = field(default_factory=Words)  # names + people: "my parrot", "my brother"
    people: set[str] = field(default_factory=set)  # slots whose members are persons
    activities: Words = field(default_factory=Words)
    skills: Words = field(default_factory=Words)
    things: Words = field(default_factory=Words)
    count: dict[str, str] = field(default_factory=dict)
    # The words (as `tokens` reads them) of every activity and skill, and each verb whose
    # "-ing" form one of them begins with ("swimming": swim): a sentence with none of them
    # names no activity or skill the pack knows.
    cues: frozenset[str] = frozenset()

    @property
    def empty(self) -> bool:
        return not (self.members.slot or self.activities.slot or self.skills.slot or self.things.slot)


_CACHE: dict[int, tuple[Rules, Lexicon]] = {}
_TOKEN = re.compile(r"[a-z]+")


def tokens(sentence: str) -> set[str]:
    """The sentence's words, case-folded and cut at anything not a letter ("K-pop": k, pop)."""
    return set(_TOKEN.findall(sentence.casefold()))


def _cues(word: str) -> set[str]:
    """A pack word's tokens, and for an "-ing" one every verb whose gerund it may be
    (kinds.gerund backwards: "swimming" swimm/swim, "hiking" hik/hike, "lying" lie)."""
    out = tokens(word)
    for w in [w for w in out if w.endswith("ing")]:
        out |= {w[:-3], w[:-3] + "e", w[:-4], w[:-4] + "ie"}
    return out


def lexicon(rules: Rules) -> Lexicon:
    """The pack's grammar words, gathered and compiled once per Rules object."""
    hit = _CACHE.get(id(rules))
    if hit is not None and hit[0] is rules:
        return hit[1]
    lex = Lexicon()
    g = rules.grammar
    if g is not None:
        for dim, words, plurals in (("names", lex.members, True), ("people", lex.members, True),
                                    ("activities", lex.activities, False), ("skills", lex.skills, False),
                                    ("things", lex.things, True)):  # fmt: skip
            for name, langs in g.dimension(dim).items():
                for w in (w for ws in langs.values() for w in ws):
                    words.add(w, name, plurals)
        lex.people = {name for name, langs in g.people.items() if any(langs.values())}
        lex.count = dict(g.counts)
    lex.cues = frozenset(w for words in (lex.activities, lex.skills) for k in words.slot for w in _cues(k))
    if len(_CACHE) > 8:
        _CACHE.clear()
    _CACHE[id(rules)] = (rules, lex)
    return lex
