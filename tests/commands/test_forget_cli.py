"""`mdmem forget`: --dry-run shows each span that will go, --json lists them, --all forgets
everything, and `undo` says the cut words cannot come back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mdmem import Vault
from mdmem.cli import app
from mdmem.edit.ingest import ingest_text
from tests.conftest import files_holding, make_vault
from tests.edit.test_forget_exact import BERLIN, episode_text

runner = CliRunner()


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    v = make_vault(tmp_path / "v", "personal")
    ingest_text(v, BERLIN + "User: My birthday is 14 March.\n", source="chat.md")
    return v


def run(v: Vault, *args: str) -> str:
    out = runner.invoke(app, [*args, "--vault", str(v.root)])
    assert out.exit_code == 0, out.output
    return out.output


def test_dry_run_shows_each_span_with_its_words_and_writes_nothing(vault: Vault) -> None:
    before = {p: p.read_bytes() for p in vault.root.rglob("*") if p.is_file()}
    out = run(vault, "forget", "social_insurance_city", "--dry-run")
    assert "CUT       episodes/2026/2026-02-10-chat.md#^m1  “my social insurance is paid in Berlin too”" in out
    assert {p: p.read_bytes() for p in vault.root.rglob("*") if p.is_file()} == before
    data = json.loads(run(vault, "forget", "social_insurance_city", "--dry-run", "--json"))
    assert data["cuts"] == [{"episode": "episodes/2026/2026-02-10-chat.md", "anchor": "m1", "start": 21,
                             "end": 62, "why": "user/social_insurance_city",
                             "text": "my social insurance is paid in Berlin too"}]  # fmt: skip


def test_a_forget_that_ran_says_where_not_what_and_undo_says_it_stays_cut(vault: Vault) -> None:
    out = run(vault, "forget", "birthday")
    assert "Cut 1 span from 1 episode file" in out and "14 March" not in out
    entry = json.loads(run(vault, "log", "--json"))[0]
    out = run(vault, "undo", entry["id"])
    assert "cannot come back" in out
    assert Vault(vault.root).facts["user/birthday"].value == "14 March"  # the fact is back
    assert "14 March" not in episode_text(vault.root)  # its words are not


def test_forget_all_with_a_dry_run_first(vault: Vault) -> None:
    out = run(vault, "forget", "--all", "--dry-run")
    assert out.count("DELETE") == 4 and "My hometown is Berlin as well." in out
    run(vault, "forget", "--all", "--purge")
    v = Vault(vault.root)
    assert all(f.status == "deleted" for f in v.facts.values())
    assert files_holding(v.root, "Berlin") == [] and files_holding(v.root, "14 March") == []


def test_forget_takes_one_of_attribute_text_or_all(vault: Vault) -> None:
    out = runner.invoke(app, ["forget", "birthday", "--all", "--vault", str(vault.root)])
    assert out.exit_code == 2 and "ATTRIBUTE, --text PHRASE or --all" in out.output
