"""Books, films and shows named by their title (extract/grammar/titles.py): read, being read, liked;
and the sentences that must give nothing of the kind (a question, a supposition, a hedge, a
habit said in the present, someone else's reading)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mdmem.engine.decide import Statement
from mdmem.extract.rule_finder import extract
from mdmem.extract.transcript import parse_transcript
from mdmem.model.rules_yaml import load_rules

ROOT = Path(__file__).resolve().parents[2]
PERSONAL = load_rules(ROOT / "rules" / "personal.yaml")
DAY = "2023-05-14"


def said(text: str) -> list[Statement]:
    msgs = parse_transcript(f"User: {text}", default_time=DAY)
    return [s for s in extract(msgs, PERSONAL, {}, source="t.md", default_date=DAY).statements if s.entity == "user"]


def test_a_title_read_at_a_time_gone_by_is_an_event_with_its_author():
    [st] = said('Last weekend I read "The Salt Road" by Ines Marlow in two evenings!')
    assert (st.form, st.value, st.when, st.when_said) == (
        "event", "read The Salt Road by Ines Marlow", "2023-05-06/2023-05-07", "Last weekend")
    [st] = said('I just read "Harbour Lights".')  # "just": the past without a day
    assert (st.value, st.when) == ("read Harbour Lights", DAY)


def test_the_title_of_what_is_being_read_and_a_title_liked():
    [st] = said('The novel I\'m reading is "The Quiet Orchard".')
    assert (st.form, st.value, st.when) == ("event", "reading The Quiet Orchard", DAY)
    [like] = said('I\'m really into this book called "Paper Moons" - it\'s about early flight.')
    assert (like.attribute, like.value, like.polarity) == ("likes", "the book Paper Moons", "like")
    [like] = said("I'm hooked on this show called Lantern Bay.")
    assert like.value == "the show Lantern Bay"


@pytest.mark.parametrize("text", [
    'I read "The Salt Road" every winter.',  # the present: a habit, no event of a day
    'Have you read "The Salt Road"?',
    'If I read "The Salt Road" I\'d cry for a week.',
    'I might read "The Salt Road" next month.',
    'My brother read "The Salt Road" last week.',
    "I'm into this book called it.",
])
def test_no_title_event_or_like_of_the_speaker(text):
    assert [s for s in said(text) if s.form == "event" or s.attribute == "likes"] == []
