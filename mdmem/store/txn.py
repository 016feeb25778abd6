"""Apply a plan as one transaction: every file as before or every file as after, even on a crash.

Protocol: (1) write `.mdmem/txn.json` with the before and after bytes of every file;
(2) append the journal entry; (3) write the files; (4) remove txn.json. On the next run,
a leftover txn.json is rolled forward if its journal entry exists, else rolled back.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from mdmem.files import atomic_write, read_text, remove
from mdmem.store.journal import Journal
from mdmem.store.manifest import Manifest


def commit(
    root: Path,
    journal: Journal,
    manifest: Manifest,
    entry: dict[str, Any],
    ops: list[tuple[str, str | None]],
) -> None:
    """Write ops (vault-relative path → new text, None to delete) under the journal entry."""
    txn = root / ".mdmem" / "txn.json"
    record = {
        "id": entry["id"],
        "ops": [{"path": rel, "before": read_text(root / rel), "after": text} for rel, text in ops],
    }
    atomic_write(txn, json.dumps(record, ensure_ascii=False, sort_keys=True))
    journal.append(entry)
    _write(root, manifest, [(op["path"], op["after"]) for op in record["ops"]])
    remove(txn)


def recover(root: Path, journal: Journal, manifest: Manifest) -> str | None:
    """Finish or undo a transaction a crash interrupted; returns what was done, or None."""
    txn = root / ".mdmem" / "txn.json"
    text = read_text(txn)
    if text is None:
        return None
    try:
        record = json.loads(text)
    except ValueError:
        remove(txn)  # torn before step (2): no file was touched yet
        return "discarded an unfinished transaction record"
    forward = journal.find(record["id"]) is not None
    ops = []
    for op in record["ops"]:
        old, new = (op["before"], op["after"]) if forward else (op["after"], op["before"])
        # Only a file still in the state the transaction left it is touched: a hand edit made
        # since the crash wins.
        # An empty file is a write the crash cut short before it reached the disk.
        if read_text(root / op["path"]) in (old, new, ""):
            ops.append((op["path"], new))
    _write(root, manifest, ops)
    remove(txn)
    verb = "finished" if forward else "rolled back"
    return f"{verb} interrupted change {record['id']}"


def _write(root: Path, manifest: Manifest, ops: list[tuple[str, str | None]]) -> None:
    # One flush for the whole batch instead of two fsyncs per file: until txn.json is removed
    # (after the flush), a crash is repaired from it, so the files need not be durable one by one.
    for rel, text in ops:
        path = root / rel
        if text is None:
            remove(path, durable=False)
        elif read_text(path) != text:
            atomic_write(path, text, durable=False)
        manifest.record(rel, text)
    os.sync()
    manifest.save()
