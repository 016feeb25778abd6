"""`mdmem sync`: hand edits, deletions, new files, broken files, rules edits and git pulls."""

import json
import os
import shutil
from datetime import datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from mdmem import Vault
from mdmem.cli import app
from mdmem.edit.sync import sync
from mdmem.files import sha256
from mdmem.model.factfile import parse, render
from mdmem.store.snapshot import SNAPSHOT_FILE, Snapshot
from tests.conftest import STORY, make_vault

runner = CliRunner()
SAVED = "2026-02-10"  # the day the person saves their edits in these tests


def mdmem(*args: str):
    return runner.invoke(app, list(args), catch_exceptions=False)


@pytest.fixture
def v(story_vault: Vault) -> Vault:
    for attr, value in STORY:
        story_vault.set(attr, value, date="2025-08-15")
    sync(story_vault)  # the watcher or a first sync has seen the files mdmem wrote
    return story_vault


def edit(
    vault: Vault, attr: str, old: str, new: str, *, day: str = SAVED, entity: str = "user"
) -> Path:
    """Change a fact file's text the way a person does in an editor, saved on `day`."""
    path = vault.root / "facts" / entity / f"{attr}.md"
    text = path.read_text(encoding="utf-8")
    assert old in text, text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    stamp(path, day)
    return path


def stamp(path: Path, day: str) -> None:
    t = datetime.fromisoformat(day + "T10:00:00").timestamp()
    os.utime(path, (t, t))


def fact(vault: Vault, attr: str):
    return Vault(vault.root).facts[f"user/{attr}"]


def journal(vault: Vault) -> list[dict]:
    return list(vault.journal.entries())


def tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted((root / "facts").rglob("*.md"))
    }


def test_nothing_changed_is_nothing_to_sync(v: Vault) -> None:
    before = journal(v)
    result = sync(v)
    assert result.actions == [] and result.entry is None and result.problems == []
    assert journal(v) == before
    out = mdmem("sync", "--vault", str(v.root))
    assert out.exit_code == 0 and "Nothing to sync" in out.stderr


def test_value_edit_is_a_statement_and_cascades_keeping_the_body(v: Vault) -> None:
    path = edit(v, "home_city", "value: 广州", "value: 上海")
    path.write_text(path.read_text(encoding="utf-8") + "Moved for the new job.\n", encoding="utf-8")
    stamp(path, SAVED)
    result = sync(v)
    home = fact(v, "home_city")
    assert (home.value, home.status, home.source, home.valid_from) == (
        "上海",
        "active",
        "edit",
        SAVED,
    )
    assert [h["value"] for h in home.history] == ["广州"]
    assert home.history[0]["valid_to"] == SAVED
    assert home.body.endswith("Moved for the new job.\n")  # the person's body is kept
    assert home.body.startswith("Stated with `mdmem set`")
    assert fact(v, "social_insurance_city").value == "上海"
    assert fact(v, "employer").status == "uncertain"
    assert fact(v, "employer").uncertain_because["changed_at"] == SAVED
    assert fact(v, "commute_minutes").status == "expired"
    last = journal(v)[-1]
    assert last["command"] == "sync" and last["source"]["kind"] == "edit"
    assert last["id"] == result.entry["id"]
    assert {c["fact"]: c["decision"] for c in last["changes"]}["user/home_city"] == "UPDATE"
    assert [a.kind for a in result.actions] == ["update"]
    assert "广州 → 上海" in result.actions[0].message
    assert {p["fact"] for p in Vault(v.root).pending()} >= {"user/employer", "user/home_address"}
    # mdmem's own writes are not edits: a second sync does nothing.
    again = sync(Vault(v.root))
    assert again.actions == [] and len(journal(v)) == len(journal(Vault(v.root)))


