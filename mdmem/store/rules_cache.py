"""Validated rules kept under .mdmem/, keyed by rules.yaml's text: an unchanged file is not
parsed, validated or cycle-checked again by the next command.

The cache is plain JSON (never pickle), one header line and one payload line. It is used only
when the header names this format, the code that validated it and the SHA-256 of the very
text being loaded, the payload hashes to what the header says, and every value has the type
and range validation would have given it; anything else (a corrupt file, another mdmem's
cache, a hand edit) is ignored and rebuilt from rules.yaml.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from functools import cache
from pathlib import Path
from typing import Any

from mdmem.errors import RulesError
from mdmem.files import atomic_write, current, read_required, sha256
from mdmem.model.factfile import ACTIONS
from mdmem.model.grammar import DIMENSIONS
from mdmem.model.grammar import from_plain as grammar_from_plain
from mdmem.model.rules import CARDINALITIES, STABILITIES, Attribute, Dependency, Rules, Topic

CACHE_FILE = "rules.cache.json"
# The literal tests (extract/prefilter.py) of the rules' patterns, worked out once: parsing a
# pack's patterns for them is most of what reading it for facts first costs a process.
NEEDLES_FILE = "rules.needles.json"
# The same for mdmem's own packs, shipped beside them and keyed by `prefilter.digest` of each
# pattern (tests/extract/test_prefilter.py writes it): a new vault's first ingest parses none.
SHIPPED_NEEDLES = "needles.json"
FORMAT = 2  # 2: the grammar carries the words of habits, names and people (names … things, counts)
# The modules whose code decides whether a rules text validates and what it becomes: a cache
# written by other code (another mdmem version, a local change) is foreign.
_VALIDATORS = ("rules", "rules_yaml", "vocab", "yaml_nodes", "slug", "dag", "factfile", "yaml_text", "grammar")


@cache
def code_fingerprint() -> str:
    """SHA-256 of the validating modules' sources (or 'no-source' where none is installed)."""
    h = hashlib.sha256(f"format {FORMAT}".encode())
    here = Path(__file__).resolve().parent.parent / "model"
    for name in _VALIDATORS:
        try:
            h.update((here / f"{name}.py").read_bytes())
        except OSError:
            h.update(b"no-source")
    return h.hexdigest()


def load_rules_cached(meta: Path, path: Path) -> Rules:
    """`load_rules(path)`, answered from the cache under meta when the text validated before."""
    text = read_required(path, RulesError, "not found; create it with `mdmem init`")
    return parse_cached(meta, text, str(path))


def parse_cached(meta: Path, text: str, path: str = "rules.yaml", *, lazy: bool = False) -> Rules:
    """`parse_rules(text, path, lazy=lazy)`, from the cache when this text validated before;
    a text that validates now is cached (a failing one is not: its error is worked out anew)."""
    digest = sha256(text)
    cached = read_cache(meta / CACHE_FILE, digest, path)
    if cached is not None:
        return cached
    rules = parse_rules(text, path, lazy=lazy)
    with contextlib.suppress(OSError):  # a read-only vault still reads
        write_cache(meta / CACHE_FILE, digest, rules)
    return rules


def pack_rules(source: Path, text: str, *, own: bool) -> tuple[Rules, bytes | None]:
    """A pack's rules, validated (lazily for mdmem's own, whose tests validate them), with the
    cache file's bytes when they were read from one. mdmem's own packs are validated once per
    installation: the result is kept beside the regex cache (`regex_cache.folder()`), keyed
    as a vault's own cache is, so `init` and `Vault.create` parse no YAML after the first."""
    from mdmem import regex_cache

    digest = sha256(text)
    folder = regex_cache.folder() if own else None
    kept = folder / f"rules.{source.stem}.json" if folder is not None else None
    if kept is not None and (cached := read_cache(kept, digest, str(source))) is not None:
        with contextlib.suppress(OSError):
            return cached, kept.read_bytes()
    from mdmem.model import rules_yaml  # PyYAML: only when the pack was not kept

    rules = rules_yaml.parse_rules(text, str(source), lazy=own)
    if kept is not None:
        with contextlib.suppress(OSError):  # a read-only install goes without
            kept.parent.mkdir(exist_ok=True)
            write_cache(kept, digest, rules)
    return rules, None


