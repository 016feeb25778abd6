"""Fact files name their sources relative to the vault: no machine layout, no working directory."""

import os
from pathlib import Path

from mdmem.edit.ingest import ingest_paths
from tests.conftest import make_vault


def test_a_cron_run_stores_no_absolute_path(tmp_path: Path, monkeypatch):
    home = tmp_path / "home" / "me"
    v = make_vault(home / "memory", "personal")
    chats = home / "chats"
    chats.mkdir()
    (chats / "2026-01-05-chat.md").write_text("User: I live in Munich.\n", encoding="utf-8")
    monkeypatch.chdir("/")  # as cron runs it
    ingest_paths(v, [str(chats)])
    text = (v.root / "facts/user/home_city.md").read_text(encoding="utf-8")
    assert "source: ../chats/2026-01-05-chat.md#L1" in text
    assert str(tmp_path) not in text and str(tmp_path) not in v.journal.path.read_text("utf-8")


def test_the_same_name_from_any_working_directory(tmp_path: Path, monkeypatch):
    v = make_vault(tmp_path / "v", "personal")
    (tmp_path / "v" / "t").mkdir()
    (tmp_path / "v" / "t" / "a.md").write_text("User: I live in Munich.\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path / "v" / "t")
    results = ingest_paths(v, ["a.md"])
    assert results[0].source == "t/a.md" and os.sep not in results[0].source.replace("/", "")
