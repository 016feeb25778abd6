"""sync (and so watch) keeps the passage search in step with episodes edited by hand."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from mdmem.edit.ingest import ingest_text
from mdmem.edit.sync import sync
from mdmem.edit.watch import Watcher
from mdmem.store.vault import Vault

CHAT = """Caroline: I went to a LGBTQ support group yesterday.
Melanie: I painted a lake sunrise last year.
Caroline: Our log drain endpoint is stream.velturis.io/aurora.
"""


@pytest.fixture
def v(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Vault:
    monkeypatch.setenv("MDMEM_NOW", "2026-03-01T12:00:00Z")
    vault = Vault.create(tmp_path / "v", "personal")
    ingest_text(vault, CHAT, source="chat.md", date="2023-05-08")
    return vault


def _indexed(v: Vault) -> list[str]:
    """The passage texts, read from the index file itself (not through a search)."""
    db = sqlite3.connect(v.meta / "passages.sqlite")
    try:
        return [t for (t,) in db.execute("SELECT text FROM rows ORDER BY id")]
    finally:
        db.close()


def test_sync_reindexes_an_episode_edited_and_cut_by_hand(v: Vault) -> None:
    sync(v)
    assert "I painted a lake sunrise last year." in _indexed(v)
    (path,) = (v.root / "episodes").rglob("*.md")
    text = path.read_text(encoding="utf-8").replace("a lake sunrise", "a mountain at dusk")
    # Delete the third message: its header paragraph and its text.
    text = re.sub(r"\*\*Caroline\*\*[^\n]*\n\nOur log drain[^\n]*\^m3\n", "", text)
    assert "log drain" not in text
    path.write_text(text, encoding="utf-8")
    result = sync(v)
    assert result.reindexed == [path.relative_to(v.root).as_posix()]
    rows = _indexed(v)
    assert "I painted a mountain at dusk last year." in rows
    assert not any("lake sunrise" in r or "log drain" in r for r in rows)
    raw = (v.meta / "passages.sqlite").read_bytes()
    assert b"velturis" not in raw  # merged out of the full-text segments too
    assert sync(v).reindexed == []  # nothing changed since


def test_sync_reports_an_episode_that_no_longer_parses(v: Vault) -> None:
    (path,) = (v.root / "episodes").rglob("*.md")
    path.write_text("no frontmatter any more\n", encoding="utf-8")
    result = sync(v)
    assert [p.path for p in result.problems] == [path.relative_to(v.root).as_posix()]


def test_dry_run_leaves_the_index_alone(v: Vault) -> None:
    (v.meta / "passages.sqlite").unlink()  # the one the ingest wrote
    sync(v, dry_run=True)
    assert not (v.meta / "passages.sqlite").exists()


def test_a_vault_without_episodes_gets_no_index(tmp_path: Path) -> None:
    vault = Vault.create(tmp_path / "v", "personal")
    sync(vault)
    assert not (vault.meta / "passages.sqlite").exists()


def test_watch_counts_episode_files(v: Vault) -> None:
    w = Watcher(v.root, log=lambda _line: None)
    (path,) = (v.root / "episodes").rglob("*.md")
    assert w.relevant(str(path)) == path.relative_to(v.root).as_posix()
    assert w.relevant(str(path.parent / ".swp.md.tmp")) is None
    assert w.relevant(str(path.parent), is_directory=True) is None
    # An edit of it is synced, and the index follows.
    path.write_text(path.read_text(encoding="utf-8").replace("lake sunrise", "red barn"), "utf-8")
    w.sync_now()
    assert "I painted a red barn last year." in _indexed(v)

