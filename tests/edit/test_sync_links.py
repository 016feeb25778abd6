"""`mdmem sync` keeps the `upstream` links in step with rules.yaml, and touches nothing else."""

import json

import pytest
from typer.testing import CliRunner

from mdmem import Vault
from mdmem.cli import app
from mdmem.edit.sync import sync
from mdmem.edit.undo import undo
from mdmem.store.links import DECISION
from tests.conftest import STORY

NEW_RULE = "  - {when: employer, then: home_address, action: confirm}\n"


@pytest.fixture
def v(story_vault: Vault) -> Vault:
    for attr, value in STORY:
        story_vault.set(attr, value, date="2025-08-15")
    sync(story_vault)
    return story_vault


def tree(vault: Vault) -> dict[str, bytes]:
    return {p.relative_to(vault.root).as_posix(): p.read_bytes() for p in (vault.root / "facts").rglob("*.md")}  # fmt: skip


def add_rule(vault: Vault) -> None:
    path = vault.root / "rules.yaml"
    text = path.read_text(encoding="utf-8")
    anchor = "  - {when: home_address, then: commute_mode, action: confirm}\n"
    assert anchor in text
    path.write_text(text.replace(anchor, anchor + NEW_RULE), encoding="utf-8")


def test_a_sync_without_a_rules_change_writes_nothing(v: Vault) -> None:
    before, entries = tree(v), len(list(v.journal.entries()))
    result = sync(Vault(v.root))
    assert result.entry is None and tree(v) == before
    assert len(list(v.journal.entries())) == entries


def test_a_rules_change_rewrites_only_the_links_of_the_affected_files(v: Vault) -> None:
    address = v.root / "facts/user/home_address.md"
    text = address.read_text(encoding="utf-8")
    mine = text.replace("---\n", "---\nmood: cosy\n", 1) + "Near the river.\n"
    address.write_text(mine, encoding="utf-8")
    sync(Vault(v.root))  # the hand edit is adopted first
    before = tree(v)
    add_rule(v)
    assert Vault(v.root).rules  # another command read the new rules first: sync must notice
    result = sync(Vault(v.root))
    after = tree(v)
    changed = sorted(k for k in after if after[k] != before[k])
    assert changed == ["facts/user/home_address.md"]
    old, new = before[changed[0]].decode(), after[changed[0]].decode()
    assert old.replace(
        "upstream:\n- '[[facts/user/home_city]]'\n",
        "upstream:\n- '[[facts/user/employer]]'\n- '[[facts/user/home_city]]'\n",
    ) == new  # the links and nothing else: the person's key and body are as they were
    assert "mood: cosy\n" in new and new.endswith("Near the river.\n")
    assert result.entry is not None
    assert [c["decision"] for c in result.entry["changes"]] == [DECISION]
    assert result.entry["source"]["files"] == ["rules.yaml"]
    assert sync(Vault(v.root)).entry is None and tree(v) == after  # and then nothing again


def test_a_broken_hand_edit_is_not_overwritten_by_relinking(v: Vault) -> None:
    address = v.root / "facts/user/home_address.md"
    broken = address.read_text(encoding="utf-8").replace("value:", "value: [unclosed", 1)
    address.write_text(broken, encoding="utf-8")
    add_rule(v)
    result = sync(Vault(v.root))
    assert address.read_text(encoding="utf-8") == broken
    assert any(p.path == "facts/user/home_address.md" for p in result.problems)
    address.write_text(broken.replace("value: [unclosed", "value:", 1), encoding="utf-8")
    sync(Vault(v.root))  # fixed: the edit is adopted, and the next sync links it
    sync(Vault(v.root))
    assert "'[[facts/user/employer]]'" in address.read_text(encoding="utf-8")


def test_a_vault_written_before_links_gets_them_on_its_first_sync(v: Vault) -> None:
    (v.root / ".mdmem/links.digest").unlink()
    path = v.root / "facts/user/commute_mode.md"
    # as an older mdmem wrote it: no upstream property, and the manifest agrees
    old = path.read_text(encoding="utf-8").replace("upstream:\n- '[[facts/user/home_address]]'\n", "")
    path.write_text(old, encoding="utf-8")
    sync(Vault(v.root))  # adopts the file as it is (a hand edit as far as sync can tell) …
    sync(Vault(v.root))  # … and links it
    assert "upstream:\n- '[[facts/user/home_address]]'\n" in path.read_text(encoding="utf-8")


def test_dry_run_shows_the_relinking_and_writes_nothing(v: Vault) -> None:
    add_rule(v)
    before = tree(v)
    result = sync(Vault(v.root), dry_run=True)
    assert [c.key for c in result.plan.changes] == ["user/home_address"]
    assert tree(v) == before
    assert sync(Vault(v.root)).entry is not None  # the real run still has it to do


def test_the_log_says_which_links_a_rules_change_set(v: Vault) -> None:
    add_rule(v)
    sync(Vault(v.root))
    out = CliRunner().invoke(app, ["log", "--vault", str(v.root), "--json"])
    changes = [c for e in json.loads(out.stdout) for c in e["changes"]]
    (change,) = [c for c in changes if c["decision"] == DECISION]
    assert change["upstream"] == ["[[facts/user/employer]]", "[[facts/user/home_city]]"]
    text = CliRunner().invoke(app, ["log", "--vault", str(v.root)], env={"COLUMNS": "300"}).output
    assert "upstream links now [[facts/user/employer]], [[facts/user/home_city]]" in text


def test_a_hand_added_dependency_lands_with_its_link_in_the_file_and_stays_undoable(v: Vault) -> None:
    """The edit is written in the person's layout, after the links are set: the file holds
    what the journal says it holds, so `undo` finds it as left."""
    path = v.root / "facts/user/birthday.md"
    text = path.read_text(encoding="utf-8")
    assert "value: 03-14\n" in text
    edited = text.replace("value: 03-14\n", "value: 03-15\ndepends_on:\n- on: employer\n  action: confirm\n")
    path.write_text(edited, encoding="utf-8")
    result = sync(Vault(v.root))
    assert result.entry is not None
    assert "'[[facts/user/employer]]'" in path.read_text(encoding="utf-8")
    assert sync(Vault(v.root)).entry is None
    assert undo(Vault(v.root), result.entry["id"]).entry is not None
