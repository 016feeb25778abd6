"""Time the inputs of issue 23 at their full sizes, through the command, and say what each did.

    .venv/bin/python benchmarks/bench_limits.py                 # this checkout
    .venv/bin/python benchmarks/bench_limits.py --code /work/main --timeout 200
    .venv/bin/python benchmarks/bench_limits.py history100k keys50k

Each case is built in a fresh vault (personal pack, one fact), then each of its commands runs
as a process of the checkout given (`--code`, on PYTHONPATH), with a time limit. A row says the
wall time, the exit code, and the last line it printed (a traceback's last line, or TIMEOUT).
RELIABILITY.md ("Limits") has the figures before and after.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HEAD = "---\nentity: user\nattribute: employer\n"
EPISODE = "---\nsource: chat\nsha256: x\ndate: {date}\nspeakers:\n- User\n---\n\n**User** · — ^m1\n\n{text}\n"


def fact(v: Path, text: str) -> None:
    (v / "facts/user/employer.md").write_text(text, encoding="utf-8")


def episode(v: Path, name: str, text: str) -> None:
    (v / "episodes/2026").mkdir(parents=True, exist_ok=True)
    (v / "episodes/2026" / name).write_text(text, encoding="utf-8")


def transcript(v: Path, text: str) -> None:
    (v.parent / "t.md").write_text(text, encoding="utf-8")


ASK = ["ask", "where do I work?"]
SAID = ["ask", "what did I say about the river?"]
READERS = [["check"], ["sync"], ASK]
CASES: dict[str, tuple[Callable[[Path], None], list[list[str]]]] = {
    "nested500": (lambda v: fact(v, HEAD + "value: x\nextra:\n" + "".join("  " * (i + 1) + f"k{i}:\n" for i in range(500)) + "---\n"), READERS),
    "episode_date": (lambda v: episode(v, "2026-02-10-chat.md", EPISODE.format(date="not-a-date", text="by the river")), [["check"], SAID]),
    "episode_dir": (lambda v: (v / "episodes/2026/2026-02-10-chat.md").mkdir(parents=True), [["check"], ["sync"]]),
    "keys50k": (lambda v: fact(v, HEAD + "value: x\nstatus: active\n" + "".join(f"k{i}: v\n" for i in range(50_000)) + "---\n"), READERS),
    "speakers10k": (lambda v: transcript(v, "".join(f"Person{i}: I live in Paris.\n" for i in range(10_000))), [["ingest", "{t}"]]),
    "history100k": (lambda v: fact(v, HEAD + "value: x\nstatus: active\nhistory:\n" + "".join(f"- value: v{i}\n  valid_from: '2020-01-01'\n" for i in range(100_000)) + "---\n"), READERS),
    "history5k": (lambda v: fact(v, HEAD + "value: x\nstatus: active\nhistory:\n" + "".join(f"- value: v{i}\n  valid_from: '2020-01-01'\n  valid_to: '2020-02-01'\n  recorded_at: '2026-02-10T12:00:00Z'\n  source: cli\n" for i in range(5_000)) + "---\n"), READERS),
    "list1mb": (lambda v: fact(v, HEAD + "value:\n" + "".join(f"- item{i}\n" for i in range(110_000)) + "status: active\n---\n"), READERS),
    "scalar10mb": (lambda v: fact(v, HEAD + "value: " + "x" * 10_000_000 + "\nstatus: active\n---\n"), READERS),
    "hi100k": (lambda v: transcript(v, "User: hi\n" * 100_000), [["ingest", "{t}"]]),
    "words100k": (lambda v: transcript(v, "".join(f"User: word{i} here\n" for i in range(100_000))), [["ingest", "{t}"]]),
    "episode10mb": (lambda v: episode(v, "2026-02-10-chat.md", EPISODE.format(date="'2026-02-10'", text="the dog ran to the river and back " * 300_000)), [SAID]),
    "vocab13mb": (lambda v: (v / "rules.yaml").write_text((v / "rules.yaml").read_text(encoding="utf-8").replace("  districts_en: [\n", "  districts_en: [\n    " + ", ".join(f"Wx{i}town" for i in range(130_000)) + ",\n", 1), encoding="utf-8"), [["check"], ASK]),
}  # fmt: skip


def run(code: Path, args: list[str], vault: Path, timeout: float) -> str:
    env = dict(os.environ, MDMEM_NOW="2026-03-01T12:00:00Z", PYTHONPATH=str(code))
    argv = [a.replace("{t}", str(vault.parent / "t.md")) for a in args]
    start = time.monotonic()
    try:
        p = subprocess.run([sys.executable, "-c", "import sys; from mdmem.cli import main; sys.exit(main())",
                            *argv, "--vault", str(vault)], env=env, capture_output=True, text=True,
                           timeout=timeout, cwd=vault.parent)  # not this checkout's: --code's  # fmt: skip
    except subprocess.TimeoutExpired:
        return f"TIMEOUT (killed at {timeout:.0f} s)"
    took = time.monotonic() - start
    lines = [ln for ln in (p.stdout + p.stderr).strip().splitlines() if ln.strip()]
    last = lines[-1] if lines else ""
    if "Traceback" in p.stderr:
        last = "TRACEBACK " + last
    return f"{took:6.1f} s  exit {p.returncode}  {last[:150]}"


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("cases", nargs="*", default=list(CASES))
    ap.add_argument("--code", type=Path, default=Path(__file__).resolve().parent.parent)
    ap.add_argument("--timeout", type=float, default=120.0)
    a = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        for name in a.cases:
            build, commands = CASES[name]
            root = Path(tmp) / name / "v"
            env = dict(os.environ, MDMEM_NOW="2026-03-01T12:00:00Z", PYTHONPATH=str(a.code))
            mdmem = [sys.executable, "-c", "import sys; from mdmem.cli import main; sys.exit(main())"]
            root.parent.mkdir(parents=True)
            for args in (["init", str(root)], ["set", "employer", "Acme", "--vault", str(root)]):
                subprocess.run([*mdmem, *args], env=env, capture_output=True, check=True, cwd=root.parent)
            build(root)
            for args in commands:
                print(f"{name:<13} {' '.join(args)[:22]:<22} {run(a.code, args, root, a.timeout)}", flush=True)
            shutil.rmtree(root.parent)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
