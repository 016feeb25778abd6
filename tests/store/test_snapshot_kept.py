"""After a write of its own, a Vault's next read takes what it wrote from memory (no walk of the
vault), yet still sees every change anyone else made (store/snapshot_kept.py). Made-up chats."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mdmem import Vault
from mdmem.edit.ingest import ingest_paths, ingest_text
from mdmem.files import sha256
from mdmem.store.snapshot import Snapshot
from tests.conftest import make_vault

CHATS = [
    "## 2025-03-01 10:00\n\nuser: I work at Acme now.\nassistant: Nice!\n"
    "user: I live in Lisbon.\nassistant: Lovely city.\n",
    "## 2025-04-02 10:00\n\nuser: My sister Ana lives in Porto.\nassistant: Close by.\n"
    "user: I moved to Madrid last week.\nassistant: Big change!\n",
    "## 2025-05-03 10:00\n\nuser: I started working at Bolt.\nassistant: Congratulations.\n"
    "user: I'm planning to visit Japan in October.\nassistant: Exciting.\n",
]


def _fresh(v: Vault, monkeypatch: pytest.MonkeyPatch) -> tuple:
    """The scan a new process makes from the files alone (no snapshot in memory or on disk)."""
    monkeypatch.setattr("mdmem.store.snapshot._OPEN", {})
    for name in os.listdir(v.meta):
        if name.startswith("index.sqlite"):
            os.unlink(v.meta / name)
    other = Vault(v.root)
    facts, problems = other.scan(refresh=True)
    return list(facts.items()), problems, list(other.facts.items()), other.count()


def test_after_ingesting_the_kept_scan_is_what_a_fresh_vault_reads(tmp_path: Path, monkeypatch) -> None:
    v = Vault.create(tmp_path / "v", "personal", now="2025-06-01T12:00:00Z")
    for k, chat in enumerate(CHATS):
        ingest_text(v, chat, source=f"chat{k}.md")
    facts, problems = v.scan()
    kept = list(facts.items()), problems, list(v.facts.items()), v.count()
    assert len(kept[0]) >= 4  # the chats said something
    assert kept == _fresh(v, monkeypatch)  # the same facts, in the same order, and problems


def test_a_folder_ingest_walks_once_a_file_not_twice(tmp_path: Path, monkeypatch) -> None:
    chats = tmp_path / "chats"
    chats.mkdir()
    for k, chat in enumerate(CHATS):
        (chats / f"chat{k}.md").write_text(chat, encoding="utf-8")
    v = Vault.create(tmp_path / "v", "personal", now="2025-06-01T12:00:00Z")
    walks = []
    real = Snapshot.refresh
    monkeypatch.setattr(Snapshot, "refresh", lambda self, *a, **k: (walks.append(1), real(self, *a, **k))[1])
    results = ingest_paths(v, [chats])
    assert all(r.entry for r in results)
    assert len(walks) == len(CHATS) + 1  # each write's own, under the lock; one to begin with
    assert v.scan() is v.scan()  # kept: no walk for it


def test_a_read_after_a_write_needs_no_walk(tmp_path: Path, monkeypatch) -> None:
    v = make_vault(tmp_path / "v")
    v.set("home_city", "Guangzhou", date="2025-08-15")
    v.set("employer", "Acme", date="2025-08-15")  # its scan refreshes: no write is kept twice
    v.set("home_city", "Shanghai", date="2025-08-16")
    v.set("employer", "Bolt", date="2025-08-16")
    monkeypatch.setattr(Snapshot, "refresh", lambda *a, **k: pytest.fail("walked the vault"))
    assert v.get("home_city").value == "Shanghai" and v.get("employer").value == "Bolt"
    assert v.count() == len(v.facts) == 2
    shas = v.read_shas(["facts/user/home_city.md"])  # what apply expects next: what it wrote
    assert shas == {"facts/user/home_city.md": sha256((v.root / "facts/user/home_city.md").read_bytes())}


def _same_size_edit(path: Path, old: str, new: str) -> None:
    assert len(old) == len(new)
    path.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")


def test_a_file_edited_after_a_write_is_seen_and_never_overwritten(tmp_path: Path) -> None:
    v = make_vault(tmp_path / "v")
    v.set("employer", "Acme", date="2025-08-15")
    path = v.root / "facts/user/employer.md"
    _same_size_edit(path, "Acme", "Bolt")  # by hand, right after mdmem's write
    v.set("home_city", "Guangzhou", date="2025-08-16")  # the next write rescans under the lock
    assert "Bolt" in path.read_text(encoding="utf-8")
    assert v.get("employer").value == "Bolt"
    assert Vault(v.root).get("employer").value == "Bolt"


def test_an_edit_the_signature_cannot_tell_is_found_by_its_bytes(tmp_path: Path) -> None:
    """Someone saves the file between mdmem's write and its stat, within one timestamp tick:
    the signature kept is theirs, the bytes ours. The entry is racy, so the next refresh reads
    the bytes again and sees the edit."""
    v = make_vault(tmp_path / "v")
    v.set("employer", "Acme", date="2025-08-15")
    assert v.get("employer").value == "Acme"  # the write put into the snapshot
    path = v.root / "facts/user/employer.md"
    _same_size_edit(path, "Acme", "Cove")
    snap = Snapshot.open(v.meta)
    entry = snap.entries["facts/user/employer.md"]
    st = path.stat()
    entry.sig = (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)  # theirs, as if same tick
    assert v.scan(refresh=True)[0]["user/employer"].value == "Cove"


def test_a_save_by_another_process_is_read_not_kept_over(tmp_path: Path, monkeypatch) -> None:
    v = make_vault(tmp_path / "v")
    v.set("employer", "Acme", date="2025-08-15")
    _same_size_edit(v.root / "facts/user/employer.md", "Acme", "Dune")
    other = Snapshot(v.meta)  # another process: refreshes and saves the snapshot
    other.refresh(v.root, lambda: v.manifest.data)
    other.save(v.root, force=True)
    v.set("home_city", "Guangzhou", date="2025-08-16")
    assert v.scan()[0]["user/employer"].value == "Dune"
    assert list(v.scan()[0].items()) == _fresh(v, monkeypatch)[0]


def test_a_forget_is_read_again_as_before(tmp_path: Path, monkeypatch) -> None:
    v = make_vault(tmp_path / "v")
    v.set("employer", "Acme", date="2025-08-15")
    v.set("home_city", "Guangzhou", date="2025-08-15")
    v.forget("employer")
    facts, problems = v.scan()
    assert (list(facts.items()), problems) == _fresh(v, monkeypatch)[:2]


def test_a_write_by_another_vault_since_is_walked_for(tmp_path: Path) -> None:
    """What is kept is this Vault's own writes; any other write since (another Vault, another
    process: each appends to the journal) makes the next read walk the vault as before."""
    v = make_vault(tmp_path / "v")
    v.set("employer", "Acme", date="2025-08-15")
    Vault(v.root).set("home_city", "Guangzhou", date="2025-08-16")
    assert v.get("home_city") is not None and v.get("employer").value == "Acme"
