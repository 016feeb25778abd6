"""The `re` patterns kept across processes (mdmem/regex_cache.py): built from the file, each is
the pattern `re.compile` makes; a file that is not this interpreter's is no cache."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from mdmem import regex_cache
from tests.conftest import ROOT

PATTERNS = [
    (r"\bI\s+moved\s+to\s+(?P<value>[A-Z][a-z]+)", 0),
    (r"(?:我|咱)(?:搬到|住在)(?P<value>[\u4e00-\u9fff]{2,4})", re.I),
    (r"^(\w+):\s*(.*)$", re.M | re.S),
    ("[\ud800-\udfff]|σ|ς", re.I),  # a lone surrogate and a folded letter
    (r"(a)(b)?(?P<c>c)\2", 0),
]


@pytest.mark.parametrize(("pattern", "flags"), PATTERNS)
def test_a_pattern_built_from_its_entry_is_the_compiled_one(pattern: str, flags: int) -> None:
    built = regex_cache._build(regex_cache.entry(pattern, flags))
    compiled = re.compile(pattern, flags)
    assert built == compiled and built.groupindex == compiled.groupindex and built.groups == compiled.groups


def test_the_file_gives_back_what_was_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MDMEM_RE_CACHE", str(tmp_path))
    entries = [regex_cache.entry(p, f) for p, f in PATTERNS]
    regex_cache._write(regex_cache.file(), entries)
    assert regex_cache._read(regex_cache.file()) == entries
    text = "I moved to Lisbon. 我搬到杭州了"
    for e, (p, f) in zip(regex_cache._read(regex_cache.file()) or [], PATTERNS, strict=True):
        assert [m.span() for m in regex_cache._build(e).finditer(text)] == [m.span() for m in re.finditer(p, text, f)]


@pytest.mark.parametrize("spoil", ["torn", "other python", "edited", "not json"])
def test_a_file_not_written_for_this_interpreter_is_no_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            spoil: str) -> None:  # fmt: skip
    monkeypatch.setenv("MDMEM_RE_CACHE", str(tmp_path))
    path = regex_cache.file()
    regex_cache._write(path, [regex_cache.entry(p, f) for p, f in PATTERNS])
    raw = path.read_bytes()
    head, _, payload = raw.partition(b"\n")
    if spoil == "torn":
        path.write_bytes(raw[: len(raw) - 7])
    elif spoil == "other python":
        header = json.loads(head) | {"python": "2.7.18"}
        path.write_bytes(json.dumps(header).encode() + b"\n" + payload)
    elif spoil == "edited":
        path.write_bytes(raw.replace(b"moved", b"MOVED"))
    else:
        path.write_bytes(b"{not json\n[]")
    assert regex_cache._read(path) is None


def _run(folder: Path, code: str) -> dict:
    env = {"MDMEM_RE_CACHE": str(folder), "PYTHONPATH": str(ROOT), "MDMEM_NOW": "2026-03-01T12:00:00Z",
           "PATH": "/usr/bin:/bin"}  # fmt: skip
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.splitlines()[-1])  # type: ignore[no-any-return]


# A process that counts what `re` compiles, then reads two invented messages for facts.
_INGEST = """
import json, re._compiler as c
n = [0]
real = c.compile
def counting(*a, **k):
    n[0] += 1
    return real(*a, **k)
