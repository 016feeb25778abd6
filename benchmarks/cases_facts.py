"""Figures on fact vaults: no-change check and sync, the cold build, adopting foreign files,
one edit, `ask` as a command and in one process. Each beside its floor (floors.py)."""

from __future__ import annotations

import re
import shutil
import sqlite3
import time
from pathlib import Path

import floors
from benchctx import Ctx
from harness import Check, Row, Sample, Step, Target, mdmem, measure, script, spawn, step
from vaults import HOME, foreign_vault, signatures

QUESTION = "Where do I live?"


def _warm(root: Path) -> None:
    """What an earlier command leaves: caches built by the code under test, files settled."""
    for cmd in (mdmem("check", "--vault", str(root)), mdmem("sync", "--vault", str(root)),
                mdmem("ask", QUESTION, "--vault", str(root)), mdmem("check", "--vault", str(root))):  # fmt: skip
        spawn(cmd)


def _has(text: str, where: str = "out") -> Check:
    def check(sample: Sample) -> str | None:
        got = sample.out if where == "out" else sample.err
        return None if text in got else f"expected {text!r} in its {where}"

    return check


def _rows(db: Path) -> int:
    with sqlite3.connect(db) as con:
        return int(con.execute("SELECT count(*) FROM files").fetchone()[0])


def no_change(ctx: Ctx) -> list[Row]:
    """`check` and `sync` with nothing changed, beside the stat walk."""
    out = []
    for n in ctx.sizes:
        root = ctx.facts(n)
        _warm(root)
        walk = floors.stat_walk(root, n)
        check = step("`mdmem check`", mdmem("check", "--vault", str(root)),
                     check=_has(f"OK: {n} facts", "err"))  # fmt: skip
        out.append(measure(f"check, nothing changed, {n:,}", check, walk, ctx.runs,
                           [Target("ratio", 1.5)]))  # fmt: skip
        sync = step("`mdmem sync`", mdmem("sync", "--vault", str(root)), check=_has("Nothing to sync", "err"))
        out.append(measure(f"sync, nothing changed, {n:,}", sync, walk, ctx.runs, [Target("ratio", 1.5)]))
    return out


def cold(ctx: Ctx) -> list[Row]:
    """The first `ask` with no cache (snapshot and index built from every file)."""
    out: list[Row] = []
    for n in ctx.sizes:
        root = ctx.facts(n)
        db = root / ".mdmem" / "index.sqlite"

        def wipe(db: Path = db) -> None:
            for p in (db, db.with_name(db.name + "-journal")):
                p.unlink(missing_ok=True)

        def built(sample: Sample, db: Path = db, n: int = n) -> str | None:
            if HOME not in sample.out:
                return f"the answer does not name {HOME}"
            rows = _rows(db)
            return None if rows == n else f"the index holds {rows:,} rows, not {n:,}"

        figure = step("first `mdmem ask`, no cache", mdmem("ask", QUESTION, "--vault", str(root)),
                      prepare=wipe, check=built)  # fmt: skip
        floor = floors.read_fts(root, n, ctx.work / "floor.sqlite")
        targets = [Target("ratio", 2.5)]
        if n >= 100_000:
            targets += [Target("rss", 100)]
        if out:
            targets += [Target("flat", 1.2, f"peak flat from {ctx.sizes[0]:,} (≤ 1.2×)")]
        out.append(measure(f"cold build, {n:,}", figure, floor, ctx.runs, targets))
        _warm(root)
    return out


def adopt(ctx: Ctx, runs: int | None = None) -> list[Row]:
    """First `sync` over files another program wrote, beside the cold build of the same files."""
    out = []
    for n in ctx.sizes[-1:]:
        own = ctx.facts(n)
        root = ctx.work / f"foreign-{n}"
        state: dict[str, dict[str, tuple[int, int]]] = {}

        def fresh(root: Path = root, own: Path = own, state: dict = state) -> None:
            pristine = root.exists() and state.get("sigs") == signatures(root)
            if not pristine:
                foreign_vault(root, own)
                state["sigs"] = signatures(root)
            shutil.rmtree(root / ".mdmem", ignore_errors=True)

        def untouched(sample: Sample, root: Path = root, state: dict = state) -> str | None:
            now = signatures(root)
            moved = sum(1 for k, v in state["sigs"].items() if now.get(k) != v)
            state["rewritten"] = {"n": moved}
            return None  # a rewrite is a target missed (below), not work left undone

        figure = step("first `mdmem sync` over foreign files", mdmem("sync", "--vault", str(root)),
                      prepare=fresh, check=untouched)  # fmt: skip
        db = own / ".mdmem" / "index.sqlite"
        floor = step("cold build (first ask, no cache)", mdmem("ask", QUESTION, "--vault", str(own)),
                     prepare=lambda db=db: db.unlink(missing_ok=True), check=_has(HOME))  # fmt: skip
        row = measure(f"adopt foreign files, {n:,}", figure, floor, runs or ctx.heavy_runs,
                      [Target("ratio", 1.2, "≤ 1.2× the cold build"), Target("zero", 0, "0 files rewritten")])  # fmt: skip
        moved = state.get("rewritten", {}).get("n", 0)
        row.note, row.extra = f"{moved:,} files rewritten", {"rewritten": moved}
        out.append(row)
        _warm(own)
    return out


