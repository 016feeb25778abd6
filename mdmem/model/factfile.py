"""One fact file: the Fact record, and the single parser and serializer for its bytes."""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field, replace
from dataclasses import fields as field_list
from typing import Any

from mdmem.errors import FactFileError, SlugError
from mdmem.model import life
from mdmem.model.emit import Unsupported, entry
from mdmem.model.limits import MAX_HISTORY, MAX_VALUE, fact_text_problem, value_problem
from mdmem.model.slug import check_slug, split_key

STATUSES = ("active", "tentative", "uncertain", "expired", "deleted")
ACTIONS = ("derive", "confirm", "expire")
# What a fact's value is, beyond a plain value (docs/fact-file.md#kinds): the person said there
# is none; that one exists, unnamed; something that happened to them; or a plan (model/life.py).
FACT_KINDS = ("none", "unnamed", "event", "plan")
POLARITIES = ("like", "dislike")
ITEM_FIELDS = ("valid_from", "polarity")
FIELDS = (
    "entity", "attribute", "value", "kind", "items", "status", "valid_from", "valid_to", *life.FIELDS,
    "recorded_at", "source", "evidence", "derived_from", "uncertain_because", "depends_on", "upstream",
    "history",
)  # fmt: skip
HISTORY_FIELDS = (
    "value", "kind", "items", *life.FIELDS, "status", "valid_from", "valid_to", "recorded_at", "source",
    "evidence", "reason",
)  # fmt: skip
_PY = {"with": "with_"}  # a field whose Python name is not its key
_ATTRS = tuple((name, _PY.get(name, name)) for name in FIELDS)  # (key, Python name)
DATE_RE = re.compile(
    r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?"
)
# Keys only the file has: a list value is written as `values` (so that each property has one
# type across a vault, as Obsidian wants), and `earlier_evidence` lists the links of `history`
# where Obsidian sees them (written by mdmem from the history, never read as meaning).
VALUES, EARLIER_EVIDENCE = "values", "earlier_evidence"
Value = str | list[str] | None
_OWN = frozenset((*FIELDS, VALUES, EARLIER_EVIDENCE))  # written by model/emit.py; others by PyYAML
_FIELD_SET, _LIFE_FIELDS = frozenset(FIELDS), frozenset(life.FIELDS)
# Each kind's own fields (life.own), worked out once: most facts have none to check.
_KIND_FIELDS: dict[str | None, tuple[str, ...]] = {k: life.own(k) for k in (None, *FACT_KINDS)}
_GOOD_DAYS: set[str] = set()  # dates seen well-formed: a vault's repeat (each matched once)
_BOUNDARY = re.compile(r"^-{3,}[ \t]*$", re.MULTILINE)


@dataclass
class Fact:
    """One fact slot: its current value and state, how it was learned, and its history."""

    entity: str
    attribute: str
    value: Value = None
    status: str = "active"
    valid_from: str | None = None
    valid_to: str | None = None
    recorded_at: str | None = None
    source: str | None = None
    evidence: str | None = None  # '[[episodes/2023/2023-05-08-chat#^m3]]': where it was said
    derived_from: dict[str, Any] | None = None
    uncertain_because: dict[str, Any] | None = None
    depends_on: list[dict[str, Any]] = field(default_factory=list)
    upstream: list[str] = field(default_factory=list)  # ['[[facts/user/home_city]]']: store/links.py
    history: list[dict[str, Any]] = field(default_factory=list)
    kind: str | None = None  # none | unnamed | event | plan; None: a plain value
    items: dict[str, dict[str, Any]] = field(default_factory=dict)  # per list item: date, polarity
    # An event's or a plan's own fields (model/life.py, docs/fact-file.md#events-and-plans).
    when: str | None = None  # event: when it happened ('2023-05-07', '2023-05', '2023-05-01/2023-05-07')
    due: str | None = None  # plan: when it is meant to happen, the same notation
    when_said: str | None = None  # the time words as said: 'last Sunday', '下个月'
    where: str | None = None
    with_: list[str] = field(default_factory=list)  # the `with` key: who else was there
    sets: dict[str, str] = field(default_factory=dict)  # plan: what it changes when it happens
    fulfils: str | None = None  # event: '[[facts/dana/plan-canoe_trip]]'
    fulfilled_by: str | None = None  # plan: '[[facts/dana/event-2023-06-18-canoe_trip]]'
    mentioned_as: list[str] = field(default_factory=list)  # unnamed: the noun said ("husband")
    extra: dict[str, Any] = field(default_factory=dict)
    body: str = ""

    @property
    def key(self) -> str:
        return f"{self.entity}/{self.attribute}"

    def evolve(self, **changes: Any) -> Fact:
        """A deep copy with some fields changed (facts are treated as values).

        A fact holds plain YAML data, which a plain walk copies at a fraction of
        copy.deepcopy's cost (the cascade evolves thousands); deepcopy is kept for anything
        else. Objects shared inside one fact need not stay shared: the emitter writes no anchors."""
        kept = {n: _clone(getattr(self, n)) for n in _CONTAINERS if n not in changes}
        return replace(self, **kept, **changes)

    def to_mapping(self) -> dict[str, Any]:
        """The frontmatter mapping in canonical field order; empty fields left out."""
        out: dict[str, Any] = {}
        for name, attr in _ATTRS:
            v = getattr(self, attr)
            if v is None or (not v and (v == [] or v == {})):  # empty text stays
                continue
            if name == "history":
                v = [_ordered(h, HISTORY_FIELDS) for h in v]
            out[name] = v
        for k in sorted(self.extra, key=str):
            out[k] = self.extra[k]
        return out

    def last_value(self) -> Value:
        """The current value, or for an expired fact the last archived one."""
        if self.value is not None:
            return self.value
        if self.status == "expired" and self.history:
            return self.history[-1].get("value")
        return None


