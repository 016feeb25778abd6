"""Passage retrieval speed: build the passage index and answer from it, at a given size.

    .venv/bin/python benchmarks/bench_passages.py [N_PASSAGES ...]   (default: 6000 100000)

Generates episode files (one per day, 50 messages each; words drawn with a fixed seed from a
Zipf-distributed vocabulary of 20,000 pseudo-words plus some everyday ones, as chat is), then times the cold index build, a no-change refresh, and searches of
questions that do and do not match, in one process (as `ask` does after its fact lookup).
6,000 passages is about LoCoMo's size.
"""

from __future__ import annotations

import random
import statistics
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

PER_DAY = 50
WORDS = ["hike", "camping", "lake", "sunrise", "painting", "dog", "cat", "guitar", "concert", "pottery", "support", "group", "school", "counselor", "adoption", "beach", "bakery", "frosting", "coconut", "lemon", "cake", "novel", "screenplay", "marathon", "charity", "race", "bowling", "eagles", "museum", "library", "garden", "tomato", "violin", "jazz", "friend", "sister", "brother", "mother", "father", "kids", "husband", "wife", "office", "studio", "gallery"]  # fmt: skip


def _vocabulary() -> tuple[list[str], list[float]]:
    words = WORDS + [f"w{i}x" for i in range(20_000)]
    return words, [1 / (rank + 1) for rank in range(len(words))]


def build(root: Path, n: int) -> None:
    from mdmem.model.episode import Episode, Said, episode_path, render

    rng = random.Random(7)
    vocab, weights = _vocabulary()
    day = date(2020, 1, 1)
    for start in range(0, n, PER_DAY):
        said = [
            Said(f"m{i + 1}", rng.choice(("Ana", "Ben")), None,
                 " ".join(rng.choices(vocab, weights, k=rng.randint(8, 30))) + ".")
            for i in range(min(PER_DAY, n - start))
        ]  # fmt: skip
        ep = Episode("gen.md", "0" * 64, day.isoformat(), ["Ana", "Ben"], None, said)
        path = root / episode_path(day.isoformat(), f"gen-{start}.md")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render(ep), encoding="utf-8")
        day += timedelta(days=1)


def main(argv: list[str]) -> int:
    from mdmem.read.passages import PassageIndex, named_speaker
    from mdmem.read.question import named_period

    sizes = [int(a) for a in argv] or [6000, 100_000]
    questions = ["What did Ana say about the coconut frosting on the cake?",
                 "When did Ben go camping by the lake?", "What about quantum chromodynamics?"]  # fmt: skip
    for n in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            build(root, n)
            t0 = time.perf_counter()
            idx = PassageIndex(root, root / ".mdmem")
            idx.refresh()
            cold = time.perf_counter() - t0
            t1 = time.perf_counter()
            idx.refresh()
            warm_refresh = time.perf_counter() - t1
            times = []
            for _ in range(20):
                for q in questions:
                    t2 = time.perf_counter()
                    idx.search(q, speaker=named_speaker(q, idx.speakers()), near=named_period(q))
                    times.append(time.perf_counter() - t2)
            idx.close()
            size = sum(p.stat().st_size for p in (root / ".mdmem").iterdir()) / 2**20
            print(f"{n:>7} passages: cold build {cold:6.2f} s, no-change refresh "
                  f"{warm_refresh * 1000:6.1f} ms, search median {statistics.median(times) * 1000:5.1f} ms"
                  f" (max {max(times) * 1000:5.1f} ms), index {size:.1f} MiB")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    raise SystemExit(main(sys.argv[1:]))