def write_validated(file: Path, text: str, rules: Rules, cached: bytes | None) -> None:
    """A new vault's cache of its rules: the pack's kept bytes when `pack_rules` read them
    (what `write_cache` would write), else written from the rules."""
    if cached is not None:
        atomic_write(file, cached, durable=False)
    else:
        write_cache(file, sha256(text), rules)


def parse_rules(text: str, path: str, *, lazy: bool = False) -> Rules:
    """model.rules_yaml's parse_rules, imported (with PyYAML) only when the cache misses."""
    from mdmem.model.rules_yaml import parse_rules as parse

    return parse(text, path, lazy=lazy)


def write_cache(file: Path, digest: str, rules: Rules) -> None:
    """Store rules as the validated form of the text whose SHA-256 is digest (unless some
    mapping has a key that is not text, which JSON could not give back as it was)."""
    maps = [a.label for a in rules.attributes.values()] + [t.label for t in rules.topics.values()]
    maps += [m for d in rules.dependencies for m in (d.lookup, d.ask) if m is not None]
    if not all(isinstance(k, str) for m in maps for k in m):
        return
    payload = json.dumps(to_plain(rules), ensure_ascii=False, separators=(",", ":")).encode()
    header = {"mdmem_rules_cache": FORMAT, "code": code_fingerprint(), "text_sha256": digest,
              "payload_sha256": sha256(payload)}  # fmt: skip
    atomic_write(file, json.dumps(header).encode() + b"\n" + payload, durable=False)


def read_cache(file: Path, digest: str, path: str) -> Rules | None:
    """The cached rules for the text with this SHA-256, or None when there is no usable cache."""
    try:
        raw = current(file)
    except OSError:
        return None
    if raw is None:
        return None
    head, _, payload = raw.partition(b"\n")
    try:
        header = json.loads(head)
        if not (
            isinstance(header, dict)
            and header.get("mdmem_rules_cache") == FORMAT
            and header.get("text_sha256") == digest
            and header.get("code") == code_fingerprint()
            and header.get("payload_sha256") == sha256(payload)
        ):
            return None
        return from_plain(json.loads(payload), path)
    except (ValueError, TypeError, KeyError):  # json's errors are ValueErrors
        return None


def to_plain(rules: Rules) -> dict[str, Any]:
    """Rules as JSON-ready lists (their path is left out: it is the reader's)."""
    return {
        "attributes": [
            [a.name, a.label, list(a.aliases), a.stability, a.cardinality,
             [list(g) for g in a.values], list(a.extract_patterns), list(a.invalidate_patterns)]
            for a in rules.attributes.values()
        ],
        "topics": [[t.name, t.label, list(t.aliases), list(t.attributes)]
                   for t in rules.topics.values()],
        "dependencies": [[d.when, d.then, d.action, d.value, d.lookup, d.ask, d.id, d.line]
                         for d in rules.dependencies],
        "grammar": rules.grammar.to_plain() if rules.grammar is not None else None,
    }  # fmt: skip


def from_plain(data: Any, path: str) -> Rules:
    """Rules from `to_plain`'s form, every value checked; ValueError for anything else."""
    _need(isinstance(data, dict) and set(data) == {"attributes", "topics", "dependencies", "grammar"})
    rules = Rules(path=path, grammar=grammar_from_plain(data["grammar"]))
    for row in _rows(data["attributes"], 8):
        name, label, aliases, stability, cardinality, values, extract, invalidate = row
        _need(stability in STABILITIES and cardinality in CARDINALITIES)
        _need(name not in rules.attributes)
        rules.attributes[_text(name)] = Attribute(
            name=name, label=_textmap(label), aliases=_texts(aliases), stability=stability,
            cardinality=cardinality, values=tuple(_texts(g) for g in _list(values)),
            extract_patterns=_texts(extract), invalidate_patterns=_texts(invalidate), path=path,
        )  # fmt: skip
    g = rules.grammar
    _need(g is None or all(a in rules.attributes for d in DIMENSIONS for a in g.dimension(d)))
    _need(g is None or all(a in rules.attributes and c in rules.attributes for a, c in g.counts.items()))
    for name, label, aliases, attributes in _rows(data["topics"], 4):
        names = _texts(attributes)
        _need(all(a in rules.attributes for a in names) and name not in rules.topics)
        rules.topics[_text(name)] = Topic(_text(name), _textmap(label), _texts(aliases), names)
    for when, then, action, value, lookup, ask, id_, line in _rows(data["dependencies"], 8):
        _need(when in rules.attributes and then in rules.attributes and action in ACTIONS)
        _need(line is None or (isinstance(line, int) and not isinstance(line, bool)))
        rules.dependencies.append(Dependency(
            when=when, then=then, action=action, value=None if value is None else _text(value),
            lookup=None if lookup is None else _textmap(lookup),
            ask=None if ask is None else _textmap(ask), id=_text(id_), line=line,
        ))  # fmt: skip
    return rules


