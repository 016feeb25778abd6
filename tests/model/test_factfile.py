import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mdmem.errors import FactFileError
from mdmem.model.factfile import Fact, parse, render

SAMPLE = """---
entity: user
attribute: home_city
value: Shanghai
status: active
valid_from: '2026-02-10'
recorded_at: '2026-02-10T09:12:00Z'
source: transcripts/2026-02-10.md#L3
history:
- value: Guangzhou
  status: archived
  valid_from: '2024-01-01'
  valid_to: '2026-02-10'
  recorded_at: '2025-08-15T08:30:00Z'
  source: transcripts/2025-08-15.md#L1
  reason: superseded by a user statement
---
Moved for a new job in February 2026.
"""


def test_design_example_round_trips_byte_for_byte() -> None:
    fact = parse(SAMPLE, expect=("user", "home_city"))
    assert fact.value == "Shanghai"
    assert fact.history[0]["valid_to"] == "2026-02-10"
    assert render(fact) == SAMPLE


def test_field_order_unknown_keys_sorted_after_and_body_kept() -> None:
    fact = Fact(
        "user", "pets", ["cat", "狗"], extra={"zeta": 1, "alpha": "x"}, body="mine\n\nnot yours"
    )
    text = render(fact)
    keys = [
        line.split(":")[0]
        for line in text.split("---")[1].splitlines()
        if line and not line.startswith(("-", " "))
    ]
    assert keys == ["entity", "attribute", "values", "status", "alpha", "zeta"]  # a list: values
    assert text.endswith("---\nmine\n\nnot yours\n")
    assert parse(text).extra == {"alpha": "x", "zeta": "1"}


def test_hand_typed_numbers_and_dates_stay_text() -> None:
    fact = parse(
        "---\nvalue: 20\nvalid_from: 2026-02-10\nstatus: active\n---\n",
        expect=("user", "commute_minutes"),
    )
    assert fact.value == "20"
    assert fact.valid_from == "2026-02-10"
    assert "value: '20'" in render(fact)


def test_no_line_folding_and_one_final_newline() -> None:
    long = "word " * 60
    text = render(Fact("user", "note", long.strip()))
    assert long.strip() in text
    assert text.endswith("\n") and not text.endswith("\n\n")


def test_one_type_per_property_a_list_is_values_and_one_text_is_value() -> None:
    many = render(Fact("user", "pets", ["Max"]))
    one = render(Fact("user", "commute_minutes", "20"))
    assert "\nvalues:\n- Max\n" in many and "\nvalue:" not in many
    assert "\nvalue: '20'\n" in one  # a number is text, as every other value is


def test_a_list_under_value_written_before_values_is_still_read() -> None:
    old = "---\nentity: user\nattribute: pets\nvalue:\n- Max\n- Pixie\nstatus: active\n---\nmine\n"
    fact = parse(old, expect=("user", "pets"))
    assert fact.value == ["Max", "Pixie"] and fact.body == "mine\n"
    assert render(fact).startswith("---\nentity: user\nattribute: pets\nvalues:\n- Max\n")
    assert parse("---\nvalues: Max\n---\n", expect=("user", "pets")).value == ["Max"]
    with pytest.raises(FactFileError, match="'values' and 'value' are both set") as e:
        parse("---\nvalue: a\nvalues: [b]\n---\n", expect=("user", "pets"))
    assert e.value.line == 3


def test_the_evidence_of_earlier_values_is_listed_where_obsidian_sees_links() -> None:
    fact = Fact("user", "home_city", "Shanghai", evidence="[[episodes/2026/b#^m1]]", history=[
        {"value": "Guangzhou", "status": "archived", "evidence": "[[episodes/2025/a#^m3]]"},
        {"value": "Foshan", "status": "archived", "evidence": "[[episodes/2025/a#^m3]]"},
    ])  # fmt: skip
    text = render(fact)
    assert "evidence: '[[episodes/2026/b#^m1]]'\nearlier_evidence:\n- '[[episodes/2025/a#^m3]]'\n" in text
    assert parse(text) == fact  # made from the history on writing; never read as meaning
    edited = text.replace("- '[[episodes/2025/a#^m3]]'\nhistory", "- '[[x]]'\nhistory")
    assert parse(edited) == fact and "earlier_evidence" not in parse(edited).extra


def test_an_unclosed_quote_is_reported_where_yaml_stops_and_names_the_quote() -> None:
    text = ("---\nentity: user\nattribute: home_city\nstatus: active\nvalid_from: '2026-02-10'\n"
            "value: 'Shanghai\nrecorded_at: '2026-02-10T20:00:00Z'\nsource: cli\n---\n")  # fmt: skip
    with pytest.raises(FactFileError) as e:
        parse(text, "facts/user/home_city.md")
    assert e.value.line == 7  # YAML stops on line 7, not line 2 where the mapping began
    assert "the quote opened on line 6 is not closed" in str(e.value)


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("no frontmatter\n", 1, "does not start"),
        ("---\nvalue: x\n", None, "no closing"),
        ("---\nvalue: [x\nstatus: active\n---\n", 2, "invalid YAML"),
        ("---\nvalue: x\nstatus: maybe\n---\n", 3, "status"),
        ("---\nentity: bob\nvalue: x\n---\n", 2, "path says 'user'"),
        ("---\nvalue: {a: 1}\n---\n", 2, "must be text"),
        ("---\nvalue: x\nvalid_from: yesterday\n---\n", 3, "ISO date"),
        ("---\nstatus: deleted\nvalue: x\n---\n", 3, "must be absent"),
        ("---\n- a\n- b\n---\n", 2, "mapping"),
        ("---\nvalue: x\ndepends_on: [{on: ../x}]\n---\n", 3, "depends_on"),
    ],
)
def test_bad_files_name_line_and_fix(text: str, line: int | None, words: str) -> None:
    with pytest.raises(FactFileError) as info:
        parse(text, "facts/user/a.md", expect=("user", "a"))
    assert info.value.line == line
    assert words in str(info.value)
    assert str(info.value).startswith("facts/user/a.md")


def test_crlf_and_bom_are_accepted() -> None:
    fact = parse("\ufeff---\r\nvalue: x\r\n---\r\nbody\r\n", expect=("user", "a"))
    assert fact.value == "x" and fact.body == "body\n"


text_values = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00\ufeff"),
    max_size=40,
)
cjk = st.text(
    alphabet=st.characters(min_codepoint=0x4E00, max_codepoint=0x4FFF), min_size=1, max_size=8
)
values = st.one_of(text_values, cjk, st.lists(st.one_of(text_values, cjk), min_size=1, max_size=3))


@settings(max_examples=300, deadline=None)
@given(
    value=values,
    body=st.text(max_size=60).filter(lambda s: "\x00" not in s and "\ufeff" not in s),
    history=st.lists(
        st.fixed_dictionaries(
            {"value": st.one_of(text_values, cjk), "status": st.just("archived")}
        ),
        max_size=3,
    ),
    extra=st.dictionaries(
        st.sampled_from(["note", "tags", "zz", "mood"]),
        st.one_of(text_values, st.lists(cjk, max_size=2)),
    ),
)
def test_render_parse_render_is_stable(value, body, history, extra) -> None:
    fact = Fact("user", "x", value, history=history, extra=extra, body=body.replace("\r", ""))
    once = render(fact)
    again = render(parse(once, expect=("user", "x")))
    assert again == once
    parsed = parse(once, expect=("user", "x"))
    assert parsed.value == value
    assert parsed.history == history
