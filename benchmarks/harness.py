"""Measuring a figure beside its floor in the same run, on a machine others share.

Each figure and its floor run as separate processes, interleaved (floor, figure, figure, floor,
…), so a neighbour's load slows both alike. Of each process the kernel's own accounting is
kept (`os.wait4`): wall time from spawn to exit, CPU time (user + system) and peak memory
(ru_maxrss). A process may print `BENCH {json}` as its last line to report the part it timed
itself (an in-process figure: `wall`, `cpu` in seconds, any other keys kept as they are). The
ratio reported is the median of the per-pair CPU ratios, which a swing in load moves least.
Every step checks that what it timed did the work; a step that did not raises `BenchError`.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PY = sys.executable
# As installed: bytecode cached. With PYTHONDONTWRITEBYTECODE set every start compiles the
# sources again, which no user pays.
BASE_ENV = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH")}
BASE_ENV["MDMEM_NOW"] = "2026-03-01T12:00:00Z"
CODE: Path | None = None  # another copy of the package to measure (run.py --code)


class BenchError(Exception):
    """A timed step did not do its work (or failed): its figure would be a lie."""


def mdmem_env() -> dict[str, str]:
    """The environment of every process that runs mdmem (the code under test first)."""
    env = dict(BASE_ENV)
    if CODE is not None:
        env["PYTHONPATH"] = str(CODE)
    return env


def mdmem(*args: str) -> list[str]:
    """`mdmem ARGS` as the console script runs it, with the interpreter measured."""
    return [PY, "-c", "from mdmem.cli import main; main()", *args]


COUNTING = """
import re._compiler as _c, sys
import regex as _regex
_n = {'re': 0, 'regex': 0}
_real, _realx = _c.compile, _regex.compile
def _count(*a, **k):
    _n['re'] += 1
    return _real(*a, **k)
def _countx(*a, **k):
    _n['regex'] += 1
    return _realx(*a, **k)
_c.compile, _regex.compile = _count, _countx
sys.argv = ['mdmem', *sys.argv[1:]]
from mdmem.cli import main
try:
    main()
except SystemExit as e:
    code = e.code
else:
    code = 0
done(compiles=_n['re'] + _n['regex'], re_compiles=_n['re'], regex_compiles=_n['regex'])
sys.exit(code)
"""


def mdmem_counting(*args: str) -> list[str]:
    """`mdmem ARGS`, reporting how many regular expressions it compiled (re and regex)."""
    return [PY, "-c", PRELUDE + COUNTING, *args]


def script(code: str) -> list[str]:
    """A Python process running code (`done()` predefined: see PRELUDE)."""
    return [PY, "-c", PRELUDE + code]


# `done(**found)` reports what a process found (counts a check reads); a process that timed a
# part itself reports it as done(wall=…, cpu=…), else the whole process is the figure.
PRELUDE = """\
import json as _json, os, sys, time
def done(**found):
    print('BENCH ' + _json.dumps(found))
"""


@dataclass
class Sample:
    """One process: wall and CPU seconds, peak MiB; what it printed; what it timed itself."""

    wall: float
    cpu: float
    rss: float
    out: str
    err: str
    inner: dict[str, Any] = field(default_factory=dict)

    @property
    def timed_wall(self) -> float:
        return float(self.inner.get("wall", self.wall))

    @property
    def timed_cpu(self) -> float:
        return float(self.inner.get("cpu", self.cpu))


# A process inherits its parent's peak memory (Linux keeps ru_maxrss across fork and exec), so
# each measured process is started by this small runner, whose child starts from the runner's
# few MiB instead of the harness's: the runner forks, execs the command, and writes the
# command's own wall time, CPU time, peak memory and exit code to the file it was given.
RUNNER = """
import json, os, sys, time
cmd, out = json.loads(sys.argv[1]), sys.argv[2]
t = time.perf_counter()
pid = os.fork()
if pid == 0:
    try:
        os.execvp(cmd[0], cmd)
    finally:
        os._exit(127)
_, status, ru = os.wait4(pid, 0)
with open(out, 'w') as f:
    json.dump([time.perf_counter() - t, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024,
               os.waitstatus_to_exitcode(status)], f)
