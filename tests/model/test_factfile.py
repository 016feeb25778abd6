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
    assert keys == ["entity", "attribute", "value", "status", "alpha", "zeta"]
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
