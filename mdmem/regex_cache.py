"""The `re` patterns mdmem's modules compile, kept across processes beside the bytecode.

A fresh process compiles a few hundred expressions (the extractor's, the readers', the
libraries'); `re` parses each and generates its matching code in Python, about a millisecond
apiece, which is most of what a one-message ingest costs. The generated code is kept in
`__pycache__/re-patterns.<interpreter>.json`: `seed` (run when the extractor is first imported,
so a command that reads no transcript, `ask` or `--help`, pays nothing) hands every kept
pattern to `re`'s own cache, built straight from its code the first time it is asked for (where
`re` looks its cache up by key, as CPython 3.11 does; elsewhere, all of them at once), so
`re.compile` returns it without compiling (and lets it hold 2,048 rather than drop the oldest
past 512); at exit, a process
that compiled some the file lacked writes what `re` holds, then the file's others. A pattern built
from the file is equal (`==`: same text, flags and code) to the one `re.compile` makes, so
nothing reads differently. The file is used only when its header names this interpreter, its
`_sre` engine and this format, and its payload has the checksum the header says; anything else
(another Python, a torn write, a hand edit) is no cache. MDMEM_RE_CACHE=0 turns it off, a
folder there keeps the file in that folder instead; a read-only install goes without (and
compiles as before).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import re
import sys
import zlib
from array import array
from pathlib import Path
from typing import Any

try:  # CPython's engine and its code generator; another interpreter simply compiles
    import _sre
    from re import _compiler, _parser  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover
    _sre = None

FORMAT = 1
FOLDER = Path(__file__).resolve().parent / "__pycache__"
# `re` keeps 512 patterns and drops the oldest: an ingest that reads its rules uses more, and
# a seeded cache that drops them would compile them all again. Seeding makes room for this many.
SEEDED = 2048
KEPT = 1024  # the regex file's size limit: beyond it, only what the writing process compiled is kept

_WORD = "I"  # the engine's code words: 32 bits unsigned (array("I") is 4 bytes wherever CPython runs)
_Entry = list[Any]  # [pattern, flags, final flags, code (array), groups, groupindex, indexgroup]
_known: dict[tuple[str, int], _Entry] = {}
_state = {"seeded": False}


def file() -> Path:
    """This interpreter's cache file (in MDMEM_RE_CACHE when that names a folder)."""
    folder = os.environ.get("MDMEM_RE_CACHE") or FOLDER
    return Path(folder) / f"re-patterns.{sys.implementation.cache_tag}.json"


def folder() -> Path | None:
    """Where the process caches of this installation are kept (None: MDMEM_RE_CACHE=0, none)."""
    return None if os.environ.get("MDMEM_RE_CACHE") == "0" else file().parent


def _header() -> dict[str, Any]:
    return {"mdmem_re_cache": FORMAT, "python": sys.version, "magic": getattr(_sre, "MAGIC", None),
            "word": array(_WORD).itemsize, "codesize": getattr(_sre, "CODESIZE", None), "byteorder": sys.byteorder}


def seed() -> int:
    """Hand `re` the patterns kept by earlier processes (once a process); how many."""
    if _state["seeded"] or _sre is None or os.environ.get("MDMEM_RE_CACHE") == "0":
        return 0
    _state["seeded"] = True
    atexit.register(save)
    if isinstance(getattr(re, "_MAXCACHE", None), int) and re._MAXCACHE < SEEDED:  # type: ignore[attr-defined]
        re._MAXCACHE = SEEDED  # type: ignore[attr-defined]
    entries = _read(file())
    cache = getattr(re, "_cache", None)
    if not entries or not isinstance(cache, dict):
        return 0
    n = 0
    lazy = _Kept(cache) if _asks_by_key() else None
    for entry in entries:
        key = (entry[0], entry[1])
        if key in _known:
            continue
        _known[key] = entry
        if n < SEEDED and (str, *key) not in cache:
            if lazy is not None:
                lazy.waiting[(str, *key)] = entry
                n += 1
                continue
            try:
                cache[(str, *key)] = _build(entry)
            except (TypeError, ValueError, RuntimeError, OverflowError):
                continue  # not code this engine takes: compiled as usual when asked
            n += 1
    if lazy is not None:
        re._cache = lazy  # type: ignore[attr-defined]
    return n


def _asks_by_key() -> bool:
    """Whether `re` looks a pattern up as `_cache[type, pattern, flags]` (CPython 3.11's
    `re._compile`), so that a kept pattern can be built only when it is first asked for."""
    code = getattr(getattr(re, "_compile", None), "__code__", None)
    return code is not None and "_cache" in code.co_names and "_cache2" not in code.co_names


