"""Benchmark one cascade over 1,000 dependents (target: under 0.3 s end to end); prints figures.

    .venv/bin/python benchmarks/bench_cascade.py              # 1,000 dependents, 3 runs
    .venv/bin/python benchmarks/bench_cascade.py 5000 5       # another size, 5 runs
    .venv/bin/python benchmarks/bench_cascade.py --no-settle  # fast, but see below

The rules declare `home_city` → 1,000 attributes in three kinds (derive, confirm, expire); a
second run adds a layer of 1,000 facts hanging on the first through learned `depends_on` (a
chain of two hops, so doubt has to travel). Measured: the pure planner alone, and `Vault.set`
end to end (lock, scan, plan, transaction with journal, atomic writes of every changed file),
each on a fresh vault at rest (see `at_rest`), with CPU time beside wall time; and the floor:
the same number of files written through a temporary file and a rename each, then one
`os.sync()`, as the transaction does.

Settling. On ext4 without a journal (as on the machine the figures in BENCHMARKS.md come
from), creating a file skips every inode freed in the last 30 seconds, reading each one's
inode-table block (`recently_deleted` in the kernel's `find_inode_bit`): a thousand creates
take 13 ms on a settled disk and 50-250 ms right after a thousand deletions. A cascade
deletes the files it set aside, and so does the floor (each rename frees the old file), and
so does removing the previous run's vault; so by default each timed step waits until 31 s
have passed since the last mass deletion, as a person's `mdmem set` would find its disk.
`--no-settle` skips the waits and shows the noisy figures.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

import yaml

from mdmem import Vault
from mdmem.engine.decide import Statement, plan_statements
from mdmem.files import atomic_write
from mdmem.model.factfile import Fact, render

NOW = "2026-02-10T09:00:00Z"
RECENT = 31.0  # seconds: how long ext4 (no journal) skips a freed inode, plus one


def build(root: Path, n: int, second_hop: bool) -> None:
    attrs = {"home_city": {}} | {f"dep_{i:05d}": {} for i in range(n)}
    actions = ["derive", "confirm", "expire"]
    deps = []
    for i in range(n):
        d = {"when": "home_city", "then": f"dep_{i:05d}", "action": actions[i % 3]}
        if d["action"] == "derive":
            d["value"] = "{home_city} #" + str(i)
        deps.append(d)
    (root / "facts" / "user").mkdir(parents=True)
    (root / "rules.yaml").write_text(
        yaml.safe_dump({"version": 1, "attributes": attrs, "dependencies": deps})
    )
    facts = [Fact("user", "home_city", "Guangzhou", valid_from="2025-01-01")]
    facts += [Fact("user", f"dep_{i:05d}", f"v{i}", valid_from="2025-01-01") for i in range(n)]
    if second_hop:
        facts += [
            Fact(
                "user",
                f"second_{i:05d}",
                f"w{i}",
                valid_from="2025-01-01",
                depends_on=[{"on": f"dep_{i:05d}"}],
            )
            for i in range(n)
        ]
    for f in facts:
        (root / "facts" / "user" / f"{f.attribute}.md").write_text(render(f), encoding="utf-8")


def at_rest(root: Path) -> None:
    """As a vault not written a moment ago: files an hour old (a file changed within the
    last seconds is re-read by every scan, as git does), read once by an earlier command
    (snapshot and rules cache warm), and on disk."""
    old = time.time() - 3600
    for p in (root / "facts").rglob("*.md"):
        os.utime(p, (old, old))
    warm = Vault(root, now=NOW)
    _ = warm.facts, warm.rules
    os.sync()


class Disk:
    """When files were last deleted in bulk, and waiting until that no longer slows creates."""

    def __init__(self, settle: bool) -> None:
        self.settle, self.deleted = settle, time.monotonic()  # the previous process's, perhaps

    def freed(self) -> None:
        self.deleted = time.monotonic()

    def wait(self) -> None:
        if self.settle:
            time.sleep(max(0.0, RECENT - (time.monotonic() - self.deleted)))


def _ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:7.1f} ms ({min(values) * 1000:6.1f})"


def run(n: int, second_hop: bool, reps: int, disk: Disk) -> None:
    plan_wall: list[float] = []
    set_wall: list[float] = []
    set_cpu: list[float] = []
    floor_wall: list[float] = []
    floor_cpu: list[float] = []
    changes = files = 0
    for _ in range(reps):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp) / "vault"
            build(root, n, second_hop)
            at_rest(root)
            warm = Vault(root, now=NOW)
            st = Statement("user", "home_city", value="Shanghai", at="2026-02-10")
            t = time.perf_counter()
            plan = plan_statements(warm.facts, warm.rules, [st], now=NOW)
            plan_wall.append(time.perf_counter() - t)
            changes = len(plan.changes)
            disk.wait()
            t, cpu = time.perf_counter(), time.process_time()
            result = Vault(root, now=NOW).set("home_city", "Shanghai", date="2026-02-10")
            set_wall.append(time.perf_counter() - t)
            set_cpu.append(time.process_time() - cpu)
            disk.freed()  # the files it set aside
            files = len(result.plan.changes)
            # The floor: the same number of files through a temporary file and a rename each,
            # and one os.sync(), with nothing read, planned or journaled.
            texts = [(p, p.read_bytes() + b"\n") for p in sorted((root / "facts").rglob("*.md"))]
            disk.wait()
            t, cpu = time.perf_counter(), time.process_time()
            for p, data in texts[:files]:
                atomic_write(p, data, durable=False)
            os.sync()
            floor_wall.append(time.perf_counter() - t)
            floor_cpu.append(time.process_time() - cpu)
        disk.freed()  # the vault, removed
    extra = f" + {n:,} second-hop facts" if second_hop else ""
    print(f"cascade over {n:,} dependents{extra} ({changes:,} changes, {files:,} files)")
    print(f"  plan only (pure), wall                      {_ms(plan_wall)}")
    print(f"  Vault.set end to end: wall {_ms(set_wall)}, CPU {_ms(set_cpu)}")
    print(f"  floor (temp + rename each, os.sync): wall {_ms(floor_wall)}, CPU {_ms(floor_cpu)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", nargs="?", type=int, default=1000, help="dependents (default 1,000)")
    ap.add_argument("runs", nargs="?", type=int, default=3, help="runs per figure (default 3)")
    ap.add_argument("--no-settle", action="store_true", help="do not wait 31 s before each timed step")
    args = ap.parse_args()
    disk = Disk(settle=not args.no_settle)
    print(f"load average {os.getloadavg()[0]:.1f}; median (min) of {args.runs} runs, each on a"
          f" fresh vault under {tempfile.gettempdir()}"
          f"{'' if args.no_settle else f'; each timed step {RECENT:.0f} s after the last mass deletion'}")  # fmt: skip
    for second_hop in (False, True):
        run(args.n, second_hop, args.runs, disk)


if __name__ == "__main__":
    main()
