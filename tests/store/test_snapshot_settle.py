"""A vault that stopped changing is known unchanged from its stat walk alone, and a change after
that is still seen: the snapshot's settled digest, and what `check` answers from the walk."""

import os
from pathlib import Path

import pytest

from mdmem import Vault
from mdmem.store.snapshot import Snapshot
from tests.conftest import make_vault


def _age(path: Path, seconds: float = 60) -> None:
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns - int(seconds * 1e9)))


def _fresh_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("mdmem.store.snapshot._OPEN", {})


def _refresh(v: Vault) -> Snapshot:
    snap = Snapshot.open(v.meta)
    snap.refresh(v.root, lambda: v.manifest.data)
    return snap


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    v = make_vault(tmp_path / "v")
    for attr, value in (("home_city", "广州"), ("employer", "Acme"), ("birthday", "03-14")):
        v.set(attr, value, date="2025-08-15")
    for p in (v.root / "facts/user").iterdir():
        _age(p)
    return v


def test_files_read_again_once_older_are_saved_so_the_next_walk_reads_no_entry(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("mdmem.store.snapshot.SAVE_AFTER", 3)  # three entries count as many
    _refresh(vault).save(vault.root, force=True)
    path = vault.root / "facts/user/employer.md"
    path.write_text(path.read_text(encoding="utf-8").replace("Acme", "Bolt"), encoding="utf-8")
    _refresh(vault).save(vault.root, force=True)  # saved while just written: racy
    _age(path)  # older now (its ctime moved too): read again once, its bytes the same
    _fresh_process(monkeypatch)
    snap = _refresh(vault)
    assert snap.read == 1 and snap.parsed == 0
    snap.save(vault.root)  # one file read, fewer than SAVE_AFTER: saved all the same
    _fresh_process(monkeypatch)
    again = _refresh(vault)
    assert again.read == 0 and again._entries is None  # the digest alone said: nothing changed
    # and a change after that is seen: same size, the old mtime put back, only ctime moved
    st = path.stat()
    path.write_text(path.read_text(encoding="utf-8").replace("Bolt", "Cove"), encoding="utf-8")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    _fresh_process(monkeypatch)
    third = _refresh(vault)
    assert third.parsed == 1
    assert third.facts(vault.root)[0]["user/employer"].value == "Cove"


def test_check_after_a_settled_check_still_sees_a_file_emptied(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("mdmem.store.snapshot.SAVE_AFTER", 3)
    assert Vault(vault.root).check() == []
    _fresh_process(monkeypatch)
    assert Vault(vault.root).check() == []  # answered from the walk and the note
    assert Snapshot.open(vault.meta)._entries is None
    path = vault.root / "facts/user/birthday.md"
    st = path.stat()
    path.write_bytes(b"")  # emptied in place: the walk passes over it, mdmem had written it
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    _fresh_process(monkeypatch)
    problems = Vault(vault.root).check()
    assert [p.path for p in problems] == ["facts/user/birthday.md"] and "is empty" in problems[0].message


def test_a_settled_check_does_not_trust_its_note_once_the_manifest_changed(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The note of what mdmem wrote and the walk did not list is keyed by the manifest's own
    signature: a manifest replaced (as every write replaces it) is read again."""
    monkeypatch.setattr("mdmem.store.snapshot.SAVE_AFTER", 3)
    assert Vault(vault.root).check() == []
    manifest = vault.manifest
    manifest.data["facts/user/commute_mode.md"] = "0" * 64  # mdmem wrote it; it is gone now
    (vault.root / "facts/user/commute_mode.md").write_bytes(b"")  # an empty one in its place
    _age(vault.root / "facts/user/commute_mode.md")
    manifest.save()
    _fresh_process(monkeypatch)
    problems = Vault(vault.root).check()
    assert [p.path for p in problems] == ["facts/user/commute_mode.md"]


def test_after_a_settled_walk_a_file_added_and_one_removed_are_counted(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("mdmem.store.snapshot.SAVE_AFTER", 3)
    assert Vault(vault.root).check() == [] and Vault(vault.root).count() == 3
    _fresh_process(monkeypatch)
    Vault(vault.root).check()
    assert Snapshot.open(vault.meta)._entries is None  # settled: the walk alone answered
    folder = vault.root / "facts/user"
    (folder / "pet.md").write_bytes((folder / "employer.md").read_bytes().replace(b"employer", b"pet"))
    (folder / "birthday.md").unlink()
    _fresh_process(monkeypatch)
    v = Vault(vault.root)
    assert v.check() == []
    assert v.count() == 3 and sorted(Snapshot.open(vault.meta).paths()) == [
        "facts/user/employer.md", "facts/user/home_city.md", "facts/user/pet.md"]  # fmt: skip


def test_a_link_made_in_an_entity_folder_after_a_settled_check_is_reported(
    vault: Vault, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """facts/ is not listed again while no entity folder changed since a look found no link;
    making a link changes its folder (mtime, and ctime, which no one can put back)."""
    monkeypatch.setattr("mdmem.store.snapshot.SAVE_AFTER", 3)
    assert Vault(vault.root).check() == []
    _fresh_process(monkeypatch)
    assert Vault(vault.root).check() == []  # the note of no links is in use now
    folder = vault.root / "facts/user"
    st = folder.stat()
    (tmp_path / "elsewhere").mkdir()
    os.symlink(tmp_path / "elsewhere", folder / "notes")  # not a fact file: the walk skips it
    os.utime(folder, ns=(st.st_atime_ns, st.st_mtime_ns))  # its old mtime put back
    _fresh_process(monkeypatch)
    problems = Vault(vault.root).check()
    assert [p.path for p in problems] == ["facts/user/notes"] and "outside the vault" in problems[0].message


def test_facts_folder_swapped_for_a_link_after_a_settled_check_is_reported(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("mdmem.store.snapshot.SAVE_AFTER", 3)
    assert Vault(vault.root).check() == []
    _fresh_process(monkeypatch)
    assert Vault(vault.root).check() == []
    (vault.root / "facts").rename(vault.root / "kept")
    (vault.root / "facts").symlink_to("kept")  # inside the vault: followed, and reported
    _fresh_process(monkeypatch)
    problems = Vault(vault.root).check()
    assert [p.path for p in problems] == ["facts"] and "inside the vault" in problems[0].message


def test_a_file_dated_in_the_future_settles_and_a_later_change_to_it_is_seen(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A clock that ran ahead (or was set back since): the file is not taken for one just
    written (it would be re-read forever), and the settled walk still sees its next change,
    made with the same size and the future mtime put back, by its ctime."""
    monkeypatch.setattr("mdmem.store.snapshot.SAVE_AFTER", 3)
    path = vault.root / "facts/user/employer.md"
    st = path.stat()
    ahead = st.st_mtime_ns + 86_400 * 10**9
    os.utime(path, ns=(st.st_atime_ns, ahead))
    _refresh(vault).save(vault.root)
    _fresh_process(monkeypatch)
    snap = _refresh(vault)
    assert snap.read == 0 and snap._entries is None  # settled, though dated tomorrow
    path.write_text(path.read_text(encoding="utf-8").replace("Acme", "Bolt"), encoding="utf-8")
    os.utime(path, ns=(st.st_atime_ns, ahead))
    _fresh_process(monkeypatch)
    assert _refresh(vault).facts(vault.root)[0]["user/employer"].value == "Bolt"