# The fields that can hold lists and mappings; the others hold text, shared safely.
_CONTAINERS = tuple(f.name for f in field_list(Fact) if f.type not in ("str", "str | None"))


def _clone(v: Any) -> Any:
    if v is None or type(v) in (str, int, float, bool):
        return v
    if type(v) is dict:
        return {k: _clone(x) for k, x in v.items()}
    if type(v) is list:
        return [_clone(x) for x in v]
    return copy.deepcopy(v)


def _ordered(mapping: dict[str, Any], order: tuple[str, ...]) -> dict[str, Any]:
    known = {k: mapping[k] for k in order if mapping.get(k) is not None}
    rest = {k: mapping[k] for k in sorted(mapping, key=str) if k not in order}
    return {**known, **rest}


def dump_frontmatter(mapping: dict[str, Any]) -> str:
    """dump_yaml's bytes, fast: the Fact's own FIELDS through model/emit.py, the rest (keys a
    person added, values outside the emitter's subset) through PyYAML, entry by entry."""
    parts: list[str] = []
    open_end = False
    for key, value in mapping.items():
        try:
            if key not in _OWN:
                raise Unsupported("a key a person added")
            text, open_end = entry(key, value)
        except Unsupported:
            from mdmem.model.yaml_text import dump_yaml

            text = dump_yaml({key: value})
            open_end = text.endswith("\n...\n")  # PyYAML closes a final `|+` block so
            text = text[:-4] if open_end else text
        parts.append(text)
    if not parts:
        from mdmem.model.yaml_text import dump_yaml

        return dump_yaml(mapping)
    return "".join(parts) + ("...\n" if open_end else "")  # … and so must we, when it is last


def file_mapping(fact: Fact) -> dict[str, Any]:
    """The frontmatter as the file holds it: `to_mapping`, with a list value under `values`
    and the evidence links of earlier values under `earlier_evidence`, after `evidence`."""
    mapping = fact.to_mapping()
    links = list(dict.fromkeys(
        str(h["evidence"]) for h in fact.history
        if isinstance(h.get("evidence"), str) and h["evidence"] != fact.evidence
    ))  # fmt: skip
    after = FIELDS[FIELDS.index("evidence") + 1 :]
    out: dict[str, Any] = {}
    for key, v in mapping.items():
        if links and (key in after or key not in FIELDS):
            out[EARLIER_EVIDENCE], links = links, []
        out[VALUES if key == "value" and isinstance(v, list) else key] = v
    if links:
        out[EARLIER_EVIDENCE] = links
    return out


def render(fact: Fact) -> str:
    """The one serializer: canonical frontmatter, then the person's body."""
    body = fact.body.rstrip("\n")
    head = dump_frontmatter(file_mapping(fact))
    return "---\n" + head + "---\n" + (body + "\n" if body.strip() else "")


# --- parsing ---------------------------------------------------------------------------------


