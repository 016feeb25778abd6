"""The Vault on disk: journal, transactions, crash recovery, locking, refusals."""

import json
import multiprocessing
import os
from pathlib import Path

import pytest

from mdmem import Vault
from mdmem.errors import RefusedError, SlugError, VaultLocked
from mdmem.model.factfile import parse
from mdmem.model.graph import Graph
from tests.conftest import STORY, make_vault


def tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "lock" not in p.name
    }


def before_move(vault: Vault) -> Vault:
    for attr, value in STORY:
        vault.set(attr, value, date="2025-08-15")
    return vault


def test_move_story_cascades_and_journals(story_vault: Vault) -> None:
    v = before_move(story_vault)
    result = v.set("home_city", "上海", date="2026-02-10")
    f = v.facts
    assert f["user/social_insurance_city"].value == "上海"
    assert f["user/social_insurance_city"].status == "active"
    assert f["user/employer"].status == "uncertain"
    assert f["user/employer"].uncertain_because["old"] == "广州"
    assert f["user/commute_minutes"].status == "expired"
    assert f["user/birthday"].status == "active"
    assert f["user/home_city"].history[-1]["valid_to"] == "2026-02-10"
    entries = list(v.journal.entries())
    assert entries[-1]["id"] == result.entry["id"]
    assert {c["fact"] for c in entries[-1]["changes"]} >= {"user/home_city", "user/employer"}
    assert [p["fact"] for p in v.pending()] and all(p["question"]["en"] for p in v.pending())


def test_same_inputs_give_the_same_bytes(tmp_path: Path) -> None:
    trees = []
    for name in ("one", "two"):
        v = before_move(make_vault(tmp_path / name))
        v.set("home_city", "上海", date="2026-02-10")
        trees.append(tree(v.root))
    assert trees[0] == trees[1]


def test_repeating_a_statement_changes_no_byte(story_vault: Vault) -> None:
    v = before_move(story_vault)
    v.set("home_city", "上海", date="2026-02-10")
    snapshot = tree(v.root)
    result = v.set("home_city", "Shanghai", date="2026-02-10")
    assert result.entry is None and result.plan.decisions[0][1] == "NOOP"
    assert tree(v.root) == snapshot


def test_dry_run_writes_nothing(story_vault: Vault) -> None:
    v = before_move(story_vault)
    snapshot = tree(v.root)
    result = v.set("home_city", "上海", date="2026-02-10", dry_run=True)
    assert len(result.plan.changes) > 3
    assert tree(v.root) == snapshot


def test_forget_purge_removes_value_everywhere(story_vault: Vault) -> None:
    v = before_move(story_vault)
    v.set("home_address", "天河路1号", date="2025-09-01")
    v.forget("home_address", purge=True)
    fact = v.facts["user/home_address"]
    assert (
        fact.status == "deleted" and fact.value is None and fact.history == [] and fact.body == ""
    )
    for path in v.root.rglob("*"):
        if path.is_file():
            assert "天河路1号" not in path.read_text(encoding="utf-8", errors="replace"), path
            assert "海珠区" not in path.read_text(encoding="utf-8", errors="replace"), path
    assert v.facts["user/commute_mode"].status == "uncertain"


def test_forget_without_purge_keeps_journal_history(story_vault: Vault) -> None:
    v = before_move(story_vault)
    v.forget("home_address")
    assert "海珠区" in (v.root / ".mdmem/journal.jsonl").read_text(encoding="utf-8")
    assert "海珠区" not in (v.root / "facts/user/home_address.md").read_text(encoding="utf-8")


def test_broken_file_is_never_overwritten(story_vault: Vault) -> None:
    v = before_move(story_vault)
    path = v.root / "facts/user/employer.md"
    broken = "---\nvalue: [oops\n---\nmy notes\n"
    path.write_text(broken, encoding="utf-8")
    with pytest.raises(RefusedError, match="facts/user/employer.md"):
        v.set("employer", "New Co")
    v.set("home_city", "上海", date="2026-02-10")  # cascades around it
    assert path.read_text(encoding="utf-8") == broken
    problems = v.check()
    assert problems and problems[0].path == "facts/user/employer.md" and problems[0].line == 2


def test_learned_dependency_cycle_is_reported(story_vault: Vault) -> None:
    v = before_move(story_vault)
    path = v.root / "facts/user/home_city.md"
    fact = parse(path.read_text(encoding="utf-8"))
    text = path.read_text(encoding="utf-8").replace(
        "status: active", "status: active\ndepends_on:\n- on: commute_mode\n"
    )
    path.write_text(text, encoding="utf-8")
    assert fact.value == "广州"
    problems = v.check()
    assert any("cycle" in p.message and "user/home_city" in p.message for p in problems)


def test_nothing_is_written_outside_the_vault(story_vault: Vault, tmp_path: Path) -> None:
    before = {p for p in tmp_path.rglob("*") if "vault" not in p.parts}
    for bad in ("../escape", "a/b", "x\x00y", ".hidden", "Z" * 80):
        with pytest.raises(SlugError):
            story_vault.set(bad, "v")
        with pytest.raises(SlugError):
            story_vault.set("ok", "v", entity=bad)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (story_vault.root / "facts" / "evil").symlink_to(outside)
    with pytest.raises(SlugError, match="outside the vault"):
        story_vault.set("x", "v", entity="evil", new=True)
    assert list(outside.iterdir()) == []
    assert {p for p in tmp_path.rglob("*") if "vault" not in p.parts} == before | {outside}


