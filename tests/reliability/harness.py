"""Kill real `mdmem` processes mid-cascade, and save edits while they write; check what is left.

Used by the slow tests (a few dozen trials) and, run as a script, for the larger counts in
RELIABILITY.md: `python -m tests.reliability.harness kills|edits N KIND SECONDS [watch]`,
KIND one of set, sync, ingest, fix, forget, undo (or several joined by commas, taken in
turn); `watch`: edits raced with `mdmem watch` running on the vault. MDMEM_TEST_WRITE_PAUSE
(seconds after each file swapped in, a hook in store/txn.py) slows the write so that kills
land inside the transaction.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from mdmem.edit.sync import sync
from mdmem.errors import MdmemError
from mdmem.files import sha256
from mdmem.model.episode import parse as parse_episode
from mdmem.model.factfile import parse
from mdmem.store.lastgood import journal_facts
from mdmem.store.vault import Vault

DEPENDENTS = 120  # files one `set home_city` rewrites: a cascade long enough to be hit mid-write
NOW = "2026-03-01T12:00:00Z"
WRITE_SECONDS = 0.15  # about how long txn.json exists during the cascade (measured; a bound)
WATCH_SETTLE = 1.0  # seconds: the watcher's start-up, or its debounce (0.3 s) and a sync
MDMEM = [sys.executable, "-c", "import sys; from mdmem.cli import main; sys.exit(main())"]


def rules_text(dependents: int = DEPENDENTS) -> str:
    """Story-like rules: home_city with `dependents` derived and confirmed facts."""
    lines = ["version: 1", "attributes:", "  home_city: {label: {en: home city}}"]
    deps = ["dependencies:"]
    for i in range(dependents):
        lines.append(f"  dep{i:03d}: {{label: {{en: dep {i}}}}}")
        action = "derive, value: '{home_city}'" if i % 2 else "confirm"
        deps.append(f"  - {{when: home_city, then: dep{i:03d}, action: {action}}}")
    return "\n".join(lines + deps) + "\n"


def env() -> dict[str, str]:
    out = dict(os.environ, MDMEM_NOW=NOW, PYTHONDONTWRITEBYTECODE="1")
    out["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    return out


def mdmem(*args: str, vault: Path, check: bool = False) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*MDMEM, *args, "--vault", str(vault)], env=env(), capture_output=True, text=True,
        check=check, timeout=120,
    )  # fmt: skip


def facts_tree(root: Path) -> dict[str, bytes]:
    """The fact files and episodes, byte for byte."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for folder in ("facts", "episodes")
        for p in sorted((root / folder).rglob("*.md"))
        if not p.name.startswith(".")
    }


