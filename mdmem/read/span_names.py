"""Names in what was said: the people, places and titles a span of spans.py may be, and the
word-level tests (a word of the question, a word of a sentence) both modules share.

A name is a run of capitalised words that is no sentence opener, weekday, month or greeting,
and not a word of the question; a place is a name after 'in', 'at', 'to'; a person a name that
is no speaker, or 'my sister' said of them.
"""

from __future__ import annotations

import re

from mdmem.lang.families import kin_of
from mdmem.lang.tokens import fold, stem, words
from mdmem.lang.verbs import base
from mdmem.read.cover import speaker_words
from mdmem.read.days import MONTHS, WEEKDAYS
from mdmem.read.question import Question

_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’.\-]*[A-Za-z0-9]|[A-Za-z0-9]")
PLACE_CUE = re.compile(r"\b(?:in|at|to|from|near|around|visit(?:ed|ing)?|went to|moved to|live in)\s+$", re.I)
_INTERJECTIONS = frozenset(["hey", "hi", "wow", "thanks", "thank", "yeah", "yes", "oh", "congrats", "sorry", "ok", "okay", "well", "so", "and", "but", "hello", "cool", "great", "aw", "awesome", "cheers", "yo", "bye", "woah", "whoa", "haha", "ah", "hmm", "yay", "yep", "congratulations", "dude"])
_RELATIONS = re.compile(
    r"\bmy (?:(?:best|close|old|new) )?(mom|mother|dad|father|parents|sister|brother|sibling|siblings|wife|husband"
    r"|partner|boyfriend|girlfriend|son|daughter|kids|children|grandma|grandmother|grandpa|grandfather|aunt|uncle"
    r"|cousin|friend|friends|family|neighbou?r|boss|coworkers?|colleagues?|team|teammates|mentor|teacher|coach)\b",
    re.I,
)  # fmt: skip


def word_matches(sentence: str) -> list[re.Match[str]]:
    return list(_WORD.finditer(sentence))


def is_asked(q: Question, word: str) -> bool:
    w = fold(word).replace("’", "'").removesuffix("'s")  # "name's" is 'name'
    asked = q.stems
    return stem(w) in asked or w in asked or stem(base(w)) in asked or bool(kin_of(stem(w)) & asked)


# A title in quotes ('"The Lean Startup"', "an album called 'Sleep,'"): said as the title alone.
QUOTED = re.compile(r"[\"“]([^\"”\n]{2,60}?)[,.!?]?[\"”]|(?<![\w'])['‘]([^'‘’\n]{2,60}?)[,.!?]?['’](?![\w'])")
WHEN_WORDS = frozenset((*MONTHS, *WEEKDAYS))  # 'December I joined a choir' starts at 'joined'


def title_of(q: Question, sentence: str) -> str | None:
    """A quoted title of the sentence, else a name in it, that the question does not say."""
    for t in QUOTED.finditer(sentence):
        title = (t.group(1) or t.group(2)).strip()
        if not all(is_asked(q, w) for w in words(title)):
            return title
    return next((n for _, n in capitalised_runs(q, sentence)), None)


def capitalised_runs(q: Question, sentence: str) -> list[tuple[int, str]]:
    """Capitalised runs of the sentence (its first word only after a cue), not the question's
    own names: (offset, text)."""
    out = []
    ws = word_matches(sentence)
    speakers = {fold(w) for p in q.all_speakers for w in p.split()}
    i = 0
    while i < len(ws):
        w = ws[i].group(0)
        # A speaker's name, or the start of it ('Jo' for Joanna), greets them ('Cheers, Jo!').
        spoken_to = any(s.startswith(fold(w)) for s in speakers)
        if w[:1].isupper() and fold(w) not in _INTERJECTIONS and w not in ("I", "I'm", "I've") and not is_asked(q, w) and not spoken_to:
            j = i  # a name runs over capitalised words with nothing but a space or ':' between
            while (j + 1 < len(ws) and ws[j + 1].group(0)[:1].isupper() and not _not_name(ws[j + 1].group(0))
                   and sentence[ws[j].end() : ws[j + 1].start()].strip() in ("", ":")):  # fmt: skip
                j += 1
            if _not_name(w) or (j > i and ws[i].start() == 0 and fold(w).replace("’", "'") in _OPENERS):
                i += 1  # 'Saturday', 'I'll', or a sentence's first word before a name ('Maybe Joanna')
                continue
            first = ws[i].start() == 0 or sentence[: ws[i].start()].rstrip()[-1:] in ".!?\"“"
            if not first or j > i:
                out.append((ws[i].start(), sentence[ws[i].start() : ws[j].end()]))
            i = j + 1
            continue
        i += 1
    return out


# Words that open a sentence in capitals without being part of the name after them.
_OPENERS = frozenset(["maybe", "it's", "that's", "there's", "here's", "when", "if", "then", "also", "just", "now", "sure", "yes", "no", "guess", "anyway", "luckily", "sadly", "finally", "honestly"])


def _not_name(word: str) -> bool:
    """A capitalised word that names no one and no place: 'I'll', a weekday, a month."""
    w = fold(word).replace("’", "'")
    return w in ("i", "i'm", "i've", "i'll", "i'd") or word in WHEN_WORDS or w in _INTERJECTIONS


def cued_place(q: Question, sentence: str) -> str | None:
    return next((n for at, n in capitalised_runs(q, sentence) if PLACE_CUE.search(sentence[:at])), None)



def person_named(q: Question, sentence: str) -> str | None:
    names = [n for _, n in capitalised_runs(q, sentence) if fold(n) not in speaker_words(q)]
    if names:
        return names[0]
    m = _RELATIONS.search(sentence)
    if m:
        who = q.speakers[0] if q.speakers else ""
        return f"{who}'s {m.group(1)}" if who else m.group(0)
    return None