def _need(ok: bool) -> None:
    if not ok:
        raise ValueError("not a rules cache")


def _list(x: Any) -> list[Any]:
    _need(isinstance(x, list))
    return x  # type: ignore[no-any-return]


def _rows(x: Any, width: int) -> list[list[Any]]:
    rows = _list(x)
    _need(all(isinstance(r, list) and len(r) == width for r in rows))
    return rows


def _text(x: Any) -> str:
    _need(isinstance(x, str))
    return x  # type: ignore[no-any-return]


def _texts(x: Any) -> tuple[str, ...]:
    _need(isinstance(x, list) and all(isinstance(s, str) for s in x))
    return tuple(x)


def _textmap(x: Any) -> dict[str, str]:
    _need(isinstance(x, dict) and all(isinstance(v, str) for v in x.values()))
    return x  # type: ignore[no-any-return]


def needles_text(needles: dict[str, list[list[str]]]) -> str:
    """A needles file's text: JSON, one pattern a line, keys sorted (the same tests, the same bytes)."""
    lines = [f"{json.dumps(k, ensure_ascii=False)}:{json.dumps(v, ensure_ascii=False, separators=(',', ':'))}"
             for k, v in sorted(needles.items())]  # fmt: skip
    return f'{{"code":"{needles_code()}","needles":{{\n' + ",\n".join(lines) + "\n}}\n"


def needles_code() -> str:
    """SHA-256 of the code that works the literal tests out (another mdmem's are foreign)."""
    try:
        return sha256((Path(__file__).resolve().parent.parent / "extract" / "prefilter.py").read_bytes())
    except OSError:
        return "no-source"


def load_needles(meta: Path) -> None:
    """Hand the prefilter the literal tests shipped with mdmem's own packs (SHIPPED_NEEDLES in
    their folder), then those kept under meta; a missing, torn or foreign file is no cache:
    its patterns' tests are worked out again."""
    from mdmem.extract import prefilter  # the extractor's literal tests: only for an ingest
    from mdmem.store.packs import packs_dir

    folder = packs_dir()
    if folder is not None and (shipped := _needles(folder / SHIPPED_NEEDLES)):
        prefilter.prime_shipped(shipped)
    if kept := _needles(meta / NEEDLES_FILE):
        prefilter.prime(kept)


def _needles(file: Path) -> dict[str, list[list[str]]] | None:
    """The literal tests a needles file holds, if it is one this code wrote."""
    try:
        data = json.loads(file.read_bytes())
        if not isinstance(data, dict) or data.get("code") != needles_code():
            return None
        needles = data["needles"]
        ok = isinstance(needles, dict) and all(
            isinstance(v, list) and all(isinstance(a, list) and all(isinstance(n, str) for n in a) for a in v)
            for v in needles.values()
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return needles if ok else None


def save_needles(meta: Path, rules: Rules) -> None:
    """Keep the literal tests of these rules' patterns worked out by this process, if the file
    under meta lacks some (a read-only vault goes without)."""
    from mdmem.extract import prefilter  # the extractor's literal tests: only for an ingest

    sources = [p for a in rules.attributes.values() for p in (*a.extract_patterns, *a.invalidate_patterns)]
    known = prefilter.known_needles(sources)
    kept = _needles(meta / NEEDLES_FILE) or {}
    if all(src in kept for src in known):
        return
    text = needles_text({**kept, **known})
    with contextlib.suppress(OSError):
        atomic_write(meta / NEEDLES_FILE, text, durable=False)
