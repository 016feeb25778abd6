"""`mdmem sync` says when it re-read an episode edited by hand (not "Nothing to sync.")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mdmem.cli import app
from mdmem.edit.ingest import ingest_text
from mdmem.store.vault import Vault


@pytest.fixture
def vault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Vault:
    monkeypatch.setenv("MDMEM_NOW", "2026-03-01T12:00:00Z")
    v = Vault.create(tmp_path / "v", "personal")
    ingest_text(v, "Melanie: I painted a lake sunrise last year.\n", source="chat.md", date="2023-05-08")  # fmt: skip
    CliRunner().invoke(app, ["sync", "--vault", str(v.root)])
    return v


def _edit(v: Vault) -> str:
    (path,) = (v.root / "episodes").rglob("*.md")
    path.write_text(path.read_text(encoding="utf-8").replace("lake sunrise", "dusk"), "utf-8")
    return path.relative_to(v.root).as_posix()


def test_sync_names_the_episode_it_reread(vault: Vault) -> None:
    rel = _edit(vault)
    out = CliRunner().invoke(app, ["sync", "--vault", str(vault.root)])
    assert out.exit_code == 0, out.output
    assert f"{rel}: re-read into the passage index (edited by hand)" in out.output
    assert "Nothing to sync." not in out.output
    again = CliRunner().invoke(app, ["sync", "--vault", str(vault.root)])
    assert "Nothing to sync." in again.output


def test_sync_json_lists_the_episodes_reread(vault: Vault) -> None:
    rel = _edit(vault)
    out = CliRunner().invoke(app, ["sync", "--json", "--vault", str(vault.root)])
    assert json.loads(out.stdout)["reindexed"] == [rel]


def test_episodes_ingest_wrote_are_not_called_hand_edits(vault: Vault) -> None:
    """The index catching up with a new ingest is not news for the person."""
    ingest_text(vault, "Melanie: I adopted a cat today.\n", source="chat2.md", date="2023-06-01")
    out = CliRunner().invoke(app, ["sync", "--vault", str(vault.root)])
    assert out.exit_code == 0, out.output
    assert "re-read" not in out.output and "Nothing to sync." in out.output
