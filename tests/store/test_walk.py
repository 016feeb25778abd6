"""The one walk of facts/: what counts as a fact file, files vanishing mid-walk, and hand edits
that keep the size and the mtime still being seen by both caches (snapshot and index)."""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

import pytest

from mdmem import Vault
from mdmem.read.ask import ask
from mdmem.read.index import INDEX_FILE, Index
from mdmem.store import walk as walk_module
from mdmem.store.snapshot import Snapshot
from mdmem.store.walk import fact_files, sig_of, stat_paths, walk, walk_digest, walk_paths
from tests.conftest import make_vault


def _touch(path: Path, text: str = "x") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_hidden_folders_and_editor_junk_are_skipped(tmp_path: Path) -> None:
    facts = tmp_path / "facts"
    for rel in ["user/b.md", "user/a.md", "alice/x.md", "a-b/y.md"]:
        _touch(facts / rel)
    junk = ["user/.a.md.swp", "user/a.md~", "user/.hidden.md", "user/notes.txt",
            "user/4913", ".git/z.md", ".trash/user.md"]  # fmt: skip
    for rel in junk:
        _touch(facts / rel)
    (facts / "user" / "dir.md").mkdir()  # a folder with a fact's name is not a fact
    _touch(facts / "stray.md")  # a file directly in facts/ belongs to no entity

    found = [rel for rel, _ in walk_paths(walk(tmp_path))]

    # Entity folders in name order ("a-b" before "alice"), then files in name order.
    assert found == ["facts/a-b/y.md", "facts/alice/x.md", "facts/user/a.md", "facts/user/b.md"]
    assert [p.relative_to(tmp_path).as_posix() for p in fact_files(tmp_path)] == found


def test_no_facts_folder_is_an_empty_walk(tmp_path: Path) -> None:
    assert walk(tmp_path) == []
    _touch(tmp_path / "facts", "not a folder")
    assert walk(tmp_path) == []


def test_signature_is_the_stat_of_the_file(tmp_path: Path) -> None:
    path = tmp_path / "facts/user/a.md"
    _touch(path)
    [(rel, sig)] = walk_paths(walk(tmp_path))
    st = path.stat()
    assert sig == (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino) == sig_of(st)
    assert list(stat_paths(tmp_path, [rel, "facts/user/gone.md"])) == [(rel, sig)]


def test_a_file_removed_mid_walk_is_simply_gone(tmp_path: Path, monkeypatch) -> None:
    for rel in ["user/a.md", "user/b.md", "user/c.md"]:
        _touch(tmp_path / "facts" / rel)
    real_stat = os.stat

    def stat_then_vanish(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        if path == "b.md":
            os.unlink(tmp_path / "facts/user/b.md")  # deleted between listing and stat
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(walk_module.os, "stat", stat_then_vanish)
    assert [rel for rel, _ in walk_paths(walk(tmp_path))] == ["facts/user/a.md", "facts/user/c.md"]


def test_a_folder_removed_mid_walk_is_simply_gone(tmp_path: Path, monkeypatch) -> None:
    for rel in ["alice/a.md", "user/b.md"]:
        _touch(tmp_path / "facts" / rel)
    real_open = os.open

    def open_then_vanish(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        if Path(path).name == "alice":
            (tmp_path / "facts/alice/a.md").unlink()
            Path(path).rmdir()
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(walk_module.os, "open", open_then_vanish)
    assert [rel for rel, _ in walk_paths(walk(tmp_path))] == ["facts/user/b.md"]


def test_the_digest_moves_with_any_file(tmp_path: Path) -> None:
    path = tmp_path / "facts/user/a.md"
    _touch(path, "one")
    before = walk_digest(walk(tmp_path))
    assert walk_digest(walk(tmp_path)) == before
    _touch(tmp_path / "facts/user/b.md")
    assert walk_digest(walk(tmp_path)) != before


# --- hand edits that keep the size and the mtime -------------------------------------------------


@pytest.fixture
def lived(tmp_path: Path) -> Vault:
    """The user at Acme, files saved a minute ago (not 'racily clean'), both caches warm."""
    v = make_vault(tmp_path / "v", "personal")
    v.set("employer", "Acme", date="2025-08-15")
    for p in v.fact_files():
        st = p.stat()
        os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns - 60_000_000_000))
    assert "Acme" in ask(v, "Where do I work?").text
    assert v.check() == []
    assert v.facts["user/employer"].value == "Acme"
    return v


def _same_size_same_mtime(path: Path, how: str) -> None:
    """Zeta for Acme: the same number of bytes, and the old mtime put back to the nanosecond."""
    before = path.stat()
    data = path.read_bytes().replace(b"Acme", b"Zeta")
    time.sleep(0.05)  # past the kernel's timestamp tick, so ctime can move
    if how == "rename":  # an editor's save: a new file renamed over the old (new inode)
        tmp = path.with_name(".employer.md.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)
    else:  # in place: same inode
        with path.open("r+b") as f:
            f.write(data)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    assert (after.st_ino != before.st_ino) == (how == "rename")


@pytest.mark.parametrize("how", ["rename", "in_place"])
def test_a_hand_edit_is_seen_by_the_next_ask(lived: Vault, how: str) -> None:
    _same_size_same_mtime(lived.root / "facts/user/employer.md", how)
    text = ask(lived, "Where do I work?").text
    assert "Zeta" in text and "Acme" not in text


@pytest.mark.parametrize("how", ["rename", "in_place"])
def test_a_hand_edit_is_seen_by_the_next_check(lived: Vault, how: str, monkeypatch) -> None:
    _same_size_same_mtime(lived.root / "facts/user/employer.md", how)
    assert lived.check() == []
    assert lived.facts["user/employer"].value == "Zeta"
    monkeypatch.setattr("mdmem.store.snapshot._OPEN", {})  # as a new process would
    assert Vault(lived.root).scan()[0]["user/employer"].value == "Zeta"


def test_index_and_snapshot_keep_the_same_signature(lived: Vault) -> None:
    with Index(lived.root) as index:
        index.refresh()
    db = sqlite3.connect(lived.meta / INDEX_FILE)
    indexed = {p: (m, c, s, i) for p, m, c, s, i in
               db.execute("SELECT path, mtime_ns, ctime_ns, size, ino FROM files")}  # fmt: skip
    db.close()
    snap = Snapshot.open(lived.meta)
    walked = dict(walk_paths(walk(lived.root)))
    assert indexed == walked == {rel: e.sig for rel, e in snap.entries.items()}
