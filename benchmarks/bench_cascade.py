"""Benchmark one cascade over 1,000 dependents (target: well under a second, docs/architecture.md); prints figures.

    .venv/bin/python benchmarks/bench_cascade.py          # 1,000 dependents
    .venv/bin/python benchmarks/bench_cascade.py 5000 3   # another size, 3 runs

The rules declare `home_city` → 1,000 attributes in three kinds (derive, confirm, expire); a
second run adds a layer of 1,000 facts hanging on the first through learned `depends_on` (a
chain of two hops, so doubt has to travel). Measured: the pure planner alone, and `Vault.set` end to end
(lock, scan, plan, transaction with journal, atomic writes of every changed file), each on a
fresh vault that an earlier command has read (snapshot and rules cache warm), with CPU time
beside wall time; and the floor: the same number of files written through a temporary file and
a rename each, then one `os.sync()`, as the transaction does.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import yaml

from mdmem import Vault
from mdmem.engine.decide import Statement, plan_statements
from mdmem.files import atomic_write
from mdmem.model.factfile import Fact, render


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


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    print(f"load average {os.getloadavg()[0]:.1f}; median (min) of {reps} runs, each on a fresh vault")
    for second_hop in (False, True):
        run(n, second_hop, reps)


def _cpu() -> float:
    return time.process_time()


def _ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:7.1f} ms ({min(values) * 1000:6.1f})"


def run(n: int, second_hop: bool, reps: int) -> None:
    plan_wall, set_wall, set_cpu, floor_wall, floor_cpu = [], [], [], [], []
    changes = files = 0
    for _ in range(reps):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp) / "vault"
            build(root, n, second_hop)
            warm = Vault(root, now="2026-02-10T09:00:00Z")  # as after any earlier command:
            facts, rules = warm.facts, warm.rules  # snapshot and rules cache in .mdmem/
            os.sync()  # the files on disk, as in a vault not written a moment ago
            st = Statement("user", "home_city", value="Shanghai", at="2026-02-10")
            t = time.perf_counter()
            plan = plan_statements(facts, rules, [st], now="2026-02-10T09:00:00Z")
            plan_wall.append(time.perf_counter() - t)
            changes = len(plan.changes)
            t, cpu = time.perf_counter(), _cpu()
            result = Vault(root, now="2026-02-10T09:00:00Z").set(
                "home_city", "Shanghai", date="2026-02-10"
            )
            set_wall.append(time.perf_counter() - t)
            set_cpu.append(_cpu() - cpu)
            files = len(result.plan.changes)
            # The floor: the same bytes through the same temporary file and rename per file,
            # and one os.sync(), with nothing read, planned or journaled.
            texts = [(p, p.read_bytes() + b"\n") for p in sorted((root / "facts").rglob("*.md"))]
            texts = texts[:files]
            t, cpu = time.perf_counter(), _cpu()
            for p, data in texts:
                atomic_write(p, data, durable=False)
            os.sync()
            floor_wall.append(time.perf_counter() - t)
            floor_cpu.append(_cpu() - cpu)
    extra = f" + {n:,} second-hop facts" if second_hop else ""
    print(f"cascade over {n:,} dependents{extra} ({changes:,} changes)")
    print(f"  plan only (pure), wall:                      {_ms(plan_wall)}")
    print(f"  Vault.set end to end ({files:,} files), CPU:    {_ms(set_cpu)}")
    print(f"  … wall (a busy machine's is mostly waiting):  {_ms(set_wall)}")
    print(f"  floor: temp file + rename per file + os.sync, CPU {_ms(floor_cpu)}, wall {_ms(floor_wall)}")


if __name__ == "__main__":
    main()
