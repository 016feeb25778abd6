"""The one walk of facts/ and the one stat signature that says whether a file changed.

Every cache that asks "which fact files are there, and did this one change?" (the snapshot, the
search index, `Vault.fact_files`) asks here, so they cannot disagree about which files count
or miss an edit that one of them would have seen.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path

from mdmem.boundary import FOLDER, OutsideVault, open_folder
from mdmem.files import current

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
    """The entity folders under root/facts, in name order (one directory listing, no stats;
    a link is listed and checked when opened). A facts/ linked out of the vault: OutsideVault."""
    try:
        fd = open_folder(root / "facts")
    except (FileNotFoundError, NotADirectoryError):
        return []
    try:
        with os.scandir(fd) as it:
            return sorted(e.name for e in it if not e.name.startswith(".")
                          and (e.is_symlink() or e.is_dir(follow_symlinks=False)))  # fmt: skip
    finally:
        os.close(fd)


def walk(root: Path, entities: Iterable[str] | None = None) -> list[Folder]:
    """Every fact file under root/facts (or under these entities' folders only): entity
    folders and their files in name order (see `iter_walk`)."""
    return list(iter_walk(root, entities))


def iter_walk(root: Path, entities: Iterable[str] | None = None) -> Iterator[Folder]:
    """`walk`, one folder at a time: a caller that keeps nothing of a folder it has dealt
    with holds one folder's names and signatures, however large the vault.

    Hidden folders and names `is_fact_name` rejects (editors' swap, backup and temporary files)
    are skipped, and so is anything that is not a regular file, and an empty file: the note
    Obsidian creates when a link to a fact not known yet is clicked (`empty_written` finds
    those mdmem had written). A file or folder removed while we look is simply gone. Links
    are followed only inside the vault (`boundary`): an entity folder linked out is not read,
    and a fact file linked out is listed with the link's own signature, so that reading it
    (refused) makes it a problem the snapshot reports.
    """
    folders = entity_folders(root) if entities is None else sorted(set(entities))
    facts = root / "facts"
    stat_at, listdir, link, reg = os.stat, os.listdir, stat.S_ISLNK, stat.S_IFREG
    try:
        top: int | None = open_folder(facts)
    except (OSError, OutsideVault):
        top = None
    try:
        for ent in folders:
            if ent.startswith(".") or "/" in ent:
                continue
            try:
                fd = _entity_folder(top, facts, ent)
            except (OSError, OutsideVault):
                continue
            names: list[str] = []
            sigs: list[Sig] = []
            name_, sig_ = names.append, sigs.append
            try:
                # is_fact_name, inline: a call per name costs as much as the test; listdir
                # gives the names alone (scandir makes an entry object of each)
                found = sorted([n for n in listdir(fd) if n.endswith(".md") and n[0] != "."])
                for name in found:
                    try:  # relative to the folder: no path walk per file
                        st = stat_at(name, dir_fd=fd, follow_symlinks=False)
                    except FileNotFoundError:
                        continue
                    mode = st.st_mode
                    if mode & 0o170000 == reg:  # S_IFMT inline; the usual case first: a regular file
                        if st.st_size:
                            name_(name)
                            sig_((st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino))
                    elif link(mode) and (sig := _linked(root, f"facts/{ent}/{name}", st)):
                        name_(name)
                        sig_(sig)
            finally:
                os.close(fd)
            yield ent, names, sigs
    finally:
        if top is not None:
            os.close(top)


def _entity_folder(top: int | None, facts: Path, ent: str) -> int:
    """A descriptor of facts/ent: opened relative to the checked facts/ without following a
    link (one system call, as `boundary` opens every component); a link (or no facts/
    descriptor) goes the boundary's whole way, which follows it only inside the vault."""
    if top is not None:
        try:
            return os.open(ent, FOLDER, dir_fd=top)
        except OSError as e:
            if e.errno not in (errno.ELOOP, errno.ENOTDIR):
                raise
    return open_folder(facts / ent)


def _linked(root: Path, rel: str, link: os.stat_result) -> Sig | None:
    """The signature of a fact file that is a link: of the file it points to inside the vault,
    or of the link itself when it leads out (read later, and refused: a problem to report)."""
    try:
        if current(f"{root}/{rel}") is None:
            return None  # a dangling link: no file
        return sig_of(os.stat(f"{root}/{rel}"))
    except OutsideVault:
        return sig_of(link)
    except OSError:  # a folder, or gone
        return None


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
            st = os.stat(f"{base}/{rel}", follow_symlinks=False)  # a str path: no pathlib per file
        except (FileNotFoundError, NotADirectoryError):
            continue
        if stat.S_ISLNK(st.st_mode) and (sig := _linked(root, rel, st)):
            yield rel, sig
        elif stat.S_ISREG(st.st_mode) and st.st_size:
            yield rel, sig_of(st)


EMPTY_PROBLEM = (
    "is empty: mdmem wrote this fact here before; restore it (git, or `mdmem undo` of the "
    "entry that last wrote it), or delete the file to forget the fact"
)


def empty_written(root: Path, written: Iterable[str]) -> list[str]:
    """The fact files mdmem wrote that are empty now: emptied, not an Obsidian placeholder,
    so neither skipped in silence nor taken for a deletion."""
    out = []
    for rel in written:
        if rel.startswith("facts/"):
            try:
                st = os.stat(root / rel)
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode) and not st.st_size:
                out.append(rel)
    return sorted(out)


def fact_files(root: Path) -> list[Path]:
    """Every fact file's path, in the walk's order."""
    return [root / rel for rel, _ in walk_paths(walk(root))]
