"""Hostile or odd YAML in fact files and rules.yaml: a clear error with its line, never a hang."""

import time

import pytest

from mdmem.errors import FactFileError, RulesError, SlugError
from mdmem.model.factfile import parse
from mdmem.model.rules_yaml import parse_rules
from mdmem.model.slug import check_slug, slugify
from tests.conftest import STORY_RULES

HEAD = "---\nentity: user\nattribute: pet\n"


def laughs(levels: int = 9) -> str:
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, levels):
        lines.append(f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"


def test_an_alias_bomb_in_a_fact_file_is_refused_at_once() -> None:
    start = time.monotonic()
    with pytest.raises(FactFileError, match="anchors and aliases") as info:
        parse(HEAD + "value: cat\n" + laughs() + "---\n")
    assert time.monotonic() - start < 1 and info.value.line == 5


def test_any_alias_in_a_fact_file_is_refused_but_an_ampersand_is_text() -> None:
    with pytest.raises(FactFileError, match="anchors") as info:
        parse(HEAD + "x: &a [1]\nvalue: *a\n---\n")
    assert info.value.line == 4
    assert parse(HEAD + "value: R&D *star*\n---\n").value == "R&D *star*"


def test_a_key_written_twice_is_refused_with_its_line() -> None:
    with pytest.raises(FactFileError, match="'value' is written twice") as info:
        parse(HEAD + "value: cat\nstatus: active\nvalue: dog\n---\n")
    assert info.value.line == 6


def test_hand_typed_tags_are_kept_as_the_text_written() -> None:
    text = HEAD + "value: cat\nseen: !!timestamp 2026-01-01\nblob: !!binary aGVsbG8=\nn: !!int 5\n"
    fact = parse(text + "tags: !!set {a, b}\n---\n")
    assert fact.extra == {
        "seen": "2026-01-01",
        "blob": "aGVsbG8=",
        "n": "5",
        "tags": {"a": None, "b": None},
    }


def test_rules_alias_bomb_is_refused_at_once_with_its_line() -> None:
    start = time.monotonic()
    with pytest.raises(RulesError, match="more than 100,000 nodes") as info:
        parse_rules("version: 1\n" + laughs(), "rules.yaml")
    assert time.monotonic() - start < 1 and info.value.line == 9


def test_rules_anchors_within_bounds_still_load() -> None:
    text = STORY_RULES.read_text(encoding="utf-8")
    rules = parse_rules(text)
    assert rules.attributes


def test_rules_self_alias_is_refused() -> None:
    with pytest.raises(RulesError, match="more than"):
        parse_rules("version: 1\nattributes: &a {x: *a}\n")


def test_rules_duplicate_key_and_empty_file_are_refused() -> None:
    with pytest.raises(RulesError, match="'home_city' is written twice") as info:
        parse_rules("version: 1\nattributes:\n  home_city: {}\n  home_city: {}\n")
    assert info.value.line == 4
    for empty in ("", "# only a comment\n", "{}\n"):
        with pytest.raises(RulesError, match="is empty"):
            parse_rules(empty)


def test_slugs_are_nfkc_and_windows_device_names_are_refused() -> None:
    assert check_slug("ａｂ") == "ab" == slugify("ＡＢ")
    for name in ("con", "aux", "nul", "prn", "com1", "lpt9"):
        with pytest.raises(SlugError, match="device name"):
            check_slug(name)
    assert slugify("Con") == "con_" and check_slug("console") == "console"