def test_old_value_moved_to_history_by_hand_is_not_archived_twice(v: Vault) -> None:
    history = (
        "history:\n- value: 广州\n  status: archived\n  valid_from: '2025-08-15'\n"
        "  valid_to: '2026-02-01'\n  reason: I moved\n---\n"
    )
    path = edit(v, "home_city", "value: 广州", "value: 上海")
    text = path.read_text(encoding="utf-8")
    head, _, body = text[4:].partition("---\n")
    path.write_text("---\n" + head + history + body, encoding="utf-8")
    stamp(path, SAVED)
    sync(v)
    home = fact(v, "home_city")
    assert [(h["value"], h.get("reason")) for h in home.history] == [("广州", "I moved")]
    assert home.value == "上海" and fact(v, "social_insurance_city").value == "上海"


def test_broken_yaml_is_reported_left_alone_and_still_answers(v: Vault) -> None:
    path = v.root / "facts/user/employer.md"
    broken = path.read_text(encoding="utf-8").replace("value: 岭南科技", "value: [岭南科技")
    path.write_text(broken, encoding="utf-8")
    out = mdmem("sync", "--vault", str(v.root))
    assert out.exit_code == 1
    assert "facts/user/employer.md:4" in out.stdout and "invalid YAML" in out.stdout
    assert "fix" in out.stdout
    assert path.read_text(encoding="utf-8") == broken  # byte for byte
    assert fact(v, "employer").value == "岭南科技"  # its last good state still serves reads
    shown = mdmem("show", "employer", "--json", "--vault", str(v.root))
    assert json.loads(shown.stdout)["value"] == "岭南科技"
    assert mdmem("check", "--vault", str(v.root)).exit_code == 1
    # A cascade goes around the broken file, never through it.
    edit(v, "home_city", "value: 广州", "value: 上海")
    assert sync(Vault(v.root)).problems[0].path == "facts/user/employer.md"
    assert path.read_text(encoding="utf-8") == broken
    assert fact(v, "home_address").status == "uncertain"
    # Fixed by hand: nothing left to report.
    path.write_text(broken.replace("[岭南科技", "岭南科技"), encoding="utf-8")
    assert sync(Vault(v.root)).problems == []
    assert mdmem("check", "--vault", str(v.root)).exit_code == 0


def test_wrong_field_type_and_path_mismatch_are_reported(v: Vault) -> None:
    path = v.root / "facts/user/commute_minutes.md"
    path.write_text(
        path.read_text(encoding="utf-8").replace("status: active", "status: sure"), encoding="utf-8"
    )
    moved = v.root / "facts/user/commute_mode.md"
    moved.write_text(
        moved.read_text(encoding="utf-8").replace("attribute: commute_mode", "attribute: mode"),
        encoding="utf-8",
    )
    result = sync(v)
    found = {p.path: p for p in result.problems}
    assert "use one of active" in found["facts/user/commute_minutes.md"].message
    assert "make them agree" in found["facts/user/commute_mode.md"].message
    assert found["facts/user/commute_mode.md"].line == 3


def test_file_deleted_by_hand_is_forgotten_and_not_recreated(v: Vault) -> None:
    path = v.root / "facts/user/home_city.md"
    path.unlink()
    result = sync(v)
    assert not path.exists()
    assert [a.kind for a in result.actions] == ["forget"]
    for dependent in ("employer", "social_insurance_city", "home_address"):
        f = fact(v, dependent)
        assert f.status == "uncertain" and f.uncertain_because["change"] == "deleted"
        assert "old" not in f.uncertain_because  # a forgotten value is copied nowhere
    last = journal(v)[-1]
    assert last["source"]["kind"] == "edit"
    assert [(c["fact"], c["decision"], c["after"]) for c in last["changes"]][0] == (
        "user/home_city",
        "DELETE",
        None,
    )
    assert "facts/user/home_city.md" not in Vault(v.root).manifest.data
    assert sync(Vault(v.root)).actions == []
    assert not path.exists()