c.compile = counting
from mdmem.extract.rule_finder import extract
from mdmem.extract.transcript import parse_transcript
from mdmem.model.rules_yaml import load_rules
from mdmem.store.packs import personal
rules = load_rules(personal())
msgs = parse_transcript("User: I moved to Lisbon last spring.\\nUser: 我现在在杭州上班。\\n", source="t")
got = extract(msgs, rules, {}, source="t", default_date="2026-03-01").statements
print(json.dumps({"compiled": n[0], "statements": [repr(s) for s in got]}))
"""


def test_a_second_process_compiles_few_and_reads_the_same(tmp_path: Path) -> None:
    first = _run(tmp_path, _INGEST)
    assert regex_cache.file().name in {p.name for p in tmp_path.iterdir()}
    second = _run(tmp_path, _INGEST)
    assert first["statements"] and second["statements"] == first["statements"]
    assert first["compiled"] > 150 and second["compiled"] < first["compiled"] // 3


def test_off_means_no_file(tmp_path: Path) -> None:
    env = {"MDMEM_RE_CACHE": "0", "PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    code = "import mdmem.extract, mdmem.regex_cache as r; print(r.seed(), r._state['seeded'])"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True, cwd=tmp_path)
    assert out.stdout.split() == ["0", "False"]


def test_turned_off_after_seeding_writes_no_folder_named_0(tmp_path: Path) -> None:
    # A process that seeded with a folder and then turned the cache off (as a test's
    # monkeypatch does) saved at exit into "./0/" before: off means no file, wherever.
    env = {"MDMEM_RE_CACHE": str(tmp_path / "kept"), "PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    code = ("import os, re, mdmem.regex_cache as r; r.seed(); re.compile('seeded then off [0-9]+'); "
            "os.environ['MDMEM_RE_CACHE'] = '0'")
    subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True, cwd=tmp_path)
    assert not (tmp_path / "0").exists()


def test_a_rules_pattern_kept_for_the_timed_engine_reads_the_same(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    import regex

    monkeypatch.setenv("MDMEM_RE_CACHE", str(tmp_path))
    for name, value in (("_made", {}), ("_rows", {}), ("_loaded", {"regex": False})):
        monkeypatch.setattr(regex_cache, name, value)
    texts = ["I'm originally from Porto, and I moved to Lisbon.", "我搬到杭州了", "aaaaaaaaaaaaaaaaaaaaaaaaaaaa!"]
    flags = regex.U | regex.V0
    patterns = [r"(?i)\bI(?:['’]m| am) (?:originally )?from (?P<value>[A-Z]\w+)", r"(?:我|咱)搬到(?P<value>\w{2})", r"(a|aa)+$"]
    first = [regex_cache.compile_timed(p, flags) for p in patterns]
    regex_cache._save_regex()
    assert regex_cache._regex_file().is_file()
    monkeypatch.setattr(regex_cache, "_made", {})
    monkeypatch.setattr(regex_cache, "_rows", {})
    monkeypatch.setattr(regex_cache, "_loaded", {"regex": False})
    again = [regex_cache.compile_timed(p, flags) for p in patterns]
    assert regex_cache._made == {}  # every one came from the file
    for a, b in zip(first, again, strict=True):
        assert a._pickled_data == b._pickled_data
        for text in texts[:2]:
            assert [(m.span(), m.groupdict()) for m in a.finditer(text)] == [(m.span(), m.groupdict()) for m in b.finditer(text)]
    with pytest.raises(TimeoutError):  # still runs under a timeout
        list(again[2].finditer("a" * 40 + "!", timeout=0.05))


def test_a_file_full_of_another_process_s_patterns_gives_way(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Another command kept 500 patterns this ingest never uses: the ingest after it rewrites the
    # file with its own, and the one after that compiles few.
    monkeypatch.setenv("MDMEM_RE_CACHE", str(tmp_path))
    regex_cache._write(regex_cache.file(), [regex_cache.entry(rf"\bword{i}\b", 0) for i in range(500)])
    before = _run(tmp_path, _INGEST)
    after = _run(tmp_path, _INGEST)
    assert after["statements"] == before["statements"]
    assert after["compiled"] < before["compiled"] // 3


def test_a_kept_pattern_is_built_when_first_asked_for(tmp_path: Path) -> None:
    # The file's patterns wait in `re`'s cache: the one asked for is built (not compiled), the
    # others stay unbuilt, and a pattern the file lacks is compiled as usual.
    regex_cache._write(tmp_path / regex_cache.file().name, [regex_cache.entry(p, f) for p, f in PATTERNS])
    code = f"""
import json, re, re._compiler as c
n = [0]
real = c.compile
def counting(*a, **k):
    n[0] += 1
    return real(*a, **k)
c.compile = counting
from mdmem import regex_cache
seeded = regex_cache.seed()
waiting = len(getattr(re._cache, "waiting", {{}}))
p, f = {PATTERNS[0]!r}
before = n[0]
rx = re.compile(p, f)
same = rx == real(p, f) and re.compile(p, f) is rx
kept = n[0] - before
re.compile(r"not in the file \\d+")
print(json.dumps({{"seeded": seeded, "waiting": waiting, "left": len(getattr(re._cache, "waiting", {{}})),
                  "same": same, "kept": kept, "new": n[0] - before - kept}}))
"""
    got = _run(tmp_path, code)
    assert got == {"seeded": len(PATTERNS), "waiting": len(PATTERNS), "left": len(PATTERNS) - 1,
                   "same": True, "kept": 0, "new": 1}  # fmt: skip
