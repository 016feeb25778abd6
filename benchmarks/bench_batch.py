"""Nightly updates over many vaults: a shell loop of `mdmem ingest` against `mdmem batch`.

    .venv/bin/python benchmarks/bench_batch.py [--vaults 2000] [--loop-vaults N] [--no-dask]

Generates VAULTS vaults (the `personal` pack, opened once, as an existing vault is) and one
transcript each, then times, in one run and on fresh copies of the same vaults:

- an in-process loop of `ingest_paths` (no batch machinery: the floor a batch pays on top of),
- a shell loop of `mdmem ingest T --vault V --quiet` (one process per vault: today's way),
- `mdmem batch --workers 1`, `--workers 2`, and `--engine dask --workers 2` (a local cluster).

Each prints vaults per second, CPU time (for a batch: its driver and workers, as its summary
reports them), the peak memory of its largest worker and the load average before and after,
then checks the work was done: every vault's journal has the ingest entry of its transcript.
The machine's load distorts the 1 → 2 worker scaling: read the load columns with it.
`--loop-vaults N` times the shell loop on the first N vaults only (its rate is per vault).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MDMEM = Path(sys.executable).parent / "mdmem"
NOW = "2026-03-01T12:00:00Z"
DATE = "2026-03-01"
CITIES = ["Guangzhou", "Shanghai", "Berlin", "Lisbon", "Toronto", "Osaka", "Nairobi", "Lima"]
EMPLOYERS = ["Lingnan Tech", "Acme", "Globex", "Initech", "Umbrella", "Hooli", "Vandelay"]
MONTHS = ["January", "March", "May", "July", "September", "November"]


def transcript(i: int) -> str:
    """A short night's chat for vault i: a few facts the personal pack knows, and small talk."""
    city, employer = CITIES[i % len(CITIES)], EMPLOYERS[(i // 3) % len(EMPLOYERS)]
    return (
        f"User: Evening! Quick update before I forget.\n"
        f"Assistant: Go ahead.\n"
        f"User: I live in {city} now. I work at {employer} as a designer.\n"
        f"Assistant: Noted.\n"
        f"User: I cycle {10 + i % 30} minutes to work, which is fine most days.\n"
        f"User: Oh, and my birthday is {1 + i % 28} {MONTHS[i % len(MONTHS)]}.\n"
        f"Assistant: Got it, thanks!\n"
    )


def make_set(base: Path, name: str, template: Path, n: int) -> Path:
    """A root of n copies of the template vault (u00000, …) and a manifest naming them."""
    root = base / name
    lines = []
    for i in range(n):
        shutil.copytree(template, root / f"u{i:05d}", symlinks=True)
        lines.append(
            json.dumps({"vault": f"u{i:05d}", "inputs": [f"../chats/u{i:05d}.md"], "date": DATE})
        )
    (root / "manifest.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def load() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


def check_done(root: Path, chats: Path, n: int) -> int:
    """How many of the n vaults have the ingest entry of their own transcript in the journal."""
    done = 0
    for i in range(n):
        sha = hashlib.sha256((chats / f"u{i:05d}.md").read_bytes()).hexdigest()
        journal = root / f"u{i:05d}" / ".mdmem" / "journal.jsonl"
        rows = [
            json.loads(t) for t in journal.read_text(encoding="utf-8").splitlines() if t.strip()
        ]
        done += any(
            r.get("command") == "ingest" and (r.get("source") or {}).get("sha256") == sha
            for r in rows
        )
    return done


def in_process(root: Path, chats: Path, n: int) -> dict[str, Any]:
    """`ingest_paths` on each vault in this process, one after another: no batch around it."""
    from mdmem.edit.ingest import ingest_paths
    from mdmem.store.vault import Vault

    cpu0, t0 = time.process_time(), time.perf_counter()
    for i in range(n):
        ingest_paths(Vault(root / f"u{i:05d}"), [chats / f"u{i:05d}.md"], date=DATE)
    return {"seconds": time.perf_counter() - t0, "cpu": time.process_time() - cpu0, "peak": None}


def shell_loop(root: Path, chats: Path, n: int) -> dict[str, Any]:
    script = (
        'while read -r v t; do "$MDMEM" ingest "$t" --vault "$v" --date "$DATE" --quiet 2>/dev/null'
        ' || echo "failed: $v" >&2; done'
    )
    pairs = "".join(f"{root / f'u{i:05d}'} {chats / f'u{i:05d}.md'}\n" for i in range(n))
    env = dict(os.environ, MDMEM=str(MDMEM), DATE=DATE, MDMEM_NOW=NOW)
    cpu0, t0 = children_cpu(), time.perf_counter()
    subprocess.run(["bash", "-c", script], input=pairs, text=True, env=env, check=True, stdout=subprocess.DEVNULL)  # fmt: skip
    return {"seconds": time.perf_counter() - t0, "cpu": children_cpu() - cpu0, "peak": None}


def batch(root: Path, *args: str) -> dict[str, Any]:
    cmd = [str(MDMEM), "batch", "manifest.jsonl", "--root", str(root), "--quiet", *args]
    t0 = time.perf_counter()
    out = subprocess.run(cmd, cwd=root, capture_output=True, text=True, env=dict(os.environ, MDMEM_NOW=NOW))  # fmt: skip
    seconds = time.perf_counter() - t0
    lines = [json.loads(t) for t in out.stdout.splitlines()]
    summary = lines[-1]["summary"] if lines and "summary" in lines[-1] else {}
    if out.returncode != 0 or summary.get("failed"):
        sys.exit(f"{' '.join(cmd)} exited {out.returncode}: {out.stderr[-2000:]}")
    workers = summary["workers"]
    jobs = [line["seconds"] for line in lines[:-1]]
    return {
        "seconds": seconds,
        "cpu": sum(w["cpu_seconds"] for w in workers) + summary["driver"]["cpu_seconds"],
        "peak": max(w["peak_rss_mib"] for w in workers),
        "job_median": sorted(jobs)[len(jobs) // 2],
        "workers": len(workers),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vaults", type=int, default=2000)
    parser.add_argument("--loop-vaults", type=int, default=None, help="time the shell loop on these first vaults only")  # fmt: skip
    parser.add_argument("--no-dask", action="store_true", help="skip the Dask local cluster")
    args = parser.parse_args()
    n, loop_n = args.vaults, min(args.loop_vaults or args.vaults, args.vaults)
    os.environ["MDMEM_NOW"] = NOW
    from mdmem.store.vault import Vault

    with tempfile.TemporaryDirectory(prefix="bench-batch-") as tmp:
        base = Path(tmp)
        chats = base / "chats"
        chats.mkdir()
        for i in range(n):
            (chats / f"u{i:05d}.md").write_text(transcript(i), encoding="utf-8")
        template = base / "template"
        Vault.create(template, "personal").scan()  # opened once: its caches made, as a vault's are
        runs: list[tuple[str, str, int, Any]] = [
            (
                "floor",
                "in-process ingest_paths loop",
                loop_n,
                lambda r: in_process(r, chats, loop_n),
            ),
            (
                "loop",
                "shell loop of `mdmem ingest`",
                loop_n,
                lambda r: shell_loop(r, chats, loop_n),
            ),
            ("w1", "batch --workers 1", n, lambda r: batch(r, "--workers", "1")),
            ("w2", "batch --workers 2", n, lambda r: batch(r, "--workers", "2")),
        ]
        if not args.no_dask:
            runs.append(("dask", "batch --engine dask --workers 2", n, lambda r: batch(r, "--engine", "dask", "--workers", "2")))  # fmt: skip
        print(
            f"{n} vaults, one transcript each ({os.cpu_count()} CPUs, Python {sys.version.split()[0]})"
        )
        print(f"{'run':<34} {'vaults':>6} {'seconds':>8} {'vaults/s':>9} {'CPU s':>7} {'CPU ms/vault':>12} {'peak MiB':>8}  load before → after")  # fmt: skip
        rate: dict[str, float] = {}  # vaults a second
        cpu: dict[str, float] = {}  # CPU seconds a vault: what the machine's load distorts least
        for i, (key, name, count, fn) in enumerate(runs):
            root = make_set(base, f"set{i}", template, count)
            before = load()
            got = fn(root)
            after = load()
            done = check_done(root, chats, count)
            if done != count:
                sys.exit(f"{name}: only {done} of {count} vaults have their journal entry")
            rate[key], cpu[key] = count / got["seconds"], got["cpu"] / count
            peak = f"{got['peak']:.0f}" if got["peak"] else "-"
            print(f"{name:<34} {count:>6} {got['seconds']:>8.1f} {rate[key]:>9.1f} {got['cpu']:>7.1f}"
                  f" {1000 * cpu[key]:>12.0f} {peak:>8}  {before} → {after}")  # fmt: skip
            if "job_median" in got:
                print(f"{'':<34} median job in its worker {1000 * got['job_median']:.0f} ms")
            shutil.rmtree(root)
        print(f"batch --workers 1 / shell loop: {rate['w1'] / rate['loop']:.1f}x vaults/s (goal >= 10x),"
              f" {cpu['loop'] / cpu['w1']:.1f}x less CPU a vault; --workers 2: {rate['w2'] / rate['loop']:.1f}x")  # fmt: skip
        print(
            f"--workers 2 / --workers 1: {rate['w2'] / rate['w1']:.2f}x (goal >= 1.8x on 2 quiet cores)"
        )
        if "dask" in rate:
            print(f"dask, 2 workers / --workers 2: {rate['dask'] / rate['w2']:.2f}x")
        print(f"per-vault overhead of batch --workers 1 over the in-process loop:"
              f" {1000 * (1 / rate['w1'] - 1 / rate['floor']):+.0f} ms wall ({1000 / rate['floor']:.0f} ms in process),"
              f" {1000 * (cpu['w1'] - cpu['floor']):+.0f} ms CPU ({1000 * cpu['floor']:.0f} ms in process)")  # fmt: skip
        print("every vault's journal holds its transcript's ingest entry")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