def test_rules_edit_with_a_cycle_is_refused_and_the_old_rules_kept(v: Vault) -> None:
    rules = v.root / "rules.yaml"
    good = rules.read_text(encoding="utf-8")
    rules.write_text(good + "  - {when: commute_mode, then: home_city}\n", encoding="utf-8")
    out = mdmem("sync", "--vault", str(v.root))
    assert out.exit_code == 1
    assert "rules.yaml:" in out.stdout and "cycle" in out.stdout and "last good rules" in out.stdout
    assert rules.read_text(encoding="utf-8").endswith("then: home_city}\n")  # left as written
    assert mdmem("check", "--vault", str(v.root)).exit_code == 1
    # The old rules keep working: a move still derives the social-insurance city.
    edit(v, "home_city", "value: 广州", "value: 上海")
    assert sync(Vault(v.root)).rules == "refused"
    assert fact(v, "social_insurance_city").value == "上海"
    assert fact(v, "commute_mode").status == "uncertain"  # not expired by the refused edge


def test_valid_rules_edit_applies_from_then_on(v: Vault) -> None:
    rules = v.root / "rules.yaml"
    rules.write_text(
        rules.read_text(encoding="utf-8")
        + "  - {when: employer, then: commute_mode, action: expire}\n",
        encoding="utf-8",
    )
    result = sync(v)
    assert result.rules == "reloaded" and "+employer → commute_mode (expire)" in result.rules_note
    assert fact(v, "commute_mode").status == "active"  # not applied to the past
    edit(v, "employer", "value: 岭南科技", "value: 星河科技")
    sync(Vault(v.root))
    assert fact(v, "commute_mode").status == "expired"


def test_new_file_is_added_and_normalised(v: Vault) -> None:
    path = v.root / "facts/user/pets.md"
    path.write_text(
        "---\nvalue: [cat]\nvalid_from: 2026-01-05\n---\nMimi, a tabby.\n", encoding="utf-8"
    )
    result = sync(v)
    assert [a.kind for a in result.actions] == ["add"]
    text = path.read_text(encoding="utf-8")
    f = parse(text, "pets.md")
    assert (f.value, f.status, f.source, f.valid_from) == (["cat"], "active", "edit", "2026-01-05")
    assert f.recorded_at == "2026-03-01T12:00:00Z" and f.body == "Mimi, a tabby.\n"
    assert "entity: user\nattribute: pets\n" in text  # canonical bytes
    assert journal(v)[-1]["changes"][0]["decision"] == "ADD"
    assert sync(Vault(v.root)).actions == []


def test_new_file_that_does_not_parse_is_left_as_written(v: Vault) -> None:
    path = v.root / "facts/alice/home_city.md"
    path.parent.mkdir()
    path.write_text("value: Berlin\n", encoding="utf-8")
    result = sync(v)
    assert result.problems[0].path == "facts/alice/home_city.md"
    assert "frontmatter" in result.problems[0].message
    assert path.read_text(encoding="utf-8") == "value: Berlin\n"
    assert "facts/alice/home_city.md" not in Vault(v.root).manifest.data


def test_status_set_to_active_confirms(v: Vault) -> None:
    v.set("home_city", "上海", date="2026-02-10")
    assert any(p["fact"] == "user/employer" for p in Vault(v.root).pending())
    edit(v, "employer", "status: uncertain", "status: active")
    result = sync(Vault(v.root))
    assert [a.kind for a in result.actions] == ["confirm"]
    employer = fact(v, "employer")
    assert employer.status == "active" and employer.uncertain_because is None
    assert employer.value == "岭南科技"
    assert all(p["fact"] != "user/employer" for p in Vault(v.root).pending())
    assert journal(v)[-1]["changes"][0]["decision"] == "CONFIRM"


def test_removing_the_value_expires_it(v: Vault) -> None:
    edit(v, "home_address", "value: 海珠区\n", "")
    sync(v)
    address = fact(v, "home_address")
    assert address.status == "expired" and address.value is None
    assert address.history[-1]["value"] == "海珠区" and address.history[-1]["valid_to"] == SAVED
    assert fact(v, "commute_minutes").status == "expired"
    assert fact(v, "commute_mode").status == "uncertain"


