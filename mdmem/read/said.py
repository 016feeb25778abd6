"""What was said: the passages that bear on a question, and how one is quoted (date, speaker,
the words verbatim, never paraphrased).

`ask` searches here when no fact answers a question, when a fact may say less than the words
did, or when the question asks what was said ("what did I tell you about…", "recite…");
compose.py takes the answer's span from the best of them and quotes them after it.
"""

from __future__ import annotations

from mdmem.lang.families import kin_of
from mdmem.read.days import day_text
from mdmem.read.passages import Passage, PassageIndex
from mdmem.read.question import Question
from mdmem.store.vault import Vault


def quote(p: Passage, lang: str) -> str:
    """'On 8 May 2023 Caroline said: “…”'; a question passage says 'asked', and a reply
    'Melanie answered: “…”' (it follows its question on the same line)."""
    if p.reply:
        return f"{p.speaker}答：“{p.text}”" if lang == "zh" else f"{p.speaker} answered: “{p.text}”"
    day = day_text(p.date, lang)
    if lang == "zh":
        return f"{day}，{p.speaker}{'问' if p.asks else '说'}：“{p.text}”"
    return f"On {day} {p.speaker} {'asked' if p.asks else 'said'}: “{p.text}”"


# A when-, how-long or how-often question is searched among this many passages, and those
# that say a time, a duration or a frequency rank up: BM25 finds 'This is Susie!' before 'I
# adopted her two years ago'. Chosen on the LoCoMo dev
# conversations (pools of 6, 8, 10; bonus 0.2-0.6; a question passage less by 0.2 or 0.4).
WHEN_POOL = 6
TIME_BONUS = 0.4  # of the best passage's score
ASKS_LESS = 0.2  # a passage that only asks says no time that happened


def search(index: PassageIndex, q: Question, *, limit: int = 3) -> list[Passage]:
    """The passages of an up-to-date index that best answer a question: only those said by
    the people it names, when it names speakers; each question passage with its reply."""
    who = q.speakers[0] if len(q.speakers) == 1 else None
    pool = max(limit, WHEN_POOL) if (q.type == "when" or q.lasts or q.often) and q.lang != "zh" else limit
    found = index.search(q.query, speaker=who, limit=pool, near=q.period)
    kin = [k for t in q.query for k in sorted(kin_of(t))]
    if len(found) < limit and kin:  # too few hold its words: those of their families ('fave')
        found = index.search([*q.query, *kin], speaker=who, limit=pool, near=q.period)
    if pool > limit:
        found = timed_first(q, found)[:limit]
    return with_replies(index, found)


def timed_first(q: Question, found: list[Passage]) -> list[Passage]:
    """The passages re-ranked for a when-, how-long or how-often question: a passage whose
    words say a time, a duration or a frequency (its span is typed) gains TIME_BONUS of the
    best one's score, a question passage loses ASKS_LESS; equals keep the order found."""
    if not found:
        return found
    from mdmem.read.spans import span  # the span tables only when such a question is searched

    top = max(p.score for p in found) or 1.0

    def worth(p: Passage) -> float:
        return p.score / top + TIME_BONUS * span(q, p.text, p.date, q.lang).typed - ASKS_LESS * p.asks

    ranked = sorted(enumerate(found), key=lambda ip: (-worth(ip[1]), ip[0]))
    return [p for _, p in ranked]


def with_replies(index: PassageIndex, found: list[Passage]) -> list[Passage]:
    """The passages, each question among them followed by the message that answers it (moved
    up when it was found too): chat answers a question in the next turn."""
    out: list[Passage] = []
    quoted: set[tuple[str, str]] = set()
    for p in found:
        if (p.episode, p.anchor) in quoted:
            continue  # quoted already, as the reply to a question found before it
        out.append(p)
        quoted.add((p.episode, p.anchor))
        reply = index.reply_to(p) if p.asks else None
        if reply is not None and (reply.episode, reply.anchor) not in quoted:
            out.append(reply)
            quoted.add((reply.episode, reply.anchor))
    return out


def recall(vault: Vault, question: str, *, limit: int = 3) -> list[Passage]:
    """The passages that best answer a question (the MCP `search` tool), the index brought up
    to date first: the question read once, as `ask` reads it."""
    index = PassageIndex(vault.root, vault.meta)
    try:
        index.refresh()
        return search(index, Question.of(question).naming([], index.speakers()), limit=limit)
    finally:
        index.close()