"""


def spawn(cmd: Sequence[str], env: dict[str, str] | None = None, cwd: Path | None = None,
          stdin: bytes | None = None) -> Sample:  # fmt: skip
    """Run one process to its end; its own wall, CPU and peak memory."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.NamedTemporaryFile("r", suffix=".json") as usage:  # fmt: skip
        # Outside any checkout: `python -c` puts the working folder first on sys.path.
        subprocess.run([PY, "-S", "-I", "-c", RUNNER, json.dumps(list(cmd)), usage.name],
                       stdout=out, stderr=err, input=stdin, env=env if env is not None else mdmem_env(),
                       cwd=str(cwd or tempfile.gettempdir()), check=False)  # fmt: skip
        got = usage.read()
        out.seek(0)
        err.seek(0)
        text, errors = out.read().decode(errors="replace"), err.read().decode(errors="replace")
    if not got:
        raise BenchError(f"{' '.join(cmd[:4])}…: the runner reported nothing: {errors.strip()[-800:]}")
    wall, cpu, rss, code = json.loads(got)
    inner: dict[str, Any] = {}
    lines = text.rstrip("\n").split("\n")
    if lines and lines[-1].startswith("BENCH "):
        inner = json.loads(lines.pop()[6:])
        text = "\n".join(lines) + "\n"
    if code not in (0, 1):  # 1: a command reporting problems it found (check)
        raise BenchError(f"{' '.join(cmd[:4])}… exited {code}: {errors.strip()[-800:]}")
    return Sample(wall, cpu, rss, text, errors, inner)


Check = Callable[[Sample], str | None]  # a complaint, or None when the step did its work


@dataclass
class Step:
    """What one measurement runs: commands in turn (one sample: their sum), after `prepare`
    (not timed), checked by `check`."""

    label: str
    cmds: Callable[[], list[list[str]]]
    prepare: Callable[[], None] | None = None
    check: Check | None = None
    env: Callable[[], dict[str, str]] = mdmem_env

    def run(self) -> Sample:
        if self.prepare is not None:
            self.prepare()
        parts = [spawn(c, self.env()) for c in self.cmds()]
        sample = Sample(sum(p.timed_wall for p in parts), sum(p.timed_cpu for p in parts),
                        max(p.rss for p in parts), "".join(p.out for p in parts),
                        "".join(p.err for p in parts),
                        {k: v for p in parts for k, v in p.inner.items() if k not in ("wall", "cpu")})  # fmt: skip
        if self.check is not None:
            why = self.check(sample)
            if why:
                raise BenchError(f"{self.label}: {why}\n--- stdout\n{sample.out[-1500:]}\n--- stderr\n{sample.err[-1500:]}")
        return sample


def step(label: str, *cmds: list[str], prepare: Callable[[], None] | None = None,
         check: Check | None = None, env: Callable[[], dict[str, str]] = mdmem_env) -> Step:  # fmt: skip
    """A Step of fixed commands."""
    return Step(label, lambda: [list(c) for c in cmds], prepare, check, env)


def floor_env() -> dict[str, str]:
    """Floors run plain Python, never the code under test."""
    return dict(BASE_ENV)


@dataclass
class Target:
    """What a figure should reach: `kind` is ratio (CPU ratio to the floor), cpu or wall
    (seconds), rss (MiB), or `flat` (peak ≤ value × the same figure's peak at the smaller size)."""

    kind: str
    value: float
    text: str = ""

    def describe(self) -> str:
        if self.text:
            return self.text
        return {"ratio": f"≤ {self.value:g}× floor", "cpu": f"≤ {self.value:g} s CPU",
                "wall": f"≤ {self.value:g} s wall", "rss": f"≤ {self.value:g} MiB",
                "ms": f"< {self.value:g} ms"}.get(self.kind, f"{self.kind} {self.value}")  # fmt: skip