class _Kept(dict):  # type: ignore[type-arg]
    """`re`'s cache, holding what it held, that builds a kept pattern the first time `re`
    asks for it (most commands use a few of the file's patterns: building them all cost more
    than reading them); a pattern the engine does not take is compiled by `re` as usual."""

    def __init__(self, held: dict[Any, Any]) -> None:
        super().__init__(held)
        self.waiting: dict[tuple[type, str, int], _Entry] = {}

    def __missing__(self, key: Any) -> Any:
        entry = self.waiting.pop(key, None) if isinstance(key, tuple) else None
        if entry is None:
            raise KeyError(key)
        try:
            rx = _build(entry)
        except (TypeError, ValueError, RuntimeError, OverflowError):
            raise KeyError(key) from None
        self[key] = rx
        return rx


def _build(entry: _Entry) -> re.Pattern[str]:
    pattern, _flags, final, code, groups, groupindex, indexgroup = entry
    # (the code is kept as machine words, made a list only for the moment the engine takes it)
    return _sre.compile(pattern, final, code.tolist(), groups, groupindex, tuple(indexgroup))  # type: ignore[no-any-return]


def _load(path: Path, header: dict[str, Any]) -> tuple[Any, bytes] | None:
    """A cache file's rows (JSON) and blob, when its header is this one and its checksum holds."""
    try:
        head, _, payload = path.read_bytes().partition(b"\n")
        if json.loads(head) != {**header, "crc32": zlib.crc32(payload)}:
            return None
        meta, _, blob = payload.partition(b"\n")
        return json.loads(meta), blob
    except (OSError, ValueError):
        return None


def _store(path: Path, header: dict[str, Any], rows: list[Any], blob: bytes) -> None:
    """Header line, one JSON line of rows, then the blob (ASCII JSON: a lone surrogate stays text)."""
    payload = json.dumps(rows, separators=(",", ":")).encode() + b"\n" + blob
    head = json.dumps({**header, "crc32": zlib.crc32(payload)}).encode()
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    with contextlib.suppress(OSError):  # a read-only install goes without
        path.parent.mkdir(exist_ok=True)
        tmp.write_bytes(head + b"\n" + payload)
        os.replace(tmp, path)
    with contextlib.suppress(OSError):
        tmp.unlink(missing_ok=True)


def _read(path: Path) -> list[_Entry] | None:
    """The entries of a cache file written for this interpreter, or None."""
    loaded = _load(path, _header())
    if loaded is None:
        return None
    rows, blob = loaded
    words = array(_WORD)
    try:
        words.frombytes(blob)
    except ValueError:
        return None
    if not (isinstance(rows, list) and all(_valid(r) for r in rows) and sum(r[6] for r in rows) == len(words)):
        return None
    out, at = [], 0
    for pattern, flags, final, groups, groupindex, indexgroup, n in rows:
        out.append([pattern, flags, final, words[at : at + n], groups, groupindex, indexgroup])
        at += n
    return out


def _valid(r: Any) -> bool:
    return (
        isinstance(r, list) and len(r) == 7 and isinstance(r[0], str)
        and all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in (r[1], r[2], r[3], r[6]))
        and isinstance(r[4], dict) and all(isinstance(k, str) and isinstance(v, int) for k, v in r[4].items())
        and isinstance(r[5], list) and all(x is None or isinstance(x, str) for x in r[5])
    )  # fmt: skip


def entry(pattern: str, flags: int) -> _Entry:
    """What `re.compile(pattern, flags)` builds its pattern from, worked out as it does."""
    p = _parser.parse(pattern, flags)
    code = _compiler._code(p, flags)
    groupindex = dict(p.state.groupdict)
    indexgroup: list[str | None] = [None] * p.state.groups
    for k, i in groupindex.items():
        indexgroup[i] = k
    return [pattern, flags, flags | p.state.flags, array(_WORD, code), p.state.groups - 1, groupindex, indexgroup]


def save() -> None:
    """When this process compiled patterns the file lacks: keep what `re` holds, in the order
    it got them, then the file's others, up to `SEEDED` (the next process seeds them all).
    Nothing when the cache is off now (MDMEM_RE_CACHE=0 set after `seed`: never a folder "0")."""
    if folder() is None:
        return
    with contextlib.suppress(Exception):  # (at exit: a failure only costs the next process)
        _save_regex()
    cache = getattr(re, "_cache", None)
    if _sre is None or not isinstance(cache, dict):
        return
    held = [(k[1], k[2], rx) for k, rx in list(cache.items())
            if isinstance(k, tuple) and len(k) == 3 and k[0] is str and isinstance(k[2], int)]  # fmt: skip
    entries: dict[tuple[str, int], _Entry] = {}
    new = 0
    for pattern, flags, rx in held:
        if (kept := _known.get((pattern, flags))) is not None:
            entries[(pattern, flags)] = kept
            continue
        if flags & re.DEBUG:
            continue
        try:
            found = entry(pattern, flags)
            if _build(found) != rx:  # not what re made (another compiler): not kept
                continue
        except Exception:  # noqa: BLE001 - a pattern the cache cannot hold is compiled as usual
            continue
        entries[(pattern, flags)] = found
        new += 1
    if new:
        kept = [*entries.values(), *(e for k, e in _known.items() if k not in entries)][:SEEDED]
        _write(file(), kept)
        _known.update(entries)


