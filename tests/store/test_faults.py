"""Faults around a write: an editor saving mid-write, a crash in `sync`, readers finding an
unfinished transaction, temporary files, a symlinked .mdmem (issue 15)."""

import json
import os
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

import mdmem.engine.decide as decide
import mdmem.store.txn as txn
from mdmem import Vault
from mdmem.cli import app
from mdmem.edit.sync import sync
from mdmem.errors import RefusedError
from mdmem.files import WriteConflict
from tests.conftest import STORY

EDIT = "\nSaved by hand while mdmem was writing.\n"


def before_move(v: Vault) -> Vault:
    for attr, value in STORY:
        v.set(attr, value, date="2025-08-15")
    return v


def tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted((root / "facts").rglob("*"))
        if p.is_file()
    }


def crash_before_journal(v: Vault, monkeypatch, action) -> None:
    """Run action with a kill between writing the files and the journal line."""
    monkeypatch.setattr(v.journal, "append", lambda e: (_ for _ in ()).throw(KeyboardInterrupt()))
    with pytest.raises(KeyboardInterrupt):
        action()
    monkeypatch.undo()
    assert (v.meta / "txn.json").exists()


def test_edit_saved_between_rename_of_files_is_not_overwritten(story_vault, monkeypatch) -> None:
    v = before_move(story_vault)
    employer = v.root / "facts/user/employer.md"
    edited = employer.read_text(encoding="utf-8") + EDIT
    facts_before, journal_before = tree(v.root), list(v.journal.entries())
    real = txn.swap

    def editor_saves_first(path, data, expect, **kw):
        if Path(path) == employer:
            employer.write_text(edited, encoding="utf-8")
        return real(path, data, expect, **kw)

    monkeypatch.setattr(txn, "swap", editor_saves_first)
    with pytest.raises(WriteConflict, match="employer.md was saved by someone else"):
        v.set("home_city", "上海", date="2026-02-10")
    assert employer.read_text(encoding="utf-8") == edited
    facts_before["facts/user/employer.md"] = edited.encode()
    assert tree(v.root) == facts_before  # the files already replaced were put back
    assert list(v.journal.entries()) == journal_before and not (v.meta / "txn.json").exists()
    monkeypatch.undo()
    assert [a.kind for a in sync(v).actions if a.rel == "facts/user/employer.md"]  # still an edit


def test_edit_saved_while_planning_is_not_overwritten(story_vault, monkeypatch) -> None:
    v = before_move(story_vault)
    employer = v.root / "facts/user/employer.md"
    edited = employer.read_text(encoding="utf-8") + EDIT
    real = decide.plan_statements  # Vault.say imports it from there when it plans

    def plan_then_editor_saves(*a, **kw):
        plan = real(*a, **kw)
        employer.write_text(edited, encoding="utf-8")
        return plan

    monkeypatch.setattr(decide, "plan_statements", plan_then_editor_saves)
    with pytest.raises(RefusedError, match="Run `mdmem sync`"):
        v.set("home_city", "上海", date="2026-02-10")
    assert employer.read_text(encoding="utf-8") == edited
    assert v.facts["user/home_city"].value == "广州"


def test_crash_during_sync_keeps_the_edit_pending(story_vault, monkeypatch) -> None:
    v = before_move(story_vault)
    home = v.root / "facts/user/home_city.md"
    home.write_text(home.read_text(encoding="utf-8").replace("广州", "上海"), encoding="utf-8")
    crash_before_journal(v, monkeypatch, lambda: sync(v))
    assert "rolled back" in Vault(v.root).recover()
    assert "上海" in home.read_text(encoding="utf-8")  # the person's edit, untouched
    result = sync(Vault(v.root))  # and still pending: the cascade runs now
    assert result.entry is not None
    assert Vault(v.root).facts["user/social_insurance_city"].value == "上海"


def test_readers_recover_an_unfinished_transaction(story_vault, monkeypatch) -> None:
    v = before_move(story_vault)
    before = tree(v.root)
    crash_before_journal(v, monkeypatch, lambda: v.set("home_city", "上海", date="2026-02-10"))
    assert tree(v.root) != before  # half-applied on disk
    reader = Vault(v.root)
    told: list[str] = []
    reader.report = told.append
    assert reader.facts["user/home_city"].value == "广州"  # answered after rolling back
    assert tree(v.root) == before and told and "rolled back" in told[0]
    last = list(v.journal.entries())[-1]
    assert last["command"] == "recover" and last["source"]["interrupted"] == "set"


