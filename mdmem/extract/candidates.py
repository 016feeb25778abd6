"""What every candidate finder shares: a found candidate, and the resolver that names its slot.

The rule finder's parts (`generic`, `requests`, `values`) and the model finder all build `Found`
candidates with slots named through one `Resolver`; they import both from here, so none of them
needs another.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from mdmem.errors import SlugError
from mdmem.model.factfile import Value
from mdmem.model.life import Happening
from mdmem.model.rules import Rules, norm
from mdmem.model.slug import check_slug, slugify


@dataclass(frozen=True)
class Found:
    """One candidate fact in one sentence, before its mood and dates are weighed."""

    attribute: str | None  # None: "that"/"this" — the statement just made
    value: Value = None
    kind: str = "assert"  # assert | invalidate | forget | verbatim | depends | switch
    start: int = 0
    value_start: int = 0
    end: int = 0
    owner: str | None = None  # "the team's lead": the fact is about `team`
    date: str | None = None  # a pattern's own `date` group
    dep: dict[str, Any] = field(default_factory=dict)  # depends: {on, action, value?}
    form: str = ""  # none | unnamed | plan: the kind of fact it states (Fact.kind)
    polarity: str = ""  # like | dislike: a preference, its denial already read
    happening: Happening | None = None  # an event or a plan (form event | plan): extract/happenings.py


def words(text: str) -> frozenset[str]:
    """The whitespace-separated words of a word list."""
    return frozenset(text.split())


# Words that never make a slot's name (X_STOP) or begin a plain value (LOWER_STOP); the
# resolver skips them as one-word parts of a slot phrase, `generic` uses them for its forms.
X_STOP = words(
    """
    i me you he she it we they this that these those and or but when who which what how why
    where if so very really just also still one ones own self is are was were be been
    """
)
LOWER_STOP = words(
    """
    to a an the so very really just that what when how why where about like not kind sort pretty
    quite too also still always going getting being more less one all both in on at for with
    from of by my our your his her their this these those it its i you we they he she gonna
    definitely probably actually literally totally super awesome amazing great good bad fine ok
    okay nice cool important key hard tough tricky easy fun
    """
)


_Tables = tuple[dict[str, str], dict[str, str], dict[str, str]]
_TABLES: dict[int, tuple[Rules, int, _Tables]] = {}


def _tables(rules: Rules) -> _Tables:
    """What the rules' names, labels, aliases and spellings resolve to, normalised once per
    Rules (every file of an ingest makes resolvers; `norm` of every phrase is not cheap)."""
    got = _TABLES.get(id(rules))
    if got is not None and got[0] is rules and got[1] == len(rules.attributes):
        return got[2]
    exact: dict[str, str] = {}
    alias: dict[str, str] = {}
    for name, attr in rules.attributes.items():
        for phrase in (name, name.replace("_", " "), *attr.label.values()):
            exact.setdefault(norm(phrase), name)
        for phrase in attr.aliases:
            alias.setdefault(norm(phrase), name)
    # Spelling → attribute, for "we switched to pnpm" where only the value names the slot.
    owners: dict[str, set[str]] = {}
    for name, attr in rules.attributes.items():
        for group in attr.values:
            for spelling in group:
                owners.setdefault(norm(spelling), set()).add(name)
    by_value = {v: next(iter(a)) for v, a in owners.items() if len(a) == 1}
    if len(_TABLES) > 8:
        _TABLES.clear()
    _TABLES[id(rules)] = (rules, len(rules.attributes), (exact, alias, by_value))
    return exact, alias, by_value


@functools.lru_cache(maxsize=1 << 12)
def _name_key(name: str) -> str:
    """An attribute's name as a phrase naming it ("home_city" → "home city"), normalised: once a
    name, not once a resolver (an ingest makes two a file, each told every attribute held)."""
    return norm(name.replace("_", " "))


class Resolver:
    """Turns what a person calls a slot ("address", "地址", "team lead") into an attribute."""

    def __init__(self, rules: Rules, known: Iterable[str] = ()) -> None:
        self.rules = rules
        exact, self.alias, self.by_value = _tables(rules)
        self.exact = dict(exact)  # learn() adds to it: this resolver's own
        for name in known:
            self.exact.setdefault(_name_key(name), name)

    def learn(self, attribute: str) -> None:
        self.exact.setdefault(_name_key(attribute), attribute)

    def declared(self, phrase: str, aliases: bool = True) -> str | None:
        """The attribute a phrase names by its name, label or (if allowed) an alias."""
        key = norm(phrase)
        for k in (key, key[:-1] if key.endswith("s") else key):
            if k in self.exact:
                return self.exact[k]
            if aliases and k in self.alias:
                return self.alias[k]
        return None

    def topic_head(self, phrase: str) -> str | None:
        """The first attribute of the topic a phrase names ("工作" → employer), or None."""
        key = norm(phrase)
        for topic in self.rules.topics.values():
            names = [topic.name, *topic.label.values(), *topic.aliases]
            if topic.attributes and any(norm(n) == key for n in names):
                return topic.attributes[0]
        return None

    def named(self, phrase: str) -> str | None:
        """Like `declared`, also trying the phrase's shorter parts ("repo URL" → "repo")."""
        found = self.declared(phrase)
        words = phrase.split()
        spans = sorted(
            ((i, j) for i in range(len(words)) for j in range(i + 1, len(words) + 1)),
            key=lambda ij: (ij[0] - ij[1], -ij[1]),  # longest first, then nearest the head
        )
        for i, j in spans:
            if found:
                break
            part = words[i:j]
            if len(part) == 1 and part[0].lower() in X_STOP | LOWER_STOP:
                continue  # "from", "in": aliases too weak to name a slot on their own
            found = self.declared(" ".join(part))
        return found

    def patterned(self, attribute: str) -> bool:
        """True when the rules give this attribute patterns of its own (they win)."""
        a = self.rules.attributes.get(attribute)
        return a is not None and bool(a.extract or a.invalidate)

    def new_slug(self, phrase: str) -> str | None:
        """A slug for a slot no rule names, or None when the phrase makes no valid one."""
        text = re.sub(r"['’]s\b", "", phrase.strip().lower())
        slug = slugify(text)
        try:
            return check_slug(slug) if slug else None
        except SlugError:
            return None

    def attribute(self, phrase: str) -> str | None:
        return self.declared(phrase) or self.new_slug(phrase)


def canonical(rules: Rules, attribute: str, value: str) -> str:
    """The value with the case of its `values` spelling ("shanghai" → "Shanghai")."""
    grp = rules.group(attribute, value)
    if grp and value not in grp:
        n = norm(value)
        for spelling in grp:
            if norm(spelling) == n:
                return spelling
    return value


def slot_names(rules: Rules, attribute: str) -> tuple[str, ...]:
    """What a slot is called: its name (spaces for underscores), its labels and aliases."""
    a = rules.attributes.get(attribute)
    name = attribute.replace("_", " ")
    return (name, *a.label.values(), *a.aliases) if a is not None else (name,)
