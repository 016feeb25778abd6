"""The fast road for mdmem's own bytes gives exactly what the full parser gives, or nothing."""

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from mdmem.errors import MdmemError
from mdmem.model.factfile import Fact, parse, render
from mdmem.model.fastparse import parse_canonical
from mdmem.model.limits import fact_text_problem

ROOT = Path(__file__).resolve().parents[2]
words = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00\ufeff\r"),
    max_size=30,
)
plainish = st.text(alphabet="abc 广州:#'-[]{}!&*|>\"12", max_size=12)
texts = st.one_of(words, plainish, st.sampled_from(["null", "~", "true", "12", "2025-01-01"]))
values = st.one_of(st.none(), texts, st.lists(texts, min_size=1, max_size=3))
days = st.sampled_from([None, "2025-08-15", "2024-01-01T10:00:00Z"])


@st.composite
def facts(draw: st.DrawFn) -> Fact:
    value = draw(values)
    history = draw(st.lists(st.fixed_dictionaries(
        {"value": texts, "status": st.just("archived"), "valid_from": days}), max_size=2))  # fmt: skip
    return Fact(
        "user", "x", value,
        status=draw(st.sampled_from(["active", "uncertain"])) if value is not None else "expired",
        valid_from=draw(days), recorded_at=draw(days), source=draw(st.one_of(st.none(), texts)),
        uncertain_because=draw(st.one_of(st.none(), st.fixed_dictionaries(
            {"fact": st.just("user/home_city"), "question": st.fixed_dictionaries(
                {"en": texts, "zh": texts})}))),
        depends_on=draw(st.lists(st.fixed_dictionaries(
            {"on": st.sampled_from(["home_city", "alice/employer"]),
             "action": st.sampled_from(["confirm", "derive"])}), max_size=2)),
        history=history,
        extra=draw(st.dictionaries(st.sampled_from(["note", "tags", "Odd Key"]), values)),
        body=draw(st.text(max_size=40)).replace("\r", ""),
    )  # fmt: skip


def _agrees(text: str) -> Fact | None:
    """What the fast road gives, checked against the full parse."""
    fast = parse_canonical(text, "facts/user/x.md", ("user", "x"))
    try:
        slow = parse(text, "facts/user/x.md", expect=("user", "x"))
    except MdmemError:
        assert fast is None
        return None
    assert fast is None or fast == slow
    return fast


@settings(max_examples=400, deadline=None)
@given(fact=facts())
def test_rendered_facts_read_the_same(fact: Fact) -> None:
    _agrees(render(fact))


@settings(max_examples=400, deadline=None)
@given(fact=facts(), at=st.integers(min_value=0), cut=st.integers(0, 3), put=plainish)
def test_edited_bytes_read_the_same_or_go_the_full_way(fact: Fact, at: int, cut: int, put: str) -> None:  # fmt: skip
    text = render(fact)
    at %= len(text)
    _agrees(text[:at] + put + text[at + cut :])


# What YAML reads otherwise than it looks: tabs, controls, NEL/LS/PS line breaks, a BOM, a
# colon that ends a value, spaces around it, quotes.
nasty = st.text(alphabet="\t\x07\x85\u2028\u2029\ufeff\x7f: 'a-#\n", max_size=4)


@settings(max_examples=600, deadline=None)
@given(fact=facts(), at=st.integers(min_value=0), cut=st.integers(0, 2), put=nasty)
def test_bytes_yaml_reads_otherwise_go_the_full_way(fact: Fact, at: int, cut: int, put: str) -> None:  # fmt: skip
    text = render(fact)
    at %= len(text)
    _agrees(text[:at] + put + text[at + cut :])


def test_plain_facts_take_the_fast_road() -> None:
    fact = Fact("user", "x", ["广州", "it's"], valid_from="2025-08-15", source="cli",
                history=[{"value": "a", "status": "archived"}], body="Said.\n")  # fmt: skip
    assert _agrees(render(fact)) == fact
    hand = render(fact).replace("source: cli", "source:   cli")  # a person's spacing
    assert parse_canonical(hand, "facts/user/x.md", ("user", "x")) is None


def test_the_sample_vault_reads_the_same() -> None:
    fast = total = 0
    for path in sorted((ROOT / "sample_vault" / "facts").rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        rel = path.relative_to(ROOT / "sample_vault").as_posix()
        expect = (path.parent.name, path.stem)
        got = parse_canonical(text, rel, expect)
        assert got is None or got == parse(text, rel, expect=expect)
        fast += got is not None
        total += 1
    assert fast == total >= 5  # mdmem wrote every one of them


def test_bytes_past_a_limit_go_the_full_way() -> None:
    """The fast road skips the limit scans only where no limit can be reached."""
    base = render(Fact("user", "x", "plain", source="cli"))
    head, _, body = base.partition("source: cli\n")
    many = head + "".join(f"f{i}: v\n" for i in range(101)) + "source: cli\n" + body
    deep = base.replace("value: plain", "value: '" + "[" * 25 + "'")
    dashes = base.replace("source: cli", "source: cli\nnote:\n" + "- " * 25 + "x")
    nested = "\n".join(" " * (2 * i) + f"k{i}:" for i in range(22)) + " y"  # 22 levels deep
    indent = base.replace("source: cli", "source: cli\n" + nested)
    for text in (many, deep, dashes, indent):
        assert fact_text_problem(text) is not None
        assert parse_canonical(text, "facts/user/x.md", ("user", "x")) is None
        _agrees(text)
    assert _agrees(base.replace("value: plain", "value: '" + "[" * 20 + "'")) is not None


def test_a_line_read_before_still_counts_once() -> None:
    """A remembered `key: text` line given twice is a duplicate key, as the first time."""
    text = render(Fact("user", "x", "plain", status="active", source="cli"))
    assert _agrees(text) is not None  # its lines are remembered now
    assert parse_canonical(text.replace("source: cli\n", "source: cli\nsource: cli\n"),
                           "facts/user/x.md", ("user", "x")) is None  # fmt: skip
