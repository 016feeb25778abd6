"""Hostile messages: linear extraction, code blocks unread, a time budget, runaway patterns."""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from mdmem.extract import guard
from mdmem.extract.rule_finder import extract
from mdmem.extract.transcript import parse_transcript
from mdmem.model.rules_yaml import load_rules, parse_rules

ROOT = Path(__file__).resolve().parents[2]
PERSONAL = load_rules(ROOT / "rules" / "personal.yaml")
DAY = "2026-02-10"


@contextmanager
def within(seconds: float) -> Iterator[None]:
    """Fail (instead of hanging the suite) when the block runs longer than `seconds`."""

    def stop(*_: object) -> None:
        raise AssertionError(f"took longer than {seconds} s")

    old = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def read(text: str, rules=PERSONAL):
    msgs = parse_transcript(text, default_time=DAY)
    return extract(msgs, rules, {}, source="t.md", default_date=DAY)


def values(text: str, rules=PERSONAL) -> list[tuple[str, object]]:
    return [(s.key, s.value) for s in read(text, rules).statements]


@pytest.mark.parametrize("digits", [8_000, 16_000, 32_000])
def test_a_long_run_of_digits_reads_in_linear_time(digits):
    # Before: 8k 3.8 s, 16k 23 s, 32k 94 s (a date pattern rescanned the run at every digit).
    with within(10):
        found = values("User: I moved to Paris in " + "1" * digits)
    assert ("user/home_city", "Paris") in found


def test_a_sentence_repeated_two_thousand_times_is_bounded():
    # Before: 205 s. Now every piece is bounded, and at most MAX_CANDIDATES are weighed.
    with within(15):
        ex = read("User: " + "I moved to Paris and " * 2000)
    assert ("user/home_city", "Paris") in [(s.key, s.value) for s in ex.statements]
    [note] = [n for n in ex.notes if guard.UNREAD in n]
    assert note.startswith("L1: 1,779 of 1,979 candidate statements not read for facts")


def test_a_one_megabyte_line_is_skipped_with_a_note_not_a_hang():
    text = "User: " + ("I moved to Paris and 1 " * 50_000)[:1_000_000] + "\nUser: I moved to Lima."
    with within(30):  # the budget is 2 s; before, killed after 180 s
        ex = read(text)
    assert [(s.key, s.value) for s in ex.statements][-1] == ("user/home_city", "Lima")
    skipped = [n for n in ex.notes if guard.UNREAD in n]
    assert len(skipped) == 1 and skipped[0].startswith("L1: not read for facts: reading it took")
    assert "1,000,000 characters" in skipped[0]


@pytest.mark.parametrize(
    "line",
    [" " * 200_000 + "x", "a" * 200_000, "-" * 200_000, "\t:" * 100_000, "1," * 100_000],
)
def test_long_runs_of_one_character_are_bounded(line):
    with within(15):
        read("User: I moved to Lima. " + line + "\nUser: I moved to Oslo.")


def test_a_catastrophic_pack_pattern_costs_one_message_and_is_named():
    rules = parse_rules(
        "version: 1\nattributes:\n  nick:\n    extract: ['(?P<value>(a|aa)+)$']\n"
        "  home_city:\n    extract: ['I moved to (?P<value>[A-Z]\\w+)']\n",
        "rules.yaml",
    )
    line = "a" * 40 + "!"
    text = f"User: {line}\nUser: {line}\nUser: {line}\nUser: I moved to Lima."
    start = time.monotonic()
    with within(40):
        ex = read(text, rules)
    # The pattern runs away once; the messages after it skip that pattern, not their text.
    assert time.monotonic() - start < 4 * guard.MESSAGE_BUDGET + 10
    assert [(s.key, s.value) for s in ex.statements] == [("user/home_city", "Lima")]
    [note] = ex.notes
    assert note.startswith("L1: not read for facts: reading it took longer than 2 s (41 characters)")
    assert "extract pattern #1 of attribute 'nick' in rules.yaml ran away" in note


def test_the_issue_pattern_on_a_forty_character_line_is_quick():
    rules = parse_rules(
        "version: 1\nattributes:\n  nick:\n    extract: ['(?P<value>(a+)+)$']\n", "rules.yaml"
    )
    with within(5):
        ex = read("User: " + "a" * 39 + "!", rules)
    assert ex.statements == [] and ex.notes == []


def test_the_budget_skips_a_message_and_reads_the_next(monkeypatch):
    monkeypatch.setattr(guard, "MESSAGE_BUDGET", 0.0)
    ex = read("User: I moved to Lima.")
    assert ex.statements == []
    assert ex.notes[0].startswith("L1: not read for facts: reading it took longer than 0 s")
    assert guard.is_warning(ex.notes[0])


def test_code_blocks_are_not_read_for_facts():
    text = (
        "User: here is my script\n```python\n# I moved to Paris\nprint('My name is Bob')\n```\n"
        "I moved to Lima.\n~~~\nI moved to Rome\n~~~\n"
    )
    assert values(text) == [("user/home_city", "Lima")]


def test_a_verbatim_request_still_keeps_its_code_block():
    found = read("User: remember this word for word:\n```\nI moved to Rome\n```").statements
    assert [(s.kind, s.value) for s in found] == [("assert", "I moved to Rome")]


def test_without_code_keeps_the_text_around_fences():
    assert guard.without_code("a\n```\nx\n```\nb") == "a\n\n\nb"
    assert guard.without_code("a\n  ~~~ sh\nx\n```\ny\n~~~\nb") == "a\n\n\nb"
    assert guard.without_code("a ``` b") == "a ``` b"  # not at a line start: not a fence
    assert guard.without_code("a\n```\nopen") == "a\n```\nopen"  # unclosed: text


def test_pieces_cut_at_spaces_and_never_exceed_the_limit():
    assert guard.pieces("short") == ["short"]
    text = "word " * 500
    got = guard.pieces(text, 100)
    assert all(len(p) <= 100 for p in got) and "".join(got) == text.rstrip(" ") + " "
    assert all(p.endswith(" ") for p in got[:-1])
    assert guard.pieces("x" * 250, 100) == ["x" * 100, "x" * 100, "x" * 50]
