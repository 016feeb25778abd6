"""`upstream` links are written with a fact, never on their own: sync rewrites no file for them."""

import pytest

from mdmem import Vault
from mdmem.edit.sync import sync
from mdmem.edit.undo import undo
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


def test_a_rules_change_rewrites_no_file_and_links_land_with_the_next_write(v: Vault) -> None:
    address = v.root / "facts/user/home_address.md"
    before = tree(v)
    add_rule(v)
    assert Vault(v.root).rules  # another command read the new rules first
    result = sync(Vault(v.root))
    assert result.entry is None and tree(v) == before
    assert "'[[facts/user/employer]]'" not in address.read_text(encoding="utf-8")
    Vault(v.root).set("home_address", "Riverside", date="2026-02-01")  # written for a reason
    assert "upstream:\n- '[[facts/user/employer]]'\n- '[[facts/user/home_city]]'\n" in address.read_text(
        encoding="utf-8"
    )


def test_a_broken_hand_edit_is_left_as_it_is(v: Vault) -> None:
    address = v.root / "facts/user/home_address.md"
    broken = address.read_text(encoding="utf-8").replace("value:", "value: [unclosed", 1)
    address.write_text(broken, encoding="utf-8")
    add_rule(v)
    result = sync(Vault(v.root))
    assert address.read_text(encoding="utf-8") == broken
    assert any(p.path == "facts/user/home_address.md" for p in result.problems)


def test_a_file_without_links_is_taken_as_it_is(v: Vault) -> None:
    path = v.root / "facts/user/commute_mode.md"
    # as an older mdmem (or another program) wrote it: no upstream property
    old = path.read_text(encoding="utf-8").replace("upstream:\n- '[[facts/user/home_address]]'\n", "")
    path.write_text(old, encoding="utf-8")
    sync(Vault(v.root))
    sync(Vault(v.root))
    assert path.read_text(encoding="utf-8") == old
    assert Vault(v.root).get("commute_mode").value == "骑车"


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
