"""Spans taken from what was said: the words of a passage that answer a question, never more.

A passage is cut into sentences; the sentence that shares most of the question's words holds
the answer. From it the question's type takes its span (when → the resolved date of what it
tells, where → the place, who → the person, how many → the number, why → the reason, what →
the clause the question's words leave over). Nothing is paraphrased: a span is words of the
passage (a date is the passage's own time words resolved against its session's day).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mdmem.lang.questions import head_words
from mdmem.lang.tokens import fold, is_cjk, stem, words
from mdmem.lang.verbs import PAST
from mdmem.read.cover import cover, stems
from mdmem.read.question import Question
from mdmem.read.span_names import (
    PLACE_CUE,
    QUOTED,
    WHEN_WORDS,
    capitalised_runs,
    cued_place,
    is_asked,
    person_named,
    title_of,
    word_matches,
)
from mdmem.read.span_state import favorite, state
from mdmem.read.span_time import told_time, when_text

_SENTENCE = re.compile(r"[^.!?。！？\n]+(?:[.!?。！？]+[\"'”’)]*|$)")
_CLAUSE = re.compile(r"[,;:()\u2013\u2014，；：]| - ")
# Words that carry no answer: who is speaking, to be and to have, fillers, frames.
_FRAME = frozenset(
    ["i", "i'm", "i've", "i'd", "i'll", "me", "my", "mine", "myself", "we", "we're", "we've", "our", "us", "you", "you're", "your", "he", "she", "him", "her", "his", "they", "them", "their", "it", "it's", "its", "this", "that", "these", "those", "there", "here", "is", "am", "are", "was", "were", "be", "been", "being", "have", "has", "had", "do", "does", "did", "done", "got", "get", "gets", "getting", "so", "really", "just", "also", "too", "very", "actually", "pretty", "totally", "definitely", "quite", "a", "an", "the", "and", "or", "but", "of", "to", "in", "on", "at", "for", "with", "from", "by", "about", "as", "into", "some", "any", "all", "lot", "lots", "kind", "sort", "thing", "things", "stuff", "one", "ones", "what", "which", "who", "when", "where", "why", "how", "yeah", "yes", "no", "oh", "wow", "hey", "hi", "thanks", "thank", "well", "like", "can", "could", "would", "should", "will", "gonna", "wanna", "now", "then", "still", "always", "ever", "even", "much", "many", "more", "most", "not", "never", "if", "than", "because", "'cause", "cause", "since", "while", "during", "after", "before", "up", "out", "over", "off", "down", "back", "away", "again", "around", "last", "ago", "recently", "today", "yesterday", "tonight", "week", "weekend", "month", "year", "new", "great", "awesome", "amazing", "cool", "nice", "good", "way", "glad", "happy", "sure", "fun", "bit", "little"]
)
_EDGE = frozenset(
    ["a", "an", "the", "my", "our", "your", "his", "her", "their", "its", "some", "any", "this", "that", "these", "those", "to", "of", "in", "on", "at", "for", "with", "from", "by", "and", "or", "but", "so", "as", "into", "about", "is", "am", "are", "was", "were", "be", "been", "have", "has", "had", "do", "did", "really", "just", "also", "too", "very", "actually", "yesterday", "today", "recently", "lately", "now", "then", "there", "here", "again", "last", "week", "weekend", "ago", "which", "who", "that", "when", "where", "it", "i", "we", "you", "he", "she", "they", "me", "us"]
)
_REASON = re.compile(
    r"\b(?:because|'cause|cause|since(?!\s+(?:then|last|ever|(?:we|i|you)\s+(?:last\s+)?(?:chatted|talked|spoke|met)"
    r"|(?:i|he|she|we)\s+was|(?:a|an)\s+(?:kid|child|teen)|childhood|high school|college|\d|(?:january|february|march|april|may"
    r"|june|july|august|september|october|november|december)\b))|so that|as it|due to|thanks to|in order to)\b\s*", re.I
)  # fmt: skip  ('since' of a time, 'since we last talked', 'since I was a kid', is no reason)
_NUMBER = re.compile(
    r"\b(\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|once|twice"
    r")\b", re.I,
)  # fmt: skip
# Said of how many without a number: 'both' is two; 'a few', 'several' answer only when no
# number is said ('a few' is no count of three, 'both' no count of anything but two).
_BOTH = re.compile(r"\bboth\b", re.I)
_VAGUE = re.compile(r"\b(a couple|a few|several)\b", re.I)
_COUNT_WORD = r"(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a few|a couple of|couple of|several|many)"
# A frequency said: 'three times a week', 'once a month', 'every weekend', 'daily'.
_OFTEN = re.compile(
    r"\b(?:(?:at least|about|around|almost|nearly|like)\s+)?(?:(?:once|twice|" + _COUNT_WORD + r"\s+times)\s+(?:a|an|per|each|every)"
    r"\s+(?:day|week|month|year|weekend|morning|night|evening)|(?:every|each)\s+(?:other\s+)?(?:single\s+)?(?:day|week|weekend"
    r"|month|morning|night|evening|year|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|daily|weekly|monthly)\b", re.I,
)  # fmt: skip
# A duration said: 'for three years', 'about 3 years', '30-60 seconds', 'six months' (not 'ago').
_LASTS = re.compile(
    r"\b(?:for\s+)?((?:(?:about|around|almost|nearly|over|more than|less than|at least|just over|just under)\s+)*(?:an?|"
    + _COUNT_WORD + r"(?:\s*(?:-|to)\s*\d+)?)\s+(?:seconds?|minutes?|hours?|days?|weeks?|months?|years?|decades?))\b(?!\s+(?:ago|old)\b)",
    re.I,
)  # fmt: skip
_NOT = re.compile(r"\b(?:not|never|no|n't|nope|haven't|hasn't|didn't|don't|doesn't|wasn't|isn't)\b|不|没", re.I)
_POINTING = re.compile(r"\W*(?:here'?s|here is|look at|check (?:it|this) out|this is)\b", re.I)
# The formulas of talk that tell nothing: greetings, thanks, apologies, wishes, exclamations
# ('Long time no see!', 'Sorry to hear that', "Can't wait!", 'Let me know how it goes',
# "That's a gorgeous poster!"): such a sentence answers nothing the question asks.
_PHATIC = re.compile(
    r"\W*(?:(?:hey|hi|hello|wow|oh|aw+|yeah|thanks|thank you)\b[^.!?]{0,20}?[,!]\s*)?(?:long time no (?:see|talk|chat)"
    r"|sorry (?:to hear|i haven't|for (?:the )?(?:late|delay)|about)|(?:i )?can(?:'|’)?t wait|let (?:me|you) know"
    r"|(?:that's|that is|what|such) (?:a|an|so) (?:\w+ ){0,2}\w+\W*$|thanks?(?: you)? (?:so much |a lot )?for|good luck"
    r"|take care|see you|talk (?:to you )?(?:soon|later))", re.I,
)  # fmt: skip


def phatic(sentence: str) -> bool:
    """Whether a sentence is a formula of talk (a greeting, thanks, a wish): it tells nothing."""
    return bool(_PHATIC.match(sentence))


@dataclass(frozen=True)
class Span:
    """What a passage answers: the text, the sentence it was taken from, and how surely."""

    text: str
    sentence: str
    cover: float  # share of the question's content words the sentence holds (0..1)
    worth: float = 0.0  # how much the span says (_leftover's worth; 0 for a typed span)
    typed: bool = False  # taken by the question's type: a place, a person, a number, a reason


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.findall(text) if s.strip()]


def best_sentence(q: Question, text: str) -> tuple[str, float]:
    """The sentence of text that holds most of the question (the first of equals); a question
    or a sentence that only points at a picture says less than a statement."""
    best, score, kept = text.strip(), -1.0, 0.0
    for s in sentences(text) or [text]:
        c = cover(q, s)
        worth = c * (0.5 if s.rstrip().endswith(("?", "？")) or _POINTING.match(s) or phatic(s) else 1.0)
        if worth > score:
            best, score, kept = s, worth, c
    return best, kept


def span(q: Question, text: str, said_on: str, lang: str) -> Span:
    """The words of a passage that answer the question, by its type."""
    sentence, c = best_sentence(q, text)
    if q.type == "when":
        told = told_time(sentence, said_on, lang, whole=text)  # typed: a time is said
        return Span(told or when_text(sentence, said_on, lang), sentence, c, typed=told is not None)
    if is_cjk(sentence):
        return Span(_clause_zh(q, sentence), sentence, c)
    # A question about a relative ("Where does her brother live?") is answered by the clause
    # that speaks of them ('my brother lives in Delft'), not by the speaker's own news.
    focus = next((k for k in _clauses(sentence) if re.search(rf"\b{re.escape(q.kin)}\b", k, re.I)), sentence) if q.kin else sentence  # fmt: skip
    found, parts = None, sentences(text)
    if HOW_OLD.search(q.text):  # 'How old is Max?': the age said, here or beside it
        found = next((m.group(0) for m in (_AGE.search(t) for t in [focus, *parts]) if m), None)
    elif q.often or q.lasts:  # a frequency or a duration, here or in the sentences beside it
        found = next((w for w in (measure(q, t) for t in [focus, *parts]) if w), None)
    elif q.type == "yes_no" and not q.options:  # 'a beach or the mountains?' is no yes/no
        found = ("No" if _NOT.search(focus) else "Yes") if c >= 0.5 else None
    elif q.type == "where":  # a place after 'in', 'at', 'to' first, in any sentence of it
        cued = [c for c in (cued_place(q, t) for t in [focus, *parts]) if c]
        found = cued[0] if cued else _place(q, focus)
    elif q.type == "who":
        found = next((w for w in (person_named(q, t) for t in [focus, *parts]) if w), None)
    elif q.type == "how_many":
        m = _NUMBER.search(focus)
        vague = _VAGUE.search(focus)
        found = m.group(1) if m else "two" if _BOTH.search(focus) else vague.group(1) if vague else None
        unit = _UNIT.match(focus, m.end()) if m else None
        if found and unit and is_asked(q, unit.group(1)):  # 'How many points…': '40 points'
            found += " " + unit.group(1)
    if found is None and q.favorite and q.type in ("what", "who"):  # 'X is my favourite'
        # One the question already names ('besides coconut milk ice cream') is not the answer.
        found = next((w for w in (favorite(t) for t in [focus, *parts]) if w and not all(is_asked(q, x) for x in words(w))), None)
    if found is None and q.named and q.type == "what":  # a name or a quoted title: 'Paper Moons'
        found = next((w for w in (title_of(q, t) for t in [focus, *parts]) if w), None)
    if found is None and q.describes:  # 'so peaceful' after 'was', here or after ('That's awesome!' greets)
        later = parts[parts.index(sentence) + 1 :] if sentence in parts else []
        found = next((w for w in (state(q, t) for t in [focus, *later]) if w), None)
    if found is None and q.why:
        m = _REASON.search(sentence)
        found = _trim(_CLAUSE.split(sentence[m.end():])[0]) if m else None
    if found is not None:
        return Span(found, sentence, c, typed=True)
    left = _leftover(q, sentence)
    # The sentence only echoes the question ('I wanted to feel closer to my faith'): the answer
    # is in the one beside it ('Just yesterday I joined a church'); or it sets up what the
    # question is about and the next one says it ('I set up a run. It was to help veterans.').
    near = _beside(q, text, sentence)
    if near is not None and (left is None or near[0] > left[0]) and (left is None or left[0] < WEAK or near[3]):
        return Span(near[1], near[2], c, near[0])
    return Span(left[1] if left else _trim(sentence), sentence, c, left[0] if left else 0.0)


# A measure said after a count goes with it ('two weeks', '40 points'); things counted do not.
_UNIT = re.compile(r"\s+((?:second|minute|hour|day|week|month|year|point|mile|kilometer|km|pound|kilo|time)s?)\b", re.I)
HOW_OLD = re.compile(r"^\W*how old\b", re.I)
_AGE = re.compile(r"\b(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|[a-z]+ty(?:[- ][a-z]+)?)"
                  r"[ -](?:years?|months?|weeks?)[ -]old\b", re.I)  # fmt: skip


def measure(q: Question, text: str) -> str | None:
    """The frequency ('three times a week') or the duration ('three years') a text says, as
    the question asks how often or how long; None when it says none."""
    m = (_OFTEN if q.often else _LASTS).search(text) if q.often or q.lasts else None
    return m.group(m.lastindex or 0) if m else None


LOOSE_RUN = 0.7  # what a run beside no word of the question is worth against one placed by them
WEAK = 2.0  # a leftover worth less than this says little: the next sentence may say more
NEAR = 0.7  # what a sentence beside the best one is worth against it


def _beside(q: Question, text: str, sentence: str) -> tuple[float, str, str, bool] | None:
    """The best leftover of the sentences beside `sentence`, the stretch that holds both (the
    evidence), and whether it goes on about it (_goes_on: then it counts FOLLOW times)."""
    parts = sentences(text)
    if sentence not in parts:
        return None
    i = parts.index(sentence)
    best = None
    for j in (i + 1, i - 1):
        if not 0 <= j < len(parts) or parts[j].rstrip().endswith(("?", "？")):
            continue
        left = _leftover(q, parts[j])
        on = j == i + 1 and _goes_on(q, sentence, parts[j])
        worth = left[0] * (FOLLOW if on else NEAR) if left is not None else 0.0
        if left is not None and (best is None or worth > best[0]):
            a, b = (sentence, parts[j]) if j > i else (parts[j], sentence)
            start, end = text.find(a), text.find(b) + len(b)
            held = text[start:end] if 0 <= start < end else sentence
            best = (worth, left[1], held, on)
    return best


FOLLOW = 1.2  # what the sentence after the best one is worth against it when it goes on about it
# A sentence that opens with a word pointing back ('It has adventures, magic…', 'They created
# the props', 'That picture is from…') goes on about what the sentence before it told.
_BACK = re.compile(r"\W*(?:it|it's|its|they|they're|this|that|these|those|there)\b", re.I)


def _goes_on(q: Question, sentence: str, after: str) -> bool:
    """Whether the sentence after the best one goes on about it: it points back at it, or it
    holds a word of the question the best one does not ('I set up a charity run.' then 'It
    was all for a good cause' for "What cause did the run support?")."""
    if _BACK.match(after):
        return True
    have = stems(sentence)
    return any(stem(fold(w)) not in have and is_asked(q, w) and fold(w) not in _FRAME for w in words(after))



# Words that open a new clause inside a sentence: a span never runs across them.
_CLAUSE_WORDS = frozenset(
    ["but", "because", "cause", "'cause", "when", "while", "which", "who", "so", "though", "although",
     "if", "since", "until", "whereas", "plus", "then"]
)  # fmt: skip
# Words that open a clause after 'and' (spans never run across them).
_SUBJECTS = frozenset(["i", "i'm", "i've", "i'd", "we", "we're", "we've", "he", "he's", "she", "she's", "they", "they're", "it", "it's", "you", "you're"])


# A list of short items ('swimming, yoga, and walking'): its commas cut no clause.
_LISTED = re.compile(r"\b(?:[\w'-]+(?: [\w'-]+){0,2}, ){1,5}(?:[\w'-]+(?: [\w'-]+){0,2},? )?(?:and|or) [\w'-]+")


def _clauses(sentence: str) -> list[str]:
    """A sentence cut at punctuation and at the words that open a clause; a list of short
    items stays one clause."""
    out = []
    kept = _LISTED.sub(lambda m: m.group(0).replace(",", "\x1f"), sentence)
    for part in (p.replace("\x1f", ",") for p in _CLAUSE.split(kept)):
        start = 0
        ws = word_matches(part)
        for i, m in enumerate(ws):
            w = fold(m.group(0)).replace("’", "'")
            nxt = fold(ws[i + 1].group(0)).replace("’", "'") if i + 1 < len(ws) else ""
            # 'and' before a subject or a verb in the past starts a clause of its own: 'present
            # at a conference and received feedback', 'her name's Coco and she's adorable'.
            if w in _CLAUSE_WORDS or w == "and" and (nxt in _SUBJECTS or nxt.endswith("ed") and len(nxt) > 4 or nxt in PAST):
                out.append(part[start : m.start()])
                start = m.end()
        out.append(part[start:])
    return [c for c in out if c.strip()]


def _head(q: Question) -> set[str]:
    """The stems of the noun a what/which question asks for ('What kind of flooring', 'What
    color glow', 'Which Disney movie'): a span right before it takes it along ('Marley
    flooring', 'running group')."""
    return {stem(fold(w)) for w in head_words(q.text)}


def _leftover(q: Question, sentence: str) -> tuple[float, str] | None:
    """The run of words the question does not use, within one clause, that says most: 'I took
    my turtles to the beach in Tampa' for 'What did Nate take to the beach in Tampa?' leaves
    'turtles'. A run right after a word of the question (its object) counts double, one
    between two of its words ('shared my book with my writers group') three times; names and
    quoted titles say more than other words; a long run says less. (worth, words) or None."""
    best: tuple[float, str] | None = None
    head = _head(q)
    speakers = {fold(w) for p in q.all_speakers for w in p.split()}
    titles = [(t.group(1) or t.group(2)).strip() for t in QUOTED.finditer(sentence)]
    titles = [t for t in titles if not all(is_asked(q, w) for w in words(t))]
    for clause in _clauses(sentence):
        ws = word_matches(clause)
        run: list[re.Match[str]] = []
        after = False
        for i, m in enumerate([*ws, None]):
            if m is not None and not is_asked(q, m.group(0)):
                if not run:
                    after = i > 0 and is_asked(q, ws[i - 1].group(0))
                run.append(m)
                continue
            content = [r for r in run if fold(r.group(0)).replace("’", "'") not in _FRAME]
            if content:
                end = run[-1].end()
                if m is not None and stem(fold(m.group(0))) in head:
                    end = m.end()  # the noun asked for comes along: 'Marley flooring'
                text = _trim(clause[run[0].start() : end])
                named = sum(1 for r in content if r.group(0)[:1].isupper() and r.start() > 0
                            and fold(r.group(0)) not in speakers)  # fmt: skip
                before = m is not None and (end > run[-1].end() or bool(_COPULA.fullmatch(clause[content[-1].end() : m.start()])))
                place = 3.0 if after and m is not None else 2.0 if after or before else LOOSE_RUN
                worth = (min(len(content), 4) + named) * place - 0.2 * max(0, len(run) - 6)
                title = next((t for t in titles if {fold(r.group(0)) for r in content} & set(words(t))), None)
                if title:  # a quoted title the run is part of is said whole, and alone
                    worth += 2.0
                    text = title
                if text and _ONLY_TIME.fullmatch(text) and not (q.often or q.lasts):
                    continue  # 'next Monday', 'every morning and evening' says when, not what
                if text and (best is None or worth > best[0]):
                    best = (worth, text)
            run = []
    return best


# A run that only says when ('night' of 'last night', 'a few years', 'first time', 'next
# Monday') answers no what-question: it is the answer only of 'how often' or 'how long'.
_ONLY_TIME = re.compile(
    r"(?:(?:last|this|next|every|each|the other|first|second|one|a few|few|a couple of|some)\s+)*"
    r"(?:night|morning|evening|afternoon|day|days|week|weeks|weekend|weekends|month|months|year|years|time|times"
    r"|summer|winter|spring|fall|autumn|monday|tuesday|wednesday|thursday|friday|saturday|sunday|tonight|today"
    r"|yesterday|tomorrow|recently|lately)(?:\s+and\s+(?:night|morning|evening|afternoon))?", re.I,
)  # fmt: skip
# A run that ends at 'is'/'are' before a word of the question is its subject: 'cooking is
# therapy for me' answers "What hobby is a therapy for John?".
_COPULA = re.compile(r"\s*(?:is|are|was|were|'s)\s+(?:(?:a|an|the|my|our|his|her|their|really|so|such)\s+)*", re.I)
# Words a span never starts with: the edge words and the frame words that carry no answer
# ("I'm after Marley flooring" is 'Marley flooring'), never a negation.
_LEAD = _EDGE | (_FRAME - {"not", "never", "no"})


# A time said at a span's end is no part of what it names ('The Godfather last night').
_TIME_TAIL = re.compile(r"(?:\s+(?:last|this|yesterday|tomorrow|every|each|the other|next)\s+(?:night|morning|evening|afternoon|day|week|weekend|month|year|spring|summer|fall|autumn|winter)|\s+(?:tonight|yesterday|today|recently|lately))+\W*$", re.I)


# ... and at its start ('Last night I made this grilled dish' is 'made this grilled dish').
_TIME_HEAD = re.compile(r"^\W*(?:(?:last|this|yesterday|the other)\s+(?:night|morning|evening|afternoon|week|weekend)|tonight|yesterday|today|recently|lately)\b\W*", re.I)


def _trim(text: str) -> str:
    """A span without the little words at its ends ('my turtles to the' → 'turtles')."""
    text = _TIME_HEAD.sub("", _TIME_TAIL.sub("", text))
    ws = word_matches(text)
    while ws and (fold(ws[0].group(0)).replace("’", "'") in _LEAD or ws[0].group(0) in WHEN_WORDS):
        ws.pop(0)
    while ws and fold(ws[-1].group(0)).replace("’", "'") in _EDGE:
        ws.pop()
    if not ws:
        return ""
    return text[ws[0].start() : ws[-1].end()].strip(" ,;:'\"“”")



def _place(q: Question, sentence: str) -> str | None:
    names = capitalised_runs(q, sentence)
    cued = [n for at, n in names if PLACE_CUE.search(sentence[:at])]
    if cued or names:
        return (cued or [n for _, n in names])[0]
    # 'to' before a verb is no place ('to visit', 'to check it out'): only 'to the park'.
    m = _LOWER_PLACE.search(sentence)
    return _trim(m.group(0)) if m else None


_LOWER_PLACE = re.compile(r"\b(?:(?:in|at|near)\s+(?:(?:the|a|an|my|our)\s+)?|to\s+(?:the|a|an|my|our)\s+)[a-z][\w'-]*(?:\s+[a-z][\w'-]*){0,2}")



def _clause_zh(q: Question, sentence: str) -> str:
    """A Chinese sentence's clause that holds most of the question."""
    parts = [p.strip(" 。！？") for p in _CLAUSE.split(sentence) if p.strip(" 。！？")]
    return max(parts, key=lambda p: cover(q, p), default=sentence)