def parse(text: str, path: str = "<fact>", expect: tuple[str, str] | None = None) -> Fact:
    """Parse a fact file's text; raise FactFileError naming the line and the fix."""
    # PyYAML and python-frontmatter only here and for keys the emitter does not write: a read
    # from the index (`ask`) or of the files mdmem wrote (model/fastparse.py) never loads them.
    from frontmatter.default_handlers import YAMLHandler

    from mdmem.model.yaml_text import load_frontmatter

    if text.startswith("\ufeff"):
        text = text[1:]
    text = text.replace("\r\n", "\n")
    if (too := fact_text_problem(text)) is not None:  # before any YAML is read
        raise FactFileError(too[1], path=path, line=too[0])
    # The stock boundary (r"^-{3,}\s*$") can swallow the body's leading blank lines.
    handler = YAMLHandler(fm_boundary=_BOUNDARY)
    if not handler.detect(text):
        raise FactFileError("does not start with a '---' frontmatter line", path=path, line=1)
    try:
        fm, content = handler.split(text)
    except ValueError:
        raise FactFileError(
            "the frontmatter has no closing '---' line; add one after the last field", path=path
        ) from None
    data, node = load_frontmatter(fm, path)
    if not isinstance(data, dict):
        raise FactFileError(
            "the frontmatter must be a mapping of fields like 'value: …'", path=path, line=2
        )
    lines = {k.value: k.start_mark.line + 1 for k, _ in node.value} if node is not None else {}
    return _from_mapping(
        data, content[1:] if content.startswith("\n") else content, path, lines, expect
    )


def from_mapping(data: dict[str, Any], *, body: str = "", path: str = "<fact>") -> Fact:
    """Build a Fact from a frontmatter mapping (as `show --json` prints it), validating it."""
    return _from_mapping(dict(data), body, path, {}, None)


def from_parsed(data: dict[str, Any], body: str, path: str) -> Fact:
    """`from_mapping` of a mapping just parsed, which it may take apart (no copy is made)."""
    return _from_mapping(data, body, path, {}, None)


def _from_mapping(
    data: dict[str, Any],
    body: str,
    path: str,
    lines: dict[str, int],
    expect: tuple[str, str] | None,
) -> Fact:
    def fail(key: str, msg: str) -> FactFileError:
        return FactFileError(f"field '{key}' {msg}", path=path, line=lines.get(key))

    if expect is not None:
        for key, want in zip(("entity", "attribute"), expect, strict=True):
            data.setdefault(key, want)
            if data[key] != want:
                raise fail(
                    key, f"is {data[key]!r} but the file's path says {want!r}; make them agree"
                )
    for key in ("entity", "attribute"):
        if not isinstance(data.get(key), str):
            raise fail(key, "is missing or not text")
        try:
            check_slug(data[key], key)
        except SlugError as e:
            raise fail(key, f"is not a valid name: {e.bare_message}") from None
    status = data.get("status", "active")
    if status not in STATUSES:
        raise fail("status", f"is {status!r}; use one of {', '.join(STATUSES)}")
    data.pop(EARLIER_EVIDENCE, None)  # mdmem's list of the history's links, made again on writing
    if VALUES in data:  # a list value; files written before `values` hold it under `value`
        if data.get("value") is not None:
            raise fail(VALUES, "and 'value' are both set; keep one (values: a list, value: one text)")
        data.pop("value", None)
        items = data.pop(VALUES)
        data["value"] = [items] if isinstance(items, str) else items
        if VALUES in lines:
            lines.setdefault("value", lines[VALUES])
    value = _check_value(data.get("value"), "value", fail)
    value = None if value == [] else value  # `value: []` is no value: what mdmem writes for one
    if status == "deleted" and value is not None:
        raise fail("value", "must be absent on a deleted fact (remove it, or set another status)")
    for key in ("valid_from", "valid_to", "recorded_at"):
        if (day := data.get(key)) is not None:
            _check_date(day, key, fail)
    kind = _check_kind(data.get("kind"), value, "kind", fail)
    items = _check_items(data.get("items"), value, "items", fail)
    mine = _KIND_FIELDS[kind]  # kind is checked: None or one of FACT_KINDS
    own = life.check_fields(data, kind, fail) if mine else {}
    for key in ("source", "evidence"):
        if data.get(key) is not None and not isinstance(data[key], str):
            raise fail(key, "must be text")
    for key in ("derived_from", "uncertain_because"):
        if data.get(key) is not None and not isinstance(data[key], dict):
            raise fail(key, "must be a mapping")
    depends_on = data.get("depends_on") or []
    if not isinstance(depends_on, list):
        raise fail("depends_on", "must be a list of {on: ATTRIBUTE, action: derive|confirm|expire}")
    for dep in depends_on:
        _check_dependency(dep, fail)
    upstream = data.get("upstream") or []
    if not isinstance(upstream, list) or (upstream and not all(isinstance(u, str) for u in upstream)):
        raise fail("upstream", "must be a list of links like '[[facts/user/home_city]]' (mdmem writes it; you may delete the line)")  # fmt: skip
    history = data.get("history") or []
    if not isinstance(history, list) or (history and not all(isinstance(h, dict) for h in history)):
        raise fail(
            "history", "must be a list of mappings, each with a value and its validity period"
        )
    if len(history) > MAX_HISTORY:
        raise fail("history", f"has {len(history):,} entries; a fact keeps at most {MAX_HISTORY:,}: remove the oldest (the journal keeps them: `mdmem log`)")  # fmt: skip
    for h in history:
        _check_value(h.get("value"), "history", fail)
        kind_of = _check_kind(h.get("kind"), h.get("value"), "history", fail)
        _check_items(h.get("items"), h.get("value"), "history", fail)
        if _KIND_FIELDS[kind_of]:  # none to check on most entries
            life.check_fields(h, h.get("kind"), lambda _k, msg: fail("history", f"entry {msg}"))
        for key in ("valid_from", "valid_to", "recorded_at"):
            if (day := h.get(key)) is not None:
                _check_date(day, "history", fail)
    return Fact(
        entity=data["entity"],
        attribute=data["attribute"],
        value=value,
        status=status,
        valid_from=data.get("valid_from"),
        valid_to=data.get("valid_to"),
        recorded_at=data.get("recorded_at"),
        source=data.get("source"),
        evidence=data.get("evidence"),
        derived_from=data.get("derived_from"),
        uncertain_because=data.get("uncertain_because"),
        depends_on=depends_on,
        upstream=upstream,
        history=history,
        kind=kind,
        items=items,
        **own,
        extra={k: v for k, v in data.items() if k not in _FIELD_SET or (k in _LIFE_FIELDS and k not in mine)},
        body=body,
    )


