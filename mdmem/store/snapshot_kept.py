"""The snapshot brought up to date with a commit this process just made, without a walk.

mdmem knows exactly which fact files a transaction wrote and their bytes, so the next read in
the same process (an ingest's next file) need not walk the vault and read those files again to
learn what it wrote. Each file is parsed from the bytes written and stat'ed for its signature,
and its entry is marked racy: the next `refresh` (every write's, under the lock) still reads it
again and compares its bytes, so a save by anyone else since, even within the file system's
timestamp granularity, is seen. Anything unusual (a delete, a file that is not regular now or
not the size written, bytes that do not parse) leaves the snapshot to be refreshed as before.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path

from mdmem.files import sha256
from mdmem.store.snapshot import Snapshot
from mdmem.store.snapshot_entry import Entry, new_entry
from mdmem.store.snapshot_queries import locked
from mdmem.store.walk import sig_of


@locked
def keep_written(snap: Snapshot, root: Path, ops: Sequence[tuple[str, str | None]],
                 fact_rels: Collection[str], written: Callable[[], Mapping[str, str]]) -> bool:  # fmt: skip
    """Put the fact files `ops` (path, text) wrote into `snap`; False when it was not done
    (the snapshot is then as it was, for the next read to refresh)."""
    if snap._entries is None or not snap._current():  # not read, or another process saved
        return False  # it meanwhile: read what is there
    made: dict[str, Entry] = {}
    base = os.fspath(root)
    for rel, text in dict(ops).items():  # a path given twice: the later text landed
        if not rel.startswith("facts/"):
            continue  # not a fact file (an episode): no entry of the snapshot
        if text is None or rel not in fact_rels:
            return False  # a delete, or a fact file written by other means: walk as before
        try:
            st = os.stat(f"{base}/{rel}", follow_symlinks=False)
        except OSError:
            return False
        data = text.encode("utf-8")
        if not stat.S_ISREG(st.st_mode) or st.st_size != len(data) or not data:
            return False  # changed already, or not a file the walk takes as it is
        old = snap.entries.get(rel) or snap.gone.get(rel)
        e = new_entry(rel, data, sha256(data), sig_of(st), True, old, written, dict)
        if e.problem is not None or e.row is None or e.volatile:
            return False
        made[rel] = e
    if made:
        snap.put(made)
    return True
