"""The answer for an event or a plan (docs/states.md#plans): what happened and when, or what is
planned, for when, and whether it came true."""

from __future__ import annotations

import re

from mdmem.lang.phrases import phrase
from mdmem.lazy_regex import lazy
from mdmem.model import life
from mdmem.model.factfile import Fact
from mdmem.model.life import family_slot

__all__ = ["asks_for", "family_slot", "life_sentence", "time_text"]

# A question about what happened or is planned: events and plans answer it first.
_HAPPENED = lazy(
    r"\b(?:when|what\s+(?:did|have|has|was)|where\s+did|did\s+\w+|how\s+was|plans?|planned|planning|going\s+to"
    r"|happen\w*|trip|event)\b|什么时候|哪天|几号|做了什么|干了什么|去了|计划|打算|发生",
    re.I,
)


def asks_for(fact: Fact, question: str) -> bool:
    """Whether a question may be about this fact by its words: any plain fact, and an event or
    a plan when the question asks what happened or is planned ("when did …", "my plans")."""
    return not life.family(fact.attribute) or _HAPPENED().search(question) is not None


_TIME_KEYS = {"day": "time_day", "month": "time_month", "year": "time_year"}


def time_text(notation: str | None, lang: str) -> str:
    """A time in an answer, at the precision it was said: 'on 2023-05-07', 'in 2023-05', …"""
    if not notation or life.span(notation) is None:
        return "?"
    kind = life.precision(notation)
    if kind == "span":
        start, end = notation.split("/", 1)
        return phrase("time_span", lang, start=start, end=end)
    return phrase(_TIME_KEYS[kind], lang, date=notation)


def life_sentence(fact: Fact, lang: str, base: dict[str, str]) -> str | None:
    """The sentence for an event or a plan in its state (base: `whose`, `label` …), or None when
    the fact is neither (or is in a state the plain sentences say: deleted, doubted upstream)."""
    kind = fact.kind or life.family(fact.attribute)
    if kind not in life.KINDS or fact.status == "deleted":
        return None
    if fact.status == "expired":  # called off, or it did not happen: told from its history
        last = fact.history[-1] if fact.history else {}
        if last.get("value") is None:
            return None
        key = "plan_not_done" if last.get("reason") == "rejected by the person" else "plan_called_off"
        return phrase(key, lang, value=last["value"], date=str(last.get("valid_to") or "?")[:10], **base)
    value = ", ".join(fact.value) if isinstance(fact.value, list) else str(fact.value)
    said = (fact.valid_from or "?")[:10]
    if kind == life.EVENT:
        words = phrase("event_said", lang, words=fact.when_said) if fact.when_said else ""
        return phrase("event", lang, value=value, when=time_text(fact.when or fact.valid_from, lang), said=words, **base)
    why = fact.uncertain_because or {}
    if fact.status == "uncertain" and why.get("change") == "overdue":
        text = phrase("plan_overdue", lang, value=value, due=time_text(fact.due, lang), **base)
        q = why.get("question")
        ask = (q.get(lang) or q.get("en")) if isinstance(q, dict) else None
        return text + phrase("gap", lang) + ask if ask else text
    if fact.status == "active" and fact.fulfilled_by:
        return phrase("plan_done", lang, value=value, date=said, **base)
    if fact.status == "tentative":
        if fact.due:
            return phrase("plan", lang, value=value, due=time_text(fact.due, lang), date=said, **base)
        return phrase("plan_undated", lang, value=value, date=said, **base)
    return None
