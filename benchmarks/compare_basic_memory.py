"""Side by side with basic-memory on the same generated files; skipped when it is not installed.

    .venv/bin/python benchmarks/compare_basic_memory.py [FILES]     # default 1,000

Install basic-memory yourself to run it (`pipx install basic-memory`, or into another venv with
its `basic-memory` command on PATH); it is not a dependency of mdmem. Both tools get the same
fact files (bench_ask.make_vault): mdmem reads them as its vault, basic-memory as a project
folder of Markdown notes. The runs are interleaved (one of each in turn, medians of RUNS) so a
busy machine slows both alike: ratios hold, absolute times are upper bounds. Measured, each as a
separate process: a cold index, a re-sync with nothing changed, and a search.

The basic-memory commands below are those of 0.24.1; adjust BM if its CLI changes.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_ask import make_vault  # noqa: E402

RUNS = 5
QUERY = "Shanghai"


def bm_commands(bm: str, project: Path, home: Path) -> dict[str, list[str]]:
    """basic-memory's CLI for each measurement (0.24.1)."""
    return {
        "setup": [bm, "project", "add", "bench", str(project)],
        "index": [bm, "sync", "--project", "bench"],
        "resync": [bm, "sync", "--project", "bench"],
        "search": [bm, "tool", "search-notes", QUERY, "--project", "bench"],
    }


def mdmem_commands(vault: Path) -> dict[str, list[str]]:
    mdmem = str(Path(sys.executable).parent / "mdmem")
    return {
        "index": [mdmem, "ask", QUERY, "--vault", str(vault)],  # the first read builds it
        "resync": [mdmem, "sync", "--vault", str(vault)],
        "search": [mdmem, "ask", f"Who lives in {QUERY}?", "--vault", str(vault)],
    }


def run(cmd: list[str], env: dict[str, str]) -> float:
    """Wall seconds of one command."""
    t = time.perf_counter()
    subprocess.run(cmd, env=env, check=False, capture_output=True)
    return time.perf_counter() - t


def main(n: int) -> None:
    bm = shutil.which("basic-memory") or shutil.which("bm")
    if bm is None:
        print("basic-memory is not installed (no `basic-memory` on PATH): skipped.")
        return
    with tempfile.TemporaryDirectory(prefix="mdmem-vs-bm-") as tmp:
        vault = Path(tmp) / "vault"
        make_vault(vault, n)
        home = Path(tmp) / "bm-home"
        env = {**os.environ, "HOME": str(home), "BASIC_MEMORY_HOME": str(home)}
        ours, theirs = mdmem_commands(vault), bm_commands(bm, vault / "facts", home)
        subprocess.run(theirs["setup"], env=env, check=False, capture_output=True)
        print(f"{n:,} files; load average {os.getloadavg()[0]:.1f}")
        for step in ("index", "resync", "search"):
            times: dict[str, list[float]] = {"mdmem": [], "basic-memory": []}
            for _ in range(1 if step == "index" else RUNS):
                times["mdmem"].append(run(ours[step], env))
                times["basic-memory"].append(run(theirs[step], env))
            a, b = (statistics.median(times[k]) for k in ("mdmem", "basic-memory"))
            print(f"{step:<7} mdmem {a:8.3f} s   basic-memory {b:8.3f} s   ratio {b / a:6.1f}x")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