@dataclass
class Row:
    """A figure beside its floor, as measured."""

    case: str
    figure: str
    floor: str
    samples: list[Sample]
    floors: list[Sample]
    targets: list[Target]
    note: str = ""
    load: tuple[float, float] = (0.0, 0.0)
    extra: dict[str, float] = field(default_factory=dict)  # counts a target may name ("zero")

    def med(self, which: str, floor: bool = False) -> float:
        got = self.floors if floor else self.samples
        if not got:
            return float("nan")
        pick = {"wall": lambda s: s.timed_wall, "cpu": lambda s: s.timed_cpu, "rss": lambda s: s.rss}
        if which in pick:
            return statistics.median(pick[which](s) for s in got)
        return statistics.median(float(s.inner[which]) for s in got)

    @property
    def ratio(self) -> float:
        """Median of the per-pair CPU ratios (figure / floor)."""
        pairs = [s.timed_cpu / f.timed_cpu for s, f in zip(self.samples, self.floors, strict=False) if f.timed_cpu > 0]
        return statistics.median(pairs) if pairs else float("nan")

    @property
    def wall_ratio(self) -> float:
        pairs = [s.timed_wall / f.timed_wall for s, f in zip(self.samples, self.floors, strict=False) if f.timed_wall > 0]
        return statistics.median(pairs) if pairs else float("nan")

    def counted(self, target: Target) -> float | None:
        """The median of the count a `count:KEY` target names, if every process reported it."""
        key = target.kind.split(":", 1)[1] if target.kind.startswith("count:") else ""
        return self.med(key) if key and all(key in s.inner for s in self.samples) else None

    def met(self, target: Target, smaller: Row | None = None) -> bool | None:
        value = {"ratio": self.ratio, "cpu": self.med("cpu"), "wall": self.med("wall"),
                 "rss": self.med("rss"), "ms": self.med("cpu") * 1000}.get(target.kind)  # fmt: skip
        if target.kind == "flat":  # peak ≤ value × the smaller size's
            return None if smaller is None else self.med("rss") <= target.value * smaller.med("rss")
        if target.kind.startswith("count:"):  # a count the process reported, e.g. compiles
            got = self.counted(target)
            return None if got is None else got <= target.value
        if target.kind == "zero":  # value names nothing; text names the count in `extra`
            return all(v == 0 for v in self.extra.values())
        if target.kind == "floor_rss":
            return self.med("rss") <= target.value * self.med("rss", floor=True)
        return None if value is None else value <= target.value


def measure(case: str, figure: Step, floor: Step | None, runs: int, targets: Sequence[Target] = (),
            note: str = "", log: Callable[[str], None] = print) -> Row:  # fmt: skip
    """Interleaved pairs: floor then figure, figure then floor, …; medians of `runs` each."""
    load0 = os.getloadavg()[0]
    samples: list[Sample] = []
    floors: list[Sample] = []
    for i in range(runs):
        order = [(figure, samples), (floor, floors)] if i % 2 else [(floor, floors), (figure, samples)]
        for st, into in order:
            if st is not None:
                into.append(st.run())
    row = Row(case, figure.label, floor.label if floor else "", samples, floors, list(targets), note,
              (load0, os.getloadavg()[0]))  # fmt: skip
    log(describe(row))
    return row


def fmt_s(seconds: float) -> str:
    if seconds != seconds:  # nan
        return "—"
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.2f} s"


def describe(row: Row) -> str:
    """One line of a row for the terminal."""
    line = (f"{row.case:<28} {row.figure}: wall {fmt_s(row.med('wall'))}, CPU {fmt_s(row.med('cpu'))},"
            f" peak {row.med('rss'):.0f} MiB")  # fmt: skip
    if row.floors:
        line += (f" | floor {row.floor}: wall {fmt_s(row.med('wall', True))}, CPU"
                 f" {fmt_s(row.med('cpu', True))}, peak {row.med('rss', True):.0f} MiB | ratio CPU"
                 f" {row.ratio:.2f}× (wall {row.wall_ratio:.2f}×)")  # fmt: skip
    for t in row.targets:
        if (got := row.counted(t)) is not None:
            line += f" | {t.kind.split(':', 1)[1]} {got:.0f}"
    line += f" | load {row.load[0]:.1f}→{row.load[1]:.1f}, n={len(row.samples)}"
    return line
