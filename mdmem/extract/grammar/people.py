"""Other people's facts: a clause whose subject is someone the speaker spoke of, re-voiced.

"My brother Tomas lives in Graz and works at a brewery": the subject is Tomas, so the clause is
his. The pack's patterns read the speaker's own words ("I live in …"), so the clause is turned
into Tomas's own ("I live in Graz and work at a brewery") and read again, and what it yields
is Tomas's (entity `tomas`, or `jon-tomas` when Jon spoke of him in a chat of several people).
The subject may be the mention itself ("My brother Tomas lives …", "我哥哥住在…"), a person
named before ("Tomas moved to Linz", "小明搬到了上海"), or he/she/他/她 after one person was
just spoken of. A clause ends where another subject begins, so "My mom thinks I should move"
gives the mother nothing of the speaker's.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache

from mdmem.lang.detect import has_cjk

_IRREGULAR = {"is": "am", "was": "was", "has": "have", "does": "do", "goes": "go", "'s": "'m", "’s": "’m",
              "isn't": "am not", "isn’t": "am not", "doesn't": "don't", "doesn’t": "don’t",
              "hasn't": "haven't", "hasn’t": "haven’t", "wasn't": "wasn't"}  # fmt: skip
# Where a clause of someone else's ends: a new subject, a quotation, a hard stop.
_NEW_SUBJECT = re.compile(
    r"\s(?:that\s+)?(?:I|you|we|they)(?=['’\s])|[;:\"“”()]|\s[-–—]\s|,\s+(?:but|so|because|and\s+I|which|who)\b"
    r"|\b(?:says?|said|thinks?|thought|told|tells|wants?|wanted|asked|asks)\s+(?:me|that|I|you)\b"
)
_VERB = re.compile(r",?(?P<adv>(?:\s+(?:also|still|now|just|recently|finally|already|really|actually|never|always|usually|often))*)\s+(?P<verb>[a-z]+(?:['’](?:s|t))?|['’]s)(?=[\s,.!?]|$)")  # fmt: skip
_NOT_VERB = frozenset(["and", "or", "but", "who", "which", "that", "whose", "with", "from", "to", "of", "in", "at", "for", "on", "is's"])
_HEAD = r"(?:^|(?<=[,;]\s)|(?<=\band\s)|(?<=\bbut\s)|(?<=\bso\s))"  # where a clause's subject stands
_PRONOUN = re.compile(_HEAD + r"(?P<p>[Hh]e|[Ss]he)(?=['’]s\s|\s)")
_ME_AND = re.compile(r"(?<![\w'’])(?:[Mm]e|I)\s+and\s+$")
_AND_ME = re.compile(r"\s+and\s+(?:I|me)\b")
_ZH_NEW_SUBJECT = re.compile(r"[，,](?=\s*(?:我|你|他|她))|[。；;！!？?]")
_POSSESSIVE = re.compile(r"\b(?:[Hh]is|[Hh]er)\b(?=\s+[a-z])")
_SPEAKER = re.compile(r"\b(?:I|me|my|mine|we|us|our|you|your)\b|['’]m\b", re.I)
_CLAUSE_END = re.compile(r"[,;!?.]")
# Someone else in a clause (a name past its first word, a pronoun): whose "her" it is is unclear.
_SOMEONE = re.compile(r"\b(?:[Hh]e|[Ss]he|[Tt]hey|him|them)\b|(?<=\s)[A-Z][a-z]+")


@dataclass(frozen=True)
class Mention:
    """Someone the speaker spoke of in this sentence: who (an owner token: a name or a
    relation noun) and where the words that name them are."""

    owner: str
    start: int
    end: int


@dataclass(frozen=True)
class Voiced:
    """A clause of another person's: whose (`owner`), as they would say it (`said`), and the
    span of `sentence` it re-voices (`start`, `end`)."""

    owner: str
    said: str
    start: int
    end: int


@lru_cache(maxsize=64)
def _names_rx(names: tuple[str, ...]) -> re.Pattern[str]:
    """One expression for the known names at the head of a clause (built once per set)."""
    return re.compile(_HEAD + "(?:" + "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True)) + r")\b", re.I)


def third_to_first(verb: str) -> str:
    """'lives' → 'live', 'studies' → 'study', 'is' → 'am', 'moved' → 'moved'."""
    low = verb.lower()
    if low in _IRREGULAR:
        return _IRREGULAR[low]
    if re.search(r"[^aeiou]ies$", low):
        return verb[:-3] + "y"
    if re.search(r"(?:ss|sh|ch|x|z|o)es$", low):
        return verb[:-2]
    if low.endswith("s") and not low.endswith(("ss", "us", "is")) and len(low) > 3:
        return verb[:-1]
    return verb


def voices(sentence: str, mentions: list[Mention], known: Mapping[str, str], last: str | None) -> Iterator[Voiced]:  # fmt: skip
    """(owner, the clause as that person would say it, where its words are in `sentence`) for
    each clause of another person's: their `mentions` in this sentence, a name in `known`
    (casefolded name → owner) at the head of a clause, or he/she when `last` (the person just
    spoken of) is who it must be. What those words say is theirs, never the speaker's."""
    if has_cjk(sentence):
        yield from _zh(sentence, mentions, known, last)
        return
    heads = [(m.owner, m.start, m.end) for m in mentions]
    if known:
        for m in _names_rx(tuple(sorted(known))).finditer(sentence):
            owner = known.get(m.group().casefold())
            if owner is not None and sentence[m.start()].isupper():
                heads.append((owner, m.start(), m.end()))
    if last is not None:
        heads += [(last, m.start(), m.end()) for m in _PRONOUN.finditer(sentence)]
    if last is not None and _POSSESSIVE.search(sentence):
        yield from _theirs(sentence, last)
    for owner, start, end in sorted(heads, key=lambda h: h[1]):
        if _ME_AND.search(sentence, max(0, start - 8), start) or _AND_ME.match(sentence, end):
            continue  # "Me and my husband went …": the speaker's own clause, the husband is with them
        v = _VERB.match(sentence, end)
        if v is None or v["verb"].lower() in _NOT_VERB - {"is", "'s"} or sentence[end : end + 2] in ("'s", "’s") and v["verb"] not in ("'s", "’s"):  # fmt: skip
            continue
        stop = _NEW_SUBJECT.search(sentence, v.end())
        until = stop.start() if stop else len(sentence)
        rest = sentence[v.end() : until]
        rest = re.sub(r"\band\s+([a-z]+s)\b", lambda m: "and " + third_to_first(m[1]), rest)  # "… and works at …"
        text = f"I{v['adv']} {third_to_first(v['verb'])}{rest}".replace(" 'm", "'m").replace(" ’m", "’m")
        yield Voiced(owner, _POSSESSIVE.sub(lambda p: "My" if p.group()[0].isupper() else "my", text), end, until)


