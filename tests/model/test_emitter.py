"""model/emit.py writes the very bytes PyYAML writes for mdmem's fields, odd text included."""

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from mdmem.model.emit import Unsupported, _analyze, entry, scalar
from mdmem.model.factfile import FIELDS, Fact, dump_frontmatter, parse, render
from mdmem.model.yaml_text import dump_yaml

ODD = [
    "", " ", "  lead", "trail ", "a: b", "a:b", "key: value # no", "#hash", "a #b", "a#b", "-",
    "- x", "-x", "?", "? x", ":x", ": x", "'quoted'", '"dq"', "it's", "x'y\"z", "|", "|x", ">",
    "---", "--- x", "...", "...x", "yes", "No", "on", "OFF", "true", "False", "null", "~", "Null",
    "NULL", "12", "012", "0x1F", "0b101", "1_000", "1:30", "3.14", ".5", "1e5", "1.0e+5", ".inf",
    "-.INF", ".nan", "2026-02-10", "2026-02-10T09:12:00Z", "2026-2-1 1:02:03", "<<", "=", "!",
    "&a", "*a", "%x", "@x", "`x", "{a}", "[a]", "a,b", "上海", "海珠区 天河", "😀", "a😀b",
    "\U0010fffd", "\ufeff", "é", "\xa0x", "\u3000", "\x85", "a\u2028b", "\u2029", "\t", "a\tb",
    "\r", "a\r\nb", "\x00", "\x07", "\x1b", "\x7f", "\x9f", "\ud7ff", "\ue000", "\ufffe",
    "line\n", "line\nnext", "\n", "\n\n", "a\n\n", "\nlead", " lead\nx", "x\n y", "x \ny",
    "x\n\n\ny\n", "trailing space \n", "a\n...\nb", "a\n---\n", "a\\b", "[[episodes/2023/a#^m3]]",
    "user/home_city", "https://example.com/a?b=c#d", "a" * 130,
]  # fmt: skip

text = st.one_of(
    st.sampled_from(ODD),
    st.text(max_size=12),
    st.text(alphabet=st.sampled_from(list(" \n:#-'\"|>.,x0😀上\t\\\x85\u2028")), max_size=10),
)
keys = st.one_of(st.sampled_from(["on", "action", "value", "rule", "yes", "12", "a b"]), text)
scalars = st.one_of(text, st.none(), st.booleans(), st.integers(-(10**6), 10**6))
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(keys, inner, max_size=3)
    ),
    max_leaves=8,
)


def _mapping(draw_keys: list[str], vals: list[object]) -> dict[str, object]:
    return dict(zip(draw_keys, vals, strict=False))


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from([*FIELDS, "note", "x-extra"]), values), max_size=6))
@example([("value", "a\n\n")])
@example([("value", "a\n\n"), ("status", "active")])
@example([("history", [{"value": "x\n\n"}])])
def test_same_bytes_as_pyyaml(items: list[tuple[str, object]]) -> None:
    mapping = dict(items)
    assert dump_frontmatter(mapping) == dump_yaml(mapping)


@pytest.mark.parametrize("s", ODD)
def test_every_odd_string_alone(s: str) -> None:
    for mapping in ({"value": s}, {"value": [s, s]}, {"derived_from": {s or "k": s}},
                    {"history": [{"value": s, "reason": s}]}, {"value": s, "source": "x"}):  # fmt: skip
        assert dump_frontmatter(mapping) == dump_yaml(mapping), repr(mapping)


def test_outside_the_subset_falls_back() -> None:
    with pytest.raises(Unsupported):
        entry("value", 1.5)
    with pytest.raises(Unsupported):
        scalar("a\nb", 0, key=True)
    mapping = {"value": 1.5, "derived_from": {1: "x"}, "status": "active"}
    assert dump_frontmatter(mapping) == dump_yaml(mapping)


def test_render_round_trips_a_full_fact() -> None:
    fact = Fact(
        entity="user", attribute="home_city", value="上海", valid_from="2026-02-10",
        recorded_at="2026-02-10T09:12:00Z", source="chat#m3", evidence="[[episodes/x#^m3]]",
        derived_from={"from": "user/x", "rule": "derive"},
        depends_on=[{"on": "home_city", "action": "expire"}],
        history=[{"value": "广州", "valid_from": "2020-01-01", "valid_to": "2026-02-10",
                  "reason": "moved: 'said so'"}],
        extra={"my_note": "kept\n", "tags": ["a", "b"]}, body="Notes.\n",
    )  # fmt: skip
    text = render(fact)
    assert text == "---\n" + dump_yaml(fact.to_mapping()) + "---\nNotes.\n"
    assert parse(text, expect=("user", "home_city")) == fact


def _pyyaml_analysis(s: str) -> tuple[bool, bool, bool, bool]:
    import io

    import yaml

    a = yaml.emitter.Emitter(io.StringIO(), allow_unicode=True).analyze_scalar(s)
    return a.multiline, a.allow_block_plain, a.allow_single_quoted, a.allow_block


@settings(max_examples=3000, deadline=None)
@given(st.one_of(text, st.text(alphabet=st.sampled_from(list(" :#-?.x'\"`@%!|\ufeff\ufffe")), max_size=6)))
@example("Shanghai #3")
@example("a\u2028b")
@example("Is your dep 00004 still “v4”? (home city changed on 2026-02-10)")
def test_analysis_is_pyyamls(s: str) -> None:
    """The one-line fast path and the full scan both agree with PyYAML's own analysis."""
    assert _analyze(s) == _pyyaml_analysis(s)
