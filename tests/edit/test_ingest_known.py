"""A folder ingested again: the files whose bytes were ingested whole are skipped unread."""

from __future__ import annotations

from pathlib import Path

import pytest

import mdmem.edit.ingest as ingest
from mdmem import Vault
from mdmem.edit.ingest import ingest_paths


@pytest.fixture
def chats(tmp_path: Path) -> Path:
    folder = tmp_path / "chats"
    folder.mkdir()
    (folder / "2025-01-01.md").write_text("User: I moved to Porto last week.\nAssistant: Nice!\n", encoding="utf-8")
    (folder / "2025-01-02.md").write_text("User: My sister Ana lives in Lisbon.\n", encoding="utf-8")
    return folder


def _reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    read: list[str] = []
    real = ingest.read_conversations

    def counted(path, **kw):
        read.append(Path(path).name)
        return real(path, **kw)

    monkeypatch.setattr(ingest, "read_conversations", counted)
    return read


def test_a_file_ingested_before_is_skipped_without_being_read(tmp_path, chats, monkeypatch):
    vault = Vault.create(tmp_path / "v", "personal")
    first = ingest_paths(vault, [chats])
    assert [r.skipped for r in first] == [False, False]
    (chats / "2025-01-03.md").write_text("User: I started learning the cello.\n", encoding="utf-8")
    read = _reads(monkeypatch)
    again = ingest_paths(vault, [chats])
    assert read == ["2025-01-03.md"]  # only the new file is parsed
    assert [r.skipped for r in again] == [True, True, False]
    for before, now in zip(first, again[:2], strict=True):  # as `run` skips them: the same result
        assert (now.source, now.sha256, now.messages, now.title, now.file) == (
            before.source, before.sha256, before.messages, None, None)  # fmt: skip
        assert now.previous is not None and now.previous["id"] == before.entry["id"]


def test_a_changed_file_and_reprocess_are_read_as_ever(tmp_path, chats, monkeypatch):
    vault = Vault.create(tmp_path / "v", "personal")
    ingest_paths(vault, [chats])
    with (chats / "2025-01-02.md").open("a", encoding="utf-8") as f:
        f.write("User: Ana works at a bakery.\n")
    read = _reads(monkeypatch)
    again = ingest_paths(vault, [chats])
    assert read == ["2025-01-02.md"] and [r.skipped for r in again] == [True, False]
    read.clear()
    ingest_paths(vault, [chats], reprocess=True)
    assert read == ["2025-01-01.md", "2025-01-02.md"]  # reprocessing reads every file again


def test_a_folders_links_resolve_as_each_file_would(tmp_path, chats):
    from mdmem.edit.sources import source_name, transcript_files

    vault = Vault.create(tmp_path / "v", "personal")
    ingest_paths(vault, [chats])
    fact = next((vault.root / "facts").rglob("*.md"))
    (chats / "a-fact.md").symlink_to(fact)  # the vault's own file, through a link: not a transcript
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "old.md").write_text("User: I live in Porto.\n", encoding="utf-8")
    (chats / "linked.md").symlink_to(outside / "old.md")
    (tmp_path / "through").symlink_to(chats, target_is_directory=True)  # the folder by a link
    for folder in (chats, tmp_path / "through"):
        files = transcript_files([folder], vault)
        assert [f.path.name for f in files] == ["2025-01-01.md", "2025-01-02.md", "linked.md"]
        # each named as resolving the file on its own names it
        assert [f.name for f in files] == [source_name(f.path, vault, f.path.resolve()) for f in files]
        assert files[-1].name == "../elsewhere/old.md"
