"""Evaluation scenarios (docs/eval.md): YAML files of sessions and probes, loaded and validated with lines."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from mdmem.errors import MdmemError
from mdmem.files import read_required
from mdmem.model.rules_yaml import _LineLoader, rules_from_mapping

TYPES = ("exact", "recall", "aggregate", "tracking", "deletion", "cascade", "absence", "premise")
GATED = ("cascade", "absence", "deletion")  # pass only when their before-change probe passed
LANGS = ("en", "zh")
TOP_KEYS = {"name", "lang", "rules", "sessions", "probes", "description", "domain", "tags"}
SESSION_KEYS = {"date", "transcript"}
PROBE_KEYS = {"ask", "type", "after", "as_of", "expect", "note"}
EXPECT_KEYS = {"contains", "absent", "uncertain", "removed", "order"}
DATE_RE = re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?Z?)?")
SUFFIXES = (".yaml", ".yml")

# What each type needs in `expect` so that its rule (docs/eval.md) can be checked at all.
REQUIRED: dict[str, tuple[str, ...]] = {
    "exact": ("contains",),
    "recall": (),  # at least one expectation of any kind, checked below
    "aggregate": ("contains",),
    "tracking": ("order",),
    "deletion": (),  # `removed: true` is implied; `absent` names the deleted values
    "cascade": ("contains",),  # plus `absent: [old value]` wherever there was one
    "absence": ("contains",),
    "premise": ("contains",),
}
# What a type implies when the author leaves it out; an explicit contrary value is an error.
IMPLIED: dict[str, dict[str, bool]] = {
    "deletion": {"removed": True},
    "absence": {"uncertain": True},
}


class ScenarioError(MdmemError):
    """A scenario file that cannot be read or is malformed."""


Needle = str | tuple[str, ...]  # a text, or alternatives of which any one will do


@dataclass(frozen=True)
class Expect:
    contains: tuple[Needle, ...] = ()
    absent: tuple[str, ...] = ()
    uncertain: bool | None = None
    removed: bool | None = None
    order: tuple[Needle, ...] = ()


@dataclass(frozen=True)
class Probe:
    ask: str
    type: str
    after: int  # 1-based session number the probe is asked after
    expect: Expect
    as_of: str | None = None
    line: int | None = None
    index: int = 0  # position in the file, 0-based


@dataclass(frozen=True)
class Session:
    date: str
    transcript: str
    line: int | None = None


@dataclass
class Scenario:
    name: str
    lang: str
    rules: str | dict[str, Any]  # a pack name, an absolute rules path, or an inline mapping
    sessions: list[Session]
    probes: list[Probe]
    path: str = "<scenario>"
    domain: str = ""
    description: str = ""
    tags: tuple[str, ...] = field(default_factory=tuple)


def load_scenario(path: Path | str) -> Scenario:
    """Read and validate one scenario file."""
    path = Path(path)
    text = read_required(path, ScenarioError)
    return parse_scenario(text, str(path), base=path.parent)


def parse_scenario(text: str, path: str = "<scenario>", base: Path | None = None) -> Scenario:
    """Parse scenario YAML text; `base` is the folder a relative rules path is resolved from."""
    try:
        data = yaml.load(text, Loader=_LineLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        raise ScenarioError(
            f"invalid YAML: {getattr(e, 'problem', None) or e}",
            path=path,
            line=mark.line + 1 if mark else None,
        ) from None
    return scenario_from_mapping(data, path, base)


def scenario_from_mapping(
    data: Any, path: str = "<scenario>", base: Path | None = None
) -> Scenario:
    """Validate a scenario mapping (from YAML, or built by a converter) and build a Scenario."""
    return _Checker(path, base).scenario(data)


def find_scenarios(paths: Iterable[Path | str]) -> list[Path]:
    """The scenario files named: files as given, folders searched recursively, in name order."""
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            found = sorted(q for q in p.rglob("*") if q.suffix in SUFFIXES and q.is_file())
            if not found:
                raise ScenarioError("no scenario files (*.yaml) in this folder", path=str(p))
            out.extend(found)
        elif p.exists():
            out.append(p)
        else:
            raise ScenarioError("no such file or folder", path=str(p))
    return out


class _Checker:
    def __init__(self, path: str, base: Path | None) -> None:
        self.path = path
        self.base = base

    def error(self, container: Any, key: Any, msg: str) -> ScenarioError:
        line = None
        lines = getattr(container, "lines", None)
        if key is not None and lines is not None:
            if isinstance(lines, list):
                line = lines[key] if isinstance(key, int) and key < len(lines) else None
            else:
                line = lines.get(key)
        if line is None:
            line = getattr(container, "line", None)
        return ScenarioError(msg, path=self.path, line=line)

    def keys(self, m: dict[str, Any], allowed: set[str], where: str) -> None:
        for k in m:
            if k not in allowed:
                raise self.error(
                    m, k, f"unknown key {k!r} in {where}; allowed: {', '.join(sorted(allowed))}"
                )

    def text(self, m: dict[str, Any], key: str, where: str) -> str:
        value = m.get(key)
        if not isinstance(value, str) or not value.strip():
            raise self.error(m, key if key in m else None, f"{where} needs '{key}: TEXT'")
        return value

    def scenario(self, data: Any) -> Scenario:
        if not isinstance(data, dict):
            raise self.error(data, None, "a scenario must be a mapping with name, sessions, probes")
        self.keys(data, TOP_KEYS, "the scenario")
        name = self.text(data, "name", "the scenario")
        lang = data.get("lang", "en")
        if lang not in LANGS:
            raise self.error(data, "lang", f"lang must be one of {', '.join(LANGS)}, not {lang!r}")
        rules = self.rules(data)
        raw_sessions = data.get("sessions")
        if not isinstance(raw_sessions, list) or not raw_sessions:
            raise self.error(data, "sessions" if "sessions" in data else None,
                             "'sessions' must be a non-empty list of {date, transcript}")  # fmt: skip
        sessions = [self.session(s, raw_sessions, i) for i, s in enumerate(raw_sessions)]
        raw_probes = data.get("probes")
        if not isinstance(raw_probes, list) or not raw_probes:
            raise self.error(data, "probes" if "probes" in data else None,
                             "'probes' must be a non-empty list of {ask, type, expect}")  # fmt: skip
        probes = [self.probe(p, raw_probes, i, len(sessions)) for i, p in enumerate(raw_probes)]
        tags = data.get("tags") or []
        if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
            raise self.error(data, "tags", "'tags' must be a list of text")
        return Scenario(
            name=name, lang=lang, rules=rules, sessions=sessions, probes=probes, path=self.path,
            domain=str(data.get("domain") or ""), description=str(data.get("description") or ""),
            tags=tuple(tags),
        )  # fmt: skip

    def rules(self, data: dict[str, Any]) -> str | dict[str, Any]:
        from mdmem.store.packs import pack_path  # not the vault: it imports much

        spec = data.get("rules", "personal")
        if isinstance(spec, dict):
            try:
                rules_from_mapping(spec, self.path)
            except MdmemError as e:  # already names this file and the line inside it
                raise ScenarioError(f"inline rules: {e.bare_message}", path=self.path,
                                    line=e.line) from None  # fmt: skip
            return _plain(spec)
        if not isinstance(spec, str) or not spec.strip():
            raise self.error(data, "rules", "'rules' must be a pack name, a path or a mapping")
        if spec.endswith(SUFFIXES) or "/" in spec:
            target = Path(spec) if self.base is None else self.base / spec
            if not target.is_file():
                raise self.error(data, "rules", f"rules file {spec!r} not found (relative to the scenario file)")  # fmt: skip
            return str(target.resolve())
        try:
            pack_path(spec)
        except MdmemError as e:
            raise self.error(data, "rules", e.bare_message) from None
        return spec

    def session(self, raw: Any, parent: Any, i: int) -> Session:
        where = f"session {i + 1}"
        if not isinstance(raw, dict):
            raise self.error(parent, i, f"{where} must be a mapping {{date, transcript}}")
        self.keys(raw, SESSION_KEYS, where)
        date = _date(raw.get("date"))
        if date is None:
            raise self.error(raw, "date" if "date" in raw else None,
                             f"{where} needs 'date: YYYY-MM-DD'")  # fmt: skip
        transcript = self.text(raw, "transcript", where)
        return Session(date=date, transcript=transcript, line=getattr(raw, "line", None))

    def probe(self, raw: Any, parent: Any, i: int, n_sessions: int) -> Probe:
        where = f"probe {i + 1}"
        if not isinstance(raw, dict):
            raise self.error(parent, i, f"{where} must be a mapping {{ask, type, expect}}")
        self.keys(raw, PROBE_KEYS, where)
        ask = self.text(raw, "ask", where)
        kind = raw.get("type")
        if kind not in TYPES:
            raise self.error(raw, "type" if "type" in raw else None,
                             f"{where}: type must be one of {', '.join(TYPES)}, not {kind!r}")  # fmt: skip
        after = raw.get("after", n_sessions)
        if isinstance(after, str) and after.strip().isdigit():
            after = int(after)
        if not isinstance(after, int) or isinstance(after, bool) or not 1 <= after <= n_sessions:
            raise self.error(raw, "after",
                             f"{where}: 'after' must be a session number from 1 to {n_sessions}")  # fmt: skip
        as_of = None
        if raw.get("as_of") is not None:
            as_of = _date(raw["as_of"])
            if as_of is None:
                raise self.error(raw, "as_of", f"{where}: 'as_of' must be a date YYYY-MM-DD")
        expect = self.expect(raw, where, kind)
        return Probe(ask=ask, type=kind, after=after, expect=expect, as_of=as_of,
                     line=getattr(raw, "line", None), index=i)  # fmt: skip

    def expect(self, probe: dict[str, Any], where: str, kind: str) -> Expect:
        raw = probe.get("expect")
        if not isinstance(raw, dict) or not raw:
            raise self.error(probe, "expect" if "expect" in probe else None,
                             f"{where} needs 'expect:' with contains, absent, uncertain, removed or order")  # fmt: skip
        self.keys(raw, EXPECT_KEYS, f"{where}'s expect")
        lists = {
            k: self.strings(raw, k, where, any_of=k != "absent")
            for k in ("contains", "absent", "order")
        }
        flags = {k: self.flag(raw, k, where) for k in ("uncertain", "removed")}
        for key, value in IMPLIED.get(kind, {}).items():
            if flags[key] is False:
                raise self.error(raw, key, f"{where}: a {kind} probe must have '{key}: true'")
            flags[key] = value
        for key in REQUIRED[kind]:
            if not lists[key]:
                raise self.error(raw, None, f"{where}: a {kind} probe needs 'expect: {{{key}: [...]}}'")  # fmt: skip
        if not any(lists.values()) and all(f is None for f in flags.values()):
            raise self.error(raw, None, f"{where}: 'expect' checks nothing; give contains, absent, uncertain, removed or order")  # fmt: skip
        both = {s.casefold() for s in lists["contains"] if isinstance(s, str)} & {
            s.casefold() for s in lists["absent"] if isinstance(s, str)
        }
        if both:
            raise self.error(raw, "absent", f"{where}: {sorted(both)[0]!r} is both in contains and absent")  # fmt: skip
        return Expect(
            contains=lists["contains"], absent=lists["absent"], order=lists["order"],
            uncertain=flags["uncertain"], removed=flags["removed"],
        )  # fmt: skip

    def strings(
        self, m: dict[str, Any], key: str, where: str, any_of: bool = False
    ) -> tuple[Any, ...]:
        """A list of text; with any_of, an item may itself be a list of alternatives."""
        value = m.get(key)
        if value is None:
            return ()
        if isinstance(value, str):
            value = [value]

        def text(x: Any) -> bool:
            return isinstance(x, str) and bool(x.strip())

        def item(x: Any) -> bool:
            return text(x) or (any_of and isinstance(x, list) and bool(x) and all(map(text, x)))

        if not isinstance(value, list) or not all(map(item, value)):
            also = " (or a list of alternatives, any one of which will do)" if any_of else ""
            raise self.error(m, key, f"{where}: '{key}' must be a list of non-empty text{also}")
        return tuple(tuple(x) if isinstance(x, list) else x for x in value)

    def flag(self, m: dict[str, Any], key: str, where: str) -> bool | None:
        value = m.get(key)
        if value is None or isinstance(value, bool):
            return value
        # The scenario loader keeps scalars as text (as rules.yaml's does): read booleans here.
        word = str(value).strip().lower()
        if word in ("true", "yes", "on"):
            return True
        if word in ("false", "no", "off"):
            return False
        raise self.error(m, key, f"{where}: '{key}' must be true or false, not {value!r}")


def _date(value: Any) -> str | None:
    if value is None:
        return None
    text = value.isoformat() if hasattr(value, "isoformat") else str(value).strip()
    return text if DATE_RE.fullmatch(text) else None


def _plain(value: Any) -> Any:
    """Line-tracking mappings and lists as plain ones, so they can be dumped back to YAML."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value
