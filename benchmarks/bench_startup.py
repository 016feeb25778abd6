"""Benchmark process start-up: `mdmem --help` and `mdmem ask` on the sample vault; prints figures.

    .venv/bin/python benchmarks/bench_startup.py [RUNS]     # default 21 runs of each
    .venv/bin/python benchmarks/bench_startup.py 11 --facts 100000 --before /tmp/old

Commands are interleaved (one run of each in turn) so a noisy neighbour slows all of them
alike; each figure is the median wall time and the median CPU time (user + sys) of its runs.
The floor is `python -c pass` with the same interpreter. Then `python -X importtime` lists the
ten slowest imports of `mdmem ask` (cumulative, one run).

`--facts N` adds `mdmem ask` on a generated vault of N facts (bench_ask.py's, index built
first); `--vault PATH` on a vault already there. `--before SRC` runs every mdmem case a second time with another copy of the package
on PYTHONPATH (e.g. `git archive main mdmem | tar -x -C /tmp/old`), interleaved with this one,
each on its own warmed copy of the vault (the rules cache is keyed by the code).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VAULT = ROOT / "sample_vault"
PY = sys.executable
MDMEM = [PY, "-c", "from mdmem.cli import main; main()"]
CASES = {
    "python -c pass (floor)": [PY, "-c", "pass"],
    "import typer (part of every command)": [PY, "-c", "import typer"],
    "mdmem --help": [*MDMEM, "--help"],
    "mdmem ask --help": [*MDMEM, "ask", "--help"],
    "mdmem ask (sample vault)": [*MDMEM, "ask", "Where do I live?", "--vault", str(VAULT)],
}


# As installed: bytecode cached. With PYTHONDONTWRITEBYTECODE set (as on some CI machines) every
# start compiles mdmem's modules from source again, ~80 ms that no user pays.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _run(cmd: list[str], env: dict[str, str] = ENV) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    # Run outside the checkout: `python -c` puts the working folder first on sys.path, which
    # would shadow the package given on PYTHONPATH by --before.
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, env=env,
                   cwd=tempfile.gettempdir())  # fmt: skip
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("runs", nargs="?", type=int, default=21)
    parser.add_argument("--facts", type=int, default=0)
    parser.add_argument("--vault", type=Path, help="also `mdmem ask` on this (built) vault")
    parser.add_argument("--before", type=Path)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mdmem-startup-") as tmp:
        cases = dict(CASES)
        if args.vault:
            cases[f"mdmem ask ({args.vault.name})"] = [*MDMEM, "ask", "Where do I live?", "--vault", str(args.vault)]  # fmt: skip
        if args.facts:
            from bench_ask import make_vault

            vault = Path(tmp) / "vault"
            make_vault(vault, args.facts)
            cases[f"mdmem ask ({args.facts:,} facts)"] = [*MDMEM, "ask", "Where do I live?", "--vault", str(vault)]  # fmt: skip
            subprocess.run([*MDMEM, "ask", "warm up the index", "--vault", str(vault)], capture_output=True)  # fmt: skip
        measure(cases, args.runs, args.before, Path(tmp))


def _own_vault(cmd: list[str], to: Path, env: dict[str, str]) -> list[str]:
    """cmd on a copy of its vault, warmed by the code of env: the rules cache is keyed by the
    code, so two copies of mdmem sharing one vault would each miss it at every turn and time a
    rules.yaml parse no warm `ask` pays."""
    if "--vault" not in cmd:
        return cmd
    at = cmd.index("--vault") + 1
    shutil.copytree(cmd[at], to)
    own = [*cmd[:at], str(to), *cmd[at + 1 :]]
    subprocess.run([*MDMEM, "ask", "warm up the index", "--vault", str(to)], capture_output=True, env=env,
                   cwd=tempfile.gettempdir())  # fmt: skip
    return own


def measure(cases: dict[str, list[str]], runs: int, before: Path | None, tmp: Path) -> None:
    print(f"load average {os.getloadavg()[0]:.1f}; {runs} interleaved runs each")
    subprocess.run([PY, "-m", "compileall", "-q", str(ROOT / "mdmem")], capture_output=True)
    subprocess.run([*MDMEM, "ask", "warm up the index", "--vault", str(VAULT)], capture_output=True)
    runs_of: dict[str, tuple[list[str], dict[str, str]]] = {}
    for name, cmd in cases.items():
        runs_of[name] = (cmd, ENV)
        if before is not None and cmd[:len(MDMEM)] == MDMEM:
            subprocess.run([PY, "-m", "compileall", "-q", str(before / "mdmem")], capture_output=True)
            env = {**ENV, "PYTHONPATH": str(before)}
            runs_of[f"{name}, before"] = (_own_vault(cmd, tmp / f"before-{len(runs_of)}", env), env)
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in runs_of}
    for _ in range(runs):
        for name, (cmd, env) in runs_of.items():
            times[name].append(_run(cmd, env))
    for name, got in times.items():
        wall = statistics.median(w for w, _ in got) * 1000
        cpu = statistics.median(c for _, c in got) * 1000
        print(f"{name:<40} median wall {wall:6.0f} ms   cpu {cpu:6.0f} ms")
    print(f"load average {os.getloadavg()[0]:.1f} at the end")
    out = subprocess.run(
        [PY, "-X", "importtime", *MDMEM[1:], "ask", "Where do I live?", "--vault", str(VAULT)],
        capture_output=True, text=True, env=ENV,
    )  # fmt: skip
    rows = [line.split("|") for line in out.stderr.splitlines() if line.startswith("import time:")]
    top = sorted(((int(r[1]), r[2].rstrip()) for r in rows[1:] if r[1].strip().isdigit()),
                 reverse=True)[:10]  # fmt: skip
    print("slowest imports of `mdmem ask` (cumulative µs):")
    for us, name in top:
        print(f"  {us:>8} {name}")


if __name__ == "__main__":
    main()
