"""How much of a question a text holds: the measure spans.py ranks sentences by, and the test of
whether an event or plan is what a question asks about.

Kept apart from spans.py so that a question the facts answer pays only for this, not for the
span tables (spans.py, span_state.py, span_time.py) it never uses.
"""

from __future__ import annotations

import re

from mdmem.lang.families import kin_of
from mdmem.lang.questions import ZH_ASKING
from mdmem.lang.tokens import fold, is_cjk, stem, tokens, weight, words
from mdmem.lang.verbs import PAST, base
from mdmem.model.factfile import Fact
from mdmem.read.question import Question

LIFE_COVER = 0.6  # how much of a question an event or plan must hold to answer it


def stems(text: str) -> set[str]:
    """The text's search tokens, and the base of each irregular past it holds ('took': take)."""
    found = set(tokens(text, query=True))
    return found | {stem(base(w)) for w in words(text) if w in PAST}


def speaker_words(q: Question) -> set[str]:
    """The stems of the names of the people the question is about or said by."""
    return {stem(fold(w)) for p in (*q.speakers, *q.people) for w in re.split(r"[\s_-]+", p) if w}


def cover(q: Question, text: str) -> float:
    """The share of the question's content that the text holds: its words by weight, and its
    Chinese content characters (function characters and the ones that only ask, 叫 谁 几,
    aside), each counted as a word: a Chinese answer seldom repeats the question's character
    pairs ('我的狗叫什么' is answered by '我家狗狗旺财'). A character that stands beside another
    content character is held only with it (另一半 is not held by 一只)."""
    asked = [t for t in q.query if not is_cjk(t) and fold(t) not in speaker_words(q)]
    held, chars = 0, 0
    names = speaker_words(q)
    units = q.units
    content = [u.cjk and u.weight >= 1.0 and u.text not in ZH_ASKING and u.text not in names for u in units]
    for i, u in enumerate(units):
        if not content[i]:
            continue
        chars += 1
        pairs = [units[j].text + units[j + 1].text for j in (i - 1, i) if 0 <= j < len(units) - 1 and content[j] and content[j + 1]]  # fmt: skip
        held += any(p in text for p in pairs) if pairs else u.text in text
    total = sum(weight(t) for t in asked) + chars
    if not total:
        return 0.0
    have = stems(text)
    # A word of the question's family holds it ('fave' for 'favorite', 'son' among 'kids').
    return (sum(weight(t) for t in asked if t in have or kin_of(t) & have) + held) / total


def told_of(q: Question, fact: Fact) -> bool:
    """Whether an event or plan is what the question asks about: what happened, where and
    with whom hold at least LIFE_COVER of the question's content."""
    said = " ".join(str(x) for x in (fact.value, fact.where, *(fact.with_ or ())) if x)
    return cover(q, said) >= LIFE_COVER