def _write(path: Path, entries: list[_Entry]) -> None:
    """The patterns' JSON rows (their code's length last), then the code of them all as
    machine words (a list of ints as JSON would take longer to read)."""
    rows = [[p, f, final, groups, gi, ig, len(code)] for p, f, final, code, groups, gi, ig in entries]
    _store(path, _header(), rows, b"".join(e[3].tobytes() for e in entries))


# The rules' patterns, which extract/guard.py runs by the `regex` module under a timeout: that
# module parses in Python too (a few milliseconds each). A compiled one is kept as what `regex`
# pickles it as (`_pickled_data`, taken back by `_regex.compile`), in a file of its own keyed by
# the module's version.
_made: dict[tuple[str, int], Any] = {}  # compiled by this process, to keep at exit
_rows: dict[tuple[str, int], tuple[list[Any], bytes]] = {}
_loaded = {"regex": False}


def _regex_file() -> Path:
    return file().with_name(f"regex-patterns.{sys.implementation.cache_tag}.json")


def _regex_header() -> dict[str, Any]:
    import regex

    return {"mdmem_regex_cache": FORMAT, "python": sys.version, "regex": regex.__version__}


def compile_timed(pattern: str, flags: int) -> Any:
    """`regex.compile(pattern, flags)`, taken from the file when an earlier process compiled it."""
    import regex

    key = (pattern, int(flags))
    if os.environ.get("MDMEM_RE_CACHE") == "0":
        return regex.compile(pattern, flags)
    if not _loaded["regex"]:
        _loaded["regex"] = True
        _read_regex()
    if (kept := _rows.get(key)) is not None:
        with contextlib.suppress(Exception):  # not data this `regex` takes: compiled as usual
            return _from_row(*kept)
    rx = _made[key] = regex.compile(pattern, flags)
    return rx


def _from_row(row: list[Any], code: bytes) -> Any:
    from regex import _regex  # type: ignore[attr-defined]

    pattern, flags, group_index, index_group, req_offset, req_chars, req_flags, group_count, _ = row
    return _regex.compile(pattern, flags, code, group_index, {int(k): v for k, v in index_group},
                          {}, [], req_offset, tuple(req_chars), req_flags, group_count)  # fmt: skip


def _to_row(rx: Any) -> tuple[list[Any], bytes] | None:
    """What `regex` pickles the pattern as, JSON-ready (None for one with named lists)."""
    pattern, flags, code, group_index, index_group, named_lists, named_list_indexes, *rest = rx._pickled_data
    req_offset, req_chars, req_flags, group_count = rest
    if named_lists or named_list_indexes or not isinstance(pattern, str):
        return None
    row = [pattern, int(flags), dict(group_index), sorted(index_group.items()), req_offset,
           list(req_chars), int(req_flags), group_count, len(code)]  # fmt: skip
    return row, bytes(code)


def _read_regex() -> None:
    loaded = _load(_regex_file(), _regex_header())
    if loaded is None or not isinstance(loaded[0], list):
        return
    rows, blob = loaded
    at = 0
    for key, row in rows if all(isinstance(r, list) and len(r) == 2 for r in rows) else []:
        if not (isinstance(key, list) and len(key) == 2 and isinstance(row, list) and len(row) == 9):
            return
        n = row[8]
        if not isinstance(n, int) or at + n > len(blob):
            return
        _rows[(key[0], key[1])] = (row, blob[at : at + n])
        at += n


def _save_regex() -> None:
    new = []
    for key, rx in _made.items():
        if key in _rows:
            continue
        with contextlib.suppress(Exception):  # a pattern the file cannot hold is compiled as usual
            row = _to_row(rx)
            if row is not None and _from_row(*row)._pickled_data == rx._pickled_data:
                new.append((key, row))
    if not new:
        return
    kept = list(_rows.items()) if len(_rows) + len(new) <= KEPT else []
    everything = kept + new
    rows = [[list(k), r] for k, (r, _) in everything]
    _store(_regex_file(), _regex_header(), rows, b"".join(code for _, (_, code) in everything))
    _rows.update(dict(new))
