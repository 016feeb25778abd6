"""Benchmark `check`, `sync` and `watch` on a generated vault of 100,000 fact files; prints figures.

    .venv/bin/python benchmarks/bench_sync.py            # 100,000 facts
    .venv/bin/python benchmarks/bench_sync.py 10000      # another size

The vault has the user's Guangzhou → Shanghai facts (tests/data/story_rules.yaml) plus many
other entities with 100 slots each, written directly (rendering 100,000 files through `mdmem
set` would time the writer). mdmem's manifest is written as if mdmem had written them all.
Each measurement runs in a fresh process, as a command would, and reports the time inside it
(interpreter start-up excluded) and the wall time of the whole process.

- cold check: no snapshot yet: every file is read and parsed once (and the snapshot saved);
- check / sync, nothing changed: stat every file, compare one digest of their signatures
  with the one the snapshot recorded (benchmarks/bench_cache.py puts floors beside these);
- save → cascade: a real watcher (default debounce) sees an editor's save (temporary file
  renamed over `home_city.md`) and the derived `social_insurance_city.md` is written; median of 5.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from mdmem import Vault
from mdmem.edit.watch import DEBOUNCE, Watcher
from mdmem.files import sha256
from mdmem.model.factfile import Fact, render

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "tests" / "data" / "story_rules.yaml"
STORY = [
    ("home_city", "广州"), ("employer", "Acme"), ("social_insurance_city", "广州"),
    ("home_address", "Haizhu"), ("commute_mode", "bike"), ("commute_minutes", "20"),
]  # fmt: skip
NOW = "2026-03-01T12:00:00Z"


def make_vault(root: Path, n_facts: int) -> Vault:
    """The user's story plus other entities' facts, n_facts files in all, all 'written by mdmem'."""
    vault = Vault.create(root, str(RULES), now=NOW)
    written: dict[str, str] = {}

    def put(entity: str, attribute: str, text: str) -> None:
        folder = root / "facts" / entity
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{attribute}.md").write_text(text, encoding="utf-8")
        written[f"facts/{entity}/{attribute}.md"] = sha256(text)

    for attr, value in STORY:
        put("user", attr, render(_fact("user", attr, value)))
    # One rendered template, its names filled in: the bytes render() would write, 100x faster.
    template = render(_fact("ENTITYX", "ATTRX", "VALUEX"))
    for i in range(n_facts - len(STORY)):
        entity, attr = f"person{i // 100:05d}", f"slot_{i % 100:02d}"
        text = template.replace("ENTITYX", entity).replace("ATTRX", attr)
        put(entity, attr, text.replace("VALUEX", f"value{i}"))
    vault.manifest.data.update(written)
    vault.manifest.save()
    return vault


def _fact(entity: str, attribute: str, value: str) -> Fact:
    return Fact(
        entity=entity, attribute=attribute, value=value, status="active",
        valid_from="2025-08-15", recorded_at=NOW, source="cli", body="Generated.",
    )  # fmt: skip


def in_child(code: str, root: Path) -> tuple[float, float]:
    """Run code in a fresh process; (seconds the code took inside it, wall seconds)."""
    script = (
        "import time, sys\nfrom mdmem import Vault\nfrom mdmem.edit.sync import sync\n"
        f"v = Vault({str(root)!r})\nt = time.perf_counter()\n{code}\n"
        "print(time.perf_counter() - t)\n"
    )
    env = {**os.environ, "MDMEM_NOW": NOW}
    start = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True
    )
    return float(out.stdout.split()[-1]), time.perf_counter() - start


def save_to_cascade(root: Path, rounds: int = 5) -> list[float]:
    """Seconds from an editor's save of home_city.md to the derived fact written, per round."""
    watcher = Watcher(root, log=lambda line: None)
    thread = threading.Thread(target=watcher.run, daemon=True)
    thread.start()
    time.sleep(2.0)  # the observer is up and the catch-up sync is done
    home = root / "facts/user/home_city.md"
    derived = root / "facts/user/social_insurance_city.md"
    cities = ["广州", "上海", "深圳", "杭州", "成都", "北京"]
    took = []
    try:
        for i in range(rounds):
            old, new = cities[i % len(cities)], cities[(i + 1) % len(cities)]
            text = home.read_text(encoding="utf-8").replace(f"value: {old}", f"value: {new}", 1)
            text = _set_valid_from(text, f"2026-{i + 3:02d}-01")
            tmp = home.with_name("home_city.md.tmp")
            tmp.write_text(text, encoding="utf-8")
            start = time.perf_counter()
            os.replace(tmp, home)
            while f"value: {new}\n" not in derived.read_text(encoding="utf-8"):
                if time.perf_counter() - start > 30:
                    raise RuntimeError("the cascade did not land within 30 s")
                time.sleep(0.005)
            took.append(time.perf_counter() - start)
            time.sleep(1.0)  # let the watcher see its own writes and settle
    finally:
        watcher.stop()
        thread.join(10)
    return took


def _set_valid_from(text: str, day: str) -> str:
    """A distinct date per round, so each move is a new change (same-day re-derivation aside)."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.startswith("valid_from:"):
            lines[i] = f"valid_from: '{day}'"
            break
    return "\n".join(lines)


def main() -> None:
    n_facts = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    os.environ["MDMEM_NOW"] = NOW
    tmp = Path(tempfile.mkdtemp(prefix="mdmem-bench-sync-"))
    try:
        root = tmp / "vault"
        start = time.perf_counter()
        make_vault(root, n_facts)
        print(f"vault: {n_facts:,} fact files, generated in {time.perf_counter() - start:.1f} s")
        figures = {}
        figures["cold check (no snapshot)"] = in_child("p = v.check()", root)
        for _ in range(2):  # the first warm run may still re-verify just-written files
            in_child("p = v.check()", root)
        for name, code in [
            ("check, nothing changed", "p = v.check()"),
            ("sync, nothing changed", "r = sync(v)"),
            ("scan, nothing changed", "f = v.scan()"),
        ]:  # the median of three runs: a shared machine is noisy
            runs = sorted(in_child(code, root) for _ in range(3))
            figures[name] = runs[1]
        cache = root / ".mdmem" / "index.sqlite"  # the snapshot's tables (and the index's)
        print(f"cache database: {cache.stat().st_size / 1e6:.1f} MB")
        for name, (inside, wall) in figures.items():
            print(f"{name:<28} {inside:6.2f} s inside the process, {wall:6.2f} s wall")
        took = save_to_cascade(root)
        print(
            f"save → cascade written (debounce {DEBOUNCE * 1000:.0f} ms): median"
            f" {statistics.median(took):.2f} s, min {min(took):.2f} s, max {max(took):.2f} s"
            f" over {len(took)} saves"
        )
        small = tmp / "small"
        make_vault(small, len(STORY))
        took = save_to_cascade(small)
        print(
            f"save → cascade written, {len(STORY)}-fact vault: median"
            f" {statistics.median(took):.2f} s, min {min(took):.2f} s, max {max(took):.2f} s"
        )
        print(json.dumps({"facts": n_facts, "python": sys.version.split()[0]}))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