_VALUE = re.compile(r"^value: .*$", re.M)
CITIES = ["Hangzhou", "Xiamen", "Suzhou", "Kunming", "Harbin", "Lhasa", "Dalian", "Nanjing"]


def edit_sync_ask(ctx: Ctx) -> list[Row]:
    """A person edits one file; `sync` applies it; `ask` answers with it. Beside the stat walk."""
    out = []
    for n in ctx.sizes:
        root = ctx.facts(n)
        _warm(root)
        home = root / "facts" / "user" / "home_city.md"
        turn = {"i": 0, "city": HOME}

        def edit(home: Path = home, turn: dict = turn) -> None:
            city = CITIES[turn["i"] % len(CITIES)]
            turn["i"] += 1
            turn["city"] = city
            text = _VALUE.sub(f"value: {city}", home.read_text(encoding="utf-8"), count=1)
            tmp = home.with_name(".home_city.md.edit")
            tmp.write_text(text, encoding="utf-8")
            tmp.replace(home)  # as an editor saves
            time.sleep(0.01)

        def answered(sample: Sample, turn: dict = turn) -> str | None:
            return None if turn["city"] in sample.out else f"the answer does not name {turn['city']}"

        figure = step("edit → `mdmem sync` → `mdmem ask`", mdmem("sync", "--vault", str(root)),
                      mdmem("ask", QUESTION, "--vault", str(root)), prepare=edit, check=answered)  # fmt: skip
        out.append(measure(f"edit → sync → ask, {n:,}", figure, floors.stat_walk(root, n), ctx.runs,
                           [Target("wall", 0.3), Target("cpu", 0.3)]))  # fmt: skip
        text = _VALUE.sub(f"value: {HOME}", home.read_text(encoding="utf-8"), count=1)
        home.write_text(text, encoding="utf-8")
        _warm(root)
    return out


def ask_command(ctx: Ctx) -> list[Row]:
    """`mdmem ask` as a command, beside a process that runs one FTS5 query."""
    sample = ctx.work / "sample_vault"
    if not sample.exists():
        shutil.copytree(Path(__file__).resolve().parent.parent / "sample_vault", sample)
    out = []
    for root, label, expect in [(sample, "sample vault", "Shanghai")] + [
        (ctx.facts(n), f"{n:,}", HOME) for n in ctx.sizes[-1:]
    ]:
        _warm(root)
        figure = step("`mdmem ask`", mdmem("ask", QUESTION, "--vault", str(root)), check=_has(expect))
        floor = floors.fts_query(root / ".mdmem" / "index.sqlite", "city")
        out.append(measure(f"ask as a command, {label}", figure, floor, ctx.runs, [Target("ratio", 4)]))
    return out


WARM_ASK = """
import statistics, sys
sys.path.insert(0, {here!r})
from bench_ask import QUESTIONS
from mdmem import Vault
from mdmem.read.ask import ask
v = Vault({root!r})
first = ask(v, QUESTIONS[0]).text
walls, cpus = [], []
for q in QUESTIONS * 3:
    w, c = time.perf_counter(), time.process_time()
    ask(v, q)
    walls.append(time.perf_counter() - w); cpus.append(time.process_time() - c)
print(first)
print('BENCH ' + _json.dumps({{'wall': statistics.median(walls), 'cpu': statistics.median(cpus),
                              'p95': sorted(walls)[int(0.95 * len(walls))]}}))
"""

FTS_IN_PROCESS = """
import sqlite3, statistics
db = sqlite3.connect({db!r})
walls, cpus = [], []
for word in ['home', 'city', 'work', 'commute', 'colour', 'person0042'] * 6:
    w, c = time.perf_counter(), time.process_time()
    db.execute("SELECT rowid FROM fts WHERE fts MATCH ? LIMIT 40", (word,)).fetchall()
    walls.append(time.perf_counter() - w); cpus.append(time.process_time() - c)
print('BENCH ' + _json.dumps({{'wall': statistics.median(walls), 'cpu': statistics.median(cpus)}}))
"""


def ask_warm(ctx: Ctx) -> list[Row]:
    """`ask` in one process (36 questions, median each), beside one FTS5 query in process."""
    out = []
    here = str(Path(__file__).resolve().parent)
    for n in ctx.sizes:
        root = ctx.facts(n)
        _warm(root)
        figure = Step("`ask` in process (median of 36)",
                      lambda root=root: [script(WARM_ASK.format(here=here, root=str(root)))],
                      check=_has(HOME))  # fmt: skip
        floor = Step("one FTS5 query in process",
                     lambda root=root: [script(FTS_IN_PROCESS.format(db=str(root / ".mdmem" / "index.sqlite")))],
                     env=floors.floor_env)  # fmt: skip
        out.append(measure(f"ask in process, {n:,}", figure, floor, max(3, ctx.runs // 2),
                           [Target("ms", 50)]))  # fmt: skip
    return out
