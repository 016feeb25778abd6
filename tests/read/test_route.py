"""Which answers what: a fact that really answers stands alone; one that only shares a word
with the question gives way to what was said; questions in chat are quoted with their replies."""

from __future__ import annotations

from pathlib import Path

import pytest

from mdmem.edit.ingest import ingest_text
from mdmem.read.ask import ask
from mdmem.read.match import Question
from mdmem.read.route import answers_alone, loose_words
from mdmem.store.vault import Vault

CHAT = """Tim: I love basketball, it's the best.
John: We watched a basketball game last night.
Tim: Who is your favorite basketball player?
John: LeBron James, no doubt.
John: My car broke down on the highway, what a mess.
"""


@pytest.fixture
def vault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Vault:
    monkeypatch.setenv("MDMEM_NOW", "2026-03-01T12:00:00Z")
    v = Vault.create(tmp_path / "v", "personal")
    ingest_text(v, CHAT, source="chat.md", date="2026-02-10")
    return v


def test_a_fact_that_only_shares_a_word_gives_way_to_what_was_said(vault: Vault) -> None:
    assert vault.get("likes", entity="tim") is not None  # 'basketball' is one of Tim's likes
    a = ask(vault, "Who is Tim's favorite basketball player?")
    assert a.mode == "said" and a.facts == []
    assert "likes" not in a.text and "LeBron James" in a.text


def test_a_question_in_chat_is_quoted_with_its_reply(vault: Vault) -> None:
    a = ask(vault, "Who is Tim's favorite basketball player?")
    assert (
        "On 10 February 2026 Tim asked: “Who is your favorite basketball player?”"
        " John answered: “LeBron James, no doubt.”"
    ) in a.text.splitlines()
    assert a.text.count("LeBron James") == 1  # found itself too: quoted once
    assert [e["reply"] for e in a.evidence].count(True) <= 1


def test_a_labelled_fact_that_says_less_than_asked_is_followed_by_the_words(vault: Vault) -> None:
    vault.set("car", "Ferrari", entity="john", date="2026-02-12")
    a = ask(vault, "When did John's car break down on the highway?")
    first, *rest = a.text.splitlines()
    # The fact names the car, not when it broke down: the words hold the time, so the day
    # they were said is the answer, and the fact's sentence follows with the quote.
    assert first == "10 February 2026"
    # (the breakdown is an event of John's too, so it is said with the fact's sentence)
    assert any(line.startswith("John's car is Ferrari (since 2026-02-12).") for line in rest)
    assert any("My car broke down on the highway" in line for line in rest)


def test_a_fact_that_answers_stands_alone(vault: Vault) -> None:
    vault.set("car", "Ferrari", entity="john", date="2026-02-12")
    a = ask(vault, "What car does John drive?")
    assert a.text == "John's car is Ferrari (since 2026-02-12)."
    assert a.evidence == []


def test_an_old_value_is_never_quoted_after_the_fact(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("MDMEM_NOW", "2026-03-01T12:00:00Z")
    v = Vault.create(tmp_path / "v", "personal")
    ingest_text(v, "User: I live in Lisbon, near the river.\n", source="a.md", date="2026-01-10")
    ingest_text(v, "User: I moved to Porto last week.\n", source="b.md", date="2026-02-20")
    a = ask(v, "Which river do I live near in Lisbon these days?")
    assert "Porto" in a.text and "near the river" not in a.text


@pytest.mark.parametrize(
    ("question", "alone"),
    [
        ("Where do I live?", True),
        ("Which lockfile do we commit?", True),  # one verb left: still about the lockfile
        ("Who is Tim's favorite basketball player?", False),
        ("我的血压是多少？", True),
    ],
)
def test_what_a_fact_leaves_unexplained(vault: Vault, question: str, alone: bool) -> None:
    facts = {
        "Where do I live?": {"attribute": "home_city", "entity": "user", "value": "Porto"},
        "Which lockfile do we commit?": {"attribute": "lockfile", "entity": "user", "value": "x"},
        "Who is Tim's favorite basketball player?": {
            "attribute": "likes", "entity": "tim", "value": ["basketball"]},
        "我的血压是多少？": {"attribute": "blood_pressure", "entity": "user", "value": "130/85"},
    }  # fmt: skip
    q = Question.of(question)
    assert answers_alone(q, vault.rules, [facts[question]]) is alone, loose_words(
        q, vault.rules, [facts[question]]
    )


def test_a_question_naming_an_old_value_in_part_gets_the_correction(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("MDMEM_NOW", "2026-03-01T12:00:00Z")
    v = Vault.create(tmp_path / "v", "health")
    ingest_text(v, "User: I am being seen at St. Brigid's Hospital, my doctor there is Dr. Eze.\n",
                source="a.md", date="2025-08-08")  # fmt: skip
    ingest_text(v, "User: I transferred my care to Lakeview Clinic this week.\n", source="b.md",
                date="2025-09-08")  # fmt: skip
    a = ask(v, "Do I still go to St. Brigid's for my checkups?")
    assert "Lakeview Clinic" in a.text and "Dr. Eze" not in a.text
