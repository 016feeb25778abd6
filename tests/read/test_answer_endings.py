"""Answers shaped by what the question asks, on made-up chats: when something ended (the day
its value stopped), a list of short items kept whole, a count with its measure, a clause of
time set before the question proper; and the endings of a job as people say them."""

from __future__ import annotations

from pathlib import Path

import pytest

from mdmem.edit.ingest import ingest_text
from mdmem.lang.questions import question_type
from mdmem.read.ask import ask
from mdmem.read.question import Question
from mdmem.read.spans import span
from mdmem.store.vault import Vault

HIRED = "## 2024-01-10 10:00\n\nPriya: I work at Crumb Bakery, the bakery on Elm Street.\nTomas: Nice!\n"


def later(tmp_path: Path, said: str) -> Vault:
    """Priya's job, then on 20 March 2024 one message of hers."""
    v = Vault.create(tmp_path / "v", "personal")
    ingest_text(v, HIRED, source="chat/1.md", date="2024-01-10")
    ingest_text(v, f"## 2024-03-20 10:00\n\nPriya: {said}\nTomas: Oh no.\n", source="chat/2.md", date="2024-03-20")
    return v


def first(v: Vault, question: str) -> str:
    return ask(v, question).text.split("\n", 1)[0]


@pytest.mark.parametrize("said", ["I lost my job yesterday.", "I quit the bakery yesterday.",
                                  "I quit the bakery after five years."])  # fmt: skip
def test_a_job_lost_or_quit_ends_and_when_is_the_day_it_ended(tmp_path: Path, said: str) -> None:
    v = later(tmp_path, said)
    assert "was Crumb Bakery until 2024-03-" in first(v, "Where does Priya work?")
    assert first(v, "When did Priya lose her job?") in ("19 March 2024", "20 March 2024")


@pytest.mark.parametrize("said", ["If I lost my job I'd move back home.", "I quit the gym yesterday.",
                                  "I almost lost my job last week.", "My sister lost her job yesterday.",
                                  "I'm worried I'll lose my job.", "I left my job keys at home."])  # fmt: skip
def test_what_only_sounds_like_an_ending_keeps_the_job(tmp_path: Path, said: str) -> None:
    assert first(later(tmp_path, said), "Where does Priya work?") == "Priya's employer is Crumb Bakery (since 2024-01-10)."


def said(question: str, text: str) -> str:
    return span(Question.of(question).naming([], ["Priya", "Tomas"]), text, "2024-03-20", "en").text


def test_a_list_of_short_items_is_one_clause() -> None:
    text = "I got it from the market. As for easy exercises, swimming, yoga, and walking are good options."
    # Cut at each comma, only 'walking are good options' was left of it.
    assert said("What easy exercises did Tomas suggest?", text).startswith("swimming, yoga, and walking")


def test_a_count_keeps_its_measure_but_not_the_things_counted() -> None:
    assert said("How many weeks did Priya wait for the visa?", "I waited two weeks for the visa.") == "two weeks"
    assert said("How many guests came to Priya's party?", "Oh, 7 guests came to the party.") == "7"


def test_a_clause_of_time_before_the_question_sets_no_type() -> None:
    assert question_type("When Tomas was a child, what did he play in the garden?", "en") == "what"
    assert question_type("When did Tomas play in the garden?", "en") == "when"


def test_a_partner_mentioned_unnamed_answers_whether_someone_is_married(tmp_path: Path) -> None:
    v = Vault.create(tmp_path / "v", "personal")
    chat = "## 2024-03-20 10:00\n\nPriya: My husband and I painted the kitchen on Sunday.\nTomas: Fun!\n"
    ingest_text(v, chat, source="chat/1.md", date="2024-03-20")
    assert first(v, "Is Priya married?").startswith("Yes. ")
    # A question about the partner, not whether there is one, is no yes of the mention.
    assert not first(v, "Is Priya's husband a painter?").startswith("Yes")


def test_why_is_answered_by_the_reason_said_not_by_a_fact_s_state(tmp_path: Path) -> None:
    v = Vault.create(tmp_path / "v", "personal")
    chat = "## 2024-03-20 10:00\n\nPriya: My husband and I adopted a dog because the house felt empty.\nTomas: Fun!\n"
    ingest_text(v, chat, source="chat/1.md", date="2024-03-20")
    assert first(v, "Why did Priya and her husband adopt a dog?") == "House felt empty"


def test_work_files_lost_are_no_job_lost(tmp_path: Path) -> None:
    v = later(tmp_path, "I lost my work files yesterday.")
    assert v.scan()[0]["priya/employer"].status == "active"
