"""Benchmark `mdmem mcp`: start-up to the first tool answer, and an `ask` tool call; prints figures.

    .venv/bin/python benchmarks/bench_mcp.py            # the sample vault and 10,000 facts
    .venv/bin/python benchmarks/bench_mcp.py 100000     # the sample vault and this size

Each server is a real `mdmem mcp --vault …` process spoken to through the SDK's stdio client,
as Claude Desktop or Cursor would. Measured:

- start-up: from spawning the process to the answer of the first `ask` (the index already
  built), and the part of it up to the end of the MCP handshake; once with no SDK replies kept
  in the vault (its first session: the SDK answers), then with them (the lean road); beside
  the wall time, the server process's CPU time (user + system), which a loaded machine
  inflates far less;
- `ask` tool calls in one session: the round trip as the client sees it, and the same call
  in-process (`Memory.ask`) to show what the protocol adds;
- the import of the MCP SDK alone, which start-up cannot avoid.
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio
from bench_ask import QUESTIONS, make_vault, pct
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from mdmem.server.lean import CACHE
from mdmem.server.tools import Memory

ROOT = Path(__file__).resolve().parent.parent
NOW = "2026-03-01T12:00:00Z"
STARTS = 5
ROUNDS = 3


def params(vault: Path) -> StdioServerParameters:
    env = {"MDMEM_NOW": NOW}
    if os.environ.get("PYTHONPATH"):  # PYTHONPATH=another/checkout measures that code instead
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return StdioServerParameters(command=str(Path(sys.executable).with_name("mdmem")),
                                 args=["mcp", "--vault", str(vault)], env=env)  # fmt: skip


def children_cpu() -> float:
    """CPU seconds (user + system) of this process's finished children so far."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


async def start_once(vault: Path) -> tuple[float, float, float]:
    """(ms to the end of the handshake, ms to the first `ask` answer, both from the spawn; the
    server's CPU ms over its whole life, which ends right after that answer)."""
    cpu = children_cpu()
    started = time.perf_counter()
    async with stdio_client(params(vault)) as (read, write), ClientSession(read, write) as s:
        await s.initialize()
        ready = time.perf_counter()
        result = await s.call_tool("ask", {"question": QUESTIONS[0]})
        answered = time.perf_counter()
        assert not result.is_error, result.content
    return (ready - started) * 1000, (answered - started) * 1000, (children_cpu() - cpu) * 1000


async def calls(vault: Path) -> list[float]:
    """Round trips of `ask` tool calls in one session, in ms."""
    out = []
    async with stdio_client(params(vault)) as (read, write), ClientSession(read, write) as s:
        await s.initialize()
        for _ in range(ROUNDS):
            for q in QUESTIONS:
                started = time.perf_counter()
                result = await s.call_tool("ask", {"question": q})
                out.append((time.perf_counter() - started) * 1000)
                assert not result.is_error, result.content
    return out


def bench(vault: Path, label: str) -> None:
    print(f"\n== {label} ==")
    memory = Memory(vault)
    memory.ask(QUESTIONS[0])  # builds the index, so every start below finds it warm
    (vault / CACHE).unlink(missing_ok=True)
    _, cold, cold_cpu = anyio.run(start_once, vault)  # the SDK answers; its replies are kept
    starts = [anyio.run(start_once, vault) for _ in range(STARTS)]
    ready = [r for r, _, _ in starts]
    first = [a for _, a, _ in starts]
    cpu = [c for _, _, c in starts]
    print(f"start-up to first `ask` answer:   median {statistics.median(first):7.1f} ms"
          f"   min {min(first):7.1f} ms   max {max(first):7.1f} ms   ({STARTS} starts)")  # fmt: skip
    print(f"  server CPU (user+sys):           median {statistics.median(cpu):7.1f} ms"
          f"   min {min(cpu):7.1f} ms")  # fmt: skip
    print(f"  of which to the handshake's end: median {statistics.median(ready):7.1f} ms")
    print(f"  the first session in this vault (no SDK replies kept yet, server/lean.py):"
          f" {cold:7.1f} ms, server CPU {cold_cpu:7.1f} ms")  # fmt: skip
    rtt = anyio.run(calls, vault)
    print(f"`ask` tool call, {len(rtt)} calls:       median {statistics.median(rtt):7.1f} ms"
          f"   p95 {pct(rtt, 0.95):7.1f} ms")  # fmt: skip
    direct = []
    for _ in range(ROUNDS):
        for q in QUESTIONS:
            started = time.perf_counter()
            memory.ask(q)
            direct.append((time.perf_counter() - started) * 1000)
    print(f"  the same in-process (Memory.ask): median {statistics.median(direct):7.1f} ms")


def main() -> None:
    if any(not a.isdigit() for a in sys.argv[1:]):
        sys.exit(__doc__)
    sizes = [int(a) for a in sys.argv[1:]] or [10_000]
    os.environ["MDMEM_NOW"] = NOW
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}")
    sdk = []
    for _ in range(3):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import mcp.server.mcpserver"], check=True)
        sdk.append((time.perf_counter() - started) * 1000)
    bare = []
    for _ in range(3):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        bare.append((time.perf_counter() - started) * 1000)
    print(f"python -c 'import mcp.server.mcpserver': median {statistics.median(sdk):7.1f} ms"
          f" (bare interpreter {statistics.median(bare):5.1f} ms)")  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="mdmem-bench-") as tmp:
        sample = Path(tmp) / "sample"
        shutil.copytree(ROOT / "sample_vault", sample)
        bench(sample, "sample vault (9 facts)")
        for n in sizes:
            root = Path(tmp) / f"v{n}"
            make_vault(root, n)
            bench(root, f"{n:,} facts")
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
