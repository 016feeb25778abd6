"""The `upstream` property: the wikilinks Obsidian draws the dependency graph from."""

from pathlib import Path

import pytest
import yaml

from mdmem import Vault
from mdmem.edit.ingest import ingest_text
from mdmem.errors import FactFileError
from mdmem.model.factfile import Fact, parse
from mdmem.store.lastgood import journal_facts
from mdmem.store.links import upstream
from tests.conftest import STORY


def front(path: Path) -> dict:
    """The frontmatter as a plain YAML reader (Obsidian's) sees it."""
    text = path.read_text(encoding="utf-8")
    return yaml.safe_load(text.split("---\n")[1])


def test_upstream_is_the_rules_and_learned_dependencies_sorted(story_vault: Vault) -> None:
    rules = story_vault.rules
    fact = Fact("user", "commute_minutes", "20", depends_on=[{"on": "work_address"}, {"on": "mom/home_city"}])
    assert upstream(fact, rules) == [
        "[[facts/mom/home_city]]", "[[facts/user/home_address]]", "[[facts/user/work_address]]",
    ]  # fmt: skip
    assert upstream(Fact("user", "home_city", "广州"), rules) == []
    assert upstream(Fact("user", "home_address", None, status="deleted"), rules) == []


def test_set_writes_links_as_an_obsidian_list_property(story_vault: Vault) -> None:
    story_vault.set("home_city", "广州", date="2025-08-15")
    story_vault.set("home_address", "海珠区", date="2025-08-15")
    path = story_vault.root / "facts/user/home_address.md"
    fm = front(path)
    assert fm["upstream"] == ["[[facts/user/home_city]]"]  # a list of text, not nested lists
    assert "upstream" not in front(story_vault.root / "facts/user/home_city.md")  # no dependencies
    text = path.read_text(encoding="utf-8")
    assert "upstream:\n- '[[facts/user/home_city]]'\n" in text
    assert parse(text).upstream == ["[[facts/user/home_city]]"]


def test_ingest_writes_links_and_learned_dependencies(tmp_path: Path) -> None:
    vault = Vault.create(tmp_path / "v", "personal")
    ingest_text(vault, "User: My gym membership depends on my city.\nUser: My gym membership is Gold Plus.\n",
                date="2026-02-10")  # fmt: skip
    fact = vault.facts["user/gym_membership"]
    assert fact.depends_on == [{"on": "home_city", "action": "confirm"}]  # keeps its meaning
    assert fact.upstream == ["[[facts/user/home_city]]"]  # linked, though not known yet


def test_links_are_written_whenever_mdmem_writes_the_fact(story_vault: Vault) -> None:
    for attr, value in STORY:
        story_vault.set(attr, value, date="2025-08-15")
    story_vault.set("home_city", "上海", date="2026-02-10")  # the cascade rewrites the dependents
    facts = Vault(story_vault.root).facts
    assert facts["user/commute_minutes"].upstream == ["[[facts/user/home_address]]"]
    assert facts["user/employer"].upstream == ["[[facts/user/home_city]]"]
    # the journal records the links too: what it says mdmem wrote is what is on disk
    journaled = journal_facts(story_vault.journal.entries())
    for key, fact in facts.items():
        assert journaled[f"facts/{key}.md"].to_mapping() == fact.to_mapping()


def test_a_hand_added_key_and_body_survive_a_write(story_vault: Vault) -> None:
    story_vault.set("home_city", "广州", date="2025-08-15")
    story_vault.set("home_address", "海珠区", date="2025-08-15")
    path = story_vault.root / "facts/user/home_address.md"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("---\n", "---\ntags:\n- home\n", 1) + "My own note.\n", encoding="utf-8")
    Vault(story_vault.root).set("home_address", "天河区", date="2025-09-01")
    after = path.read_text(encoding="utf-8")
    assert "My own note.\n" in after and front(path)["tags"] == ["home"]
    assert front(path)["upstream"] == ["[[facts/user/home_city]]"]


def test_a_malformed_upstream_is_a_clear_error() -> None:
    with pytest.raises(FactFileError, match="upstream.*list of links"):
        parse("---\nentity: user\nattribute: a\nvalue: x\nupstream: {a: 1}\n---\n")
