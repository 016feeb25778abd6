"""Benchmark the .mdmem cache against its floors: cold build, no-change check and sync, warm ask.

    .venv/bin/python benchmarks/bench_cache.py                  # a fresh 100,000-fact vault
    .venv/bin/python benchmarks/bench_cache.py 10000            # another size
    .venv/bin/python benchmarks/bench_cache.py --vault /tmp/v   # reuse a vault made before
    .venv/bin/python benchmarks/bench_cache.py --vault /tmp/v --ask   # only the warm ask

The vault is bench_sync.py's (written directly, the manifest as if mdmem wrote every file).
Each figure runs in a fresh process and reports wall and CPU (user + sys) seconds inside it, and
its peak RSS (ru_maxrss); the floors beside them run the same way:

- stat-walk floor: `os.scandir` + `os.stat` of every fact file (what any freshness check costs);
- cold floor: read every file, parse its frontmatter with libyaml, insert it into an FTS5 table
  in one transaction (what any index of these files costs);
- cold build: the first `ask` with no .mdmem cache (snapshot and index both built);
- check / sync, nothing changed; warm `ask` in one process (median of 3 x 12 questions).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
NOW = "2026-03-01T12:00:00Z"

PRELUDE = """
import os, resource, sys, time
t0, c0 = time.perf_counter(), time.process_time()
def done():
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{time.perf_counter() - t0:.3f} {time.process_time() - c0:.3f} {rss:.0f}")
"""

STAT_FLOOR = """
n = 0
for ent in sorted(os.listdir(ROOT + '/facts')):
    fd = os.open(ROOT + '/facts/' + ent, os.O_RDONLY | os.O_DIRECTORY)
    with os.scandir(fd) as it:
        for name in sorted(e.name for e in it):
            os.stat(name, dir_fd=fd); n += 1
    os.close(fd)
done()
"""

COLD_FLOOR = """
import sqlite3, yaml
db = sqlite3.connect(':memory:', isolation_level=None)
db.execute("CREATE VIRTUAL TABLE fts USING fts5(data)")
db.execute('BEGIN')
for ent in sorted(os.listdir(ROOT + '/facts')):
    folder = ROOT + '/facts/' + ent
    for name in sorted(os.listdir(folder)):
        text = open(folder + '/' + name, 'rb').read().decode()
        fm = text.split('\\n---\\n', 1)[0][4:]
        data = yaml.load(fm, Loader=yaml.CSafeLoader)
        db.execute('INSERT INTO fts VALUES(?)', (repr(data),))
db.execute('COMMIT')
done()
"""

MDMEM = """
from mdmem import Vault
from mdmem.edit.sync import sync
v = Vault(ROOT)
{code}
done()
"""

ASK = """
import statistics
from mdmem import Vault
from mdmem.read.ask import ask
sys.path.insert(0, {here!r})
from bench_ask import QUESTIONS
v = Vault(ROOT)
ask(v, QUESTIONS[0])
took = []
for q in QUESTIONS * 3:
    s = time.perf_counter(); ask(v, q); took.append((time.perf_counter() - s) * 1000)
took.sort()
print(f"ask median {{statistics.median(took):.1f}} ms, p95 {{took[int(0.95 * len(took))]:.1f}} ms")
done()
"""


def run(root: Path, body: str) -> tuple[float, float, float, str]:
    """(wall s, CPU s, peak RSS MiB, other output) of body in a fresh process."""
    script = f"ROOT = {str(root)!r}\n" + PRELUDE + body
    env = {**os.environ, "MDMEM_NOW": NOW}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env=env, check=True).stdout.split("\n")  # fmt: skip
    out = [line for line in out if line]
    wall, cpu, rss = (float(x) for x in out[-1].split())
    return wall, cpu, rss, " ".join(out[:-1])


def main() -> None:
    args = sys.argv[1:]
    if "--vault" in args:
        root = Path(args[args.index("--vault") + 1])
    else:
        sys.path.insert(0, str(HERE))
        from bench_sync import make_vault

        n = int(args[0]) if args else 100_000
        root = Path(tempfile.mkdtemp(prefix="mdmem-bench-cache-")) / "vault"
        make_vault(root, n)
    print(f"vault {root}; load average {os.getloadavg()[0]:.1f}")
    rows = []
    if "--ask" in args:  # e.g. on bench_ask.py's vault (the personal pack, 25 slots a person)
        rows.append(("ask, warm, one process", run(root, ASK.format(here=str(HERE)))))
        for name, (wall, cpu, rss, extra) in rows:
            print(f"{name:<36} {wall:7.2f} s wall {cpu:7.2f} s CPU {rss:6.0f} MiB  {extra}")
        return
    rows.append(("stat-walk floor", run(root, STAT_FLOOR)))
    rows.append(("cold floor (read + libyaml + FTS5)", run(root, COLD_FLOOR)))
    for p in (root / ".mdmem").glob("*"):
        if p.name.startswith(("index.sqlite", "snapshot")):
            p.unlink()
    cold = MDMEM.format(code="from mdmem.read.ask import ask\nask(v, 'Where do I live?')")
    rows.append(("cold build (first ask, no cache)", run(root, cold)))
    run(root, MDMEM.format(code="v.check()"))  # racily clean files verified once more
    for name, code in [("check, nothing changed", "v.check()"), ("sync, nothing changed",
                       "sync(v)")]:  # fmt: skip
        runs = sorted((run(root, MDMEM.format(code=code)) for _ in range(3)), key=lambda r: r[1])
        rows.append((name, runs[1]))
    rows.append(("ask, warm, one process", run(root, ASK.format(here=str(HERE)))))
    for name, (wall, cpu, rss, extra) in rows:
        print(f"{name:<36} {wall:7.2f} s wall {cpu:7.2f} s CPU {rss:6.0f} MiB  {extra}")
    print(json.dumps({"load": os.getloadavg()[0], "python": sys.version.split()[0]}))


if __name__ == "__main__":
    main()
