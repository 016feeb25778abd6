"""Benchmark `ask` on generated vaults of 10,000 and 100,000 facts; prints its figures.

    .venv/bin/python benchmarks/bench_ask.py            # both sizes
    .venv/bin/python benchmarks/bench_ask.py 10000      # one size

For each size it writes a vault with the personal rule pack into a temporary folder (fact
files rendered directly: generating through `mdmem set` would time the writer, not the
reader), then measures:

- cold: the first `ask`, with no index (builds .mdmem/index.sqlite from every file);
- warm: later `ask`s with nothing changed (the folders each read touches are stat'ed + query
  + answer);
- a long-running process: one open Index, `refresh_as_read` before each question;
- the parts of a warm ask: the stat sweep of every fact file, and the query and answer alone;
- after one change: an `ask` right after `mdmem set` (one file re-indexed);
- after a forget: an `ask` right after `forget` (the index is scrubbed of the value);
- the `mdmem ask` command end to end (process start-up included).
"""

from __future__ import annotations

import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mdmem import Vault
from mdmem.model.factfile import Fact, render
from mdmem.read.ask import answer_from_index, ask
from mdmem.read.index import INDEX_FILE, Index
from mdmem.store.walk import walk, walk_digest

QUESTIONS = [
    "Where do I live?", "我住在哪个城市？", "Where do I work?", "我的社保在哪交？",
    "How long is my commute?", "Where did I live before?", "Tell me everything about my commute",
    "What is my favourite colour?", "Do I still live in Guangzhou?", "我以前住在哪？",
    "What does person0042 do for work?", "List all the cities I've lived in from earliest to latest",
]  # fmt: skip
CITIES = ["Guangzhou", "Shanghai", "Beijing", "Shenzhen", "杭州", "成都", "Berlin", "London"]
WORDS = ["alpha", "beta", "gamma", "delta", "maple", "cedar", "river", "stone", "cloud", "ember"]


