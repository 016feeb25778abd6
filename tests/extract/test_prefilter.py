"""The literal tests that let an expression be skipped never skip a match (extract/prefilter.py)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from mdmem.extract import forget_requests, requests
from mdmem.extract.prefilter import AnyOf, lowered, may_match

# The module expressions that run only where their literal tests pass.
GATED = [*forget_requests._ENGLISH.patterns, forget_requests._CUE, requests._VERBATIM]
WORDS = ["please", "delete", "forget", "that", "this", "it", "don't", "keep", "remember", "my",
         "address", "off", "the", "record", "take", "out", "of", "your", "notes", "word", "for",
         "exactly", "I", "you", "can", "just", "never", "mind", "TMI", "private", "save", "ſave",
         "İt", "DELETE", "Forget", "scrap", "bin", "wipe", "everything", "about", "me", "原文", "记下来"]  # fmt: skip
SEPARATORS = [" ", " ", ", ", ". ", "! ", ": ", "\n", "? ", " — "]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(WORDS), st.sampled_from(SEPARATORS)), min_size=1, max_size=14
    )
)
def test_a_gated_expression_is_never_skipped_where_it_matches(parts):
    text = "".join(w + s for w, s in parts)
    for rx in GATED:
        if rx.search(text):
            assert may_match(rx, lowered(text)), (rx.pattern[:60], text)
    if any(rx.search(text) for rx in forget_requests._ENGLISH.patterns):
        assert forget_requests._ENGLISH.may_match(lowered(text))


def test_the_requests_a_gate_lets_through_are_still_found():
    said = ["Please delete that.", "Don't keep my address, please.", "Off the record: I got fired.",
            "Forget everything you know about me.", "Scrap that."]  # fmt: skip
    for text in said:
        assert forget_requests._ENGLISH.may_match(lowered(text)), text
    assert not forget_requests._ENGLISH.may_match(lowered("We went hiking by the lake on Sunday."))


def test_lowered_makes_one_what_ignorecase_takes_as_one():
    # "ſ" is an "s" and "ı" an "i" to re.IGNORECASE, though lower() keeps them apart;
    # "İ" lower-cases to "i" and a combining dot.
    rx = re.compile(r"\bsave\s+it\b", re.I)
    for text in ["ſave it", "SAVE İT", "save ıt"]:
        assert rx.search(text), text
        assert may_match(rx, lowered(text)), text
    assert lowered("ASCII Only") == "ascii only"


def test_any_of_is_true_when_one_pattern_has_no_literal_test():
    anything = AnyOf(re.compile(r"\w+"), re.compile("moved"))
    assert anything.may_match("nothing of the kind")
    some = AnyOf(re.compile("moved"), re.compile("relocat(?:ed|ing)"))
    assert some.may_match("we relocated") and not some.may_match("we stayed")
