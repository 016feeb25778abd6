"""English pasts: the base of an irregular past, and the past of a base."""

from __future__ import annotations

import pytest

from mdmem.lang.verbs import PAST, base, past_of


@pytest.mark.parametrize(
    ("verb", "past"),
    [("raise", "raised"), ("try", "tried"), ("plan", "planned"), ("visit", "visited"), ("play", "played"),
     ("give", "gave"), ("break", "broke"), ("say", "said"), ("put", "put"), ("shoot", "shot"), ("Buy", "bought")],
)  # fmt: skip
def test_past_of(verb, past):
    assert past_of(verb) == past


def test_every_irregular_base_gets_a_past_that_leads_back_to_it():
    for verb in set(PAST.values()):
        assert base(past_of(verb)) == verb, verb
