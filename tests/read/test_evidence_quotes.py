"""The evidence after an answer line: each message quoted once, a reply after its question."""

from __future__ import annotations

from mdmem.read.compose import from_passages, said_alike
from mdmem.read.passages import Passage
from mdmem.read.question import Question

ASKS = Passage("episodes/2024/a.md", "m1", "2024-05-02", None, "Priya", "Where did you go last weekend?", 2.0)
REPLY = Passage("episodes/2024/a.md", "m2", "2024-05-02", None, "Tomas",
                "We drove up to Lake Tahoe and camped by the water.", 1.8, reply=True)  # fmt: skip
OTHER = Passage("episodes/2024/b.md", "m1", "2024-05-09", None, "Tomas", "The tent still smells of smoke.", 1.0)


def _q(text: str) -> Question:
    return Question.of(text).naming([], ["Priya", "Tomas"])


def test_a_reply_that_answers_is_quoted_once_after_its_question() -> None:
    got = from_passages(_q("Where did Tomas camp?"), [ASKS, REPLY, OTHER], "en")
    assert got is not None and got.first == "Lake Tahoe" and got.basis[0]["anchor"] == "m2"
    assert sum("Lake Tahoe" in line for line in got.quotes) == 1
    assert got.quotes[0].startswith("On 2 May 2024 Priya asked:") and "Tomas answered:" in got.quotes[0]
    assert [(e["episode"], e["anchor"]) for e in got.evidence] == [
        ("episodes/2024/a.md", "m1"), ("episodes/2024/a.md", "m2"), ("episodes/2024/b.md", "m1")]  # fmt: skip


def test_one_quote_asked_for_is_the_question_with_the_reply_that_answers() -> None:
    got = from_passages(_q("Where did Tomas camp?"), [ASKS, REPLY, OTHER], "en", evidence=1)
    assert got is not None and len(got.quotes) == 1 and "Lake Tahoe" in got.quotes[0]


def test_the_time_said_is_looked_for_in_the_basis_quote_not_in_the_question_before_it() -> None:
    from mdmem.model.factfile import Fact

    reply = Passage("episodes/2024/a.md", "m2", "2024-05-02", None, "Tomas",
                    "Two weekends ago we camped at Lake Tahoe.", 1.8, reply=True)  # fmt: skip
    got = from_passages(_q("When did Tomas camp at Lake Tahoe?"), [ASKS, reply], "en")
    assert got is not None and got.evidence[0]["anchor"] == "m1"
    event = Fact(entity="tomas", attribute="event", value="camped at Lake Tahoe", kind="event", when_said="two weekends ago")
    assert said_alike([event], got)


def test_two_parts_of_one_long_message_are_two_quotes() -> None:
    first = Passage("episodes/2024/c.md", "m3", "2024-05-20", None, "Tomas", "We camped at Lake Tahoe for a week.", 1.5)
    second = Passage("episodes/2024/c.md", "m3", "2024-05-20", None, "Tomas", "Then we drove on to Reno.", 1.2)
    got = from_passages(_q("Where did Tomas camp?"), [first, second], "en")
    assert got is not None and len(got.quotes) == 2 and "Reno" in got.quotes[1]
