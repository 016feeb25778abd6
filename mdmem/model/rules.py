"""rules.yaml: the attribute schema and the dependency graph, loaded and validated with lines."""

from __future__ import annotations

import re
import string
import unicodedata
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from mdmem.errors import RulesError
from mdmem.lang.detect import has_cjk
from mdmem.model import life
from mdmem.model.grammar import Grammar
from mdmem.model.slug import split_key

if TYPE_CHECKING:
    from mdmem.model.factfile import Fact

TOP_KEYS = {"version", "vocab", "attributes", "topics", "dependencies", "grammar"}
ATTR_KEYS = {"label", "aliases", "stability", "cardinality", "values", "extract", "invalidate"}
TOPIC_KEYS = {"label", "aliases", "attributes"}
DEP_KEYS = {"id", "when", "then", "action", "value", "lookup", "ask"}
STABILITIES = ("low", "medium", "high")
CARDINALITIES = ("one", "many")


def norm(value: str) -> str:
    """Comparison form of a value: NFKC (full/half width), case-folded, spaces collapsed."""
    return " ".join(unicodedata.normalize("NFKC", value).casefold().split())


@dataclass(frozen=True)
class Attribute:
    name: str
    label: dict[str, str]
    aliases: tuple[str, ...] = ()
    stability: str = "medium"
    cardinality: str = "one"
    values: tuple[tuple[str, ...], ...] = ()
    extract_patterns: tuple[str, ...] = ()  # regex sources; `extract` compiles them
    invalidate_patterns: tuple[str, ...] = ()
    declared: bool = True
    path: str = field(default="rules.yaml", compare=False)  # for errors only

    def label_for(self, lang: str) -> str:
        return self.label.get(lang) or self.label.get("en") or self.name.replace("_", " ")

    # Compiled on first use: a pack holds a few hundred regexes, and a reader (ask, show,
    # timeline) never needs them. cached_property writes the instance dict, frozen or not.
    @cached_property
    def extract(self) -> tuple[re.Pattern[str], ...]:
        """The `extract` regexes (named group `value`, optional `date`), compiled."""
        return self._compile("extract", self.extract_patterns)

    @cached_property
    def invalidate(self) -> tuple[re.Pattern[str], ...]:
        """The `invalidate` regexes, compiled."""
        return self._compile("invalidate", self.invalidate_patterns)

    def _compile(self, key: str, sources: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
        out = []
        for i, pattern in enumerate(sources, 1):
            try:
                out.append(re.compile(pattern))
            except re.error as e:  # only when a file was trusted unchecked (parse_rules lazy=)
                raise RulesError(
                    f"attribute {self.name!r}: invalid regex #{i} in '{key}': {e};"
                    " fix it and run `mdmem check`",
                    path=self.path,
                ) from None
        return tuple(out)


@dataclass(frozen=True)
class Topic:
    name: str
    label: dict[str, str]
    aliases: tuple[str, ...]
    attributes: tuple[str, ...]


@dataclass(frozen=True)
class Dependency:
    """An edge: when `when` changes, do `action` to `then` (same entity unless learned says so)."""

    when: str
    then: str
    action: str = "confirm"
    value: str | None = None
    lookup: dict[str, str] | None = None
    ask: dict[str, str] | None = None
    id: str = ""
    line: int | None = None
    learned: bool = False

    @property
    def specific(self) -> bool:
        return self.action == "derive" and (self.value is not None or bool(self.lookup))


@dataclass
class Rules:
    attributes: dict[str, Attribute] = field(default_factory=dict)
    topics: dict[str, Topic] = field(default_factory=dict)
    dependencies: list[Dependency] = field(default_factory=list)
    path: str = "rules.yaml"
    grammar: Grammar | None = None  # the words the grammar of life reads (model/grammar.py)
    # Defaults made for attributes no rule names, kept: a cascade asks for each several times.
    _undeclared: dict[str, Attribute] = field(default_factory=dict, compare=False, repr=False)
    # attribute -> the dependencies into it, for the dependency count it was built at
    _into: tuple[int, dict[str, tuple[Dependency, ...]]] = field(
        default=(-1, {}), compare=False, repr=False
    )

    def attribute(self, name: str) -> Attribute:
        """The declared attribute, or a plain default for one no rule names."""
        found = self.attributes.get(name) or self._undeclared.get(name)
        if found is None:
            kind = life.family(name)  # one event or plan: named like its pack's events/plans
            slot = self.attributes.get(life.FAMILY_SLOT[kind]) if kind else None
            label = slot.label if slot else {"en": kind} if kind else {"en": name.replace("_", " ")}
            found = Attribute(name=name, label=label, stability="low" if kind else "medium", declared=False)
            self._undeclared[name] = found
        return found

    def group(self, attribute: str, value: str) -> tuple[str, ...] | None:
        n = norm(value)
        for grp in self.attribute(attribute).values:
            if any(norm(v) == n for v in grp):
                return grp
        return None

    def same_value(self, attribute: str, a: Any, b: Any) -> bool:
        """True when a and b are the same value (any spelling of one `values` group)."""
        if isinstance(a, list) or isinstance(b, list):
            if not (isinstance(a, list) and isinstance(b, list)) or len(a) != len(b):
                return False
            return all(
                self.same_value(attribute, x, y) for x, y in zip(sorted(a), sorted(b), strict=True)
            )
        if a is None or b is None:
            return a is b
        if norm(a) == norm(b):
            return True
        grp = self.group(attribute, a)
        return grp is not None and grp is self.group(attribute, b)

    def spelling(self, attribute: str, value: str, lang: str) -> str:
        """The spelling of value's group that fits a language (zh: CJK), else value itself."""
        grp = self.group(attribute, value)
        want_cjk = lang == "zh"
        if not grp or has_cjk(value) == want_cjk:
            return value  # the person's own spelling, when it already fits the language
        for v in grp:
            if has_cjk(v) == want_cjk:
                return v
        return value

    def edges_from(self, attribute: str) -> list[Dependency]:
        return [d for d in self.dependencies if d.when == attribute]

    def edges_into(self, attribute: str) -> tuple[Dependency, ...]:
        """The dependencies whose `then` is `attribute`, in rules order."""
        if self._into[0] != len(self.dependencies):  # built once the loader stops appending
            into: dict[str, list[Dependency]] = {}
            for d in self.dependencies:
                into.setdefault(d.then, []).append(d)
            self._into = (len(self.dependencies), {k: tuple(v) for k, v in into.items()})
        return self._into[1].get(attribute, ())


def template_fields(template: str) -> list[str]:
    """The {placeholders} a template names; ValueError for one that is not a plain {name}.

    Only plain placeholders are safe: a format spec can ask for a two-gigabyte padding
    ('{home_city:>2000000000}') or fail on a list value, a conversion or an index is
    never needed, and `{}` names nothing to fill in."""
    names = []
    for _, name, spec, conversion in string.Formatter().parse(template):
        if name is None:  # literal text only
            continue
        shown = "{" + name + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "") + "}"  # fmt: skip
        if spec or conversion:
            raise ValueError(
                f"{shown} has a format {'spec' if spec else 'conversion'}; "
                f"a template takes plain placeholders only: write {{{name}}}"
            )
        if not name.isidentifier():
            raise ValueError(f"{shown} is not a placeholder like {{home_city}}: name an attribute")
        names.append(name)
    return names


def learned_dependencies(fact: Fact) -> list[tuple[str, Dependency]]:
    """The (trigger key, dependency) pairs a fact's `depends_on` declares."""
    out = []
    for i, d in enumerate(fact.depends_on):
        entity, attribute = split_key(d["on"], fact.entity)
        ask = d.get("ask")
        out.append(
            (
                f"{entity}/{attribute}",
                Dependency(
                    when=attribute,
                    then=fact.attribute,
                    action=d.get("action", "confirm"),
                    value=d.get("value"),
                    ask={"en": ask} if isinstance(ask, str) else ask,
                    id=f"learned:{fact.key}#{i + 1}",
                    learned=True,
                ),
            )
        )
    return out


# --- loading with line numbers -------------------------------------------------------------
