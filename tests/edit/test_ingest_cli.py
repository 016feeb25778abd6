"""mdmem ingest from cron: transcript types only, --quiet, --verbose, --reprocess, one row per fact."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mdmem import Vault
from mdmem.cli import app
from mdmem.edit.ingest import ingest_paths
from mdmem.extract.finder import Extraction
from tests.conftest import ROOT, make_vault

runner = CliRunner()
SAMPLES = ROOT / "sample_vault" / "transcripts"
FIRST = "## 2025-08-15\n\nUser: I live in Guangzhou and I work at Lingnan Tech.\n"
MOVE = "## 2026-02-10\n\nUser: I moved to Shanghai.\nAssistant: Congratulations!\n"


def mdmem(*args: str):
    return runner.invoke(app, list(args), catch_exceptions=False)


def nothing(*args: object, **kwargs: object) -> Extraction:
    """A finder that finds nothing: the weak extractor of an early run."""
    return Extraction()


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    return make_vault(tmp_path / "v", "personal")


@pytest.fixture
def chats(tmp_path: Path) -> Path:
    folder = tmp_path / "chats"
    folder.mkdir()
    (folder / "2025-08-15.md").write_text(FIRST, encoding="utf-8")
    (folder / "2026-02-10.txt").write_text(MOVE, encoding="utf-8")
    (folder / "photo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    (folder / "notes.docx").write_bytes(b"PK\x03\x04")
    return folder


def test_a_folder_is_read_for_transcript_types_only(vault: Vault, chats: Path) -> None:
    out = mdmem("ingest", str(chats), "--vault", str(vault.root))
    assert out.exit_code == 0, out.stderr  # a photo beside the chats is no error
    assert "photo.png" not in out.stderr + out.stdout
    assert vault.get("home_city").value == "Shanghai"
    assert [e["source"]["path"].rsplit("/", 1)[-1] for e in vault.journal.entries()] == [
        "2025-08-15.md",
        "2026-02-10.txt",
    ]
    again = mdmem("ingest", str(chats), "--vault", str(vault.root))
    assert again.exit_code == 0 and "2 sources (2 skipped): nothing new" in again.stderr


def test_verbose_names_what_was_passed_over(vault: Path, chats: Path) -> None:
    out = mdmem("ingest", str(chats), "--verbose", "--vault", str(vault.root))
    assert "photo.png: not a transcript type (.md .txt .jsonl .json); passed over." in out.stderr
    assert "notes.docx" in out.stderr and "2 other files passed over" in out.stderr


def test_ext_chooses_the_transcript_types(vault: Vault, chats: Path) -> None:
    (chats / "2026-03-01.log").write_text("User: I moved to Hangzhou.\n", encoding="utf-8")
    out = mdmem("ingest", str(chats), "--ext", "log", "--json", "--vault", str(vault.root))
    data = json.loads(out.stdout)
    assert [r["source"].rsplit("/", 1)[-1] for r in data["results"]] == ["2026-03-01.log"]
    assert vault.get("home_city").value == "Hangzhou"
    assert len(data["passed_over"]) == 4


def test_quiet_prints_errors_changes_and_one_summary_line(vault: Vault, chats: Path) -> None:
    mdmem("ingest", str(chats), "--vault", str(vault.root))
    (chats / "2026-03-01.md").write_text("User: I moved to Hangzhou.\n", encoding="utf-8")
    (chats / "2026-03-02.md").write_bytes(b"User: caf\xe9\n")
    out = mdmem("ingest", str(chats), "--quiet", "--vault", str(vault.root))
    assert out.exit_code == 1
    err = out.stderr.splitlines()
    assert len(err) == 2 and err[0].startswith("Error: ") and "2026-03-02.md" in err[0]
    assert err[1].startswith("4 sources (2 skipped, 1 with errors): UPDATE 1")
    assert "already ingested" not in out.stderr
    assert "2026-03-01.md" in out.stdout and "Guangzhou" not in out.stdout


def test_the_table_has_one_row_per_fact_and_each_message_its_line(vault: Vault, tmp_path: Path) -> None:
    path = tmp_path / "day.md"
    path.write_text(
        "## 2026-02-10\n\nUser: I live in Guangzhou.\nAssistant: Nice.\n"
        "User: Sorry, I moved to Shanghai.\n",
        encoding="utf-8",
    )
    out = mdmem("ingest", str(path), "--vault", str(vault.root))
    rows = [line.split("\t") for line in out.stdout.splitlines() if "\t" in line][1:]
    facts = [r[1] for r in rows]
    assert len(facts) == len(set(facts))  # one row per fact
    city = next(r for r in rows if r[1] == "user/home_city")
    assert city[0] == "ADD" and city[2] == "Shanghai" and city[4] == "L3, L5"


def test_cascade_rows_are_merged_into_the_final_state(vault: Vault) -> None:
    before, after = (str(SAMPLES / "2025-08-15-en.md"), str(SAMPLES / "2026-02-10-en.md"))
    mdmem("ingest", before, "--vault", str(vault.root))
    data = json.loads(mdmem("ingest", after, "--dry-run", "--json", "--vault", str(vault.root)).stdout)
    keys = [c["fact"] for c in data["results"][0]["changes"]]
    assert len(keys) > len(set(keys))  # the batch touched some facts more than once
    out = mdmem("ingest", after, "--vault", str(vault.root))
    rows = [line.split("\t") for line in out.stdout.splitlines() if "\t" in line][1:]
    assert sorted(r[1] for r in rows) == sorted(set(keys))  # one row per fact
    mode = next(r for r in rows if r[1] == "user/commute_mode")
    assert mode == ["UPDATE", "user/commute_mode", "cycle → metro", "", "L9"]  # stated: no doubt left
    address = next(r for r in rows if r[1] == "user/home_address")
    assert address[0] == "UNCERTAIN" and address[3] == "user/home_city changed"


def test_reprocess_applies_what_a_better_extractor_finds(vault: Vault, tmp_path: Path) -> None:
    path = tmp_path / "first.md"
    path.write_text(FIRST, encoding="utf-8")
    [early] = ingest_paths(vault, [path], extractor=nothing)
    assert early.entry is not None and vault.facts == {}
    assert "already ingested" in mdmem("ingest", str(path), "--vault", str(vault.root)).stderr
    out = mdmem("ingest", str(path), "--reprocess", "--vault", str(vault.root))
    assert out.exit_code == 0
    vault = Vault(vault.root)  # the command wrote through a Vault of its own
    assert vault.get("home_city").value == "Guangzhou" and vault.get("employer") is not None
    last = list(vault.journal.entries())[-1]
    assert last["source"]["reprocess"] is True and last["id"] in out.stdout
    n = len(list(vault.journal.entries()))
    again = mdmem("ingest", str(path), "--reprocess", "--vault", str(vault.root))
    assert "read again, nothing new" in again.stderr and "NOOP" not in again.stderr
    assert len(list(vault.journal.entries())) == n  # no entry for a re-read with nothing new


def test_reprocess_never_resurrects_a_forgotten_fact(vault: Vault, tmp_path: Path) -> None:
    path = tmp_path / "first.md"
    path.write_text(FIRST, encoding="utf-8")
    ingest_paths(vault, [path])
    vault.forget("employer")
    vault.forget("home_city")
    vault.set("home_city", "Shanghai", date="2026-02-10")  # said again later: active, new value
    n = len(list(vault.journal.entries()))
    [r] = ingest_paths(vault, [path], reprocess=True)
    assert r.skipped and len(list(vault.journal.entries())) == n
    assert vault.get("employer").status == "deleted"
    city = vault.get("home_city")
    assert city.value == "Shanghai" and "Guangzhou" not in json.dumps(city.to_mapping())


def test_reprocess_keeps_later_word_and_reads_new_messages(vault: Vault, tmp_path: Path) -> None:
    path = tmp_path / "log.md"
    path.write_text(FIRST, encoding="utf-8")
    ingest_paths(vault, [path])
    vault.set("employer", "Acme", date="2026-01-01")  # the person's later word
    path.write_text(FIRST + "\n## 2026-02-10\n\nUser: I moved to Shanghai.\n", encoding="utf-8")
    [r] = ingest_paths(vault, [path], reprocess=True)
    assert [(st.key, d) for st, d in r.plan.decisions] == [("user/home_city", "UPDATE")]
    assert vault.get("employer").value == "Acme"
    assert vault.get("home_city").value == "Shanghai"
