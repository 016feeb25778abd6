"""ingest: one journal entry per source, re-runs, dry runs, folders, stdin, --commit, LoCoMo."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mdmem import Vault
from mdmem.cli import app
from mdmem.edit.ingest import ingest_paths, ingest_text, ingested_sources
from mdmem.edit.ingest_result import summary
from mdmem.edit.sources import transcript_files
from mdmem.engine import describe
from tests.conftest import LOCOMO, LOCOMO_DEV, ROOT, make_vault

runner = CliRunner()
FIRST = "## 2025-08-15\n\nUser: I live in Guangzhou and I work at Lingnan Tech.\n"
MOVE = "## 2026-02-10\n\nUser: I moved to Shanghai.\nAssistant: Congratulations!\n"


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    return make_vault(tmp_path / "v", "personal")


def journal_lines(v: Vault) -> list[dict]:
    return list(v.journal.entries())


def test_ingest_text_applies_one_journal_entry_with_the_sources_hash(vault):
    r = ingest_text(vault, FIRST, source="chat.md")
    assert [d for _, d in r.plan.decisions] == ["ADD", "ADD"]
    assert vault.get("home_city").value == "Guangzhou"
    [entry] = journal_lines(vault)
    assert entry["id"] == r.entry["id"]
    assert entry["source"]["path"] == "chat.md" and entry["source"]["kind"] == "transcript"
    assert len(entry["source"]["sha256"]) == 64
    assert vault.get("home_city").source == "chat.md#L3"


def test_a_rerun_of_the_same_text_changes_nothing_and_says_so(vault):
    ingest_text(vault, FIRST)
    before = journal_lines(vault)
    again = ingest_text(vault, FIRST)
    assert again.skipped and again.previous["id"] == before[0]["id"] and again.entry is None
    assert journal_lines(vault) == before


def test_a_source_that_changes_nothing_is_still_journaled_and_then_skipped(vault):
    r = ingest_text(vault, "User: hello there\nAssistant: hi\n")
    assert r.plan.changes == [] and r.entry is not None and r.entry["changes"] == []
    assert ingest_text(vault, "User: hello there\nAssistant: hi\n").skipped


def test_cascades_run_and_are_counted(vault):
    vault.set("social_insurance_city", "Guangzhou", date="2025-08-15")
    ingest_text(vault, FIRST)
    r = ingest_text(vault, MOVE)
    counts = r.counts()
    assert counts["UPDATE"] == 1 and counts["DERIVE"] == 1 and counts["UNCERTAIN"] >= 1
    assert vault.get("social_insurance_city").value == "Shanghai"
    assert vault.get("employer").status == "uncertain"
    assert "UPDATE 1" in summary([r]) and "DERIVE 1" in summary([r])


def test_dry_run_writes_nothing_and_plans_files_in_sequence(vault, tmp_path):
    folder = tmp_path / "t"
    folder.mkdir()
    (folder / "a.md").write_text(FIRST, encoding="utf-8")
    (folder / "b.md").write_text(MOVE, encoding="utf-8")
    results = ingest_paths(vault, [folder], dry_run=True)
    assert [[d for _, d in r.plan.decisions] for r in results] == [["ADD", "ADD"], ["UPDATE"]]
    assert all(r.dry_run and r.entry is None for r in results)
    assert vault.facts == {} and journal_lines(vault) == []
    assert not (vault.root / "facts" / "user").exists()


def test_a_dry_run_refuses_a_broken_file_in_the_words_of_the_real_run(vault, tmp_path):
    ingest_text(vault, FIRST)
    (vault.root / "facts" / "user" / "home_city.md").write_text("---\nvalue: [\n", encoding="utf-8")
    (tmp_path / "move.md").write_text(MOVE, encoding="utf-8")
    [dry] = ingest_paths(vault, [tmp_path / "move.md"], dry_run=True)
    [real] = ingest_paths(vault, [tmp_path / "move.md"])
    assert dry.errors == real.errors and len(dry.errors) == 1
    assert "user/home_city is in a file that does not parse (facts/user/home_city.md" in dry.errors[0]
    assert "fix it by hand (`mdmem check`)" in dry.errors[0]


def test_folder_in_name_order_with_a_bad_file_reported_and_the_rest_ingested(vault, tmp_path):
    folder = tmp_path / "t"
    (folder / "sub").mkdir(parents=True)
    (folder / "2-move.md").write_text(MOVE, encoding="utf-8")
    (folder / "1-first.md").write_text(FIRST, encoding="utf-8")
    (folder / "15-bad.md").write_bytes(b"User: caf\xe9 au lait\n")
    (folder / ".hidden.md").write_text("User: I moved to Paris.\n", encoding="utf-8")
    (folder / "sub" / "3-empty.md").write_text("   \n", encoding="utf-8")
    passed: list[tuple[str, str]] = []
    results = ingest_paths(vault, [folder], passed_over=lambda p, why: passed.append((p.name, why)))
    assert [Path(r.source).name for r in results] == ["1-first.md", "15-bad.md", "2-move.md"]
    bad = results[1]
    assert bad.failed and "15-bad.md" in bad.errors[0] and "UTF-8" in bad.errors[0]
    assert passed == [("3-empty.md", "holds no messages")]  # in a folder: passed over, no error
    assert vault.get("home_city").value == "Shanghai"  # the files after the bad one still went in
    assert len(journal_lines(vault)) == 2


def test_the_vaults_own_files_are_never_read_as_transcripts(vault):
    vault.set("home_city", "Guangzhou")
    names = [f.name for f in transcript_files([vault.root], vault)]
    assert names == []


def test_source_names_are_vault_relative_when_inside_the_vault(vault):
    (vault.root / "transcripts").mkdir()
    (vault.root / "transcripts" / "d.md").write_text(FIRST, encoding="utf-8")
    [r] = ingest_paths(vault, [vault.root / "transcripts" / "d.md"])
    assert r.source == "transcripts/d.md"
    assert vault.get("employer").source == "transcripts/d.md#L3"


def test_message_time_falls_back_to_date_then_file_time(vault, tmp_path):
    path = tmp_path / "undated.md"
    path.write_text("User: I live in Guangzhou.\n", encoding="utf-8")
    os.utime(path, (1_700_000_000, 1_700_000_000))  # 2023-11-14
    ingest_paths(vault, [path], date="2024-05-06")
    assert vault.get("home_city").valid_from == "2024-05-06"
    other = make_vault(tmp_path / "v2", "personal")
    ingest_paths(other, [path])
    assert other.get("home_city").valid_from == "2023-11-14"


def test_undo_makes_a_source_ingestible_again(vault):
    from mdmem.edit.undo import undo

    r = ingest_text(vault, FIRST)
    undo(vault, r.entry["id"])
    assert vault.get("home_city") is None and ingested_sources(vault) == {}
    again = ingest_text(vault, FIRST)
    assert not again.skipped and vault.get("home_city").value == "Guangzhou"


def test_progress_is_silent_without_a_terminal(vault, tmp_path, capsys):
    for i in range(3):
        (tmp_path / f"{i}.md").write_text(f"User: my locker number is {i}0.\n", encoding="utf-8")
    ingest_paths(vault, [tmp_path / f"{i}.md" for i in range(3)], progress=True)
    captured = capsys.readouterr()
    assert captured.err == "" and captured.out == ""


def test_progress_bar_on_a_terminal(vault, tmp_path, monkeypatch):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    for i in range(2):
        (tmp_path / f"{i}.md").write_text(f"User: my locker number is {i}0.\n", encoding="utf-8")
    results = ingest_paths(vault, [tmp_path / "0.md", tmp_path / "1.md"], progress=True)
    assert [r.errors for r in results] == [[], []]


# --- the command --------------------------------------------------------------------------


def test_cli_ingest_prints_changes_and_a_summary(vault, tmp_path):
    path = tmp_path / "chat.md"
    path.write_text(FIRST, encoding="utf-8")
    res = runner.invoke(app, ["ingest", str(path), "--vault", str(vault.root)])
    assert res.exit_code == 0, res.output
    assert "user/home_city" in res.stdout and "Guangzhou" in res.stdout
    assert "1 source: ADD 2" in res.stderr
    res = runner.invoke(app, ["ingest", str(path), "--vault", str(vault.root)])
    assert res.exit_code == 0 and "already ingested" in res.stderr


def test_cli_ingest_stdin_json_and_dry_run(vault):
    res = runner.invoke(
        app, ["ingest", "-", "--vault", str(vault.root), "--json", "--dry-run"], input=FIRST
    )
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    [r] = data["results"]
    assert data["dry_run"] and r["source"] == "<stdin>" and r["counts"] == {"ADD": 2}
    assert [c["fact"] for c in r["changes"]] == ["user/home_city", "user/employer"]
    assert vault.facts == {}


def test_cli_exit_code_is_1_when_a_file_fails(vault, tmp_path):
    (tmp_path / "bad.json").write_text('{"role": "user"}\n', encoding="utf-8")
    (tmp_path / "good.md").write_text(FIRST, encoding="utf-8")
    res = runner.invoke(app, ["ingest", str(tmp_path / "bad.json"), str(tmp_path / "good.md"),
                              "--vault", str(vault.root)])  # fmt: skip
    assert res.exit_code == 1 and "bad.json:1" in res.stderr
    assert vault.get("home_city").value == "Guangzhou"


# --- --commit -------------------------------------------------------------------------------


def _git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=True, check=True
    ).stdout


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_commit_makes_one_commit_with_only_mdmems_files(vault, tmp_path):
    _git(vault.root, "init", "-q")
    (vault.root / "notes.txt").write_text("mine\n", encoding="utf-8")
    _git(vault.root, "add", "notes.txt")  # staged by the person: must stay out of the commit
    folder = tmp_path / "t"
    folder.mkdir()
    (folder / "a.md").write_text(FIRST, encoding="utf-8")
    (folder / "b.md").write_text(MOVE, encoding="utf-8")
    results = ingest_paths(vault, [folder], commit=True)
    assert results[0].commit and results[0].commit == results[1].commit
    assert _git(vault.root, "rev-list", "--count", "HEAD").strip() == "1"
    files = set(_git(vault.root, "show", "--name-only", "--format=", "HEAD").split())
    # The episodes too: the committed facts' evidence links point into them.
    assert files == {".mdmem/.gitignore", ".mdmem/journal.jsonl", "facts/user/employer.md",
                     "facts/user/home_city.md", "episodes/2025/2025-08-15-a.md",
                     "episodes/2026/2026-02-10-b.md"}  # fmt: skip
    assert _git(vault.root, "status", "--porcelain", "--", "episodes", "facts") == ""
    msg = _git(vault.root, "log", "-1", "--format=%B")
    # One line per fact and source, as the tables show them (2 rows each), never a line per
    # cascade step.
    assert msg.startswith("mdmem ingest: 2 sources, 4 facts changed")
    assert "Guangzhou → Shanghai" in msg and "UNCERTAIN" in msg
    assert "notes.txt" in _git(vault.root, "diff", "--cached", "--name-only")
    again = ingest_paths(vault, [folder], commit=True)  # nothing new: no empty commit
    assert all(r.skipped and r.commit is None for r in again)
    assert _git(vault.root, "rev-list", "--count", "HEAD").strip() == "1"


def test_commit_outside_a_repository_is_refused_before_writing(vault, tmp_path):
    from mdmem.errors import MdmemError

    if (
        subprocess.run(["git", "-C", str(vault.root), "rev-parse"], capture_output=True).returncode
        == 0
    ):
        pytest.skip("the temporary folder is inside a git repository")
    (tmp_path / "a.md").write_text(FIRST, encoding="utf-8")
    with pytest.raises(MdmemError, match="not in a git repository"):
        ingest_paths(vault, [tmp_path / "a.md"], commit=True)
    assert vault.facts == {}


# --- the sample transcripts and real chat ----------------------------------------------------

SAMPLES = ROOT / "sample_vault" / "transcripts"


@pytest.mark.skipif(not SAMPLES.is_dir(), reason="sample transcripts not present")
def test_the_sample_transcripts_tell_the_move(vault):
    results = ingest_paths(vault, sorted(SAMPLES.glob("*-en.md")))
    assert not any(r.errors for r in results)
    assert vault.get("home_city").value == "Shanghai"
    assert vault.get("home_city").history[0]["value"] == "Guangzhou"
    assert vault.get("social_insurance_city").derived_from == {
        "fact": "user/home_city",
        "valid_from": "2026-02-10",
    }
    assert vault.get("commute_mode").value == "metro"
    assert vault.get("home_address").status == "uncertain"


def locomo_text(conversation: dict) -> str:
    """One LoCoMo conversation as a Markdown transcript with dated session headers."""
    from datetime import datetime

    cv, out, n = conversation["conversation"], [], 1
    while f"session_{n}" in cv:
        when = datetime.strptime(cv[f"session_{n}_date_time"], "%I:%M %p on %d %B, %Y")
        out.append(f"## {when:%Y-%m-%d %H:%M}\n")
        out += [f"{t['speaker']}: {t['text']}" for t in cv[f"session_{n}"]]
        out.append("")
        n += 1
    return "\n".join(out) + "\n"


@pytest.mark.slow
@pytest.mark.skipif(not LOCOMO.is_file(), reason="LoCoMo corpus not present (../shared/corpora)")
def test_locomo_gives_few_defensible_facts(tmp_path):
    data = json.loads(LOCOMO.read_text(encoding="utf-8"))
    turns = facts = 0
    for i, conv in enumerate(c for c in data if c["sample_id"] in LOCOMO_DEV):
        v = make_vault(tmp_path / f"v{i}", "personal")
        r = ingest_text(v, locomo_text(conv), source=f"{conv['sample_id']}.md")
        assert r.errors == []
        speakers = {
            conv["conversation"]["speaker_a"].lower(),
            conv["conversation"]["speaker_b"].lower(),
        }
        for f in v.facts.values():
            assert f.entity.split("-")[0] in speakers  # statements go to their speaker
            values = f.value if isinstance(f.value, list) else [f.value or ""]
            # A name, a place, an employer is short; what someone did, plans or does is a phrase,
            # and so is a doing someone loves ("curling up with a good book").
            phrase = f.kind in ("event", "plan") or f.attribute in ("habits", "hobby")
            assert all(len(x.split()) <= (12 if phrase or x.split()[0].endswith("ing") else 5)
                       for x in values if x), f  # fmt: skip
            assert all(not x.endswith(("-", "–", "—")) for x in values), f
        turns += sum(len(s) for k, s in conv["conversation"].items() if k.startswith("session_") and isinstance(s, list))  # fmt: skip
        facts += len(v.facts)
        if conv["sample_id"] == "conv-43":
            assert v.get("favorite_character", "john").value == "Aragorn"
    assert turns == 4099  # the seven development conversations
    # Life as told (events, plans, habits, other people) becomes facts; chit-chat does not.
    assert turns / 20 < facts < turns / 5


def test_reading_commands_do_not_import_litellm():
    code = "import sys, mdmem.cli, mdmem.edit.ingest, mdmem.extract.rule_finder; assert 'litellm' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


# --- display ------------------------------------------------------------------------------


def test_a_backfill_row_shows_the_earlier_value_it_added(vault):
    vault.set("home_city", "Toronto", date="2023-06-01")
    [c] = vault.set("home_city", "Vancouver", date="2019-01-01").plan.changes
    assert c.decision == "BACKFILL"
    assert describe.backfilled(c) == "+ Vancouver (2019-01-01 – 2023-06-01)"
    assert "Toronto" not in describe.change_line(c)
    [c] = vault.set("home_city", "Calgary", date="2021-01-01").plan.changes
    assert describe.backfilled(c) == "+ Calgary (2021-01-01 – 2023-06-01)"  # not Vancouver again


def test_cli_ingest_table_shows_the_backfilled_value(vault, tmp_path, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    vault.set("home_city", "Toronto", date="2023-06-01")
    path = tmp_path / "past.md"
    path.write_text("## 2026-01-06\n\nUser: Back in 2019 I lived in Vancouver.\n", encoding="utf-8")
    res = runner.invoke(app, ["ingest", str(path), "--vault", str(vault.root)])
    assert res.exit_code == 0, res.output
    [row] = [line for line in res.stdout.splitlines() if "BACKFILL" in line]
    assert "+ Vancouver (2019-01-01 – 2023-06-01)" in row and "Toronto" not in row


def test_the_summary_counts_each_cascaded_fact_once_as_the_table_shows_it(vault):
    """Two statements in one batch can doubt the same fact twice; the person sees one row."""
    ingest_paths(vault, [ROOT / "sample_vault/transcripts/2025-08-15-en.md"])
    [r] = ingest_paths(vault, [ROOT / "sample_vault/transcripts/2026-02-10-en.md"])
    final = {c.key: c for c in r.plan.changes}
    uncertain = sum(c.decision == "UNCERTAIN" for c in final.values() if c.cause)
    assert uncertain < sum(c.decision == "UNCERTAIN" for c in r.plan.changes)  # doubted twice
    counted = re.search(r"UNCERTAIN (\d+)", summary([r]).split("cascades:")[1])
    assert counted is not None and int(counted[1]) == uncertain
