"""undo: reverse one journal entry exactly, or refuse and name what changed since."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mdmem import Vault
from mdmem.cli import app
from mdmem.edit.ingest import ingest_text
from mdmem.edit.undo import undo
from mdmem.errors import RefusedError
from mdmem.files import WriteConflict
from tests.conftest import make_vault

runner = CliRunner()
FIRST = "## 2025-08-15\n\nUser: I live in Guangzhou and I work at Lingnan Tech.\n"
MOVE = "## 2026-02-10\n\nUser: I moved to Shanghai.\n"


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    return make_vault(tmp_path / "v", "personal")


def files(v: Vault) -> dict[str, bytes]:
    return {v.rel(p): p.read_bytes() for p in v.fact_files()}


def test_undo_restores_every_touched_file_byte_for_byte(vault):
    ingest_text(vault, FIRST)
    (vault.root / "facts/user/home_city.md").write_text(
        (vault.root / "facts/user/home_city.md").read_text(encoding="utf-8") + "My own note.\n",
        encoding="utf-8",
    )
    vault.scan(refresh=True)
    before = files(vault)
    r = ingest_text(vault, MOVE)
    assert vault.get("home_city").value == "Shanghai" and len(r.plan.changes) > 1  # with cascades
    result = undo(vault, r.entry["id"])
    assert files(vault) == before
    assert result.entry["source"] == {"kind": "undo", "undoes": r.entry["id"]}
    assert {c.decision for c in result.plan.changes} == {"UNDO"}


def test_undo_of_an_add_removes_the_file(vault):
    r = ingest_text(vault, FIRST)
    undo(vault, r.entry["id"])
    assert files(vault) == {} and vault.facts == {}


def test_undo_is_refused_when_a_fact_changed_since_and_names_it(vault):
    r = ingest_text(vault, FIRST)
    vault.set("employer", "Huaxin")
    with pytest.raises(RefusedError, match=r"user/employer changed since") as err:
        undo(vault, r.entry["id"])
    assert "user/home_city" not in str(err.value)
    assert vault.get("home_city").value == "Guangzhou"  # nothing was undone


def test_a_hand_edit_also_blocks_the_undo(vault):
    r = ingest_text(vault, FIRST)
    path = vault.root / "facts/user/home_city.md"
    path.write_text(
        path.read_text(encoding="utf-8").replace("Guangzhou", "Foshan"), encoding="utf-8"
    )
    with pytest.raises(RefusedError, match="user/home_city changed since"):
        undo(vault, r.entry["id"])


def test_a_save_landing_while_the_undo_writes_is_kept(vault, monkeypatch):
    """A hand edit saved after undo planned from the files, before it wrote them: the undo is
    refused as a conflict and the edit stays (the raced-edit harness lost 2 of 50 before)."""
    import mdmem.edit.undo as undo_module

    r = ingest_text(vault, FIRST)
    path = vault.root / "facts/user/home_city.md"
    edited = path.read_text(encoding="utf-8") + "\nSaved by hand while undo ran.\n"
    real = undo_module.plan_undo

    def plan_then_save(*args, **kwargs):
        plan = real(*args, **kwargs)
        path.write_text(edited, encoding="utf-8")  # the editor's save, after the plan read the file
        return plan

    monkeypatch.setattr(undo_module, "plan_undo", plan_then_save)
    with pytest.raises(WriteConflict, match="home_city.md was saved by someone else"):
        undo(vault, r.entry["id"])
    assert path.read_text(encoding="utf-8") == edited
    assert (vault.root / "facts/user/employer.md").is_file()  # nothing of the undo landed


def test_an_undo_can_itself_be_undone(vault):
    r = ingest_text(vault, FIRST)
    after = {k: f.to_mapping() for k, f in vault.facts.items()}
    bodies = {k: f.body for k, f in vault.facts.items()}
    first = undo(vault, r.entry["id"])
    undo(vault, first.entry["id"])
    assert {k: f.to_mapping() for k, f in vault.scan(refresh=True)[0].items()} == after
    # The removal kept each body in the journal: the files come back with theirs.
    assert {k: f.body for k, f in vault.facts.items()} == bodies


def test_ids_prefixes_and_errors(vault):
    r = ingest_text(vault, FIRST)
    with pytest.raises(RefusedError, match="no journal entry"):
        undo(vault, "nope")
    with pytest.raises(RefusedError, match="no journal entry"):
        undo(vault, r.entry["id"][:3])  # too short to be trusted
    undo(vault, r.entry["id"][:6])
    assert vault.facts == {}
    empty = ingest_text(vault, "User: just saying hi\n")
    with pytest.raises(RefusedError, match="changed nothing"):
        undo(vault, empty.entry["id"])


def test_a_purged_value_cannot_be_brought_back(vault):
    r = ingest_text(vault, FIRST)
    vault.forget("employer", purge=True)
    undo_id = r.entry["id"]
    with pytest.raises(RefusedError, match="purged"):
        undo(vault, undo_id)


def test_dry_run_and_the_command(vault):
    r = ingest_text(vault, FIRST)
    dry = undo(vault, r.entry["id"], dry_run=True)
    assert dry.dry_run and dry.entry is None and vault.get("home_city") is not None
    res = runner.invoke(app, ["undo", r.entry["id"], "--vault", str(vault.root), "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["undoes"] == r.entry["id"] and {c["fact"] for c in data["changes"]} == {
        "user/home_city", "user/employer"}  # fmt: skip
    res = runner.invoke(app, ["undo", r.entry["id"], "--vault", str(vault.root)])
    assert res.exit_code == 1 and "is already undone" in res.stderr  # not "changed since"


def test_undo_of_an_undo_gives_back_the_same_bytes(vault):
    ingest_text(vault, FIRST)
    r = ingest_text(vault, MOVE)
    assert any(f.uncertain_because for f in vault.facts.values())  # the cascade left doubts
    after = files(vault)
    first = undo(vault, r.entry["id"])
    undo(vault, first.entry["id"])
    assert files(vault) == after  # `uncertain_because` keys in the order mdmem wrote them


def test_forget_then_undo_keeps_the_body(vault):
    ingest_text(vault, FIRST)
    path = vault.root / "facts/user/employer.md"
    path.write_text(path.read_text(encoding="utf-8") + "Started in the spring.\n", "utf-8")
    vault.scan(refresh=True)
    before = path.read_bytes()
    r = vault.forget("employer")
    assert "Started in the spring" not in path.read_text(encoding="utf-8")
    undo(vault, r.entry["id"])
    assert path.read_bytes() == before


def test_entries_of_the_old_format_still_undo(vault):
    """A journal written before the compact format (full before/after mappings, keys sorted)."""
    ingest_text(vault, FIRST)
    r = ingest_text(vault, MOVE)
    after = files(vault)
    old = []
    for e in vault.journal.entries():
        changes = [
            {k: c[k] for k in ("fact", "decision", "before", "after")} | {"cause": c.get("cause")}
            for c in e["changes"]
        ]
        old.append(json.dumps({**e, "changes": changes}, ensure_ascii=False, sort_keys=True))
    vault.journal.path.write_text("".join(line + "\n" for line in old), encoding="utf-8")
    first = undo(vault, r.entry["id"])
    assert vault.get("home_city").value == "Guangzhou"
    undo(vault, first.entry["id"])
    assert files(vault) == after


def test_journal_lines_stay_short_as_history_grows(vault):
    ingest_text(vault, FIRST)
    cities = ["Shanghai", "Berlin", "Munich", "Paris"]
    for i in range(24):
        ingest_text(vault, f"## 2026-03-{i + 1:02d}\n\nUser: I moved to {cities[i % 4]}.\n")
    assert len(vault.get("home_city").history) >= 20
    lines = vault.journal.path.read_bytes().splitlines()
    # Each move stores what changed (the value archived), not the whole history again.
    assert max(len(line) for line in lines[-5:]) < 1.5 * max(len(line) for line in lines[2:6])
    assert max(len(line) for line in lines) < 4000
    entry = json.loads(lines[-1])
    assert all("before" not in c and "after" not in c for c in entry["changes"])
