import textwrap

import pytest

from mdmem.errors import RulesError
from mdmem.model.rules_yaml import parse_rules, rules_from_mapping
from tests.conftest import STORY_RULES


def rules(text: str):
    return parse_rules(textwrap.dedent(text), "rules.yaml")


def error(text: str) -> RulesError:
    with pytest.raises(RulesError) as info:
        rules(text)
    return info.value


def test_story_rules_load() -> None:
    r = parse_rules(STORY_RULES.read_text(encoding="utf-8"))
    assert r.attributes["birthday"].stability == "high"
    assert r.attributes["pets"].cardinality == "many"
    assert [d.then for d in r.edges_from("home_city")][:2] == ["social_insurance_city", "employer"]
    assert r.dependencies[0].id == "home_city->social_insurance_city"


def test_values_groups_make_spellings_equal() -> None:
    r = parse_rules(STORY_RULES.read_text(encoding="utf-8"))
    assert r.same_value("home_city", "上海", "Shanghai")
    assert r.same_value("home_city", "shanghai", "上海市")
    assert not r.same_value("home_city", "上海", "广州")
    assert r.same_value("employer", "ＡＢＣ  Corp", "abc corp")  # width, case and spaces
    assert r.spelling("home_city", "Shanghai", "zh") == "上海"
    assert r.spelling("home_city", "上海", "en") == "Shanghai"
    assert r.spelling("home_city", "上海市", "zh") == "上海市"  # the person's spelling fits: kept


def test_cycle_is_named_with_its_line() -> None:
    e = error(
        """\
        version: 1
        attributes: {a: {}, b: {}, c: {}}
        dependencies:
          - {when: a, then: b}
          - {when: b, then: c}
          - {when: c, then: a}
        """
    )
    assert "cycle a → b → c → a" in str(e)
    assert e.line == 4


@pytest.mark.parametrize(
    ("body", "line", "words"),
    [
        (
            "attributes: {a: {}}\ndependencies:\n  - {when: a, then: zz}\n",
            3,
            "undeclared attribute",
        ),
        ("attributes:\n  a:\n    extract: ['(unclosed']\n", 3, "invalid regex"),
        ("attributes:\n  a:\n    extract: ['no group']\n", 3, "(?P<value>"),
        (
            "attributes: {a: {}, b: {}}\ndependencies:\n  - {when: a, then: b, action: derive, value: '{nope}'}\n",
            3,
            "unknown attribute {nope}",
        ),
        ("attributes:\n  a:\n    colour: red\n", 3, "unknown key 'colour'"),
        ("attributs: {}\n", 1, "unknown key 'attributs'"),
        (
            "attributes: {a: {}, b: {}}\ndependencies:\n  - {when: a, then: b, action: explode}\n",
            3,
            "action",
        ),
        (
            "attributes: {a: {}, b: {}}\ndependencies:\n  - {when: a, then: b, action: derive}\n",
            3,
            "needs 'value",
        ),
        ("attributes: {a: {stability: rock}}\n", 1, "stability"),
        ("attributes: {a: {}}\ntopics: {x: [zz]}\n", 2, "undeclared attribute 'zz'"),
        ("attributes:\n  a: {}\n  b: [\n", None, "invalid YAML"),
    ],
)
def test_invalid_rules_name_line(body: str, line: int | None, words: str) -> None:
    e = error(body)
    assert words in str(e)
    if line is not None:
        assert e.line == line
    assert str(e).startswith("rules.yaml")


def test_inline_mapping_rules() -> None:
    r = rules_from_mapping(
        {"attributes": {"x": {"label": {"en": "x", "zh": "叉"}}}, "topics": {"t": ["x"]}}
    )
    assert r.topics["t"].attributes == ("x",)
    assert r.attribute("undeclared").declared is False


def test_lookup_and_ask_forms() -> None:
    r = rules(
        """\
        attributes: {city: {}, insurance: {}, boss: {}}
        dependencies:
          - {when: city, then: insurance, action: derive, lookup: {上海: 上海社保}}
          - {when: city, then: boss, ask: 'Still working for {boss} in {city}?'}
        """
    )
    assert r.dependencies[0].lookup == {"上海": "上海社保"}
    assert r.dependencies[1].action == "confirm"
    assert r.dependencies[1].ask == {"en": "Still working for {boss} in {city}?"}


def test_an_undeclared_attribute_is_made_once_and_changes_no_equality() -> None:
    rules = rules_from_mapping({"attributes": {"home_city": {}}})
    other = rules_from_mapping({"attributes": {"home_city": {}}})
    made = rules.attribute("shoe_size")
    assert not made.declared and made.label == {"en": "shoe size"}
    assert rules.attribute("shoe_size") is made
    assert rules.attribute("home_city").declared
    assert rules == other


def test_grammar_words_load_per_dimension_attribute_and_language() -> None:
    r = rules(
        """
        attributes:
          pets:
            cardinality: many
          pet_count: {}
        grammar:
          names:
            pets: {en: [dog, parrot], zh: [狗]}
          counts: {pets: pet_count}
        """
    )
    g = r.grammar
    assert g is not None and g.counts == {"pets": "pet_count"}
    assert g.names == {"pets": {"en": ("dog", "parrot"), "zh": ("狗",)}}
    assert g.dimension("people") == {}


@pytest.mark.parametrize(
    ("grammar", "line", "words"),
    [
        ("{nouns: {pets: {en: [dog]}}}", 4, "unknown key 'nouns' in grammar"),
        ("{names: [dog]}", 4, "'names' must map attributes to their words"),
        ("{names: {cats: {en: [cat]}}}", 4, "names undeclared attribute 'cats'"),
        ("{names: {pets: [dog]}}", 4, "'pets' must map languages to word lists"),
        ("{names: {pets: {en: [dog]}}, counts: {pets: nothing}}", 4, "must name a declared one-valued attribute"),
        ("{names: {pets: {en: [dog]}}, counts: {pets: pets}}", 4, "must name a declared one-valued attribute"),
    ],
)
def test_bad_grammar_words_are_refused_with_their_line(grammar: str, line: int, words: str) -> None:
    e = error(f"attributes:\n  pets:\n    cardinality: many\ngrammar: {grammar}\n")
    assert words in str(e) and e.line == line, str(e)
