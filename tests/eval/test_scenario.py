"""Scenario files: loading, defaults, and malformed files named with their line."""

from __future__ import annotations

from pathlib import Path

import pytest

from mdmem.eval.scenario import (
    Expect,
    ScenarioError,
    find_scenarios,
    load_scenario,
    parse_scenario,
    scenario_from_mapping,
)
from tests.conftest import STORY_RULES

GOOD = """\
name: moved-city
lang: zh
rules: {rules}
sessions:
  - date: '2025-08-15'
    transcript: |
      用户: 我住在广州海珠。
  - date: 2026-02-10
    transcript: |
      用户: 我搬到上海了。
probes:
  - {{after: 1, type: recall, ask: '我住在哪个城市？', expect: {{contains: [广州]}}}}
  - {{type: cascade, ask: '我的社保在哪交？', expect: {{contains: [上海], absent: [广州]}}}}
  - {{type: absence, ask: '我在哪上班？', expect: {{contains: [某公司]}}}}
  - {{type: deletion, ask: '我住哪？', as_of: '2026-01-01', expect: {{absent: 广州}}}}
  - {{type: recall, ask: '我住哪？', expect: {{uncertain: 'false', removed: no}}}}
"""


def write(tmp_path: Path, text: str, name: str = "s.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_loads_a_scenario_with_defaults_and_implied_expectations(tmp_path: Path) -> None:
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "r.yaml").write_bytes(STORY_RULES.read_bytes())
    sc = load_scenario(write(tmp_path, GOOD.format(rules="rules/r.yaml")))
    assert sc.name == "moved-city" and sc.lang == "zh"
    assert sc.rules == str((tmp_path / "rules" / "r.yaml").resolve())
    assert [s.date for s in sc.sessions] == ["2025-08-15", "2026-02-10"]  # unquoted date too
    assert sc.sessions[0].line == 5
    assert [p.after for p in sc.probes] == [1, 2, 2, 2, 2]  # default: after the last session
    assert sc.probes[1].expect == Expect(contains=("上海",), absent=("广州",))
    assert sc.probes[2].expect.uncertain is True  # absence implies uncertain
    assert sc.probes[3].expect.removed is True and sc.probes[3].expect.absent == ("广州",)
    assert sc.probes[3].as_of == "2026-01-01"
    assert sc.probes[4].expect.uncertain is False and sc.probes[4].expect.removed is False
    assert sc.probes[1].line == 13 and sc.probes[1].index == 1


def test_alternatives_are_kept_as_tuples() -> None:
    text = GOOD.format(rules="{}").replace(
        "contains: [广州]", "contains: [[广州, Guangzhou], 海珠]"
    )
    sc = parse_scenario(text, "alt.yaml")
    assert sc.probes[0].expect.contains == (("广州", "Guangzhou"), "海珠")


def test_inline_rules_mapping_is_validated_and_kept_plain(tmp_path: Path) -> None:
    text = GOOD.replace(
        "rules: {rules}", "rules:\n  attributes:\n    home_city: {{label: city}}"
    ).format()
    sc = parse_scenario(text, "inline.yaml")
    assert sc.rules == {"attributes": {"home_city": {"label": "city"}}}
    assert type(sc.rules) is dict and type(sc.rules["attributes"]) is dict


def test_broken_inline_rules_name_the_scenario_file_and_line() -> None:
    text = "name: x\nrules:\n  attributes:\n    home_city: {colour: red}\nsessions: []\n"
    with pytest.raises(ScenarioError) as e:
        parse_scenario(text, "bad.yaml")
    assert e.value.path == "bad.yaml" and e.value.line == 4
    assert "inline rules" in str(e.value) and "colour" in str(e.value)


