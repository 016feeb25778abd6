"""Events told in a relative clause: "Here's a pic of a cake I made recently", "check out these
kids I met at the shelter", "a road trip we took last year".

The happening is the noun the clause hangs on, done by the speaker with the pack's event verb:
"made a cake", "met kids at the shelter", "took a road trip". The subject must be said ("I",
"we"): "the cake she made" is hers. The noun is the one nearest the clause (a picture of it is
not the happening: "a pic of a cake I made" is the cake), never a pronoun, a time or a thing too
vague to keep ("the things we did", "the time I spent with her", "what I learned"). Where and
when come from the words after the verb ("… I tried in Boston", "… we took last year").
Extracting it is the grammar of extract/happenings.py's clauses, run only where none of them read
an event, and it stops where the sentence stops telling the speaker's life (`told_from`).
"""

from __future__ import annotations

import re

from mdmem.extract.candidates import Found, words
from mdmem.extract.clauses import Clause
from mdmem.extract.happening_events import ADV, ANAPHORA, candidate, extras
from mdmem.extract.happening_phrase import meaningful, phrase, short, tidy
from mdmem.extract.timex import PAST, Time
from mdmem.lang.tokens import stem
from mdmem.model.grammar import Grammar, per_grammar
from mdmem.model.life import EVENT, Happening, specific
from mdmem.model.vocab import alternation

_DET = r"(?:a|an|the|this|that|these|those|some)"  # not "my": "my new camera I bought" is a thing owned (grammar/things.py)
# Words that never stand inside the noun: a joining word, a preposition, a question word, a
# pronoun, a verb of being ("My mom and I made dinner", "a look at how I performed", "what my
# teammates gave me when we met" hold no noun a clause hangs on).
_NOT_NOUN = (r"(?:a|an|the|this|that|these|those|some|my|our|of|and|or|but|at|in|on|to|for|with|from|by|about|as|if"
             r"|so|than|how|what|when|where|why|who|which|is|was|are|were|be|been|me|you|him|her|us|them|it|he|she"
             r"|they|i|we)")
# Where the words after the verb stop being where or when it happened.
_TAIL_STOP = words("is was were are has have had been be looks looked turned and but it so which that")
# Verbs whose object alone names no happening ("the job I had", "the things I did", "the pic I took").
_LIGHT = frozenset({"had", "did", "got", "took", "spent", "gave", "lost", "sent", "raised", "helped"})
# Nouns too vague to be what happened, or that are the picture of it.
_VAGUE = words("""time times way ways thing things stuff memories memory moment moments reason reasons one ones
    lot lots bit part kind sort type day days night year week pic pics photo photos picture pictures shot shots snap
    snaps selfie selfies video videos people person guy guys everyone someone advice support work feeling
    feelings experience experiences idea ideas progress difference impact decision decisions choice choices mistake
    mistakes effort efforts friends connection connections changes change camaraderie bond bonds""")
_DEMONSTRATIVE = words("this that these those")
_TAIL = words("at in on to from for with during near")
_ARTICLE = words("the a an my our this that these those")


@per_grammar
def _rx(g: Grammar) -> re.Pattern[str] | None:
    verbs = [v.lower() for v in g.words("event_verbs", "en")]
    if not verbs:
        return None
    return re.compile(
        rf"(?<![\w'’-])(?P<det>{_DET})\s+(?P<np>(?:(?!{_NOT_NOUN}\b)[\w'’-]+\s+){{0,3}}?(?!{_NOT_NOUN}\b)[\w'’-]+)"
        rf"\s+(?:that\s+|which\s+)?(?P<subj>I|[Ww]e)\s+{ADV}(?P<verb>{alternation(verbs)})(?![\w'’-])",
        re.I,
    )


@per_grammar
def _event_nouns(g: Grammar) -> frozenset[str]:
    """The stems of the pack's event nouns, made once per grammar, not at every sentence."""
    return frozenset(stem(n.lower()) for n in g.words("event_nouns", "en"))


def relative_events(sentence: str, grammar: Grammar, times: list[Time], stop: int, doubt: int) -> list[Found]:
    """The events told in the sentence's relative clauses before `stop` (where it stops telling
    the speaker's life) and `doubt` (a hedge)."""
    rx = _rx(grammar)
    if rx is None:
        return []
    nouns = _event_nouns(grammar)
    out: list[Found] = []
    for m in rx.finditer(sentence, 0, min(stop, doubt, len(sentence))):
        if not m["subj"].strip() or m["subj"] not in ("I", "we", "We"):
            continue  # the regex ignores case: "i" and "WE" are no speaker said in chat's way
        np = m["np"].split()
        if np[-1].lower() in _VAGUE or any(t.lower() in ANAPHORA for t in np):
            continue
        if m["verb"].split()[0].lower() in _LIGHT and stem(np[-1].lower()) not in nouns:
            continue  # "the job I had", "the pic I took"; not "a road trip we took"
        det = "" if m["det"].lower() in _DEMONSTRATIVE else f"{m['det']} "
        after = sentence[m.end() :].split()
        if len(after) > 1 and after[0].lower() == "to" and after[1].lower().strip(".,!?") not in _ARTICLE:
            continue  # "as a child I learned to play": the verb takes its own doing, no noun before it
        tail, at = phrase(sentence, m.end(), len(sentence), times)
        tail_words = tail.split()[:5]
        if not tail_words or tail_words[0].lower() not in _TAIL:
            tail_words = []
        for i, t in enumerate(tail_words):
            if t.lower() in _TAIL_STOP:
                tail_words = tail_words[:i]
                break
        what = tidy(short(f"{m['verb'].lower()} {det}{' '.join(np)} {' '.join(tail_words)}".split()))
        if not meaningful(what) or not specific(" ".join(np)):
            continue
        when = next((t.words for t in times if m.end() <= t.start < m.end() + 60 and t.tense == PAST), "")
        c = Clause(m.start(), m.end(), m.start("subj"), True)
        where, people = extras(sentence, c, what)
        out.append(candidate(EVENT, m.start(), m.start("det"), m.end(), Happening(what, when, where, people)))
    return out
