"""Clauses and their subjects: the stretches of a sentence in which the speaker speaks of
themself ("Most evenings I squeeze in …", "…, but I stopped last year", chat's subject-less
"Just started doing aerial yoga"), and whether a clause says what they usually do.

A clause runs from its subject to the next subject or a hard boundary, not to the next comma,
so that a list ("some swimming, sketching or a bit of cello") stays in the clause that says it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# The speaker as subject: "I", "we", "me and my sister", "my wife and I".
_SUBJECT = re.compile(
    r"(?<![\w'’-])(?P<s>I|[Ww]e|[Mm]e and (?:my )?[a-z]+|(?:[Mm]y [a-z]+|[A-Z][a-z]+) and I)(?=['’](?:m|ve|d|ll|re)\b|\s)"
)
# Chat drops the subject of a first-person clause at the start: "Been busy volunteering",
# "Just started doing aerial yoga", "Loving my new kickboxing class".
_DROPPED = re.compile(
    r"(?:^|(?<=[.!?,;]\s))(?:(?:oh|well|yeah|yes|haha|lol|wow|also|and|so|but|plus|honestly)[,!]?\s+)*"
    r"(?=(?:[Bb]een|[Jj]ust|[Rr]ecently|[Ff]inally|[Ss]till|[Ss]tarted|[Tt]ook up|[Pp]icked up|[Gg]ot into|"
    r"[Ll]oving|[Ee]njoying|[Dd]oing|[Pp]laying|[Pp]racti[cs]ing|[Tt]rying out)\b)"
)
# Where a clause ends whatever follows: ";", a dash, a bracket, a quotation, "but"/"because".
_HARD = re.compile(r";|\s[-–—]\s|[—–()\"“”]|,?\s+(?:but|because|cause|'cause|since|although|though|whereas|which|who|if|unless|when)\b")
_STOP = re.compile(r"[.!?;]")
HABITUAL = re.compile(
    r"(?i)\b(?:usually|often|always|regularly|normally|generally|typically|sometimes|frequently|daily|weekly|"
    r"whenever|a lot|every\s+(?:single\s+)?(?:day|morning|evening|night|week|weekend|month|summer|winter|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|other\s+day)|"
    r"most\s+(?:days|evenings|mornings|nights|weekends|weeks|afternoons)|each\s+(?:day|week|morning|evening)|"
    r"on\s+(?:weekends|the\s+weekends|mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays)|"
    r"in\s+my\s+(?:free|spare|down)\s+time|after\s+work|before\s+work|at\s+night|these\s+days|twice\s+a|once\s+a|"
    r"\w+\s+times\s+a\s+(?:week|month|day))\b"
)
_ZH_SUBJECT = re.compile(r"^(?:最近|平时|现在|目前|每天|周末|晚上|早上|一般|其实|还有|而且|另外|然后|我也|嗯|哈哈)*(?P<s>我们家|我们|我)")
_ZH_CLAUSE = re.compile(r"[，,。；;！!？?]")
ZH_HABITUAL = re.compile(r"每天|每周|每个?(?:周末|星期|礼拜|月|早上|晚上)|平时|经常|常常|一般|通常|总是|有空|业余|周末|晚上|早上|下班后")


@dataclass(frozen=True)
class Clause:
    """A first-person clause of a sentence: sentence[start:end], its predicate from `verb`."""

    start: int
    verb: int
    end: int
    subject: str  # "I", "we", "" (dropped), or the words "my wife and I" …
    habitual: bool


def speaker_clauses(sentence: str) -> list[Clause]:
    """The clauses of an English sentence whose subject is the speaker (I, we, or dropped)."""
    starts = [(m.start(), m.end(), m["s"]) for m in _SUBJECT.finditer(sentence)]
    starts += [(m.end(), m.end(), "") for m in _DROPPED.finditer(sentence)]
    if not starts:
        return []
    starts.sort()
    # Each expression runs once over the sentence, not once per clause.
    hard = [m.start() for m in _HARD.finditer(sentence)]
    habits = [m.start() for m in HABITUAL.finditer(sentence)]
    stops = [m.start() for m in _STOP.finditer(sentence)]
    out = []
    for i, (a, verb, subject) in enumerate(starts):
        nxt = starts[i + 1][0] if i + 1 < len(starts) else len(sentence)
        end = next((h for h in hard if verb <= h < nxt), nxt)
        if end <= verb:
            continue
        lead = max((x + 1 for x in stops if x < a), default=0)  # "Most evenings I …"
        habitual = any(lead <= h < end for h in habits)
        out.append(Clause(a, verb, end, subject, habitual))
    return out


def zh_clauses(sentence: str) -> list[Clause]:
    """A Chinese sentence's clauses whose subject is the speaker: 我/我们, or none said."""
    out, start = [], 0
    for m in [*_ZH_CLAUSE.finditer(sentence), None]:
        end = m.start() if m else len(sentence)
        text = sentence[start:end]
        s = _ZH_SUBJECT.match(text)
        if s is not None or not re.match(r"[你他她它这那]", text):
            verb = start + (s.end() if s else 0)
            habitual = bool(ZH_HABITUAL.search(text))
            out.append(Clause(start, verb, end, s["s"] if s else "", habitual))
        start = m.end() if m else end
    return [c for c in out if c.end > c.verb]
