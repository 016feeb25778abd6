"""Benchmark one cascade over 1,000 dependents (target: well under a second, docs/architecture.md); prints figures.

    .venv/bin/python benchmarks/bench_cascade.py          # 1,000 dependents
    .venv/bin/python benchmarks/bench_cascade.py 5000     # another size

The rules declare `home_city` → 1,000 attributes in three kinds (derive, confirm, expire); a
second run adds a layer of 1,000 facts hanging on the first through learned `depends_on` (a
chain of two hops, so doubt has to travel). Measured: the pure planner alone, and `Vault.set` end to end
(lock, scan, plan, transaction with journal, atomic writes of every changed file).
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import yaml

from mdmem import Vault
from mdmem.engine.decide import Statement, plan_statements
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
    for second_hop in (False, True):
        run(n, second_hop)


def run(n: int, second_hop: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "vault"
        build(root, n, second_hop)
        vault = Vault(root, now="2026-02-10T09:00:00Z")
        facts = vault.facts
        st = Statement("user", "home_city", value="Shanghai", at="2026-02-10")
        t = time.perf_counter()
        plan = plan_statements(facts, vault.rules, [st], now="2026-02-10T09:00:00Z")
        planned = time.perf_counter() - t
        t, cpu = time.perf_counter(), time.process_time()
        result = Vault(root, now="2026-02-10T09:00:00Z").set(
            "home_city", "Shanghai", date="2026-02-10"
        )
        applied, cpu = time.perf_counter() - t, time.process_time() - cpu
        extra = f" + {n:,} second-hop facts" if second_hop else ""
        print(f"cascade over {n:,} dependents{extra} ({len(plan.changes):,} changes)")
        print(f"  plan only (pure):                      {planned * 1000:8.1f} ms")
        print(
            f"  Vault.set end to end (scan+plan+write): {applied * 1000:8.1f} ms, {len(result.plan.changes):,} files"
        )
        print(f"    of which CPU time (a busy machine's wall time is mostly waiting): {cpu * 1000:.1f} ms")


if __name__ == "__main__":
    main()