def _theirs(sentence: str, last: str) -> Iterator[Voiced]:
    """ "reading was one of her hobbies": a clause of no one of the speaker's that speaks of the
    person just spoken of as his/her is theirs ("… one of my hobbies", as they would say it)."""
    start = 0
    for stop in [*(m.start() for m in _CLAUSE_END.finditer(sentence)), len(sentence)]:
        begin, start = start, stop + 1
        clause = sentence[begin:stop]
        if _POSSESSIVE.search(clause) and not _SPEAKER.search(clause) and not _SOMEONE.search(clause.strip()):
            said = _POSSESSIVE.sub(lambda p: "My" if p.group()[0].isupper() else "my", clause.strip())
            yield Voiced(last, said, begin, stop)


def _zh(sentence: str, mentions: list[Mention], known: Mapping[str, str], last: str | None) -> Iterator[Voiced]:  # fmt: skip
    heads = [(m.owner, m.start, m.end) for m in mentions]
    for name, owner in known.items():
        heads += [(owner, m.start(), m.end()) for m in re.finditer(rf"(?:^|(?<=[，,；;。]))(?:{re.escape(name)})(?=[\u4e00-\u9fff])", sentence)]
    if last is not None:
        heads += [(last, m.start(), m.end()) for m in re.finditer(r"(?:^|(?<=[，,；;。]))[他她](?![们的])", sentence)]
    for owner, _start, end in sorted(heads, key=lambda h: h[1]):
        if sentence.startswith(("的", "和", "跟", "说", "觉得", "让", "叫", "是我"), end):
            continue  # 我哥哥的朋友, 我妈说…, 我妈叫小红: not a clause of theirs
        stop = _ZH_NEW_SUBJECT.search(sentence, end)
        until = stop.start() if stop else len(sentence)
        yield Voiced(owner, "我" + sentence[end:until], end, until)
