"""vocab: word lists a pack names once and its patterns use as <<name>>."""

import textwrap
from pathlib import Path

import pytest

from mdmem.errors import RulesError
from mdmem.model.rules_yaml import load_rules, parse_rules
from mdmem.model.vocab import alternation
from tests.conftest import ROOT

PACK = """\
version: 1
vocab:
  cities: [New York, St. Louis, New York City, C++]
  name: {regex: '[A-Z]\\w+ [A-Z]\\w+'}
attributes:
  home_city:
    extract:
      - '(?i)\\blive in (?P<value><<cities>>)'
      - |
        (?ix)
        \\bmoved\\ to\\ (?P<value><<name>>)   # a fragment keeps its space under (?x)
"""


def rules(text: str):
    return parse_rules(textwrap.dedent(text), "pack.yaml")


def error(text: str) -> RulesError:
    with pytest.raises(RulesError) as info:
        rules(text)
    return info.value


def test_placeholder_expands_longest_first() -> None:
    attr = rules(PACK).attributes["home_city"]
    assert attr.extract_patterns[0] == (
        r"(?i)\blive in (?P<value>(?:New\ York\ City|St\.\ Louis|New\ York|C\+\+))"
    )
    assert attr.extract[0].search("I live in New York City now")["value"] == "New York City"
    assert attr.extract[0].search("I live in New York, sadly")["value"] == "New York"


def test_words_are_escaped() -> None:
    rx = rules(PACK).attributes["home_city"].extract[0]
    assert rx.search("I live in St. Louis")["value"] == "St. Louis"
    assert rx.search("I live in StX Louis") is None  # the dot is a dot
    assert rx.search("I live in C++")["value"] == "C++"
    assert rx.search("I live in CC") is None  # the plus signs are plus signs


def test_alternation_escapes_for_verbose_patterns() -> None:
    import re

    rx = re.compile(f"(?x)^{alternation(['a b', 'c#d'])}$")
    assert rx.match("a b") and rx.match("c#d") and not rx.match("ab")


def test_regex_fragment_reads_the_same_in_a_verbose_pattern() -> None:
    rx = rules(PACK).attributes["home_city"].extract[1]
    assert rx.search("We moved to Ann Arbor")["value"] == "Ann Arbor"


def test_unknown_name_is_refused_with_its_line_and_the_known_names() -> None:
    e = error(PACK.replace("<<name>>", "<<nmae>>"))
    assert e.path == "pack.yaml"
    assert e.line == 11  # the line of the block that holds the placeholder
    assert "<<nmae>>" in str(e) and "cities, name" in str(e)
    e = error(PACK.replace("(?P<value><<cities>>)", "(?P<value><<towns>>)"))
    assert e.line == 8


def test_unknown_name_without_any_vocab_says_where_to_declare() -> None:
    e = error("attributes:\n  a:\n    extract: ['(?P<value><<cities>>)']\n")
    assert e.line == 3 and "vocab" in str(e)


def test_bad_regex_in_a_block_names_its_line() -> None:
    e = error(PACK.replace("(?P<value><<name>>)", "(?P<value><<name>>"))
    assert e.line == 11
    assert "invalid regex" in str(e)


def test_bad_regex_in_one_line_pattern_names_its_line() -> None:
    e = error(PACK.replace("(?P<value><<cities>>)", "(?P<value><<cities>>"))
    assert e.line == 8


@pytest.mark.parametrize(
    ("entry", "words"),
    [
        ("cities: Paris", "must be a list of words"),
        ("cities: []", "must be a list of words"),
        ("cities: [[Paris]]", "must be a list of words"),
        ("cities: {regex: '[a-'}", "invalid regex"),
        ("cities: {regex: '<<x>>'}", "without <<…>>"),
        ("cities: {words: [a]}", "must be a list of words"),
    ],
)
def test_bad_vocab_entry_is_refused_with_its_line(entry: str, words: str) -> None:
    e = error(f"version: 1\nvocab:\n  {entry}\nattributes: {{}}\n")
    assert e.line == 3
    assert words in str(e)


def test_vocab_passes_the_unknown_key_check() -> None:
    assert rules("vocab: {a: [x]}\nattributes: {}\n").attributes == {}
    assert "unknown key 'vocabs'" in str(error("vocabs: {a: [x]}\n"))


def test_lazy_parse_expands_too() -> None:
    lazy = parse_rules(PACK, "pack.yaml", lazy=True).attributes["home_city"]
    assert "<<" not in "".join(lazy.extract_patterns)
    assert lazy.extract[0].search("I live in St. Louis")


@pytest.mark.parametrize("pack", ["personal", "software_project", "health"])
def test_shipped_packs_keep_lines_short_and_use_their_lists(pack: str) -> None:
    path: Path = ROOT / "rules" / f"{pack}.yaml"
    text = path.read_text(encoding="utf-8")
    assert max(len(line) for line in text.splitlines()) <= 200
    assert "vocab:" in text
    r = load_rules(path)
    sources = [p for a in r.attributes.values() for p in a.extract_patterns + a.invalidate_patterns]
    assert sources and not any("<<" in p for p in sources)
