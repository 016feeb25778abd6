"""Warm reads refresh only the folders they read, and still see every hand edit at once."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import mdmem.read.index as index_mod
import mdmem.read.index_refresh as index_refresh
from mdmem import Vault
from mdmem.read.ask import ask
from tests.conftest import make_vault


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    v = make_vault(tmp_path / "v", "personal")
    v.set("home_city", "Guangzhou", date="2024-01-01")
    v.set("employer", "Lingnan Tech", date="2024-01-01")
    v.set("home_city", "Berlin", date="2024-01-01", entity="person0042")
    ask(v, "Where do I live?")  # the index is built
    return v


@pytest.fixture
def walked(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The scope of every walk the index makes: None for the whole vault."""
    seen: list[object] = []
    real = index_refresh.iter_walk

    def spy(root: Path, entities: object = None) -> object:
        seen.append(None if entities is None else sorted(entities))  # type: ignore[call-overload]
        return real(root, entities)  # type: ignore[arg-type]

    monkeypatch.setattr(index_refresh, "iter_walk", spy)
    return seen


def _edit_in_place(path: Path, old: str, new: str) -> None:
    """What an editor that keeps the inode does (same size, mtime put back)."""
    st = path.stat()
    text = path.read_text(encoding="utf-8")
    assert old in text and len(old) == len(new)
    with open(path, "r+", encoding="utf-8") as f:
        f.write(text.replace(old, new))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def test_a_warm_ask_walks_only_the_person_it_is_about(vault: Vault, walked: list[object]) -> None:
    assert "Guangzhou" in ask(vault, "Where do I live?").text
    assert walked and None not in walked and all(w == ["user"] for w in walked)


def test_a_hand_edit_in_place_is_seen_by_the_next_ask(vault: Vault) -> None:
    _edit_in_place(vault.root / "facts/user/home_city.md", "Guangzhou", "Hangzhou!")
    assert "Hangzhou!" in ask(vault, "Where do I live?").text


def test_a_hand_edit_of_someone_else_is_seen_when_asked_about(vault: Vault) -> None:
    _edit_in_place(vault.root / "facts/person0042/home_city.md", "Berlin", "Munich")
    assert "Munich" in ask(vault, "Where does person0042 live?").text


def test_a_new_folder_and_a_removed_file_are_seen(vault: Vault) -> None:
    folder = vault.root / "facts/person0077"
    folder.mkdir()
    text = (vault.root / "facts/person0042/home_city.md").read_text(encoding="utf-8")
    (folder / "home_city.md").write_text(
        text.replace("person0042", "person0077").replace("Berlin", "Lisbon"), encoding="utf-8"
    )
    assert "Lisbon" in ask(vault, "Where does person0077 live?").text
    (vault.root / "facts/user/home_city.md").unlink()
    assert "Guangzhou" not in ask(vault, "Where do I live?").text


def test_a_read_across_everyone_refreshes_everyone(vault: Vault, walked: list[object]) -> None:
    _edit_in_place(vault.root / "facts/person0042/home_city.md", "Berlin", "Munich")
    (vault.root / "facts/user/home_city.md").unlink()  # the user no longer answers: all searched
    answer = ask(vault, "Who lives in Munich?")
    assert None in walked and "Munich" in answer.text


def test_facts_is_listed_again_only_when_a_folder_came_or_went(vault: Vault, monkeypatch) -> None:
    facts = vault.root / "facts"
    monkeypatch.setattr("mdmem.store.snapshot.RACY_NS", -1)  # as if facts/ last changed long ago
    listed: list[int] = []
    real = index_mod.entity_folders
    monkeypatch.setattr(index_mod, "entity_folders", lambda root: listed.append(1) or real(root))
    ask(vault, "Where do I live?")
    ask(vault, "Where do I work?")
    assert len(listed) == 1  # the second ask trusted the first one's listing
    folder = facts / "person0077"  # a new person's folder, made by hand
    folder.mkdir()
    text = (facts / "person0042/home_city.md").read_text(encoding="utf-8")
    (folder / "home_city.md").write_text(
        text.replace("person0042", "person0077").replace("Berlin", "Lisbon"), encoding="utf-8"
    )
    assert "Lisbon" in ask(vault, "Where does person0077 live?").text
    assert len(listed) == 2
