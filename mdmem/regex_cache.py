"""The `re` patterns mdmem's modules compile, kept across processes beside the bytecode.

A fresh process compiles a few hundred expressions (the extractor's, the readers', the
libraries'); `re` parses each and generates its matching code in Python, about a millisecond
apiece, which is most of what a one-message ingest costs. The generated code is kept in
`__pycache__/re-patterns.<interpreter>.json`: `seed` (run when the extractor is first imported,
so a command that reads no transcript, `ask` or `--help`, pays nothing) hands every kept
pattern to `re`'s own cache, built straight from its code, so `re.compile` returns it without
compiling; an exit hook adds what this process compiled that the file lacked. A pattern built
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
# At most this many are seeded: `re` keeps 512 and drops the oldest, so a full cache would
# push out the expressions compiled inline later in the run.
SEEDED = 448
KEPT = 1024  # the file's size limit: beyond it, only what the writing process held is kept

_WORD = "I"  # the engine's code words: 32 bits unsigned (array("I") is 4 bytes wherever CPython runs)
_Entry = list[Any]  # [pattern, flags, final flags, code, groups, groupindex, indexgroup]
_known: dict[tuple[str, int], _Entry] = {}
_state = {"seeded": False}


def file() -> Path:
    """This interpreter's cache file (in MDMEM_RE_CACHE when that names a folder)."""
    folder = os.environ.get("MDMEM_RE_CACHE") or FOLDER
    return Path(folder) / f"re-patterns.{sys.implementation.cache_tag}.json"


def _header() -> dict[str, Any]:
    return {"mdmem_re_cache": FORMAT, "python": sys.version, "magic": getattr(_sre, "MAGIC", None),
            "word": array(_WORD).itemsize, "codesize": getattr(_sre, "CODESIZE", None), "byteorder": sys.byteorder}


def seed() -> int:
    """Hand `re` the patterns kept by earlier processes (once a process); how many."""
    if _state["seeded"] or _sre is None or os.environ.get("MDMEM_RE_CACHE") == "0":
        return 0
    _state["seeded"] = True
    atexit.register(save)
    entries = _read(file())
    cache = getattr(re, "_cache", None)
    if not entries or not isinstance(cache, dict):
        return 0
    n = 0
    for entry in entries:
        key = (entry[0], entry[1])
        if key in _known:
            continue
        _known[key] = entry
        if n < SEEDED and (str, *key) not in cache:
            try:
                cache[(str, *key)] = _build(entry)
            except (TypeError, ValueError, RuntimeError, OverflowError):
                continue  # not code this engine takes: compiled as usual when asked
            n += 1
    return n


def _build(entry: _Entry) -> re.Pattern[str]:
    pattern, _flags, final, code, groups, groupindex, indexgroup = entry
    return _sre.compile(pattern, final, code, groups, groupindex, tuple(indexgroup))  # type: ignore[no-any-return]


def _read(path: Path) -> list[_Entry] | None:
    """The entries of a cache file written for this interpreter, or None."""
    try:
        head, _, payload = path.read_bytes().partition(b"\n")
        header = json.loads(head)
        if header != {**_header(), "crc32": zlib.crc32(payload)}:
            return None
        meta, _, blob = payload.partition(b"\n")
        rows = json.loads(meta)
        words = array(_WORD)
        words.frombytes(blob)
    except (OSError, ValueError):
        return None
    if not (isinstance(rows, list) and all(_valid(r) for r in rows) and sum(r[6] for r in rows) == len(words)):
        return None
    out, at = [], 0
    for pattern, flags, final, groups, groupindex, indexgroup, n in rows:
        out.append([pattern, flags, final, words[at : at + n].tolist(), groups, groupindex, indexgroup])
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
    return [pattern, flags, flags | p.state.flags, list(code), p.state.groups - 1, groupindex, indexgroup]


def save() -> None:
    """Add the patterns this process compiled that the file lacks (at exit)."""
    cache = getattr(re, "_cache", None)
    if _sre is None or not isinstance(cache, dict):
        return
    held = [(k[1], k[2], rx) for k, rx in list(cache.items())
            if isinstance(k, tuple) and len(k) == 3 and k[0] is str and isinstance(k[2], int)]  # fmt: skip
    new: list[_Entry] = []
    for pattern, flags, rx in held:
        if (pattern, flags) in _known or flags & re.DEBUG:
            continue
        try:
            found = entry(pattern, flags)
            if _build(found) != rx:  # not what re made (another compiler): not kept
                continue
        except Exception:  # noqa: BLE001 - a pattern the cache cannot hold is compiled as usual
            continue
        new.append(found)
    if not new:
        return
    entries = list(_known.values())
    if len(entries) + len(new) > KEPT:
        entries = [_known[(p, f)] for p, f, _ in held if (p, f) in _known]
    _write(file(), entries + new)
    _known.update({(e[0], e[1]): e for e in new})


def _write(path: Path, entries: list[_Entry]) -> None:
    """Header line, one JSON line of the patterns (their code's length last), then the code
    of them all as machine words (a list of ints as JSON would take longer to read)."""
    rows = [[p, f, final, groups, gi, ig, len(code)] for p, f, final, code, groups, gi, ig in entries]
    words = array(_WORD, [c for e in entries for c in e[3]])
    payload = json.dumps(rows, separators=(",", ":")).encode() + b"\n" + words.tobytes()  # (ASCII: a lone surrogate stays text)
    header = json.dumps({**_header(), "crc32": zlib.crc32(payload)}).encode()
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    with contextlib.suppress(OSError):  # a read-only install goes without
        path.parent.mkdir(exist_ok=True)
        tmp.write_bytes(header + b"\n" + payload)
        os.replace(tmp, path)
    with contextlib.suppress(OSError):
        tmp.unlink(missing_ok=True)