@pytest.mark.parametrize(
    ("mutate", "line", "words"),
    [
        (lambda t: t.replace("name: moved-city", "name: moved-city\ncolor: red"), 2, "unknown key"),
        (lambda t: t.replace("type: cascade", "type: cascading"), 13, "type must be one of"),
        (lambda t: t.replace("after: 1,", "after: 3,"), 12, "from 1 to 2"),
        (lambda t: t.replace("after: 1,", "after: first,"), 12, "from 1 to 2"),
        (lambda t: t.replace("lang: zh", "lang: fr"), 2, "lang must be"),
        (lambda t: t.replace("date: 2026-02-10", "date: last tuesday"), 8, "YYYY-MM-DD"),
        (lambda t: t.replace("as_of: '2026-01-01'", "as_of: soon"), 15, "as_of"),
        (lambda t: t.replace("absent: 广州", "absent: 广州, removed: false"), 15, "removed: true"),
        (
            lambda t: t.replace("{contains: [上海], absent: [广州]}", "{absent: [广州]}"),
            13,
            "contains",
        ),
        (lambda t: t.replace("absent: [广州]", "absent: [上海]"), 13, "both in contains"),
        (
            lambda t: t.replace("{contains: [某公司]}", "{contains: [某公司], maybe: x}"),
            14,
            "unknown key",
        ),
        (lambda t: t.replace("uncertain: 'false'", "uncertain: perhaps"), 16, "true or false"),
        (
            lambda t: t.replace("    transcript: |\n      用户: 我搬到上海了。\n", ""),
            8,
            "transcript",
        ),
        (lambda t: t.replace("contains: [广州]}", "contains: []}"), 12, "contains"),
        (
            lambda t: t.replace("absent: [广州]", "absent: [[广州, 广州市]]"),
            13,
            "list of non-empty text",
        ),
        (lambda t: t.replace("contains: [广州]}", "contains: [[广州, []]]}"), 12, "alternatives"),
        (lambda t: t.replace("ask: '我住在哪个城市？', ", ""), 12, "ask"),
        (lambda t: t + "  - {type: recall, ask: x}\n", 17, "expect"),
        (lambda t: t + "  - just a string\n", 17, "must be a mapping"),
        (lambda t: t.replace("- {after: 1,", "- {after: 1, [oops,"), 12, "invalid YAML"),
    ],
)
def test_malformed_files_name_the_file_line_and_problem(
    tmp_path: Path, mutate: object, line: int, words: str
) -> None:
    (tmp_path / "r.yaml").write_bytes(STORY_RULES.read_bytes())
    text = mutate(GOOD.format(rules="r.yaml"))  # type: ignore[operator]
    path = write(tmp_path, text, "broken.yaml")
    with pytest.raises(ScenarioError) as e:
        load_scenario(path)
    assert str(path) in str(e.value)
    assert words in str(e.value)
    assert e.value.line == line, str(e.value)


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ([], "must be a mapping"),
        ({"sessions": []}, "name"),
        ({"name": "x", "rules": "no-such-pack-here"}, "no rule pack"),
        ({"name": "x", "rules": "missing/rules.yaml"}, "not found"),
        ({"name": "x", "rules": 7}, "pack name, a path or a mapping"),
        ({"name": "x", "rules": {}, "sessions": []}, "sessions"),
        (
            {"name": "x", "rules": {}, "sessions": [{"date": "2025-01-01", "transcript": "U: a"}]},
            "probes",
        ),  # fmt: skip
    ],
)
def test_structural_problems(tmp_path: Path, data: object, words: str) -> None:
    with pytest.raises(ScenarioError) as e:
        scenario_from_mapping(data, "m.yaml", base=tmp_path)
    assert words in str(e.value) and "m.yaml" in str(e.value)


def test_unreadable_and_missing_files(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="not found"):
        load_scenario(tmp_path / "nope.yaml")
    bad = tmp_path / "latin1.yaml"
    bad.write_bytes("name: caf\xe9\n".encode("latin-1"))
    with pytest.raises(ScenarioError, match="cannot be read"):
        load_scenario(bad)


def test_find_scenarios_recurses_folders_in_name_order(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    for rel in ("b/2.yaml", "a.yml", "b/1.yaml", "notes.txt"):
        (tmp_path / rel).write_text("x", encoding="utf-8")
    explicit = tmp_path / "notes.txt"
    found = find_scenarios([tmp_path, explicit])
    rels = [p.relative_to(tmp_path).as_posix() for p in found]
    assert rels == ["a.yml", "b/1.yaml", "b/2.yaml", "notes.txt"]
    with pytest.raises(ScenarioError, match="no such file"):
        find_scenarios([tmp_path / "missing"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(ScenarioError, match="no scenario files"):
        find_scenarios([tmp_path / "empty"])