def test_check_exits_1_naming_the_unfinished_transaction(story_vault, monkeypatch) -> None:
    v = before_move(story_vault)
    crash_before_journal(v, monkeypatch, lambda: v.set("home_city", "上海", date="2026-02-10"))
    run = CliRunner().invoke(app, ["check", "--vault", str(v.root)])
    assert run.exit_code == 1
    assert ".mdmem/txn.json" in run.output and "rolled back" in run.output
    assert CliRunner().invoke(app, ["check", "--vault", str(v.root)]).exit_code == 0


def test_check_reports_a_transaction_it_cannot_finish(story_vault, monkeypatch) -> None:
    v = before_move(story_vault)
    crash_before_journal(v, monkeypatch, lambda: v.set("home_city", "上海", date="2026-02-10"))
    reader = Vault(v.root)
    monkeypatch.setattr(Vault, "recover", lambda self: None)  # e.g. a read-only vault
    problems = reader.check()
    assert any(p.path == ".mdmem/txn.json" and "unfinished" in p.message for p in problems)


def test_recovery_removes_temporary_files(story_vault, monkeypatch) -> None:
    v = before_move(story_vault)
    crash_before_journal(v, monkeypatch, lambda: v.set("home_city", "上海", date="2026-02-10"))
    left = [v.root / "facts/user/.employer.md.a1b2c3d4.tmp", v.meta / ".txn.json.zz99yy88.tmp"]
    for p in left:
        p.write_text("a torn copy", encoding="utf-8")
    keep = v.root / "facts/user/.notes.swp"
    keep.write_text("an editor's", encoding="utf-8")
    v.recover()
    assert not any(p.exists() for p in left) and keep.exists()
    assert ".*.tmp" in (v.root / ".gitignore").read_text(encoding="utf-8")


def test_a_symlinked_mdmem_is_refused(story_vault, tmp_path) -> None:
    outside = tmp_path / "elsewhere"
    story_vault.meta.rename(outside)
    story_vault.meta.symlink_to(outside)
    with pytest.raises(RefusedError, match="symbolic link"):
        Vault(story_vault.root)


def test_a_tag_typed_by_hand_never_crashes_a_reader_or_a_write(story_vault) -> None:
    v = before_move(story_vault)
    path = v.root / "facts/user/employer.md"
    text = path.read_text(encoding="utf-8")
    tagged = "seen: !!timestamp 2026-01-01\nblob: !!binary aGVsbG8=\n"
    path.write_text(
        text.replace("status: active\n", "status: active\n" + tagged, 1), encoding="utf-8"
    )
    assert v.check() == []
    assert v.facts["user/employer"].extra == {"seen": "2026-01-01", "blob": "aGVsbG8="}
    sync(v)
    v.set("home_city", "上海", date="2026-02-10")  # the cascade rewrites employer.md
    entry = list(v.journal.entries())[-1]
    assert json.dumps(entry) and Vault(v.root).facts["user/employer"].extra["seen"] == "2026-01-01"
    run = CliRunner().invoke(app, ["ask", "where do I work", "--vault", str(v.root)])
    assert run.exit_code == 0, run.output


def test_a_long_value_is_refused_quickly(story_vault) -> None:
    with pytest.raises(RefusedError, match="the limit is 10,000"):
        story_vault.set("home_city", "x" * 50_000_000)
    assert not (story_vault.root / "facts/user/home_city.md").exists()


def test_rules_not_utf8_fall_back_to_the_last_good_copy(story_vault) -> None:
    v = before_move(story_vault)
    rules = v.root / "rules.yaml"
    rules.write_bytes(rules.read_text(encoding="utf-8").encode("utf-16"))
    again = Vault(v.root)
    assert "home_city" in again.rules.attributes
    assert any(p.path == "rules.yaml" and "utf-8" in p.message.lower() for p in again.check())


def test_a_reader_removes_cache_copies_a_killed_process_left(story_vault) -> None:
    v = before_move(story_vault)
    gone = subprocess.Popen(["true"])
    gone.wait()  # its pid is now no one's
    dead = v.meta / f".snapshot.json.{gone.pid}.abcd1234.tmp"
    live = v.meta / f".snapshot.json.{os.getpid()}.abcd1234.tmp"  # a save still under way
    for p in (dead, live):
        p.write_text("half a cache", encoding="utf-8")
    Vault(v.root).check()
    assert not dead.exists() and live.exists()
