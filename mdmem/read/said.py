"""Answers from what was said: the best passages quoted with date and speaker, never paraphrased.

`ask` turns here when no fact answers a question, or when the question asks what was said
("what did I tell you about…", "recite…"). A "when" question gets the relative dates inside a
quoted passage resolved against its session's date ("yesterday" said on 2023-05-08 is
7 May 2023).
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import date, timedelta

from mdmem.lang.detect import detect_lang
from mdmem.lang.questions import SAID, question_type
from mdmem.read.passages import Passage, PassageIndex
from mdmem.read.question import Question, named_period
from mdmem.store.vault import Vault

__all__ = ["named_period"]

_WEEK = re.compile(r"\bweek\b|周|星期", re.I)
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December")  # fmt: skip


def is_when_question(question: str) -> bool:
    return question_type(question, detect_lang(question)) == "when"


def asks_what_was_said(question: str) -> bool:
    """True for questions about the words themselves, which a fact cannot answer."""
    return bool(SAID.search(question))


def day_text(day: str, lang: str) -> str:
    """'7 May 2023' / '2023年5月7日'."""
    d = date.fromisoformat(day[:10])
    return (
        f"{d.year}年{d.month}月{d.day}日"
        if lang == "zh"
        else f"{d.day} {_MONTHS[d.month - 1]} {d.year}"
    )


def resolved(text: str, session_date: str, lang: str) -> str | None:
    """The time a passage's relative words name, as a phrase; None when it names none."""
    # Imported here: its patterns take ~25 ms to compile, which a plain `ask` should not pay.
    from mdmem.extract.dates import find_when

    found = find_when(text, session_date)
    if found is None or found.end is not None or found.open_start:
        return None
    start = date.fromisoformat(found.start)
    span = (date.fromisoformat(found.through) - start).days if found.through else 1
    if span >= 365 and start.month == 1 and start.day == 1:
        return f"{start.year}年" if lang == "zh" else str(start.year)
    if span >= 28 and start.day == 1:
        return (
            f"{start.year}年{start.month}月"
            if lang == "zh"
            else f"{_MONTHS[start.month - 1]} {start.year}"
        )
    if _WEEK.search(text) and span == 1 and start.weekday() == 0:
        end = start + timedelta(days=6)
        if lang == "zh":
            return f"{day_text(start.isoformat(), lang)}那一周"
        return (
            f"the week of {day_text(start.isoformat(), lang)} to {day_text(end.isoformat(), lang)}"
        )
    return day_text(start.isoformat(), lang)


def quote(p: Passage, lang: str, *, when: bool = False) -> str:
    """'On 8 May 2023 Caroline said: “…”' (with the resolved date for a when-question); a
    question passage says 'asked', and its reply follows as 'Melanie answered: “…”'."""
    day = day_text(p.date, lang)
    if p.reply:
        text = f"{p.speaker}答：“{p.text}”" if lang == "zh" else f"{p.speaker} answered: “{p.text}”"
    elif lang == "zh":
        text = f"{day}，{p.speaker}{'问' if p.asks else '说'}：“{p.text}”"
    else:
        text = f"On {day} {p.speaker} {'asked' if p.asks else 'said'}: “{p.text}”"
    if when and (at := resolved(p.text, p.date, lang)) is not None and at != day:
        text += f"（即{at}）" if lang == "zh" else f" (that is {at})"
    return text


def passage_answer(question: str, passages: list[Passage], lang: str) -> str:
    """The passages quoted, best first, one per line; a reply on its question's line."""
    when = is_when_question(question)
    lines: list[str] = []
    before: Passage | None = None
    for p in passages:
        if p.reply and before is not None and before.asks and before.episode == p.episode:
            lines[-1] += ("" if lang == "zh" else " ") + quote(p, lang, when=when)
        else:  # a reply whose question is not quoted (left out) is said on its own
            lines.append(quote(replace(p, reply=False), lang, when=when))
        before = p
    return "\n".join(lines)


def recall(vault: Vault, question: str | Question, *, limit: int = 3) -> list[Passage]:
    """The passages that best answer a question, the index brought up to date first."""
    index = PassageIndex(vault.root, vault.meta)
    try:
        index.refresh()
        q = question if isinstance(question, Question) else Question.of(question)
        return search(index, q.naming([], index.speakers()), limit=limit)
    finally:
        index.close()


ONLY = True


def search(index: PassageIndex, q: Question, *, limit: int = 3) -> list[Passage]:
    """The passages of an up-to-date index that best answer a question: only those said by
    the people it names, when it names speakers; each question passage with its reply."""
    who = q.speakers[0] if len(q.speakers) == 1 else None
    only = (q.speakers or None) if ONLY else None
    found = index.search(q.query, speaker=who, limit=limit, near=q.period, only=only)
    return with_replies(index, found)


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


def passages_markdown(passages: list[Passage], lang: str) -> str:
    """A '## What was said' section for a prompt: each passage quoted with date and speaker."""
    if not passages:
        return ""
    title = "## 说过的话" if lang == "zh" else "## What was said"
    lines = passage_answer("", passages, lang).split("\n")
    return title + "\n\n" + "\n".join(f"- {line}" for line in lines) + "\n"