def test_interrupted_transaction_is_finished_when_journaled(
    story_vault: Vault, monkeypatch
) -> None:
    v = before_move(story_vault)
    home = v.root / "facts/user/home_city.md"
    before = home.read_bytes()
    monkeypatch.setattr(v.manifest, "save", lambda: (_ for _ in ()).throw(KeyboardInterrupt()))
    with pytest.raises(KeyboardInterrupt):
        v.set("home_city", "上海", date="2026-02-10")
    monkeypatch.undo()
    assert (v.root / ".mdmem/txn.json").exists()
    home.write_bytes(before)  # as if that rename never reached the disk
    assert "finished" in v.recover()
    assert not (v.root / ".mdmem/txn.json").exists()
    assert v.scan(refresh=True)[0]["user/employer"].status == "uncertain"
    assert v.scan()[0]["user/home_city"].value == "上海"
    last = list(v.journal.entries())[-1]
    assert last["command"] == "recover" and last["source"]["outcome"] == "finished"


def test_interrupted_before_journal_is_rolled_back(story_vault: Vault, monkeypatch) -> None:
    v = before_move(story_vault)
    snapshot = tree(v.root)
    monkeypatch.setattr(
        v.journal, "append", lambda entry: (_ for _ in ()).throw(KeyboardInterrupt())
    )
    with pytest.raises(KeyboardInterrupt):
        v.set("home_city", "上海", date="2026-02-10")
    monkeypatch.undo()
    assert "rolled back" in v.recover()
    after = tree(v.root)
    recovered = after.pop(".mdmem/journal.jsonl")[len(snapshot.pop(".mdmem/journal.jsonl")) :]
    assert after == snapshot
    assert json.loads(recovered)["source"]["outcome"] == "rolled back"  # journaled, once


def test_torn_journal_line_is_repaired(story_vault: Vault) -> None:
    v = before_move(story_vault)
    with (v.root / ".mdmem/journal.jsonl").open("a", encoding="utf-8") as f:
        f.write('{"id": "torn')
    v.set("home_city", "上海", date="2026-02-10")
    lines = (v.root / ".mdmem/journal.jsonl").read_text(encoding="utf-8").splitlines()
    assert all(json.loads(line) for line in lines)


def _hold_lock(root: str, ready, release) -> None:
    v = Vault(root)
    with v.lock:
        ready.set()
        release.wait(10)


def test_second_writer_gets_vault_locked(story_vault: Vault) -> None:
    ctx = multiprocessing.get_context("fork")
    ready, release = ctx.Event(), ctx.Event()
    proc = ctx.Process(target=_hold_lock, args=(str(story_vault.root), ready, release))
    proc.start()
    try:
        assert ready.wait(10)
        waiter = Vault(story_vault.root, wait=0.2)
        with pytest.raises(VaultLocked) as info:
            waiter.set("home_city", "上海")
        assert info.value.exit_code == 75
        assert f"pid {proc.pid}" in str(info.value)
    finally:
        release.set()
        proc.join(10)
    Vault(story_vault.root, wait=1).set("home_city", "上海")


def test_confirm_keep_reject_and_value(story_vault: Vault) -> None:
    v = before_move(story_vault)
    v.set("home_city", "上海", date="2026-02-10")
    v.confirm("employer", keep=True)
    assert v.facts["user/employer"].status == "active"
    v.confirm("home_address", reject=True)
    addr = v.facts["user/home_address"]
    assert addr.status == "expired" and addr.history[-1]["value"] == "海珠区"
    v.confirm("commute_mode", value="地铁")
    assert v.facts["user/commute_mode"].value == "地铁"
    with pytest.raises(RefusedError, match="already active"):
        v.confirm("employer", keep=True)
    assert os.path.exists(v.root / ".mdmem/.gitignore")


def test_learned_dependency_that_closes_a_loop_is_refused(story_vault: Vault) -> None:
    from mdmem.engine.decide import Statement

    v = before_move(story_vault)
    loop = Statement(
        "user", "home_city", value="广州", at="2025-08-15", depends_on=({"on": "commute_mode"},)
    )
    with pytest.raises(RefusedError, match="cycle"):
        v.say([loop], command="test")
    assert "depends_on" not in (v.root / "facts/user/home_city.md").read_text(encoding="utf-8")
    ok = Statement(
        "user", "employer", value="岭南科技", at="2025-08-15", depends_on=({"on": "birthday"},)
    )
    v.say([ok], command="test")
    assert v.facts["user/employer"].depends_on == [{"on": "birthday"}]
    v.set("birthday", "03-15", date="2026-01-01")
    assert v.facts["user/employer"].status == "uncertain"


def test_new_files_get_normal_permissions_and_edits_keep_theirs(story_vault: Vault) -> None:
    v = before_move(story_vault)
    path = v.root / "facts/user/home_city.md"
    assert path.stat().st_mode & 0o777 == 0o666 & ~_umask()
    path.chmod(0o640)
    v.set("home_city", "上海", date="2026-02-10")
    assert path.stat().st_mode & 0o777 == 0o640


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_check_builds_no_graph_when_nothing_was_learned(
    story_vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    import mdmem.store.check as check_module

    v = before_move(story_vault)
    built = []
    monkeypatch.setattr(check_module, "Graph", lambda *a: built.append(a) or Graph(*a))
    assert v.check() == [] and built == []  # rules' edges alone: acyclic by validation
    path = v.root / "facts/user/home_city.md"
    path.write_text(path.read_text(encoding="utf-8").replace(
        "status: active", "status: active\ndepends_on:\n- on: commute_mode\n"), encoding="utf-8")  # fmt: skip
    assert any("cycle" in p.message for p in v.check()) and len(built) == 1
