"""No cache keeps what was forgotten, even when a forget is killed halfway.

A forget writes `.mdmem/forgetting.json` (which facts it purges from the journal: keys, never
words) before its transaction, and removes it once the caches are scrubbed and the journal
purged. A command that finds the marker with no forget at work (the lock is free) finishes the
job: it deletes every derived cache (the fact index and snapshot, the passage index, their
SQLite `-journal`/`-wal`/`-shm` files, the model's answers), which the next read rebuilds from
the scrubbed files, and purges the journal again for the keys it names.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from mdmem.files import atomic_write, read_text, remove
from mdmem.store.cachedb import CACHE_FILE
from mdmem.store.journal import Journal

MARK = "forgetting.json"
PASSAGES = "passages.sqlite"
MODEL_CACHE = "llm-cache"
CACHES = (CACHE_FILE, PASSAGES)
SIDE_FILES = ("-journal", "-wal", "-shm")


def mark(meta: Path, purge: Mapping[str, str]) -> None:
    """Say this process is forgetting (and which facts it purges from the journal)."""
    data = {"pid": os.getpid(), "purge": dict(sorted(purge.items()))}
    atomic_write(meta / MARK, json.dumps(data) + "\n")


def marked(meta: Path) -> dict[str, str] | None:
    """The purge of an unfinished forget ({} when it purges nothing), or None."""
    data = _read(meta)
    if data is None:
        return None
    purge = data.get("purge")
    return {str(k): str(v) for k, v in purge.items()} if isinstance(purge, dict) else {}


def _read(meta: Path) -> dict[str, object] | None:
    text = read_text(meta / MARK)
    if text is None:
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def ours(meta: Path) -> bool:
    """Whether the marker is this process's own (a forget at work here, not a kill's)."""
    data = _read(meta)
    return data is not None and data.get("pid") == os.getpid()


def unmark(meta: Path) -> None:
    remove(meta / MARK, expect=False)


def discard_caches(meta: Path) -> None:
    """Delete every derived cache and the side files SQLite keeps beside them."""
    for name in CACHES:
        for suffix in ("", *SIDE_FILES):
            with contextlib.suppress(FileNotFoundError, IsADirectoryError):
                os.unlink(meta / f"{name}{suffix}")
    import shutil  # (and with it bz2 and lzma): only when the caches are thrown away

    shutil.rmtree(meta / MODEL_CACHE, ignore_errors=True)


def stale_side_files(meta: Path) -> list[Path]:
    """A cache's rollback journal or write-ahead log left by a kill: old pages, old words."""
    return [meta / f"{n}{s}" for n in CACHES for s in SIDE_FILES if (meta / f"{n}{s}").exists()]


def scrub_model_cache(meta: Path, values: Iterable[str]) -> int:
    """Delete each kept model answer that holds a forgotten value (it costs one call again)."""
    words = [v.casefold() for v in values if v.strip()]
    folder = meta / MODEL_CACHE
    if not words or not folder.is_dir():
        return 0
    gone = 0
    for path in sorted(folder.rglob("*.json")):
        text = (read_text(path) or "").casefold()
        if any(w in text for w in words) or any(w in _unescaped(text) for w in words):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
                gone += 1
    return gone


def _unescaped(text: str) -> str:
    """JSON text with its \\uXXXX escapes read, so 生日 is found however it was written."""
    try:
        return json.dumps(json.loads(text), ensure_ascii=False).casefold()
    except ValueError:
        return text


def recover(meta: Path, journal: Journal) -> str | None:
    """Finish a forget a kill interrupted (caller holds the lock): what was done, or None.
    A marker of this very process is a forget still at work: left to it."""
    purge = marked(meta)
    if purge is None or ours(meta):
        return None
    discard_caches(meta)
    if purge:
        journal.purge(purge)
    unmark(meta)
    return "finished scrubbing an interrupted forget: the caches are rebuilt from the files"
