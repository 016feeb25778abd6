"""What the snapshot knows about one fact file, and how new bytes of it become that.

An Entry holds the file's stat signature and SHA-256, the parse of its last bytes that parsed
(its last good state), the parse of the bytes mdmem last wrote when the person changed them
since, and why the current bytes do not parse, if they do not.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Mapping
from typing import Any

from mdmem.errors import MdmemError
from mdmem.model.factfile import Fact, parse
from mdmem.model.fastparse import parse_canonical
from mdmem.model.slug import check_slug
from mdmem.store.walk import Sig

NAMES = tuple(f.name for f in dataclasses.fields(Fact))

Row = dict[str, Any]  # every field of a Fact, by name
Parsed = tuple[str, Row]  # (sha256 of some bytes, their parse)
Record = tuple[Fact, str]  # a parsed fact and its row as stored (JSON text)


def encode(fact: Fact) -> Row:
    """A fact as a JSON-ready mapping of all its fields."""
    fields = fact.__dict__
    if tuple(fields) == NAMES:  # as Fact() made it: its fields, in order (one copy in C)
        return dict(fields)
    return {n: getattr(fact, n) for n in NAMES}


def decode(row: Row) -> Fact:
    """A Fact from a row, without validating again (rows are only made from parsed files). A
    row stored before a field was added to Fact gets that field's default: a cache an upgrade
    did not rebuild must never make a read fail."""
    fact = Fact.__new__(Fact)
    fact.__dict__ = dict(row)  # its own field dict: a fact changed by a caller is not the cache
    if len(row) != len(NAMES):
        for f in dataclasses.fields(Fact):
            if f.name not in row:
                if f.default_factory is not dataclasses.MISSING:
                    fact.__dict__[f.name] = f.default_factory()
                elif f.default is not dataclasses.MISSING:
                    fact.__dict__[f.name] = f.default
    return fact


class Entry:
    """What the snapshot knows about one fact file."""

    __slots__ = (
        "sig", "sha", "racy", "good_sha", "row", "base", "problem", "volatile", "text", "learned",
    )  # fmt: skip

    def __init__(
        self,
        sig: Sig,
        sha: str,
        racy: bool,
        good_sha: str | None,  # of the last bytes that parsed (the current ones unless `problem`)
        row: Row | None,  # their parse (None until the facts file is read)
        base: Parsed | None = None,  # mdmem's last bytes, when the file changed since
        problem: tuple[int | None, str] | None = None,  # why the current bytes do not parse
        volatile: bool = False,  # holds values JSON cannot keep: parsed again by each process
    ) -> None:
        self.sig, self.sha, self.racy = sig, sha, racy
        self.good_sha, self.row, self.base = good_sha, row, base
        self.problem, self.volatile = problem, volatile
        self.text: str | None = None  # the row as stored, when just made from the file
        self.learned = bool(row and row.get("depends_on"))  # its last good state has depends_on

    @property
    def good(self) -> Parsed | None:
        return None if self.good_sha is None or self.row is None else (self.good_sha, self.row)

    def parsed(self, sha: str) -> Fact | None:
        """The parse of the bytes with this digest, if the snapshot saw them."""
        for cand in (self.good, self.base):
            if cand is not None and cand[0] == sha:
                return decode(cand[1])
        return None

    def db_row(self, rel: str, gone: bool) -> tuple[Any, ...]:
        """Its row in the cache database's `snap` table (the parse is in `snap_rows`)."""
        good = "" if self.good_sha == self.sha else self.good_sha
        try:
            base = None if self.base is None else _dumps(self.base)
        except (TypeError, ValueError):
            base = None  # values JSON cannot keep: the journal tells mdmem's last state
        problem = None if self.problem is None else _dumps(self.problem)
        row = (rel, *self.sig, self.sha, int(self.racy), good, base, problem, int(gone))
        return (*row, int(self.learned))

    @classmethod
    def from_db(cls, row: tuple[Any, ...]) -> Entry:
        """An Entry from a `snap` row (path first), its parse not read yet."""
        _, m, c, s, i, sha, racy, good, base, problem, _gone, learned = row
        b = json.loads(base) if base else None
        p = json.loads(problem) if problem else None
        entry = cls(
            (m, c, s, i),
            sha,
            bool(racy),
            sha if good == "" else good,
            None,
            (b[0], b[1]) if b else None,
            (p[0], p[1]) if p else None,
        )
        entry.learned = bool(learned)
        return entry


def _dumps(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


# One encoder, made once: json.dumps with options builds a new one every call.
_ROW = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def row_text(row: Row, exact: bool = False) -> str | None:
    """A parse as stored, or None when JSON cannot keep its values (hand-typed YAML tags:
    !!binary, !!timestamp, keys that are not text): those are parsed again by each process.
    `exact`: the row is known to hold only text, lists and text-keyed mappings."""
    try:
        text = _ROW.encode(row)
    except (TypeError, ValueError):
        return None
    return text if exact or json.loads(text) == row else None


def new_entry(
    rel: str,
    data: bytes,
    digest: str,
    sig: Sig,
    racy: bool,
    old: Entry | None,
    written: Callable[[], Mapping[str, str]],
    journaled: Callable[[], Mapping[str, Fact | None]],
    refused: str | None = None,
) -> Entry:
    """Parse new bytes; keep the last good parse, and the parse of mdmem's last bytes.
    `refused`: why the file was not read (a link out of the vault), its problem."""
    problem: tuple[int | None, str] | None = None
    row: Row | None = None
    volatile = False
    text: str | None = None
    _, entity, name = rel.split("/", 2)
    try:
        if refused is not None:
            raise MdmemError(refused)
        expect = (check_slug(entity, "entity"), check_slug(name[:-3]))
        source = data.decode("utf-8")
        fact = parse_canonical(source, rel, expect)  # mdmem's own bytes: text, lists, mappings
        row = encode(fact if fact is not None else parse(source, rel, expect=expect))
        text = row_text(row, exact=fact is not None)
        volatile = text is None
    except UnicodeDecodeError as e:
        problem = (None, f"not UTF-8 text ({e.reason} at byte {e.start}); save it as UTF-8")
    except MdmemError as e:
        problem = (e.line, e.bare_message)
    good = (digest, row) if row is not None else (old.good if old else None)
    mine = written().get(rel)
    if good is None:  # broken before the snapshot ever saw it good: what mdmem last wrote
        fact = journaled().get(rel)
        good = (mine or "", encode(fact)) if fact is not None else None
    base: Parsed | None = None
    if mine is not None and mine != digest and old is not None:
        base = next((c for c in (old.good, old.base) if c is not None and c[0] == mine), None)
    good_sha, good_row = good if good is not None else (None, None)
    entry = Entry(sig, digest, racy, good_sha, good_row, base, problem, volatile)
    entry.text = text
    return entry
