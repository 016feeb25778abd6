"""rules.yaml read with line numbers and validated: every refusal names the file, the line and the fix."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from mdmem.errors import RulesError, SlugError
from mdmem.files import read_required
from mdmem.model.dag import find_cycle
from mdmem.model.factfile import ACTIONS
from mdmem.model.grammar import read_grammar
from mdmem.model.limits import MAX_PATTERN_CHARS, MAX_RULES_CHARS, MAX_VOCAB
from mdmem.model.rules import (
    ATTR_KEYS,
    CARDINALITIES,
    DEP_KEYS,
    STABILITIES,
    TOP_KEYS,
    TOPIC_KEYS,
    Attribute,
    Dependency,
    Rules,
    Topic,
    template_fields,
)  # fmt: skip
from mdmem.model.slug import check_slug
from mdmem.model.vocab import UnknownList, alternation, expand, fragment
from mdmem.model.yaml_nodes import check_rules_nodes
from mdmem.model.yaml_text import Loader


class _LineMap(dict):  # type: ignore[type-arg]
    line: int | None = None
    lines: dict[Any, int]


class _LineSeq(list):  # type: ignore[type-arg]
    line: int | None = None
    lines: list[int]
    literal: list[bool]  # an item written as a `|` block: its text starts on the next line


class _LineLoader(Loader):
    pass


def _construct_map(loader: _LineLoader, node: yaml.MappingNode) -> _LineMap:
    m = _LineMap(loader.construct_mapping(node, deep=True))
    m.line = node.start_mark.line + 1
    m.lines = {
        k.value: k.start_mark.line + 1 for k, _ in node.value if isinstance(k, yaml.ScalarNode)
    }
    return m


def _construct_seq(loader: _LineLoader, node: yaml.SequenceNode) -> _LineSeq:
    s = _LineSeq(loader.construct_sequence(node, deep=True))
    s.line = node.start_mark.line + 1
    s.lines = [item.start_mark.line + 1 for item in node.value]
    s.literal = [getattr(item, "style", None) == "|" for item in node.value]
    return s


_LineLoader.add_constructor("tag:yaml.org,2002:map", _construct_map)
_LineLoader.add_constructor("tag:yaml.org,2002:seq", _construct_seq)


def load_rules(path: Path | str) -> Rules:
    """Read and validate a rules file."""
    path = Path(path)
    text = read_required(path, RulesError, "not found; create it with `mdmem init`")
    return parse_rules(text, str(path))


def parse_rules(text: str, path: str = "rules.yaml", *, lazy: bool = False) -> Rules:
    """Parse and validate rules.yaml text; every error names its line. `lazy=True` is for a
    text that already validated (the vault's last good copy): its regexes are compiled on
    first use instead of now, which is most of the cost of loading a pack."""
    if len(text) > MAX_RULES_CHARS:
        raise RulesError(f"is {len(text):,} characters; rules.yaml holds at most {MAX_RULES_CHARS:,} (the largest pack mdmem ships is 134,000): shorten its word lists and patterns", path=path)  # fmt: skip
    try:
        loader = _LineLoader(text)
        try:
            node = loader.get_single_node()
            check_rules_nodes(node, path)
            data = loader.construct_document(node) if node is not None else None
        finally:
            loader.dispose()
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        raise RulesError(
            f"invalid YAML: {getattr(e, 'problem', None) or e}",
            path=path,
            line=mark.line + 1 if mark else None,
        ) from None
    if data is None or data == {}:
        raise RulesError(
            "is empty: no attributes, no dependencies; restore it (the last good copy is"
            " .mdmem/rules.good.yaml) or create one with `mdmem init --rules personal`",
            path=path,
        )
    return rules_from_mapping(data, path, lazy=lazy)


def rules_from_mapping(data: Any, path: str = "rules.yaml", *, lazy: bool = False) -> Rules:
    """Validate a rules mapping (from a file, or inline in a scenario) and build Rules."""
    v = _Validator(path, lazy=lazy)
    if not isinstance(data, dict):
        raise v.error(data, None, "must be a mapping with 'attributes' and 'dependencies'")
    v.keys(data, TOP_KEYS, "top level")
    if str(data.get("version", 1)) != "1":
        raise v.error(
            data, "version", f"version {data['version']!r} is not supported; use 'version: 1'"
        )
    rules = Rules(path=path)
    v.vocab(data.get("vocab"), data)
    attrs = data.get("attributes") or {}
    v.mapping(attrs, data, "attributes")
    for name, spec in attrs.items():
        rules.attributes[name] = v.attribute(name, spec, attrs)
    topics = data.get("topics") or {}
    v.mapping(topics, data, "topics")
    for name, spec in topics.items():
        rules.topics[name] = v.topic(name, spec, topics, rules)
    deps = data.get("dependencies") or []
    if not isinstance(deps, list):
        raise v.error(data, "dependencies", "must be a list of {when, then, action} mappings")
    for i, dep in enumerate(deps):
        rules.dependencies.append(v.dependency(dep, deps, i, rules))
    rules.grammar = read_grammar(data.get("grammar"), data, v.error, rules.attributes)
    cycle = find_cycle((d.when, d.then) for d in rules.dependencies)
    if cycle:
        first = next(d for d in rules.dependencies if (d.when, d.then) == (cycle[0], cycle[1]))
        raise RulesError(
            f"dependency cycle {' → '.join(cycle)}; remove one of these dependencies",
            path=path,
            line=first.line,
        )
    return rules


class _Validator:
    def __init__(self, path: str, *, lazy: bool = False) -> None:
        self.path = path
        self.lazy = lazy
        self.words: dict[str, str] = {}  # vocab name -> the regex its <<name>> stands for
        self.expanded = 0  # characters of every pattern so far, word lists put in

    def error(self, container: Any, key: Any, msg: str) -> RulesError:
        line = None
        if key is not None and hasattr(container, "lines"):
            lines = container.lines
            line = lines[key] if isinstance(lines, list) else lines.get(key)
        if line is None:
            line = getattr(container, "line", None)
        return RulesError(msg, path=self.path, line=line)

    def keys(self, m: dict[str, Any], allowed: set[str], where: str) -> None:
        for k in m:
            if k not in allowed:
                raise self.error(
                    m, k, f"unknown key {k!r} in {where}; allowed: {', '.join(sorted(allowed))}"
                )

    def mapping(self, value: Any, parent: Any, key: str) -> None:
        if not isinstance(value, dict):
            raise self.error(parent, key, f"'{key}' must be a mapping")

    def slug(self, name: Any, parent: Any, kind: str) -> str:
        try:
            return check_slug(str(name), kind)
        except SlugError as e:
            raise self.error(parent, name, e.bare_message) from None

    def strings(self, value: Any, parent: Any, key: str) -> tuple[str, ...]:
        if value is None:
            return ()
        if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
            raise self.error(parent, key, f"'{key}' must be a list of text")
        return tuple(value)

    def label(self, value: Any, parent: Any, name: str) -> dict[str, str]:
        if value is None:
            return {"en": name.replace("_", " ")}
        if isinstance(value, str):
            return {"en": value}
        if isinstance(value, dict) and all(isinstance(x, str) for x in value.values()):
            return dict(value)
        raise self.error(parent, "label", "'label' must be text or {en: …, zh: …}")

    def attribute(self, name: str, spec: Any, parent: Any) -> Attribute:
        name = self.slug(name, parent, "attribute")
        if spec is None:
            spec = {}
        if not isinstance(spec, dict):
            raise self.error(parent, name, f"attribute {name!r} must be a mapping")
        self.keys(spec, ATTR_KEYS, f"attribute {name!r}")
        stability = spec.get("stability", "medium")
        if stability not in STABILITIES:
            raise self.error(
                spec, "stability", f"stability must be one of {', '.join(STABILITIES)}"
            )
        cardinality = spec.get("cardinality", "one")
        if cardinality not in CARDINALITIES:
            raise self.error(spec, "cardinality", "cardinality must be 'one' or 'many'")
        groups = spec.get("values") or []
        if not isinstance(groups, list) or not all(
            isinstance(g, list) and g and all(isinstance(x, str) for x in g) for g in groups
        ):
            raise self.error(spec, "values", "'values' must be a list of lists of spellings")
        extract, extract_rx = self.patterns(spec, "extract", require_value=True)
        invalidate, invalidate_rx = self.patterns(spec, "invalidate", require_value=False)
        attr = Attribute(
            name=name,
            label=self.label(spec.get("label"), spec, name),
            aliases=self.strings(spec.get("aliases"), spec, "aliases"),
            stability=stability,
            cardinality=cardinality,
            values=tuple(tuple(g) for g in groups),
            extract_patterns=extract,
            invalidate_patterns=invalidate,
            path=self.path,
        )
        if not self.lazy:  # compiled to validate them: keep them (no second compile on use)
            attr.__dict__["extract"], attr.__dict__["invalidate"] = extract_rx, invalidate_rx
        return attr

    def vocab(self, value: Any, parent: Any) -> None:
        """Read `vocab:`: each name maps to a list of words or to `{regex: FRAGMENT}`."""
        if value is None:
            return
        self.mapping(value, parent, "vocab")
        for name, entry in value.items():
            if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
                raise self.error(value, name, f"vocab name {name!r} must be letters, digits, _")
            if isinstance(entry, dict) and set(entry) == {"regex"}:
                regex = entry["regex"]
                if not isinstance(regex, str) or not regex or "<<" in regex:
                    raise self.error(
                        value, name, f"vocab {name!r}: 'regex' must be a regex without <<…>>"
                    )
                try:
                    re.compile(fragment(regex))
                except re.error as e:
                    raise self.error(value, name, f"vocab {name!r}: invalid regex: {e}") from None
                self.words[name] = fragment(regex)
            elif isinstance(entry, list) and entry and all(isinstance(w, str) and w for w in entry):
                self.words[name] = alternation(entry)
            else:
                raise self.error(
                    value,
                    name,
                    f"vocab {name!r} must be a list of words like [Paris, St. Louis]"
                    " or {regex: FRAGMENT}",
                )
        words = sum(len(e) for e in value.values() if isinstance(e, list))
        if words > MAX_VOCAB:
            raise self.error(parent, "vocab", f"the word lists hold {words:,} words; the limit is {MAX_VOCAB:,} (every pattern that uses a list is read with all of it): keep the lists to the words people say")  # fmt: skip

    def patterns(
        self, spec: Any, key: str, require_value: bool
    ) -> tuple[tuple[str, ...], tuple[re.Pattern[str], ...]]:
        """The regex sources under `key` (<<lists>> expanded), and (unless lazy) compiled."""
        raw = spec.get(key) or []
        items = self.strings(raw, spec, key)
        where = raw if hasattr(raw, "lines") else spec
        sources, out = [], []
        for i, written in enumerate(items):
            try:
                pattern = expand(written, self.words)
            except UnknownList as e:
                known = ", ".join(sorted(self.words)) or "none; declare it under 'vocab:'"
                raise self.error_at(
                    where,
                    i,
                    written,
                    e.pos,
                    f"unknown word list <<{e.name}>> in '{key}'; vocab has: {known}",
                ) from None
            sources.append(pattern)
            self.expanded += len(pattern)
            if self.expanded > MAX_PATTERN_CHARS:
                raise self.error(where, i, f"the patterns come to more than {MAX_PATTERN_CHARS:,} characters with their word lists put in (<<name>> repeats a whole list); use the long lists in fewer patterns, or shorten them")  # fmt: skip
            if self.lazy:
                continue
            try:
                rx = re.compile(pattern)
            except re.error as e:
                raise self.error_at(
                    where, i, written, None, f"invalid regex in '{key}': {e}", e.lineno
                ) from None
            if require_value and "value" not in rx.groupindex:
                raise self.error(where, i, f"'{key}' pattern needs a named group (?P<value>…)")
            out.append(rx)
        return tuple(sources), tuple(out)

    def error_at(
        self, where: Any, i: int, text: str, pos: int | None, msg: str, lineno: int | None = None
    ) -> RulesError:
        """An error on the line of the file that holds `pos` (or regex line `lineno`) of
        pattern i: inside a `|` block a pattern's lines are the file's lines."""
        e = self.error(where, i, msg)
        literal = getattr(where, "literal", None)
        if e.line is not None and literal and literal[i]:
            if pos is not None:
                lineno = text.count("\n", 0, pos) + 1
            return RulesError(msg, path=self.path, line=e.line + (lineno or 1))
        return e

    def topic(self, name: str, spec: Any, parent: Any, rules: Rules) -> Topic:
        name = self.slug(name, parent, "topic")
        if isinstance(spec, list):  # short form: a list of attributes, on the topic's own line
            short = _LineMap(attributes=spec)
            short.line, short.lines = (
                parent.lines.get(name) if hasattr(parent, "lines") else None,
                {},
            )
            spec = short
        if not isinstance(spec, dict):
            raise self.error(
                parent, name, f"topic {name!r} must be a list of attributes or a mapping"
            )
        self.keys(spec, TOPIC_KEYS, f"topic {name!r}")
        attrs = self.strings(spec.get("attributes"), spec, "attributes")
        for a in attrs:
            if a not in rules.attributes:
                raise self.error(
                    spec, "attributes", f"topic {name!r} names undeclared attribute {a!r}"
                )
        return Topic(
            name=name,
            label=self.label(spec.get("label"), spec, name),
            aliases=self.strings(spec.get("aliases"), spec, "aliases"),
            attributes=attrs,
        )

    def dependency(self, dep: Any, parent: Any, i: int, rules: Rules) -> Dependency:
        if not isinstance(dep, dict):
            raise self.error(parent, i, "each dependency must be a mapping {when, then, action}")
        self.keys(dep, DEP_KEYS, "a dependency")
        for key in ("when", "then"):
            if not isinstance(dep.get(key), str):
                raise self.error(
                    dep, key if key in dep else None, f"dependency needs '{key}: ATTRIBUTE'"
                )
            if dep[key] not in rules.attributes:
                raise self.error(
                    dep,
                    key,
                    f"'{key}: {dep[key]}' names an undeclared attribute; declare it under 'attributes'",
                )
        if dep["when"] == dep["then"]:
            raise self.error(dep, "then", f"dependency cycle {dep['when']} → {dep['then']}")
        action = dep.get("action", "confirm")
        if action not in ACTIONS:
            raise self.error(dep, "action", f"action {action!r} is not one of {', '.join(ACTIONS)}")
        value, lookup, ask = dep.get("value"), dep.get("lookup"), dep.get("ask")
        if action == "derive" and value is None and not lookup:
            raise self.error(dep, "action", "a derive needs 'value: TEMPLATE' or 'lookup: {…}'")
        if value is not None and not isinstance(value, str):
            raise self.error(dep, "value", "'value' must be a template text like '{home_city}'")
        if lookup is not None and not (
            isinstance(lookup, dict) and all(isinstance(x, str) for x in lookup.values())
        ):
            raise self.error(dep, "lookup", "'lookup' must map values to values")
        if isinstance(ask, str):
            ask = {"en": ask}
        if ask is not None and not (
            isinstance(ask, dict) and all(isinstance(x, str) for x in ask.values())
        ):
            raise self.error(dep, "ask", "'ask' must be text or {en: …, zh: …}")
        for key, templates in (
            ("value", [value] if value else []),
            ("ask", list((ask or {}).values())),
        ):
            for t in templates:
                try:
                    names = template_fields(t)
                except ValueError as e:
                    raise self.error(dep, key, f"bad template {t!r}: {e}") from None
                for n in names:
                    if n not in rules.attributes:
                        raise self.error(dep, key, f"template names unknown attribute {{{n}}}")
        return Dependency(
            when=dep["when"],
            then=dep["then"],
            action=action,
            value=value,
            lookup=dict(lookup) if lookup else None,
            ask=dict(ask) if ask else None,
            id=str(dep.get("id") or f"{dep['when']}->{dep['then']}"),
            line=getattr(parent, "lines", [None] * (i + 1))[i]
            if hasattr(parent, "lines")
            else None,
        )