def make_vault(root: Path, n_facts: int, seed: int = 7) -> Vault:
    """A vault of about n_facts fact files: the user plus many other people, 25 slots each."""
    rng = random.Random(seed)
    vault = Vault.create(root, "personal", now="2026-03-01T12:00:00Z")
    attrs = sorted(vault.rules.attributes)
    people = max(1, n_facts // len(attrs))
    written = 0
    for p in range(people):
        entity = "user" if p == 0 else f"person{p:04d}"
        folder = root / "facts" / entity
        folder.mkdir(parents=True, exist_ok=True)
        for attr in attrs:
            if written >= n_facts:
                break
            fact = _fact(entity, attr, rng)
            (folder / f"{attr}.md").write_text(render(fact), encoding="utf-8")
            written += 1
    return vault


def _fact(entity: str, attr: str, rng: random.Random) -> Fact:
    if attr.endswith("city") or attr == "hometown":
        value, old = rng.choice(CITIES), rng.choice(CITIES)
    else:
        value = f"{rng.choice(WORDS)} {rng.choice(WORDS)} {rng.randint(1, 999)}"
        old = f"{rng.choice(WORDS)} {rng.randint(1, 999)}"
    history = []
    if rng.random() < 0.3:  # some facts changed once
        history.append({"value": old, "status": "archived", "valid_from": "2022-01-01",
                        "valid_to": "2024-06-01", "recorded_at": "2022-01-01T00:00:00Z",
                        "source": "cli", "reason": "superseded by a new statement"})  # fmt: skip
    status = rng.choices(["active", "uncertain", "tentative"], weights=[90, 7, 3])[0]
    why = None
    if status == "uncertain":
        why = {"fact": f"{entity}/home_city", "change": "changed", "changed_at": "2026-02-10",
               "question": {"en": "Is this still right?", "zh": "这个还对吗？"}}  # fmt: skip
    return Fact(entity=entity, attribute=attr, value=value, status=status,
                valid_from="2024-06-01" if history else "2023-01-01",
                recorded_at="2024-06-01T00:00:00Z", source="cli", uncertain_because=why,
                history=history, body="Generated for the benchmark.")  # fmt: skip


def timed(fn: object, *args: object, **kwargs: object) -> tuple[float, object]:
    started = time.perf_counter()
    out = fn(*args, **kwargs)  # type: ignore[operator]
    return (time.perf_counter() - started) * 1000, out


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def bench(n_facts: int) -> None:
    with tempfile.TemporaryDirectory(prefix="mdmem-bench-") as tmp:
        root = Path(tmp) / "vault"
        started = time.perf_counter()
        vault = make_vault(root, n_facts)
        made = time.perf_counter() - started
        files = sum(len(names) for _, names, _ in walk(root))
        print(f"\n== {files:,} fact files ({made:.1f} s to generate) ==")

        cold, _ = timed(ask, vault, QUESTIONS[0])
        size = (root / ".mdmem" / INDEX_FILE).stat().st_size
        print(f"cold ask (builds the index):      {cold:9.1f} ms   index {size / 1e6:.1f} MB")

        warm = []
        for _ in range(3):
            for q in QUESTIONS:
                ms, _ = timed(ask, vault, q)
                warm.append(ms)
        print(f"warm ask, {len(warm)} questions:         median {statistics.median(warm):7.1f} ms"
              f"   p95 {pct(warm, 0.95):7.1f} ms   max {max(warm):7.1f} ms")  # fmt: skip

        sweep = [timed(lambda: walk_digest(walk(root)))[0] for _ in range(5)]
        print(f"  of which the stat sweep:        median {statistics.median(sweep):7.1f} ms")
        with Index(root) as index:
            fresh = [timed(index.refresh)[0] for _ in range(5)]
            print(f"  refresh with nothing changed:   median {statistics.median(fresh):7.1f} ms")
            rules = vault.rules
            query = []
            for _ in range(3):
                for q in QUESTIONS:
                    ms, _ = timed(answer_from_index, index, rules, q)
                    query.append(ms)
            print(f"  query and answer alone:         median {statistics.median(query):7.1f} ms"
                  f"   p95 {pct(query, 0.95):7.1f} ms")  # fmt: skip
            kept = []  # a long-running process (MCP server, watch): index open, fresh per read
            for _ in range(3):
                for q in QUESTIONS:
                    index.refresh_as_read()
                    kept.append(timed(answer_from_index, index, rules, q)[0])
            print(f"  index kept open, fresh per read: median {statistics.median(kept):6.1f} ms"
                  f"   p95 {pct(kept, 0.95):7.1f} ms")  # fmt: skip

        vault.set("employer", "Orbit Labs", date="2026-02-20")
        changed, answer = timed(ask, vault, "Who is my employer?")
        assert "Orbit Labs" in answer.text  # type: ignore[attr-defined]
        print(f"ask after one `set`:              {changed:9.1f} ms")

        vault.forget("hobby")
        forgot, answer = timed(ask, vault, "What are my hobbies?")
        assert "removed" in answer.text  # type: ignore[attr-defined]
        print(f"ask after a `forget` (scrub):     {forgot:9.1f} ms")

        cli = []
        env = {**os.environ, "MDMEM_NOW": "2026-03-01T12:00:00Z"}
        for q in QUESTIONS[:4]:
            started = time.perf_counter()
            subprocess.run([str(Path(sys.executable).parent / "mdmem"), "ask", q, "--vault", str(root)],
                           check=True, capture_output=True, env=env)  # fmt: skip
            cli.append((time.perf_counter() - started) * 1000)
        print(f"`mdmem ask` end to end (process): median {statistics.median(cli):7.1f} ms")


def main() -> None:
    sizes = [int(a) for a in sys.argv[1:]] or [10_000, 100_000]
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs")
    for n in sizes:
        bench(n)


if __name__ == "__main__":
    main()
