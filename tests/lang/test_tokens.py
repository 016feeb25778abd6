"""Index tokens: ASCII text takes a shorter road to the same tokens (lang/tokens.py)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from mdmem.lang.tokens import tokens

ASCII = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=127), max_size=60)


@settings(max_examples=400, deadline=None)
@given(ASCII)
def test_ascii_text_gives_the_tokens_the_general_reading_gives(text: str) -> None:
    # "·" is no letter: appended, it sends the same words down the general (Unicode) road.
    assert tokens(text) == tokens(text + " ·")


def test_tokens_of_a_message():
    said = "I moved to Porto_2024 last week, and I'm running 5k races!"
    assert tokens(said) == ["mov", "porto", "2024", "last", "week", "runn", "5k", "rac"]
    assert tokens(said) == tokens(said + " ·")
    assert tokens("去杭州 trip") == ["去", "杭", "州", "去杭", "杭州", "trip"]  # CJK: uni- and bigrams