def test_git_pull_of_already_cascaded_files_does_not_cascade_twice(
    v: Vault, tmp_path: Path
) -> None:
    clone = tmp_path / "clone"
    shutil.copytree(v.root, clone)
    # Elsewhere: the person moves, the cascade runs there, and the files are pushed.
    Vault(v.root, now="2026-02-10T09:00:00Z").set("home_city", "上海", date="2026-02-10")
    pushed = tree(v.root)
    # Here: a pull brings those files (and the journal), newer than anything seen.
    for rel, data in pushed.items():
        (clone / rel).write_bytes(data)
    shutil.copyfile(v.root / ".mdmem/journal.jsonl", clone / ".mdmem/journal.jsonl")
    pulled = Vault(clone)
    entries = journal(pulled)
    result = sync(pulled)
    assert tree(clone) == pushed  # not a byte rewritten: nothing cascaded a second time
    assert journal(Vault(clone)) == entries  # the pull's own journal entry says it all
    assert result.entry is None and result.problems == []
    assert {a.rel: a.kind for a in result.actions}["facts/user/social_insurance_city.md"] == "adopt"
    assert sync(Vault(clone)).actions == []
    # And later hand edits in the clone are seen against the pulled state.
    edit(Vault(clone), "home_city", "value: 上海", "value: 深圳", day="2026-02-20")
    sync(Vault(clone))
    assert Vault(clone).facts["user/social_insurance_city"].value == "深圳"


