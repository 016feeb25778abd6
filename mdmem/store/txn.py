"""Apply a plan as one transaction: every file as before or every file as after, even on a crash.

Protocol: (1) check every file still holds what the plan read, and write `.mdmem/txn.json`
with the before and after bytes of every file; (2) replace the files, each only if it still
holds its before bytes (compare-and-swap: a hand edit saved meanwhile is never overwritten;
the files already replaced are put back and WriteConflict is raised); (3) flush, then append
the journal entry; (4) record the new bytes in the manifest and remove txn.json. A leftover
txn.json is rolled forward if its journal entry exists, else rolled back; either way the
recovery is journaled as a `recover` entry.
"""

from __future__ import annotations

import contextlib
import fnmatch
import glob
import json
import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mdmem import boundary
from mdmem.errors import RefusedError
from mdmem.files import (
    WriteConflict,
    atomic_write,
    current,
    put_back,
    read_text,
    remove,
    restore,
    sha256,
    swap,
    unlink,
)
from mdmem.store.folder_read import FolderReader
from mdmem.store.journal import Journal, make_entry
from mdmem.store.manifest import Manifest
from mdmem.temps import ASIDE_GLOB, remove_temps

TXN_FILE = "txn.json"
# A fault-injection hook for the reliability run (tests/reliability/harness.py): seconds to
# wait after each file of a batch is swapped in, so that kills land inside the transaction.
PAUSE = float(os.environ.get("MDMEM_TEST_WRITE_PAUSE") or 0)
# Files under .mdmem/ written only by the lock holder: a temporary copy of one is a crash's.
# (Readers write the caches there too, without the lock: only those a dead process left go.)
LOCKED_FILES = ("txn.json", "journal.jsonl", "written.json")


def pending(meta: Path) -> dict[str, Any] | None:
    """The unfinished transaction under meta ({'id', 'command', …}), or None."""
    text = None
    with contextlib.suppress(OSError, UnicodeDecodeError):
        text = read_text(meta / TXN_FILE)
    if text is None:
        return None
    try:
        record = json.loads(text)
    except ValueError:
        return {"id": "?", "command": "?"}
    return record if isinstance(record, dict) else {"id": "?", "command": "?"}


def commit(
    root: Path,
    journal: Journal,
    manifest: Manifest,
    entry: dict[str, Any],
    ops: list[tuple[str, str | None]],
    expect: Mapping[str, str | None] | None = None,
) -> None:
    """Write ops (vault-relative path → new text, None to delete) under the journal entry.

    expect maps a path to the SHA-256 of the bytes the plan was made from (None: no file);
    a file that differs is a WriteConflict before anything is written; a path through a link
    out of the vault is refused (`boundary.OutsideVault`), also before anything is written."""
    with boundary.batch():  # each folder walked to (and checked) once for the whole batch
        _commit(root, journal, manifest, entry, ops, expect)


def _commit(root: Path, journal: Journal, manifest: Manifest, entry: dict[str, Any],
            ops: list[tuple[str, str | None]], expect: Mapping[str, str | None] | None) -> None:  # fmt: skip
    txn = root / ".mdmem" / TXN_FILE
    ops = list(dict(ops).items())  # a path given twice: the later text is the one that lands
    befores: list[str | None] = []
    with FolderReader(root) as files:
        datas = [files.read(rel) for rel, _ in ops]  # each folder checked once
    for (rel, _), data in zip(ops, datas, strict=True):
        seen = sha256(data) if data else None  # an empty note (Obsidian's click) is no file
        if expect is not None and rel in expect and seen != expect[rel]:
            raise WriteConflict(rel)
        try:
            befores.append(data.decode("utf-8") if data is not None else None)
        except UnicodeDecodeError as e:  # bytes the transaction record could not give back
            raise RefusedError(
                f"{rel}: byte {e.start} is not UTF-8; mdmem will not replace a file it cannot"
                " restore. Save it as UTF-8 (or move it out of the vault), then run this again"
            ) from None
    record = {
        "id": entry["id"],
        "command": entry.get("command"),
        "ops": [
            {"path": rel, "before": before, "after": text}
            for (rel, text), before in zip(ops, befores, strict=True)
        ],
    }
    atomic_write(txn, json.dumps(record, ensure_ascii=False, sort_keys=True))
    _write_all(root, record["ops"], txn)
    # Files first, journal second: a journal entry exists only for a batch wholly on disk,
    # so a crash before it is rolled back and one after it is finished.
    os.sync()
    journal.append(entry)
    for rel, text in ops:
        manifest.record(rel, text)
    manifest.save()
    remove(txn)


