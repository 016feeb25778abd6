"""The one walk of facts/ and the one stat signature that says whether a file changed.

Every cache that asks "which fact files are there, and did this one change?" (the snapshot, the
search index, `Vault.fact_files`) asks here, so they cannot disagree about which files count
or miss an edit that one of them would have seen.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path

# (mtime_ns, ctime_ns, size, inode). An atomic rename gives a new inode; an in-place rewrite
# that keeps the size and even puts the old mtime back still moves ctime, which no one can set.
Sig = tuple[int, int, int, int]
Folder = tuple[str, list[str], list[Sig]]  # an entity folder: its fact file names, their sigs


def sig_of(st: os.stat_result) -> Sig:
    """The signature of a stat result."""
    return (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)


def stat_sig(path: Path) -> Sig | None:
    """The signature of one file, or None when it is not there."""
    try:
        return sig_of(path.stat())
    except OSError:
        return None


def entity_folders(root: Path) -> list[str]:
    """The entity folders under root/facts, in name order (one directory listing, no stats)."""
    try:
        with os.scandir(f"{root}/facts") as it:
            return sorted(e.name for e in it if not e.name.startswith(".") and e.is_dir())
    except (FileNotFoundError, NotADirectoryError):
        return []


def walk(root: Path, entities: Iterable[str] | None = None) -> list[Folder]:
    """Every fact file under root/facts (or under these entities' folders only): entity
    folders and their files in name order (see `iter_walk`)."""
    return list(iter_walk(root, entities))


def iter_walk(root: Path, entities: Iterable[str] | None = None) -> Iterator[Folder]:
    """`walk`, one folder at a time: a caller that keeps nothing of a folder it has dealt
    with holds one folder's names and signatures, however large the vault.

    Hidden folders and names `is_fact_name` rejects (editors' swap, backup and temporary files)
    are skipped, and so is anything that is not a regular file; a file or folder removed while
    we look is simply gone. Every freshness check of a vault pays this walk, so its loop is
    plain: text paths, one `stat` relative to the open folder per file, no call per name.
    """
    folders = entity_folders(root) if entities is None else sorted(set(entities))
    base = f"{root}/facts/"
    stat_at, regular, flags = os.stat, stat.S_ISREG, os.O_RDONLY | os.O_DIRECTORY
    for ent in folders:
        if ent.startswith(".") or "/" in ent:
            continue
        try:
            fd = os.open(base + ent, flags)
        except OSError:
            continue
        names: list[str] = []
        sigs: list[Sig] = []
        try:
            with os.scandir(fd) as it:
                # is_fact_name, inline: a call per name costs as much as the test
                found = sorted([n for e in it if (n := e.name).endswith(".md") and n[0] != "."])
            for name in found:
                try:
                    st = stat_at(name, dir_fd=fd)  # relative to the folder: no path walk per file
                except FileNotFoundError:
                    continue
                if regular(st.st_mode):
                    names.append(name)
                    sigs.append((st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino))
        finally:
            os.close(fd)
        yield ent, names, sigs


def walk_paths(folders: Iterable[Folder]) -> Iterator[tuple[str, Sig]]:
    """(vault-relative path, signature) of every file a walk found, in its order."""
    for ent, names, sigs in folders:
        prefix = f"facts/{ent}/"
        for name, sig in zip(names, sigs, strict=True):
            yield prefix + name, sig


def folder_digest(folder: Folder) -> str:
    """One digest of a folder's names and signatures; equal digests mean no file in it changed."""
    ent, names, sigs = folder
    digest = hashlib.blake2b(digest_size=16)
    # hash() of a tuple of ints is the same in every process (only str hashes are salted).
    digest.update(f"{ent}\0{len(names)}\0{hash(tuple(sigs))}\0".encode())
    digest.update("\0".join(names).encode())
    return digest.hexdigest()


def walk_digest(folders: Iterable[Folder]) -> str:
    """One digest of every name and signature; equal digests mean no file changed."""
    return digest_of(folder_digest(f) for f in folders)


def digest_of(folder_digests: Iterable[str]) -> str:
    """The walk's digest from its folders' digests, in walk order."""
    digest = hashlib.blake2b(digest_size=16)
    for d in folder_digests:
        digest.update(d.encode())
    return digest.hexdigest()


def stat_paths(root: Path, rels: Iterable[str]) -> Iterator[tuple[str, Sig]]:
    """(path, signature) of just these vault-relative paths, skipping those not there."""
    base = str(root)
    for rel in rels:
        try:
            st = os.stat(f"{base}/{rel}")  # a str path: no pathlib per file
        except (FileNotFoundError, NotADirectoryError):
            continue
        if stat.S_ISREG(st.st_mode):
            yield rel, sig_of(st)


def fact_files(root: Path) -> list[Path]:
    """Every fact file's path, in the walk's order."""
    return [root / rel for rel, _ in walk_paths(walk(root))]
