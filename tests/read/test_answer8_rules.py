"""Span and ranking rules of the eighth answer round (made-up sentences, none from a corpus)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from mdmem.model.episode import Episode, Said, episode_path, render
from mdmem.read.compose import from_passages
from mdmem.read.passages import Passage, PassageIndex
from mdmem.read.question import Question
from mdmem.read.spans import span, when_text

SPEAKERS = ["Priya", "Tomas"]


def _q(text: str) -> Question:
    return Question.of(text).naming([], SPEAKERS)


def test_a_when_span_is_typed_only_when_the_words_say_a_time() -> None:
    q = _q("When did Tomas adopt his parrot Kiwi?")
    told = span(q, "I adopted Kiwi the parrot three years ago.", "2024-05-02", "en")
    bare = span(q, "This is Kiwi, my parrot!", "2024-05-02", "en")
    assert told.typed and told.text == "2021"
    assert not bare.typed and bare.text == "2 May 2024"  # the day it was said, not typed


def test_a_when_question_is_answered_by_the_passage_that_says_a_time() -> None:
    q = _q("When did Tomas adopt his parrot Kiwi?")
    bare = Passage("episodes/2024/a.md", "m1", "2024-05-02", None, "Tomas", "Meet Kiwi, the parrot I adopted!", 2.0)
    told = Passage("episodes/2024/b.md", "m4", "2024-06-11", None, "Tomas",
                   "I adopted Kiwi three years ago, when the flat felt empty.", 1.5)  # fmt: skip
    got = from_passages(q, [bare, told], "en")
    assert got is not None and got.first == "2021" and got.basis[0]["anchor"] == "m4"


def test_next_season_and_this_or_next_weekend_are_said_from_the_day_said() -> None:
    assert when_text("We are planning a reunion next summer.", "2023-11-20", "en") == "summer 2024"
    assert when_text("We are planning a reunion next summer.", "2023-04-02", "en") == "summer 2023"
    assert when_text("Next spring I repaint the shed.", "2023-03-15", "en") == "spring 2024"
    assert when_text("I'm hiking with my cousins this weekend.", "2023-06-07", "en") == "the weekend of 7 June 2023"
    assert when_text("Next weekend we bake.", "2023-06-07", "en") == "the weekend after 7 June 2023"


def test_a_weekday_said_alone_in_the_past_is_the_latest_one_before() -> None:
    # 4 March 2024 is a Monday: 'on Friday' in the past is Friday 1 March.
    assert when_text("I won the chess final on Friday!", "2024-03-04", "en") == "Friday, 1 March 2024"
    assert when_text("We painted the fence Monday.", "2024-03-04", "en") == "Monday, 26 February 2024"
    # A plan or a habit is no day that passed: the day said is all that is known.
    assert when_text("I am flying out on Friday.", "2024-03-04", "en") == "4 March 2024"
    assert when_text("On Fridays I baked bread.", "2024-03-04", "en") == "4 March 2024"
    assert when_text("Every Sunday we walked the dog.", "2024-03-04", "en") == "4 March 2024"


def test_a_when_search_ranks_a_passage_that_says_a_time_first() -> None:
    from mdmem.read.said import timed_first

    q = _q("When did Tomas adopt his parrot Kiwi?")
    bare = Passage("episodes/2024/a.md", "m1", "2024-05-02", None, "Tomas", "Kiwi the parrot says hello!", 3.0)
    asks = Passage("episodes/2024/a.md", "m2", "2024-05-02", None, "Tomas", "Did you adopt a parrot, too?", 2.9)
    told = Passage("episodes/2024/b.md", "m4", "2024-06-11", None, "Tomas", "I adopted Kiwi two years ago.", 2.0)
    assert [p.anchor for p in timed_first(q, [bare, asks, told])] == ["m4", "m1", "m2"]
    # Of passages that say no time, the order found stays.
    assert [p.anchor for p in timed_first(q, [bare, replace(told, text="Kiwi loves seeds.")])] == ["m1", "m4"]
    # How long: the passage that says a duration.
    q = _q("How long has Tomas had his parrot Kiwi?")
    lasted = replace(told, text="I've had Kiwi for three years now.")
    assert [p.anchor for p in timed_first(q, [bare, lasted])] == ["m4", "m1"]


def _episode(root: Path, day: str, source: str, *messages: tuple[str, str]) -> None:
    said = [Said(f"m{i + 1}", who, None, text) for i, (who, text) in enumerate(messages)]
    path = root / episode_path(day, source)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render(Episode(source, "0" * 64, day, sorted({w for w, _ in messages}), None, said)), encoding="utf-8")


def test_a_question_the_named_speaker_answered_ranks_above_one_they_did_not(tmp_path: Path) -> None:
    # Two questions by Priya; Tomas answered only the longer one: searching for what Tomas
    # said, that one ranks up (his reply is quoted with it), the other stays behind.
    _episode(tmp_path, "2024-04-02", "a.md", ("Priya", "How did the lantern parade in the old square go for Ana?"),
             ("Tomas", "The kids were thrilled."))  # fmt: skip
    _episode(tmp_path, "2024-04-09", "b.md", ("Priya", "How did the lantern parade in the square go?"),
             ("Priya", "Never mind, tell me later."))  # fmt: skip
    idx = PassageIndex(tmp_path, tmp_path / ".mdmem")
    idx.refresh()
    words = ["lantern", "parade", "square"]
    plain = idx.search(words)
    asked = idx.search(words, speaker="Tomas")
    assert [p.episode[-4:] for p in plain[:2]] == ["b.md", "a.md"]  # the shorter question, by BM25 alone
    questions = [p for p in asked if p.speaker == "Priya"]  # (Tomas's reply is found too, by its question's words)
    assert [p.episode[-4:] for p in questions] == ["a.md", "b.md"]
    assert questions[0].score == pytest.approx(plain[1].score * 1.5)
    assert questions[1].score == pytest.approx(plain[0].score)
    idx.close()
