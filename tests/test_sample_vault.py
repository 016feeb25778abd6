"""sample_vault/ is what the README shows: it must be valid, tell the story, and be reproducible."""

import shutil
from pathlib import Path

from typer.testing import CliRunner

from mdmem import Vault
from mdmem.cli import app
from tests.conftest import ROOT

SAMPLE = ROOT / "sample_vault"


def test_sample_vault_is_valid_and_past_the_move() -> None:
    v = Vault(SAMPLE)
    assert v.check() == []
    f = v.facts
    assert f["user/home_city"].value == "Shanghai"
    assert f["user/home_city"].history[0]["value"] == "Guangzhou"
    assert f["user/social_insurance_city"].derived_from["fact"] == "user/home_city"
    assert f["user/home_address"].status == "uncertain"
    assert f["user/commute_minutes"].status == "expired"
    assert f["user/birthday"].status == "active"
    assert v.pending()


def test_sample_vault_rebuilds_byte_for_byte(tmp_path: Path, monkeypatch) -> None:
    work = tmp_path / "sample"
    shutil.copytree(SAMPLE / "transcripts", work / "transcripts")
    monkeypatch.chdir(work)
    monkeypatch.setenv("MDMEM_NOW", "2026-02-10T20:00:00Z")
    runner = CliRunner()
    assert runner.invoke(app, ["init", ".", "--rules", "personal"]).exit_code == 0
    files = ["transcripts/2025-08-15-en.md", "transcripts/2026-02-10-en.md"]
    assert runner.invoke(app, ["ingest", *files, "--vault", "."]).exit_code == 0
    episodes = sorted((SAMPLE / "episodes").rglob("*.md"))
    assert len(episodes) == 2  # one per session: the people's words, verbatim
    for path in sorted((SAMPLE / "facts").rglob("*.md")) + episodes + [
        SAMPLE / ".mdmem/journal.jsonl",
        SAMPLE / "rules.yaml",
    ]:
        rel = path.relative_to(SAMPLE)
        assert (work / rel).read_bytes() == path.read_bytes(), (
            f"{rel} differs: run scripts/build_sample_vault.sh"
        )
    assert sorted(p.name for p in (work / "facts/user").iterdir()) == sorted(
        p.name for p in (SAMPLE / "facts/user").iterdir()
    )
