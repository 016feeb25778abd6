"""Kept notes asked for by their words: "what did I ask you to remember about the release?",
"the exact wording of my note". The note whose own text best matches the question answers it
(retrieve.py weighs it against the facts)."""

from __future__ import annotations

import re

from mdmem.lang.tokens import tokens, weight
from mdmem.model.factfile import Fact
from mdmem.read.answer import NOTE_SLOT, is_note
from mdmem.read.index import Index
from mdmem.read.question import Question
from mdmem.store.vault import DEFAULT_ENTITY

# Asking for a kept note by its words: the note whose text matches is the answer.
_VERBATIM = re.compile(
    r"\b(?:(?:asked|told) you to (?:remember|note|keep|save|store)|word for word|verbatim"
    r"|exact (?:text|words?|wording|phrasing|quote|note|message|line)|exactly what"
    r"|remember(?:ed)? exactly|in (?:my|your) own words|the note|my note)\b"
    r"|让你记|叫你记|要你记|让你存|原话|原文|原样|一字不差|逐字|记下的|记住的|存下的",
    re.I,
)
_EXACT = re.compile(r"\bexact(?:ly)?\b|准确|确切", re.I)  # weaker: 'my exact address' is a fact
NOTE_MATCH = 1.0  # a note's text must share this much with the question (a word, a CJK pair)
MAX_NOTES = 3

# Words that ask for a note without saying which one.
_NOTE_WORDS = frozenset(
    tokens(
        "note notes text wording word words quote said say saying told asked remember kept keep"
        " saved save stored store exact exactly"
    )
    + ["记", "下", "原", "话", "文", "存", "让", "叫", "住"]
)


def asks_verbatim(q: Question) -> bool:
    """Whether the question asks for a note by its words (then a matching note is the answer)."""
    return _VERBATIM.search(q.text) is not None


def asks_exact(q: Question) -> bool:
    """'exact', 准确: a note may answer, but 'my exact address' is a fact too."""
    return _EXACT.search(q.text) is not None


def best_notes(index: Index, q: Question, scope: list[str] | None) -> list[tuple[Fact, float]]:
    """The kept note(s) whose own text best matches the question's words, cue words aside,
    with that score; [] when no note shares a word (or a CJK pair) with it. Exact ties are
    all returned."""
    rest = _EXACT.sub(" ", _VERBATIM.sub(" ", q.text))
    query = set(tokens(rest, query=True)) - _NOTE_WORDS
    if not query:
        return []
    scored = []
    for fact in index.facts(numbered=NOTE_SLOT, entities=scope):
        if fact.status == "deleted" or fact.value is None or not is_note(fact.attribute):
            continue
        text = fact.value if isinstance(fact.value, str) else " ".join(fact.value)
        s = sum(weight(t) for t in query & set(tokens(text)))
        if s >= NOTE_MATCH:
            scored.append((fact, s))
    scored.sort(key=lambda m: (-m[1], m[0].entity != DEFAULT_ENTITY, m[0].key))
    return [m for m in scored if m[1] == scored[0][1]][:MAX_NOTES]
