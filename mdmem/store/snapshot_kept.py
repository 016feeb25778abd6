"""The snapshot brought up to date with a commit this process just made, without a walk.

mdmem knows exactly which fact files a transaction wrote and their bytes, so the next read in
the same process (an ingest's next file) need not walk the vault and read those files again to
learn what it wrote. A Vault keeps what it wrote since its last refresh (`kept_also`); the next
read that does not refresh puts it in (a command that only writes pays nothing): each file is
parsed from the bytes written and stat'ed for its signature, and its entry is marked racy: the
next `refresh` (every write's, under the lock) still reads it again and compares its bytes, so
a save by anyone else since, even within the file system's timestamp granularity, is seen.
Anything unusual (a delete, a file that is not regular now or not the size written, bytes that
do not parse, a snapshot another process saved meanwhile) leaves it to be refreshed as before.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from pathlib import Path

from mdmem.files import sha256
from mdmem.store.snapshot import Snapshot
from mdmem.store.snapshot_entry import Entry, new_entry
from mdmem.store.snapshot_queries import locked
from mdmem.store.walk import Sig, sig_of, stat_sig

# (path, text) written, the fact files among them, and the journal's signature after the last
Kept = tuple[list[tuple[str, str | None]], set[str], Sig | None]


def kept_also(kept: Kept | None, ops: Sequence[tuple[str, str | None]], fact_rels: Iterable[str],
              journal: Path) -> Kept:  # fmt: skip
    """What was written since the snapshot was refreshed, with one more commit's files."""
    before, rels, _ = kept or ([], set(), None)
    return [*before, *ops], rels | set(fact_rels), stat_sig(journal)


def keep_written(snap: Snapshot | None, root: Path, kept: Kept | None, journal: Path,
                 written: Callable[[], Mapping[str, str]]) -> Snapshot | None:  # fmt: skip
    """`snap` with the fact files written since it was refreshed put into it; None when that
    was not done (the snapshot is then as it was, for the caller to refresh). Not done either
    when the journal changed since the last of those commits: someone wrote since (another
    Vault, another process), and only a walk tells what."""
    if snap is None or kept is None or kept[2] is None or stat_sig(journal) != kept[2]:
        return None
    return snap if _put(snap, root, kept[0], kept[1], written) else None


@locked
def _put(snap: Snapshot, root: Path, ops: Sequence[tuple[str, str | None]], fact_rels: Collection[str],
         written: Callable[[], Mapping[str, str]]) -> bool:  # fmt: skip
    if snap._entries is None or not snap._current():  # not read, or another process saved
        return False  # it meanwhile: read what is there
    made: dict[str, Entry] = {}
    base = os.fspath(root)
    for rel, text in dict(ops).items():  # a path written twice: the later text landed
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
