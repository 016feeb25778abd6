"""Reported speech: where a sentence begins to give someone else's words, not the speaker's.

"She tells me I moved to Paris", "my boss says I should move to Berlin", "I heard that they
closed the bakery": what follows the reporting verb is what another person said (or a rumour),
so it is never the speaker's fact. The speaker's own words are not reported speech: "as I said,
I live in Berlin", "I'm so excited to tell you I started a yoga class", "I told you I got the
job". Chinese the same: "我妈说我搬到了北京", "她告诉我…", "听说…". A verb of hearing reports only when words follow it ("heard that …", "heard about …",
"heard from my sister …", "heard he …"); "I heard some great stories from a veteran" and "I
heard back from them" tell what the speaker did.

Both readers use it: the event and plan grammar (extract/clauses.py `told_from`, the verb's
clause and those after it tell nothing) and the mood of a pattern's value (extract/modality.py:
a value after someone else's reporting verb, or before a last clause that only names who said
it, is `reported`).
"""

from __future__ import annotations

import re

# The verbs that report words, and "heard" before the words it reports. Thinking is the
# speaker's own hedge as much as another's ("I thought it'd help"): `thoughts` adds it.
_SAYING = (
    r"\b(?:says|said|tells?|told|suggest(?:s|ed)?|claims?|claimed|insists?|insisted|swears?|swore"
    r"|hears|heard(?=\s+(?:that|about|from|of|there|it|he|she|they|you|we|I|(?-i:[A-Z][a-z]+))\b)"
    r"|keeps\s+saying)\b"
    # Chinese: someone's 说 about the speaker (not 我说, 会说日语), 告诉我, 听说, 据说: "我妈说我搬到了北京"
    r"|(?<![我们])说(?=我)|告诉我|跟我讲|听说|据说"
)
_SAYING_RX = re.compile(_SAYING, re.I)
_REPORT_RX = re.compile(_SAYING + r"|\b(?:thinks?|thought)\b", re.I)
# The speaker saying it: "I said", "we've told you", "as I say", "(excited) to tell you", "let me tell you".
_OWN = re.compile(
    r"(?:\b(?:I|we)(?:['’](?:ve|d|ll)|\s+(?:have|had|will|would|just|already|also|always|even|once|never|really|"
    r"actually|literally|honestly|can|can['’]t|could|couldn['’]t|must))*|\bto|\bgotta|\blet\s+me)\s+$",
    re.I,
)
# "what you said", "what I told you": words named, not reported ("I tried what you said").
_NAMED = re.compile(r"\bwhat\s+(?:you|I|we|he|she|they)\s+$", re.I)
# A last clause that only says who said the words before it: "…, my sister said", "or so she says".
_TAG = re.compile(
    r"[,;:—–-]\s*(?:or\s+so\s+)?(?:[\w'’]+\s+){0,3}?(?:says|said|tells?\s+me|told\s+(?:me|us)|thinks|thought|reckons)"
    r"(?:\s+so)?\s*[.!…]*\s*$",
    re.I,
)


# What a doctor says one has is news, not someone's opinion: "医生说我有高血压", "my doctor said I have …"
# (what they say one should do is advice: modality's _REPORTED reads it).
_CARE = re.compile(r"(?:doctor|doc|nurse|physician|dentist|GP|specialist)\s+(?:just\s+)?$|(?:医生|大夫|护士|医师)$", re.I)


def first_report(sentence: str, start: int = 0, end: int | None = None, *, thoughts: bool = False,
                 news: bool = False) -> int:  # fmt: skip
    """Where the first verb in sentence[start:end] that reports someone else's words stands
    (thoughts too, when `thoughts`; a carer's words are the speaker's news, when `news`), or -1."""
    rx = _REPORT_RX if thoughts else _SAYING_RX
    for m in rx.finditer(sentence, start, len(sentence) if end is None else end):
        before = sentence[max(0, m.start() - 40) : m.start()]
        if news and _CARE.search(before):
            continue
        if m.group().lower().startswith(("thinks", "thought")):
            return m.start()  # "my mom thinks …", "I thought it'd help": a thought, the speaker's or not
        if m.group().lower().startswith("hear"):
            return m.start()  # "I heard that …": someone's words, whoever heard them
        if _OWN.search(before) or _NAMED.search(before):
            continue  # the speaker's own words, or words named
        return m.start()
    return -1


def tagged(sentence: str) -> bool:
    """Whether the sentence ends in a clause that only names who said the words before it."""
    return _TAG.search(sentence) is not None


# Where a report's reach ends: a clause the speaker says again ("my mom said I should, so I
# moved to Paris"), or in Chinese the clause's end ("医生说我蛋白质不够，改成正常饮食了").
_OWN_AGAIN = re.compile(r"(?:[,;—–]|\b(?:and|but|so|then))\s+(?:so\s+|then\s+)?(?:I|we)\b|[，；。]", re.I)


def reported_at(sentence: str, pos: int) -> bool:
    """Whether the words at `pos` are someone else's: after their reporting verb and before the
    speaker speaks again ("my sister told me I …"), or before a last clause naming who said them."""
    at = first_report(sentence, 0, pos, news=True)
    while at >= 0:
        if _OWN_AGAIN.search(sentence, at, pos) is None:
            return True
        at = first_report(sentence, at + 1, pos, news=True)
    return tagged(sentence)