def _write_all(root: Path, ops: list[dict[str, Any]], txn: Path) -> None:
    """Swap every file in, then check every old file once more (`files.swap`); on a conflict
    put every file back as it was (keeping any save made meanwhile) and raise it."""
    done: list[tuple[dict[str, Any], str | None]] = []
    failed = ""
    base = os.fspath(root)
    try:
        for op in ops:
            failed = op["path"]
            if op["before"] != op["after"]:
                done.append((op, swap(f"{base}/{failed}", _b(op["after"]), _b(op["before"]))))
                if PAUSE:
                    time.sleep(PAUSE)
        # The last check, once the whole batch is in: a save written into a file after it was
        # set aside (an editor that had it open) is found here and put back below.
        with FolderReader(root) as files:
            for op, aside in done:
                failed = op["path"]
                if aside is not None and files.read(_rel(base, aside)) != _b(op["before"]):
                    raise WriteConflict(failed)
    except WriteConflict as e:
        kept = [k for op, aside in reversed(done)
                if (k := restore(root / op["path"], aside, _b(op["after"]), _b(op["before"])))]  # fmt: skip
        os.sync()
        remove(txn)
        raise WriteConflict(failed, e.kept or (kept[0] if kept else None)) from e
    with FolderReader(root) as files:
        for _, aside in done:
            if aside is not None:
                files.unlink(_rel(base, aside))


def _rel(base: str, path: str) -> str:
    """The vault-relative path of a path `files.swap` gave (base + '/' + rel's folder + name)."""
    return path[len(base) + 1 :]


def _b(text: str | None) -> bytes | None:
    return text.encode("utf-8") if text is not None else None


def _swap(path: Path, old: str | None, new: str | None) -> None:
    """Put new where old is (None: no file); WriteConflict if the file holds anything else."""
    if old == new:
        return
    if new is None:
        remove(path, durable=False, expect=_b(old))
    else:
        atomic_write(path, new, durable=False, expect=_b(old))


def recover(root: Path, journal: Journal, manifest: Manifest, *, now: str) -> str | None:
    """Finish or undo a transaction a crash interrupted, and journal that; what was done, or None.
    Caller holds the lock. Temporary files a crash left behind are removed too."""
    with boundary.batch():
        return _recover(root, journal, manifest, now=now)


def _recover(root: Path, journal: Journal, manifest: Manifest, *, now: str) -> str | None:
    meta = root / ".mdmem"
    remove_temps(meta, LOCKED_FILES)
    remove_temps(meta, abandoned=True)
    txn = meta / TXN_FILE
    text = current(txn)
    if text is None:
        return None
    try:
        record = json.loads(text)
        ops_in = record["ops"]
    except (ValueError, KeyError, TypeError):
        remove(txn)  # torn while being written: no file was touched yet
        return "discarded an unfinished transaction record"
    forward = journal.find(record["id"]) is not None
    kept: list[str] = []
    for op in ops_in:
        path = root / op["path"]
        if _from_aside(path, op, kept):
            continue
        remove_temps(path.parent, [path.name])
        old, new = (op["before"], op["after"]) if forward else (op["after"], op["before"])
        data = current(path)
        try:
            now_text = data.decode("utf-8") if data is not None else None
        except UnicodeDecodeError:
            now_text = "\0"  # not ours, whatever it is
        # Only a file still in a state the transaction left it is touched: a hand edit made
        # since wins. An empty file is a write a power cut left before it reached the disk.
        if now_text not in (old, new, ""):
            kept.append(op["path"])
            continue
        try:
            _swap(path, now_text, new)
        except WriteConflict:  # saved by hand this very moment
            kept.append(op["path"])
            continue
        # Rolled back: the manifest on disk still holds what mdmem wrote before, so a hand
        # edit the interrupted `sync` was applying stays an edit to apply.
        if forward:
            manifest.record(op["path"], new)
    os.sync()
    if forward:
        manifest.save()
    outcome = "finished" if forward else "rolled back"
    _journal_recovery(journal, record, outcome, kept, now)
    remove(txn)
    note = f"{outcome} interrupted change {record['id']} ({record.get('command') or 'a write'})"
    if kept:
        note += f"; kept the hand edits in {', '.join(kept)}"
    return note


def _from_aside(path: Path, op: dict[str, Any], kept: list[str]) -> bool:
    """A file a killed writer had set aside (`files.swap`): put back where the path is empty;
    one holding neither state is a save that landed in it: the person's, so it goes back over
    mdmem's bytes (True: this op is settled, the hand edit kept)."""
    ours = (op["before"], op["after"])
    pattern = ASIDE_GLOB.format(name=glob.escape(path.name))
    for aside in (path.parent / n for n in boundary.listdir(path.parent) if fnmatch.fnmatchcase(n, pattern)):
        data = current(aside)
        try:
            text = data.decode("utf-8") if data is not None else None
        except UnicodeDecodeError:
            text = "\0"
        if text in ours:
            if current(path) is None:  # killed between setting it aside and linking the new one
                put_back(aside, path, data)
            else:
                unlink(aside)
            continue
        now = current(path)
        if now is not None and now.decode("utf-8", "replace") in ours:
            unlink(path)  # mdmem's bytes: the person's save takes their place
        put_back(aside, path)
        kept.append(op["path"])
        return True
    return False


def _journal_recovery(
    journal: Journal, record: dict[str, Any], outcome: str, kept: list[str], now: str
) -> None:
    """One `recover` entry per interrupted transaction (a crash during recovery adds no second)."""
    for e in journal.records():  # ids and sources only: no replay
        src = e.get("source")
        if isinstance(src, dict) and src.get("kind") == "recover" and src.get("transaction") == record["id"]:  # fmt: skip
            return
    source = {
        "kind": "recover",
        "transaction": record["id"],
        "interrupted": record.get("command"),
        "outcome": outcome,
        "kept": kept,
    }
    journal.append(make_entry([], now=now, source=source, command="recover"))
