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
    # The block id ends the message, so an Obsidian hover or embed of the link shows the words.
    assert (
        "**Caroline** · 2023-05-08T13:56:00\n\nI went to a support group yesterday. ^m1\n" in text
    )
    assert "**Melanie** · —\n\n> quoted\n\nand a second paragraph ^m2\n" in text
    assert text.endswith("paragraph ^m2\n")
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
    text = render(ep).replace("**B** · —\n\ntwo ^m2\n", "")
    assert [m.anchor for m in parse(text).messages] == ["m1"]


@pytest.mark.parametrize(
    "text, lines", [("no frontmatter", {1}), ("---\nsource: [\n---\n", {2, 3})]
)
def test_broken_files_name_the_line(text: str, lines: set[int]) -> None:
    with pytest.raises(FactFileError) as e:
        parse(text, "episodes/2023/x.md")
    assert e.value.line in lines and "episodes/2023/x.md" in str(e.value)


def test_a_message_ending_in_a_quote_list_table_or_code_has_its_id_on_a_line_of_its_own() -> None:
    for ending in ("> a quote", "- an item", "| a | b |", "```\ncode\n```", "    indented"):
        ep = _episode(Said("m1", "A", None, f"said this:\n{ending}"), Said("m2", "B", None, "ok"))
        text = render(ep)
        assert f"{ending}\n\n^m1\n" in text
        assert parse(text) == ep


def test_a_message_that_ends_in_something_like_an_id_keeps_it() -> None:
    ep = _episode(Said("m1", "A", None, "see ^m5"), Said("m2", "B", None, "^m7"))
    assert parse(render(ep)) == ep


def test_episodes_written_with_the_id_on_the_header_are_still_read() -> None:
    old = (
        "---\nsource: chats/a.md\nsha256: x\ndate: '2023-05-08'\nspeakers:\n- Caroline\n---\n"
        "**Caroline** · 2023-05-08T13:56:00 ^m1\n\nI went to a support group ^m9\n\n"
        "**Caroline** · 2023-05-08T13:57:00 ^m3\n\nIt was powerful.\n"
    )
    ep = parse(old)
    assert [(s.anchor, s.text) for s in ep.messages] == [
        ("m1", "I went to a support group ^m9"),  # an old body is the words as said, all of them
        ("m3", "It was powerful."),
    ]
    again = render(ep)  # written again (a message was added): the new layout, the same anchors
    assert "**Caroline** · 2023-05-08T13:57:00\n\nIt was powerful. ^m3\n" in again
    assert parse(again).messages == ep.messages


def test_an_id_the_person_took_out_stays_out() -> None:
    text = render(_episode(Said("m1", "A", None, "one"), Said("m2", "B", None, "two")))
    ep = parse(text.replace("one ^m1", "one"))
    assert [s.anchor for s in ep.messages] == ["", "m2"]
    assert parse(render(ep)) == ep


def test_an_export_conversation_is_named_by_its_title_and_id() -> None:
    assert (
        episode_path("2025-03-02", "chatgpt:67c4a1b0-0c1e-8000", "Settling in Lisbon!")
        == "episodes/2025/2025-03-02-settling_in_lisbon-67c4a1b0.md"
    )
    assert episode_path("2025-03-02", "claude:0b6e7c1a-1111") == "episodes/2025/2025-03-02-0b6e7c1a.md"


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