def test_pull_that_confirms_a_dependent_is_not_undone(v: Vault, tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    shutil.copytree(v.root, clone)
    Vault(v.root, now="2026-02-10T09:00:00Z").set("home_city", "上海", date="2026-02-10")
    # Answered elsewhere before the push:
    Vault(v.root, now="2026-02-10T09:05:00Z").confirm("employer", keep=True)
    pushed = tree(v.root)
    for rel, data in pushed.items():
        (clone / rel).write_bytes(data)
    shutil.copyfile(v.root / ".mdmem/journal.jsonl", clone / ".mdmem/journal.jsonl")
    sync(Vault(clone))
    assert tree(clone) == pushed
    assert Vault(clone).facts["user/employer"].status == "active"


def test_fresh_clone_takes_the_files_as_the_baseline(v: Vault, tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    shutil.copytree(v.root, clone, ignore=shutil.ignore_patterns("written.json", SNAPSHOT_FILE))
    before = tree(clone)
    entries = journal(Vault(clone))
    result = sync(Vault(clone))
    assert result.baseline == len(STORY) and result.actions == []
    assert tree(clone) == before and journal(Vault(clone)) == entries
    edit(Vault(clone), "employer", "value: 岭南科技", "value: 星河科技")
    assert [a.kind for a in sync(Vault(clone)).actions] == ["update"]


def test_dry_run_writes_nothing(v: Vault) -> None:
    edit(v, "home_city", "value: 广州", "value: 上海")
    before, entries = tree(v.root), journal(v)
    out = mdmem("sync", "--dry-run", "--json", "--vault", str(v.root))
    data = json.loads(out.stdout)
    assert data["dry_run"] and data["journal_id"] is None
    assert data["actions"][0]["kind"] == "update"
    assert {c["fact"] for c in data["actions"][0]["changes"]} >= {"user/home_city", "user/employer"}
    assert tree(v.root) == before and journal(v) == entries
    assert mdmem("sync", "--vault", str(v.root)).exit_code == 0
    assert fact(v, "employer").status == "uncertain"


def test_edit_remembered_through_the_journal_when_the_cache_is_gone(v: Vault, monkeypatch) -> None:
    v.set("employer", "星河科技", date="2026-01-01")  # written, never seen by a sync
    (v.meta / SNAPSHOT_FILE).unlink(missing_ok=True)
    monkeypatch.setattr("mdmem.store.snapshot._OPEN", {})
    edit(v, "employer", "value: 星河科技", "value: 月光科技")
    sync(Vault(v.root))
    employer = fact(v, "employer")
    assert employer.value == "月光科技"
    assert [h["value"] for h in employer.history] == ["岭南科技", "星河科技"]


def test_a_save_during_planning_is_planned_again(v: Vault, monkeypatch) -> None:
    import mdmem.edit.sync as sync_module

    real = sync_module.plan_edits
    calls = []

    def racing(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:  # the person saves again while sync plans the first save
            edit(v, "home_city", "value: 上海", "value: 深圳")
        return real(*args, **kwargs)

    monkeypatch.setattr(sync_module, "plan_edits", racing)
    edit(v, "home_city", "value: 广州", "value: 上海")
    sync(v)
    assert len(calls) == 2
    assert fact(v, "home_city").value == "深圳"
    assert fact(v, "social_insurance_city").value == "深圳"


def test_two_edits_at_once_do_not_overrule_each_other(v: Vault) -> None:
    edit(v, "home_city", "value: 广州", "value: 上海")
    edit(v, "employer", "value: 岭南科技", "value: 星河科技")
    sync(v)
    employer = fact(v, "employer")
    assert (employer.value, employer.status) == ("星河科技", "active")
    assert fact(v, "home_address").status == "uncertain"


def test_snapshot_is_saved_by_sync(v: Vault) -> None:
    edit(v, "employer", "value: 岭南科技", "value: 星河科技")
    sync(v)
    assert (v.meta / SNAPSHOT_FILE).is_file()
    snap = Snapshot.open(v.meta)
    assert (
        snap.entries["facts/user/employer.md"].sha
        == Vault(v.root).manifest.data["facts/user/employer.md"]
    )


def test_brand_new_vault_takes_hand_made_files_as_they_are_then_adds_new_ones(tmp_path: Path) -> None:
    v = make_vault(tmp_path / "new")
    path = v.root / "facts/user/home_city.md"
    path.parent.mkdir(parents=True)
    path.write_text("---\nvalue: Lisbon\n---\n", encoding="utf-8")
    result = sync(v)  # mdmem wrote nothing here yet: the files as they are are the start
    assert result.baseline == 1 and result.actions == [] and result.entry is None
    assert path.read_text(encoding="utf-8") == "---\nvalue: Lisbon\n---\n"
    assert Vault(v.root).get("home_city").value == "Lisbon"
    later = v.root / "facts/user/employer.md"
    later.write_text("---\nvalue: Acme\n---\n", encoding="utf-8")
    result = sync(Vault(v.root))
    assert result.baseline is None and [a.kind for a in result.actions] == ["add"]
    assert parse(later.read_text(encoding="utf-8"), "x").source == "edit"


def test_body_only_edit_is_kept_without_a_journal_entry_and_still_cascades(v: Vault) -> None:
    employer = v.root / "facts/user/employer.md"
    employer.write_text(
        employer.read_text(encoding="utf-8") + "Team lead since May.\n", encoding="utf-8"
    )
    entries = len(journal(v))
    result = sync(v)
    assert [a.kind for a in result.actions] == ["adopt"] and "body" in result.actions[0].message
    assert len(journal(v)) == entries and result.entry is None
    # Touching a file's notes is not a statement: a move still puts the employer in doubt.
    edit(v, "home_city", "value: 广州", "value: 上海")
    employer.write_text(employer.read_text(encoding="utf-8") + "Still there?\n", encoding="utf-8")
    sync(Vault(v.root))
    f = fact(v, "employer")
    assert f.status == "uncertain" and f.body.endswith("Team lead since May.\nStill there?\n")


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(
        st.tuples(
            st.sampled_from([a for a, _ in STORY]),
            st.sampled_from(["上海", "深圳", "Acme", "步行", "30"]),
        ),
        min_size=1,
        max_size=4,
    )
)
def test_any_edits_settle_in_one_sync(tmp_path_factory, edits) -> None:
    v = make_vault(tmp_path_factory.mktemp("v") / "vault")
    for attr, value in STORY:
        v.set(attr, value, date="2025-08-15")
    for attr, value in edits:
        path = v.root / "facts/user" / f"{attr}.md"
        f = parse(path.read_text(encoding="utf-8"), "x")
        path.write_text(render(f.evolve(value=value)), encoding="utf-8")  # only the value typed
        stamp(path, SAVED)
    sync(Vault(v.root))
    entries = journal(v)
    again = sync(Vault(v.root))
    assert again.actions == [] and journal(v) == entries  # settled: nothing left to do
    written = Vault(v.root).manifest.data
    for path in (v.root / "facts").rglob("*.md"):
        parse(path.read_text(encoding="utf-8"), "x")  # every file still parses
        assert written[path.relative_to(v.root).as_posix()] == sha256(path.read_bytes())


def test_a_value_edit_keeps_the_persons_layout_and_keys(v: Vault) -> None:
    """Only what must change is rewritten: tags stay on top, aliases where typed, the body as is."""
    path = v.root / "facts/user/employer.md"
    text = path.read_text(encoding="utf-8")
    head, body = text.split("---\n", 2)[1:]
    lines = head.splitlines(keepends=True)
    lines.insert(0, "tags: [work, 'job']\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("value:"))
    lines.insert(at + 1, "aliases:\n  - company\n")
    lines[at] = "value: 华新\n"
    path.write_text("---\n" + "".join(lines) + "---\n" + body + "\nMy note.\n", encoding="utf-8")
    stamp(path, SAVED)
    r = sync(v)
    assert [a.kind for a in r.actions if a.rel == "facts/user/employer.md"] == ["update"]
    new = path.read_text(encoding="utf-8")
    assert new.startswith("---\ntags: [work, 'job']\n")
    assert "value: 华新\naliases:\n  - company\n" in new
    assert new.endswith("\nMy note.\n")
    assert "history:" in new and fact(v, "employer").history[-1]["value"] == "岭南科技"
    assert sync(v).actions == []  # the patched bytes are mdmem's: nothing left to sync


def test_reordering_keys_by_hand_is_not_rewritten(v: Vault) -> None:
    path = v.root / "facts/user/home_city.md"
    head, body = path.read_text(encoding="utf-8").split("---\n", 2)[1:]
    lines = head.splitlines(keepends=True)
    path.write_text("---\n" + "".join(reversed(lines)) + "---\n" + body, encoding="utf-8")
    stamp(path, SAVED)
    before = path.read_bytes()
    sync(v)
    assert path.read_bytes() == before


def test_a_sync_with_nothing_to_do_is_remembered_until_a_file_or_the_manifest_changes(
    v: Vault, monkeypatch
) -> None:
    import mdmem.edit.sync as sync_module

    monkeypatch.setattr("mdmem.store.snapshot.RACY_NS", -1)  # files as if saved long ago
    sync(v)
    sync(v)  # every entry settled: this one notes that nothing was to do
    monkeypatch.setattr("mdmem.store.snapshot._OPEN", {})  # a new process
    compared: list[int] = []
    real = sync_module.find_edits
    monkeypatch.setattr(sync_module, "find_edits", lambda *a: compared.append(1) or real(*a))
    assert sync(Vault(v.root)).entry is None and compared == []  # nothing even compared
    edit(v, "employer", "岭南科技", "Orbit")
    assert sync(Vault(v.root)).entry is not None and compared == [1]  # the edit is applied
    assert fact(v, "employer").value == "Orbit"
    sync(Vault(v.root))
    written = json.loads(v.manifest.path.read_text(encoding="utf-8"))
    written["facts/user/birthday.md"] = "0" * 64  # as if mdmem had written other bytes
    v.manifest.path.write_text(json.dumps(written), encoding="utf-8")
    compared.clear()
    sync(Vault(v.root))
    assert compared == [1]  # a changed manifest is compared again
