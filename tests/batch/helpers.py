"""Vaults, manifests and runs for the batch tests."""

from __future__ import annotations

import io
import json
import os
import shutil
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mdmem.batch.run import run_batch
from mdmem.edit.ingest import ingest_text
from mdmem.store.vault import Vault

SAID = "User: I live in Guangzhou. I work at Lingnan Tech.\n"
MOVED = "User: I moved to Shanghai.\n"


def make_vaults(root: Path, names: list[str], text: str = SAID) -> dict[str, Path]:
    """A vault per name under root, and one transcript per vault in root/chats/NAME.md."""
    (root / "chats").mkdir(parents=True, exist_ok=True)
    out = {}
    for name in names:
        Vault.create(root / name, "personal")
        (root / "chats" / f"{name}.md").write_text(text, encoding="utf-8")
        out[name] = root / name
    return out


def job(name: str, *inputs: str, **extra: Any) -> dict[str, Any]:
    return {"vault": name, "inputs": list(inputs or [f"chats/{name}.md"]), **extra}


def manifest_bytes(*rows: dict[str, Any] | str) -> bytes:
    return "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows).encode()


def run(
    root: Path, *rows: dict[str, Any] | str, **kwargs: Any
) -> tuple[dict[int, dict[str, Any]], dict[str, Any]]:
    """Run a manifest of these rows; the result lines by manifest line, and the summary."""
    return collect(run_batch(io.BytesIO(manifest_bytes(*rows)), root, **kwargs))


def collect(lines: Any) -> tuple[dict[int, dict[str, Any]], dict[str, Any]]:
    by_line: dict[int, dict[str, Any]] = {}
    summary: dict[str, Any] = {}
    for line in lines:
        if "summary" in line:
            summary = line["summary"]
        else:
            assert line["line"] not in by_line, f"line {line['line']} reported twice"
            by_line[line["line"]] = line
    return by_line, summary


def ingests(vault: Path) -> list[dict[str, Any]]:
    """The vault's ingest journal entries."""
    path = vault / ".mdmem" / "journal.jsonl"
    if not path.exists():
        return []
    rows = [json.loads(t) for t in path.read_text(encoding="utf-8").splitlines() if t.strip()]
    return [r for r in rows if r.get("command") == "ingest"]


def break_fact(vault: Path) -> None:
    """Ingest the home city, then leave its fact file unparseable, as a bad hand edit would."""
    ingest_text(Vault(vault), SAID)
    (vault / "facts/user/home_city.md").write_text("---\nvalue: [broken\n---\n", encoding="utf-8")


def tree(root: Path, skip: set[Path]) -> dict[str, bytes]:
    """Every file under root outside the `skip` folders, with its bytes."""
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_file() and not any(s == p or s in p.parents for s in skip):
            out[p.relative_to(root).as_posix()] = p.read_bytes()
    return out


def until(check: Callable[[], Any], seconds: float = 60.0, what: str = "") -> Any:
    """Poll until check() is truthy; its value."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what or check}")


def holder(vault: Path, not_pid: int | None = None) -> int | None:
    """The pid that holds (or last held) the vault's lock, if it is alive and not `not_pid`."""
    try:
        text = (vault / ".mdmem" / "lock").read_text()
    except OSError:
        return None
    if not text.startswith("pid "):
        return None
    pid = int(text.split()[1])
    if pid == not_pid:
        return None
    try:
        os.kill(pid, 0)
    except OSError:
        return None
    return pid


class DeletesWhenRead(io.BytesIO):
    """A manifest that deletes a vault once the run has read `at` lines: gone while queued."""

    def __init__(self, data: bytes, at: int, vault: Path) -> None:
        super().__init__(data)
        self.at, self.vault, self.read = at, vault, 0

    def readline(self, size: int | None = -1) -> bytes:  # type: ignore[override]
        self.read += 1
        if self.read == self.at:
            shutil.rmtree(self.vault)
        return super().readline(size)


def torn(vault: Path) -> bytes:
    """Leave the vault as a worker killed mid-write does: one file replaced, no journal entry."""
    ingest_text(Vault(vault), SAID)
    fact = vault / "facts/user/home_city.md"
    before = fact.read_text(encoding="utf-8")
    after = before + "Written by the interrupted change.\n"
    record = {"id": "deadbeef0001", "command": "ingest",
              "ops": [{"path": "facts/user/home_city.md", "before": before, "after": after}]}  # fmt: skip
    (vault / ".mdmem/txn.json").write_text(json.dumps(record), encoding="utf-8")
    fact.write_text(after, encoding="utf-8")
    return before.encode()


def run_in_thread(lines: Any) -> tuple[threading.Thread, list[dict[str, Any]]]:
    out: list[dict[str, Any]] = []
    thread = threading.Thread(target=lambda: out.extend(lines), daemon=True)
    thread.start()
    return thread, out


def feed(fifo: Path, text: str) -> None:
    """Give a worker blocked reading the FIFO its transcript."""
    with fifo.open("w", encoding="utf-8") as f:
        f.write(text)