def _check_value(value: Any, key: str, fail: Any) -> Value:
    if type(value) is str and len(value) <= MAX_VALUE:  # the usual value: one short text
        return value
    if isinstance(value, str | list) and (too := value_problem(value)) is not None:
        raise fail(key, too)
    if value is None or isinstance(value, str) or (isinstance(value, list) and all(isinstance(v, str) for v in value)):  # fmt: skip
        return value
    raise fail(key, "must be text or a list of text (quote it if it looks like a number or date)")


def _check_date(value: Any, key: str, fail: Any) -> None:
    if type(value) is str and value in _GOOD_DAYS:
        return
    if value is not None and not (isinstance(value, str) and DATE_RE.fullmatch(value)):
        raise fail(
            key, f"is {value!r}; write an ISO date like '2026-02-10' or '2026-02-10T09:12:00Z'"
        )
    if type(value) is str and len(_GOOD_DAYS) < 4096:
        _GOOD_DAYS.add(value)


def _check_dependency(dep: Any, fail: Any) -> None:
    if not isinstance(dep, dict) or not isinstance(dep.get("on"), str):
        raise fail("depends_on", "entries need 'on: ATTRIBUTE' (or 'on: entity/attribute')")
    try:
        split_key(dep["on"])
    except SlugError as e:
        raise fail("depends_on", f"names {dep['on']!r}: {e.bare_message}") from None
    action = dep.get("action", "confirm")
    if action not in ACTIONS:
        raise fail("depends_on", f"action {action!r} is not one of {', '.join(ACTIONS)}")


def _check_kind(kind: Any, value: Any, key: str, fail: Any) -> str | None:
    if kind is None:
        return None
    if kind not in FACT_KINDS:
        raise fail(key, f"kind {kind!r} is not one of {', '.join(FACT_KINDS)} (leave it out for a plain value)")  # fmt: skip
    if kind == "none" and value is not None:
        raise fail(key, "kind 'none' says there is none: remove the value, or remove the kind")
    if kind in life.KINDS and value is None:
        what = "what happened" if kind == life.EVENT else "what is planned"
        raise fail(key, f"kind {kind!r} needs {what} as its value; add one, or remove the kind")
    return str(kind)


def _check_items(items: Any, value: Any, key: str, fail: Any) -> dict[str, dict[str, Any]]:
    if items is None:
        return {}
    if not isinstance(items, dict) or not all(isinstance(v, dict) for v in items.values()):
        raise fail(key, "must map each list item to its fields, like 'Pixie: {valid_from: 2023-04-02}'")  # fmt: skip
    held = value if isinstance(value, list) else [value]
    for item, fields in items.items():
        if item not in held:
            raise fail(key, f"names {item!r}, which is not in the value; add it there or remove it")
        for name, v in fields.items():
            if name not in ITEM_FIELDS:
                raise fail(key, f"item {item!r} has {name!r}; an item takes {', '.join(ITEM_FIELDS)}")
            if name == "polarity" and v not in POLARITIES:
                raise fail(key, f"item {item!r} polarity is {v!r}; use like or dislike")
        _check_date(fields.get("valid_from"), key, fail)
    return {str(k): dict(v) for k, v in items.items()}
