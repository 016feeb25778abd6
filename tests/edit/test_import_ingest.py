"""Ingesting exports: each conversation its own source with its own dates, re-imports next month."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mdmem import Vault
from mdmem.cli import app
from mdmem.edit.ingest import ingest_paths
from tests.conftest import DATA, make_vault

IMPORTS = DATA / "imports"
runner = CliRunner()
LISBON = "chatgpt:67c4a1b0-0c1e-8000-9a5e-1d2f3a4b5c6d"
BIRTHDAY = "chatgpt:67ce9b00-0000-8000-bbbb-000000000003"


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    return make_vault(tmp_path / "v", "personal")


def export(tmp_path: Path, name: str = "chatgpt-export") -> Path:
    folder = tmp_path / name
    folder.mkdir()
    path = folder / "conversations.json"
    path.write_bytes((IMPORTS / "chatgpt-conversations.json").read_bytes())
    return path


def next_month(path: Path, tmp_path: Path) -> Path:
    """The export a month later: the Lisbon chat went on, a new chat began, the rest is as it was."""
    data = json.loads(path.read_text("utf-8"))
    lisbon = data[0]
    t = 1743580000  # 2025-04-02
    lisbon["mapping"]["u4"]["children"] = ["u5"]
    lisbon["mapping"]["u5"] = {"id": "u5", "parent": "u4", "children": [], "message": {
        "id": "u5", "author": {"role": "user"}, "create_time": t,
        "content": {"content_type": "text", "parts": ["I moved to Porto."]}}}  # fmt: skip
    lisbon["current_node"] = "u5"
    lisbon["update_time"] = t
    new = copy.deepcopy(data[2])
    new.update(title="Bike shopping", conversation_id="67ed0000-0000-8000-cccc-000000000004",
               id="67ed0000-0000-8000-cccc-000000000004", create_time=t + 100)  # fmt: skip
    new["mapping"]["q3"]["message"]["content"]["parts"] = ["I cycle 25 minutes to work."]
    new["mapping"]["q3"]["message"]["create_time"] = t + 105
    data.append(new)
    later = tmp_path / "chatgpt-export-april" / "conversations.json"
    later.parent.mkdir()
    later.write_text(json.dumps(data, indent=1), encoding="utf-8")
    return later


def test_each_conversation_is_its_own_source_with_its_own_dates(vault: Vault, tmp_path: Path) -> None:
    results = ingest_paths(vault, [export(tmp_path)])
    assert [(r.source, r.title) for r in results] == [
        (LISBON, "Settling in Lisbon"), (BIRTHDAY, "Birthday dinner ideas"),
    ]  # the empty conversation is no source  # fmt: skip
    v = Vault(vault.root)
    employer = v.get("employer")
    assert employer is not None and employer.value == "Globex"  # the edited message, not Acme
    assert employer.valid_from == "2025-03-02" and employer.source == f"{LISBON}#L3"
    assert employer.evidence == "[[episodes/2025/2025-03-02-settling_in_lisbon-67c4a1b0#^m3]]"
    birthday = v.get("birthday")
    assert birthday is not None and birthday.valid_from == "2025-03-10"  # its own date
    entries = list(v.journal.entries())
    assert [e["source"]["path"] for e in entries] == [LISBON, BIRTHDAY]
    assert entries[0]["source"]["file"].endswith("chatgpt-export/conversations.json")
    episode = (v.root / "episodes/2025/2025-03-02-settling_in_lisbon-67c4a1b0.md").read_text("utf-8")
    assert "title: Settling in Lisbon" in episode
    assert "I work at Globex now. ^m3" in episode
    assert "Welcome to Lisbon" not in episode and "Acme" not in episode  # only the person's turns


def test_reimporting_the_same_export_changes_nothing(vault: Vault, tmp_path: Path) -> None:
    path = export(tmp_path)
    ingest_paths(vault, [path])
    n = len(list(vault.journal.records()))
    again = ingest_paths(vault, [path])
    assert all(r.skipped for r in again) and len(list(vault.journal.records())) == n


def test_next_months_export_applies_only_the_new_messages(
    vault: Vault, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = export(tmp_path)
    ingest_paths(vault, [first])
    before = len(list(vault.journal.records()))
    monkeypatch.setenv("MDMEM_NOW", "2025-04-03T08:00:00Z")
    later = next_month(first, tmp_path)  # downloaded to another folder
    results = ingest_paths(Vault(vault.root), [later])
    by_source = {r.source: r for r in results}
    assert by_source[BIRTHDAY].skipped  # not a message changed
    lisbon = by_source[LISBON]
    assert not lisbon.skipped
    assert [(st.key, d) for st, d in lisbon.plan.decisions] == [("user/home_city", "UPDATE")]
    entry = lisbon.entry
    assert entry is not None and [i.split(":")[0] for i in entry["source"]["applied"]] == ["7"]
    assert len(list(vault.journal.records())) == before + 2  # Lisbon's new message, the new chat
    v = Vault(vault.root)
    city = v.get("home_city")
    assert city is not None and city.value == "Porto" and city.valid_from == "2025-04-02"
    assert [h["value"] for h in city.history] == ["Lisbon"]
    employer = v.get("employer")
    assert employer is not None and employer.recorded_at == "2026-03-01T12:00:00Z"  # untouched
    minutes = v.get("commute_minutes")
    assert minutes is not None and minutes.valid_from == "2025-04-02"
    # The March episode is as it was; the April message has a file of its own day.
    assert (v.root / "episodes/2025/2025-04-02-settling_in_lisbon-67c4a1b0.md").is_file()
    again = ingest_paths(Vault(vault.root), [later])
    assert all(r.skipped for r in again)


def test_the_cli_reads_an_export_and_names_each_conversation(vault: Vault, tmp_path: Path) -> None:
    path = export(tmp_path)
    out = runner.invoke(app, ["ingest", str(path), "--vault", str(vault.root), "--verbose"])
    assert out.exit_code == 0, out.stderr
    assert f"{LISBON} “Settling in Lisbon”" in out.stdout
    assert "1 conversation with no messages passed over" in out.stderr
    assert out.stderr.strip().splitlines()[-1] == "2 sources: ADD 4"


def test_format_forces_a_reader(vault: Vault, tmp_path: Path) -> None:
    path = export(tmp_path)
    out = runner.invoke(app, ["ingest", str(path), "--format", "claude", "--vault", str(vault.root)])
    assert out.exit_code == 1 and "is not a Claude conversation" in out.stderr
    bad = runner.invoke(app, ["ingest", str(path), "--format", "gemini", "--vault", str(vault.root)])
    assert bad.exit_code == 1 and "choose one of chatgpt, claude, llm" in bad.stderr
    assert vault.facts == {}


@pytest.mark.parametrize("name", ["claude-conversations.json", "llm-logs.json"])
def test_claude_and_llm_exports_are_ingested_as_conversations(vault: Vault, name: str) -> None:
    results = ingest_paths(vault, [IMPORTS / name])
    assert results and all(r.source.split(":")[0] in ("claude", "llm") for r in results)
    v = Vault(vault.root)
    city = v.get("home_city")
    assert city is not None and city.value in ("Porto", "Valencia")
    employer = v.get("employer")
    assert employer is None or employer.value == "Umbrella"  # never the edited-away Initech


def test_an_exports_quiet_conversations_are_counted_not_listed(vault: Vault, tmp_path: Path) -> None:
    path = export(tmp_path)
    runner.invoke(app, ["ingest", str(path), "--vault", str(vault.root)])
    again = runner.invoke(app, ["ingest", str(path), "--vault", str(vault.root)])
    assert again.exit_code == 0 and again.stdout == ""
    assert again.stderr.strip().splitlines() == ["2 sources (2 skipped): nothing new"]
    listed = runner.invoke(app, ["ingest", str(path), "--verbose", "--vault", str(vault.root)])
    assert f"{LISBON}: already ingested" in listed.stderr
