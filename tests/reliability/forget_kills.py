"""Kill real `mdmem forget --purge` processes at random moments; the next command must leave the
forgotten words in no file of the vault once the forget is in the journal, and the vault whole.

`python -m tests.reliability.forget_kills N SECONDS` runs N trials or until SECONDS have passed
and prints the counts for RELIABILITY.md. A vault of 300 messages, a third of them saying the
secret (a locker code) beside other facts, with both search caches built: the forget cuts 100
statements, rewrites the journal and scrubs both caches, long enough to be hit anywhere.
"""

from __future__ import annotations

import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from mdmem.edit.ingest import ingest_text
from mdmem.store.vault import Vault
from tests.conftest import RULES_FILES, holds
from tests.reliability.harness import MDMEM, NOW, env, mdmem

SECRET = "4417"


def template(work: Path) -> tuple[Path, float]:
    root = work / "template"
    v = Vault.create(root, "personal", now=NOW)
    lines = ["## 2026-02-10"]
    for n in range(300):
        lines.append(f"User: My locker code is {SECRET}." if n % 3 == 0 else f"User: I live in Leeds, day {n}.")
    ingest_text(v, "\n".join(lines) + "\n", source="chat.md")
    mdmem("ask", "what is my locker code?", vault=root, check=True)  # both caches hold it
    probe = work / "probe"
    shutil.copytree(root, probe)
    start = time.monotonic()
    mdmem("forget", "locker_code", "--purge", vault=probe, check=True)
    seconds = time.monotonic() - start
    assert holding(probe) == [], holding(probe)
    shutil.rmtree(probe)
    return root, seconds


def holding(root: Path) -> list[str]:
    return [rel for p in sorted(root.rglob("*")) if p.is_file()
            and (rel := p.relative_to(root).as_posix()) not in RULES_FILES
            and holds(p.read_bytes().decode("utf-8", "replace"), SECRET)]  # fmt: skip


def trial(root: Path, work: Path, seconds: float, rng: random.Random) -> str:
    vault = work / "trial"
    if vault.exists():
        shutil.rmtree(vault)
    shutil.copytree(root, vault)
    proc = subprocess.Popen([*MDMEM, "forget", "locker_code", "--purge", "--vault", str(vault)],
                            env=env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    time.sleep(rng.uniform(0.0, seconds * 1.1))
    killed = proc.poll() is None
    if killed:
        proc.send_signal(signal.SIGKILL)
    proc.wait()
    shown = mdmem("show", vault=vault)  # the next command
    if shown.returncode != 0:
        return f"failed: show exited {shown.returncode}: {shown.stderr.strip()[:200]}"
    done = '"command":"forget"' in (vault / ".mdmem/journal.jsonl").read_text("utf-8")
    left = holding(vault)
    if done and left:
        return f"failed: forgotten but still in {left}"
    if not done:
        mdmem("forget", "locker_code", "--purge", vault=vault, check=True)  # run again: it finishes
        if holding(vault):
            return f"failed: after a second forget still in {holding(vault)}"
        return "killed before the journal entry, finished by a second run" if killed else "ended"
    return "killed after the journal entry, finished by the next command" if killed else "ended"


def main(argv: list[str]) -> int:
    trials, budget = int(argv[0]), float(argv[1])
    rng = random.Random(22)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        root, seconds = template(work)
        print(f"an unkilled forget takes {seconds:.2f} s")
        outcomes: Counter[str] = Counter()
        start = time.monotonic()
        for _ in range(trials):
            if time.monotonic() - start > budget:
                break
            outcomes[trial(root, work, seconds, rng)] += 1
        for outcome, n in outcomes.most_common():
            print(f"{n:5d}  {outcome}")
        return 1 if any(o.startswith("failed") for o in outcomes) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
