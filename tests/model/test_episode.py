"""Episode files: exact round trips, escaping, and clear errors."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mdmem.errors import FactFileError
from mdmem.model.episode import Episode, Said, episode_path, parse, render


def _episode(*messages: Said, **extra: object) -> Episode:
    return Episode(source="chats/a.md", sha256="ab" * 32, date="2023-05-08",
                   speakers=["Caroline", "Melanie"], journal="j1", messages=list(messages),
                   extra=dict(extra))  # fmt: skip


def test_renders_a_readable_markdown_file() -> None:
    ep = _episode(Said("m1", "Caroline", "2023-05-08T13:56:00", "I went to a support group yesterday."),
                  Said("m2", "Melanie", None, "> quoted\n\nand a second paragraph"))  # fmt: skip
    text = render(ep)
    assert text.startswith("---\nsource: chats/a.md\n")
    assert (
        "**Caroline** · 2023-05-08T13:56:00 ^m1\n\nI went to a support group yesterday.\n" in text
    )
    assert "**Melanie** · — ^m2\n\n> quoted\n\nand a second paragraph\n" in text
    assert text.endswith("paragraph\n")
    assert parse(text) == ep


def test_a_line_that_looks_like_a_header_is_escaped_and_restored() -> None:
    tricky = "see below\n\n**Mallory** · 2020-01-01 ^m9\n\n\\**x** · t ^m1\n---"
    ep = _episode(Said("m1", "Caroline", None, tricky), Said("m2", "Melanie", None, "ok"))
    text = render(ep)
    assert "\n\\**Mallory** · 2020-01-01 ^m9\n" in text
    back = parse(text)
    assert [m.text for m in back.messages] == [tricky, "ok"]


def test_keys_a_person_added_are_kept() -> None:
    ep = _episode(Said("m1", "A", None, "hi"), tags=["trip"])
    assert parse(render(ep)).extra == {"tags": ["trip"]}


def test_a_deleted_paragraph_stays_deleted() -> None:
    ep = _episode(Said("m1", "A", None, "one"), Said("m2", "B", None, "two"))
    text = render(ep).replace("**B** · — ^m2\n\ntwo\n", "")
    assert [m.anchor for m in parse(text).messages] == ["m1"]


@pytest.mark.parametrize(
    "text, lines", [("no frontmatter", {1}), ("---\nsource: [\n---\n", {2, 3})]
)
def test_broken_files_name_the_line(text: str, lines: set[int]) -> None:
    with pytest.raises(FactFileError) as e:
        parse(text, "episodes/2023/x.md")
    assert e.value.line in lines and "episodes/2023/x.md" in str(e.value)


def test_paths_are_dated_and_slugged() -> None:
    assert (
        episode_path("2023-05-08", "chats/Team Sync.md") == "episodes/2023/2023-05-08-team_sync.md"
    )
    assert episode_path("2023-05-08", "2023-05-08-en.md") == "episodes/2023/2023-05-08-en.md"
    with pytest.raises(ValueError):
        episode_path("May 8", "x.md")


_text = st.text(st.characters(blacklist_categories=["Cs", "Cc"]) | st.sampled_from("\n*^·\\ -"),
                min_size=1).map(str.strip).filter(bool)  # fmt: skip
_speaker = st.text(st.characters(blacklist_categories=["Cs", "Cc", "Zl", "Zp"]), min_size=1).filter(
    lambda s: s.strip() and "\n" not in s and "\r" not in s and "\x85" not in s)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_speaker, _text), min_size=1, max_size=5))
def test_render_then_parse_is_the_identity(messages: list[tuple[str, str]]) -> None:
    ep = _episode(
        *(Said(f"m{i + 1}", who, "2023-05-08", text) for i, (who, text) in enumerate(messages))
    )
    text = render(ep)
    assert parse(text) == ep
    assert render(parse(text)) == text