def temp_files(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*.tmp"))


@dataclass
class Template:
    """A vault before a write, and what the write leaves (both states, byte for byte)."""

    root: Path
    before: dict[str, bytes]
    after: dict[str, bytes]
    command: list[str]
    dependents: int
    seconds: float  # how long the command takes when not killed
    window: float  # how long txn.json exists in that run


KINDS = ("set", "sync", "ingest", "fix", "forget", "undo")


def template(work: Path, kind: str, dependents: int = DEPENDENTS) -> Template:
    """A vault and a command that rewrites its `dependents` + 1 files: 'set', 'fix' and
    'forget' of home_city, the same cascade from a hand edit ('sync'), from a transcript
    ('ingest', episode included), and 'undo' of a `set` that made it."""
    root = work / f"template-{kind}"
    rules = work / "rules.yaml"
    rules.write_text(rules_text(dependents), encoding="utf-8")
    v = Vault.create(root, str(rules), now=NOW)
    names = ["home_city"] + [f"dep{i:03d}" for i in range(dependents)]
    v.say([v.statement(n, value="Guangzhou", at="2025-01-01") for n in names], command="set")
    sync(v)  # snapshot and manifest settled, as after any run
    if kind == "sync":
        home = root / "facts/user/home_city.md"
        home.write_text(
            home.read_text(encoding="utf-8").replace("Guangzhou", "Shanghai"), encoding="utf-8"
        )
        command = ["sync"]
    elif kind == "ingest":
        said = work / "said.md"
        said.write_text("## 2026-02-10\n\nUser: My home city is Shanghai now.\n", encoding="utf-8")
        command = ["ingest", str(said)]
    elif kind == "undo":
        entry = v.set("home_city", "Shanghai", date="2026-02-10").entry
        assert entry is not None
        sync(v)
        command = ["undo", entry["id"]]
    else:
        command = {"set": ["set", "home_city", "Shanghai", "--date", "2026-02-10"],
                   "fix": ["fix", "home_city", "Shanghai"], "forget": ["forget", "home_city"]}[kind]  # fmt: skip
    before = facts_tree(root)
    probe = work / f"probe-{kind}"
    shutil.copytree(root, probe)
    start = time.monotonic()
    proc = subprocess.Popen([*MDMEM, *command, "--vault", str(probe)], env=env(),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    seen: list[float] = []  # when txn.json was there: the write's window, to aim kills at
    while proc.poll() is None:
        if (probe / ".mdmem/txn.json").exists():
            seen.append(time.monotonic())
        time.sleep(0.0005)
    assert proc.returncode == 0
    seconds = time.monotonic() - start
    window = (seen[-1] - seen[0] + 0.01) if seen else WRITE_SECONDS
    after = facts_tree(probe)
    shutil.rmtree(probe)
    assert after != before
    return Template(root, before, after, command, dependents, seconds, window)


@dataclass
class Tally:
    trials: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)

    def fail(self, trial: int, why: str) -> None:
        self.failures.append(f"trial {trial}: {why}")


def verify(root: Path, t: Template, tally: Tally, trial: int) -> str:
    """Recover through a reader, then check the invariants; the state found ('before'/'after')."""
    check = mdmem("check", vault=root)
    if check.returncode not in (0, 1) or "Traceback" in check.stderr:
        tally.fail(trial, f"check crashed: {check.stderr[-300:]}")
    if (root / ".mdmem/txn.json").exists():
        tally.fail(trial, "txn.json left after a reader ran")
    if temp_files(root):
        tally.fail(trial, f"temporary files left: {temp_files(root)}")
    if journals := sorted(p.name for p in (root / ".mdmem").glob("*.sqlite-journal")):
        tally.fail(trial, f"SQLite rollback journals left after a reader ran: {journals}")
    tree = facts_tree(root)
    for rel, data in tree.items():
        try:
            (parse_episode if rel.startswith("episodes/") else parse)(data.decode("utf-8"), rel)
        except (MdmemError, UnicodeDecodeError) as e:
            tally.fail(trial, f"{rel} does not parse: {e}")
    state = "before" if tree == t.before else "after" if tree == t.after else "mixed"
    if state == "mixed":
        tally.fail(trial, "the vault is neither the before- nor the after-state")
    v = Vault(root)
    journaled = journal_facts(v.journal.entries())
    written = v.manifest.data
    for rel, fact in journaled.items():
        if rel in tree and written.get(rel) != sha256(tree[rel]):
            continue  # a hand edit not synced yet (the sync template's home_city): not mdmem's
        on_disk = v.facts.get(rel[len("facts/") : -len(".md")])
        if fact is not None and (on_disk is None or on_disk.to_mapping() != fact.to_mapping()):
            tally.fail(trial, f"{rel} differs from what the journal says was written")
            break
    if t.command == ["sync"] and state == "before":
        again = mdmem("sync", vault=root)  # the person's edit must still be pending
        if facts_tree(root) != t.after:
            tally.fail(
                trial,
                f"the hand edit was lost: sync after recovery gave another state ({again.stderr[-200:]})",
            )
    return state


def _wait_for_txn(proc: subprocess.Popen[str] | subprocess.Popen[bytes], root: Path) -> bool:
    """Poll until the command starts writing (txn.json appears); False if it ended first."""
    deadline = time.monotonic() + 120
    while proc.poll() is None and time.monotonic() < deadline:
        if (root / ".mdmem/txn.json").exists():
            return True
        time.sleep(0.0005)
    return False


def kill_trials(t: Template, n: int, work: Path, seed: int = 15, budget: float = 1e9) -> Tally:
    """n trials: copy the vault, start the command, SIGKILL it at a random moment, verify."""
    rng = random.Random(seed)
    tally = Tally()
    stop = time.monotonic() + budget
    for trial in range(n):
        if time.monotonic() > stop:
            break
        root = work / f"kill-{trial}"
        shutil.copytree(t.root, root)
        proc = subprocess.Popen([*MDMEM, *t.command, "--vault", str(root)], env=env(),
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
        if rng.random() < 0.25:  # anywhere in the run (mostly start-up and planning)
            time.sleep(t.seconds * rng.uniform(0, 1.05))
        else:  # most kills aimed at the write: once txn.json appears, within its lifetime
            if _wait_for_txn(proc, root):
                time.sleep(rng.uniform(0, t.window * 1.2))
        killed = proc.poll() is None
        if killed:
            proc.send_signal(signal.SIGKILL)
        proc.wait()
        tally.trials += 1
        txn_left = (root / ".mdmem/txn.json").exists()
        state = verify(root, t, tally, trial)
        tally.outcomes[
            f"{'killed' if killed else 'finished'}, {state}{', mid-write' if txn_left else ''}"
        ] += 1
        shutil.rmtree(root)
    return tally


def start_watch(root: Path, settle: bool = True) -> subprocess.Popen[str]:
    """`mdmem watch` on root; with settle, once its catch-up sync is done."""
    proc = subprocess.Popen([*MDMEM, "watch", "--vault", str(root)], env=env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    assert proc.stderr is not None
    proc.stderr.readline()  # "Watching …": the observer starts next, then a catch-up sync
    if settle:
        time.sleep(WATCH_SETTLE)
    return proc


def stop_watch(proc: subprocess.Popen[str]) -> str:
    """Let the watcher take in what the trial left (debounce, then its sync), then Ctrl-C it."""
    time.sleep(WATCH_SETTLE)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    return out + err


def edit_trials(t: Template, n: int, work: Path, seed: int = 15, budget: float = 1e9,
                watch: bool = False) -> Tally:  # fmt: skip
    """n trials: start the cascade, save a hand edit to a dependent at a random moment (in
    place or by rename, as editors do), let the command end; the edit must be in the file.
    With watch, `mdmem watch` runs on the vault throughout, syncing what it sees; for `sync`
    the watcher itself runs the cascade (its catch-up sync takes in the edit of home_city)."""
    rng = random.Random(seed)
    tally = Tally()
    stop = time.monotonic() + budget
    for trial in range(n):
        if time.monotonic() > stop:
            break
        root = work / f"edit-{trial}"
        shutil.copytree(t.root, root)
        by_watch = watch and t.command == ["sync"]
        watcher = start_watch(root, settle=not by_watch) if watch else None
        target = root / f"facts/user/dep{rng.randrange(t.dependents):03d}.md"
        line = f"Hand edit {trial}, saved while mdmem wrote."
        if by_watch:
            assert watcher is not None
            proc = watcher
        else:
            proc = subprocess.Popen([*MDMEM, *t.command, "--vault", str(root)], env=env(),
                                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)  # fmt: skip
        if rng.random() < 0.3:  # any time (mostly before mdmem reads the file)
            time.sleep(t.seconds * rng.uniform(0.3, 1.05))
        else:  # most edits aimed at the write: once txn.json appears, within its lifetime
            _wait_for_txn(proc, root)
            time.sleep(rng.uniform(0, t.window))
        text = target.read_text(encoding="utf-8").rstrip("\n") + "\n\n" + line + "\n"
        if rng.random() < 0.5:
            target.write_text(text, encoding="utf-8")  # in place
        else:
            tmp = target.with_name(target.name + "~save")
            tmp.write_text(text, encoding="utf-8")
            os.replace(tmp, target)  # by rename
        err = "" if by_watch else proc.communicate(timeout=120)[1]
        if watcher is not None:
            log = stop_watch(watcher)
            if "Traceback" in log or "error:" in log:
                tally.fail(trial, f"watch: {log[-300:]}")
        tally.trials += 1
        if (root / ".mdmem/txn.json").exists() or temp_files(root):
            tally.fail(trial, "a transaction or temporary file was left")
        tree = facts_tree(root)
        rel = target.relative_to(root).as_posix()
        rest = {k: v for k, v in tree.items() if k != rel}
        if all(
            rest != {k: v for k, v in state.items() if k != rel} for state in (t.before, t.after)
        ):
            tally.fail(trial, "the other files are neither the before- nor the after-state")
        kept = line in target.read_text(encoding="utf-8")
        if not kept:
            tally.fail(trial, f"the hand edit to {target.name} was overwritten")
        refused = not by_watch and proc.returncode != 0
        if refused and "was saved by someone else" not in err:
            tally.fail(trial, f"exit {proc.returncode}: {err[-300:]}")
        tally.outcomes[
            f"{'refused (conflict)' if refused else 'applied'}, edit {'kept' if kept else 'LOST'}"
        ] += 1
        shutil.rmtree(root)
    return tally


def main(argv: list[str]) -> int:
    what, n = argv[0], int(argv[1])
    kinds = (argv[2] if len(argv) > 2 else "set").split(",")  # N trials of each
    budget = float(argv[3]) if len(argv) > 3 else 1e9  # seconds for each kind, then stop early
    seed = int(os.environ.get("MDMEM_HARNESS_SEED", "15"))  # another seed: other trials
    failed = 0
    for kind in kinds:
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            t = template(work, kind)
            start = time.monotonic()
            if what == "kills":
                tally = kill_trials(t, n, work, seed=seed, budget=budget)
            else:
                tally = edit_trials(t, n, work, seed=seed, budget=budget, watch="watch" in argv[4:])
            took = time.monotonic() - start
        failed += len(tally.failures)
        print(json.dumps({"what": what, "kind": kind, "watch": "watch" in argv[4:], "seed": seed, "trials": tally.trials, "seconds": round(took),
                          "pause": os.environ.get("MDMEM_TEST_WRITE_PAUSE"), "command_seconds": round(t.seconds, 2), "write_window": round(t.window, 3),
                          "outcomes": dict(tally.outcomes), "failures": tally.failures[:20], "failed": len(tally.failures)}, indent=1), flush=True)  # fmt: skip
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
