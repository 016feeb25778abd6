"""The answer first: one line that answers, then at most a quote or two of what was said.

The line comes, in order, from a fact (its state sentence, as ask.py words it), an event or a
plan (its date, place or company, by the question's type), or a span taken from the best
passage (spans.py); when nothing answers, one line says so. A question that names a person is
answered from that person's facts and words only. The evidence after the line is the passage
the span was taken from, trimmed to the sentence that holds it, then the next best passages
(`evidence` of them in all), each with its date and speaker.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from mdmem.lang.phrases import phrase
from mdmem.lang.tokens import fold, tokens
from mdmem.lazy_regex import lazy
from mdmem.model.factfile import Fact
from mdmem.read.answer import ended_on
from mdmem.read.cover import cover
from mdmem.read.days import notation_text
from mdmem.read.passages import Passage
from mdmem.read.question import Question
from mdmem.read.said import quote

if TYPE_CHECKING:  # spans.py is imported where a span is taken: facts that answer need none
    from mdmem.read.spans import Span

# Words of a clause rather than of a thing: a subject, a verb's ending, a negation.
_SAYS_A_CLAUSE = lazy(r"\b(?:i|i'm|i've|we|we're|you|you're|he|she|they|it|it's|that's|is|are|was|were|don't|can't|n't)\b|\w+n't\b", re.I)
EVIDENCE = 3  # quotes after the answer line unless more or fewer are asked for (docs/reading.md)
LIST_ITEMS = 6  # items gathered for a question that asks for several things
MAX_LINE = 160  # a gathered list stops before the line grows past this
QUOTE_CHARS = 200  # a passage longer than this is quoted by the sentence that holds the answer
MIN_COVER = 0.1  # a passage holding less of the question answers nothing of it
SAYS_ENOUGH = 10.0  # a span worth this much (spans._leftover) ranks its passage highest


@dataclass
class Composed:
    """The answer line, the evidence quoted after it, and what the line rests on."""

    first: str
    quotes: list[str] = field(default_factory=list)
    evidence: list[dict[str, Any]] = field(default_factory=list)
    source: str = "none"  # fact | event | plan | passage | none
    basis: list[dict[str, Any]] = field(default_factory=list)  # whose facts or words
    confidence: float = 0.0
    typed: bool = False  # a passage's span taken by the question's type (spans.Span.typed)


def nothing_about(names: list[str], lang: str) -> Composed:
    """'I know nothing about Zoe.': the question names someone memory has never heard of."""
    who = phrase("list_sep", lang).join(names)
    return Composed(phrase("nothing_about", lang, who=who))


def from_facts(text: str, facts: list[Fact], q: Question, lang: str, asked: bool = False) -> Composed:
    """The facts' sentence as the line; an event or plan answers its when, where or who; the
    items of the one list fact whose slot a what-question names (`asked`: "What are the names
    of his children?") are the line, comma-separated, the fact's sentence after them."""
    life = [f for f in facts if f.kind in ("event", "plan")]
    first = text
    source = "fact"
    quotes: list[str] = []
    if life and q.type in ("when", "where", "who"):
        said = _life_answer(life[0], q.type, lang)
        if said:  # the date, place or company; the event's sentence comes with the evidence
            first, source, quotes = said, str(life[0].kind), [text]
    ended = next((ended_on(f) for f in facts if f.status == "expired"), None)
    if q.ends and ended and source == "fact":  # "When did he lose his job?": the day it stopped
        first, quotes = notation_text(str(ended), lang), [text]
    listed = [f for f in facts if f.status == "active" and isinstance(f.value, list) and f.value]
    counts = [f for f in facts if f.status == "active" and isinstance(f.value, str) and f.value.isdigit()]
    if q.often:  # "How often does he take his kids out?" is no count of his children
        pass
    elif q.type == "how_many" and len(listed) == 1 and "\n" not in text:
        items = [str(v) for v in listed[0].value]  # type: ignore[union-attr]
        first, quotes = counted(items, lang), [text]  # the count, then the fact that holds it
    elif q.type == "how_many" and len(counts) == 1 and not listed:
        first, quotes = number(int(str(counts[0].value)), lang), [text]  # "I have two kids": 'Two'
    elif asked and q.type == "what" and not (q.why or q.how or q.options) and len(facts) == 1 and listed and "\n" not in text:
        said = phrase("list_sep", lang).join(str(v) for v in listed[0].value)  # type: ignore[union-attr]
        if all(f.get("polarity") != "dislike" for f in listed[0].items.values()):  # 'X (dislike)' is said whole
            first, quotes = said[:1].upper() + said[1:] if lang != "zh" else said, [text]
    sure = {"active": 0.9, "tentative": 0.6, "deleted": 0.9}
    return Composed(
        first, quotes, source=source,
        basis=[{"entity": f.entity, "attribute": f.attribute} for f in facts],
        confidence=min((sure.get(f.status, 0.5) for f in facts), default=0.0),
    )  # fmt: skip


_COUNTS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"]


def number(n: int, lang: str) -> str:
    """'Two' / '2个': a count said on its own."""
    if lang == "zh":
        return f"{n}个"
    return _COUNTS[n].capitalize() if n < len(_COUNTS) else str(n)


def counted(items: list[str], lang: str) -> str:
    """'Three: Ash, Birch and Cedar.' / '3个：豆包、花卷、年糕。'."""
    if lang == "zh":
        return f"{len(items)}个：{_join(items, lang)}。"
    return f"{number(len(items), lang)}: {_join(items, lang)}."


def _life_answer(fact: Fact, kind: str, lang: str) -> str | None:
    """An event's or plan's own date, place or company (fields of events-interface)."""
    key = {"when": "when" if fact.kind == "event" else "due", "where": "where", "who": "with"}[kind]
    raw = getattr(fact, key, None) or fact.extra.get(key)
    if not raw:
        return None
    if key in ("when", "due"):
        return notation_text(str(raw), lang)
    if isinstance(raw, list):
        return phrase("list_sep", lang).join(str(x) for x in raw)
    return str(raw)


def said_alike(facts: list[Fact], spoken: Composed) -> bool:
    """Whether the best passage holds the time words of the event or plan that answers."""
    said = next((f.when_said for f in facts if f.kind in ("event", "plan")), None)
    best = spoken.basis[0] if spoken.basis else {}
    quote = next((e.get("quote", "") for e in spoken.evidence
                  if (e.get("episode"), e.get("anchor")) == (best.get("episode"), best.get("anchor"))), "")  # fmt: skip
    return bool(said and fold(said) in fold(str(quote)))


def own(q: Question, found: list[Passage]) -> list[Passage]:
    """The passages the answer may be taken from: those said by the people the question
    names (a reply by someone else is context, never their fact)."""
    if q.speakers:
        named = {fold(s) for s in q.speakers}
        return [p for p in found if fold(p.speaker) in named]
    if q.strangers:  # someone known only from what others said of them: those words
        return [p for p in found if any(fold(n) in fold(p.text) for n in q.strangers)]
    return list(found)


def from_passages(q: Question, found: list[Passage], lang: str, *, evidence: int = EVIDENCE) -> Composed | None:  # fmt: skip
    """The span of the best passage as the line, the passages quoted after it; None when no
    passage of the right person holds enough of the question."""
    from mdmem.read.spans import span

    mine = [(p, span(q, p.text, p.date, lang)) for p in own(q, found)]
    mine = [(p, s) for p, s in mine if s.cover >= MIN_COVER]
    if not mine:
        return None
    # A place, person or number taken by the question's type answers before the leftover
    # words of a passage that holds none ('Where did she go?' is not answered 'check it out').
    typed = q.type in ("when", "where", "who", "how_many") or q.describes or q.named or q.favorite or q.lasts
    # A question that names a period ('on 9 November 2022') is answered by what was said then.
    period = q.period
    away = (lambda p: not period[0] <= p.date[:10] <= period[1]) if period else (lambda p: False)
    ranked = sorted(enumerate(mine), key=lambda x: (typed and not x[1][1].typed, away(x[1][0]), -_rank(q, x[1][0], x[1][1], x[0]), x[0]))
    best, sp = ranked[0][1]
    first = sp.text
    picked = _choice(q, [p for _, (p, _) in ranked]) if q.options else None
    if picked is not None:  # the option what was said holds, with the passage that holds it
        first, best = picked
        sp = next(s for p, s in mine if p is best)
    if q.many and q.type not in ("when", "yes_no", "how_many"):
        first = _gathered([s for _, (_, s) in ranked], lang) or first
    if q.type == "how_many" and not q.often and lang != "zh" and (TIMES().search(q.text) or not _counted(sp)):
        told = _told(q, mine)
        if told:  # 'How many times…': the days it was told of, each once
            first, best = times(len(told), lang) if TIMES().search(q.text) else number(len(told), lang), told[0]
            sp = next(s for p, s in mine if p is best)
    first = first or sp.sentence.strip()
    quotes, shown = _quotes(found, best, sp.sentence, q, lang, evidence)
    return Composed(
        first[:1].upper() + first[1:] if lang != "zh" else first, quotes, shown, "passage",
        [{"speaker": best.speaker, "episode": best.episode, "anchor": best.anchor}],
        round(min(0.85, 0.3 + 0.6 * sp.cover), 2), sp.typed,
    )  # fmt: skip


TIMES = lazy(r"\bhow many times\b", re.I)
TOLD = 0.5  # how much of the question a passage must hold to count as telling of it again
_SAID_COUNT = lazy(r"^(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|once|twice)$", re.I)


def _counted(sp: Span) -> bool:
    """Whether a how-many span is a number said ('3', 'two weeks'), not 'a few', 'both' or words."""
    return sp.typed and bool(_SAID_COUNT().match(sp.text.strip().split(" ")[0]))


def _told(q: Question, mine: list[tuple[Passage, Span]]) -> list[Passage]:
    """The passages, one a day, of the person asked about that hold most of the question:
    each day it was told of is one time ('How many times has she been to France?')."""
    out: list[Passage] = []
    days: set[str] = set()
    for p, s in mine:
        if p.reply or p.asks or s.cover < TOLD or p.date in days:
            continue
        days.add(p.date)
        out.append(p)
    return sorted(out, key=lambda p: p.date)


def times(n: int, lang: str) -> str:
    """'Once', 'Twice', 'Three times'."""
    return {1: "Once", 2: "Twice"}.get(n) or f"{number(n, lang)} times"


def _choice(q: Question, passages: list[Passage]) -> tuple[str, Passage] | None:
    """The option of a choice question ('a beach or the mountains') that the passages hold
    more of, with the best passage that holds it; None when they hold both, or neither, alike."""
    names = {t for s in q.all_speakers for t in tokens(s)}  # 'John' is a speaker before a writer
    held: list[tuple[float, Passage | None]] = []  # per option: its best share, and where
    for option in q.options:
        words = set(tokens(option)) - names or set(tokens(option))
        share, where = 0.0, None
        for p in passages:  # in rank order: the first of equals
            got = len(words & set(tokens(p.text))) / len(words) if words else 0.0
            if got > share:
                share, where = got, p
        held.append((share, where))
    top = max(range(len(held)), key=lambda i: held[i][0])
    share, where = held[top]
    if where is None or share < 0.5 or any(h[0] >= share for i, h in enumerate(held) if i != top):
        return None
    return q.options[top], where


def _rank(q: Question, p: Passage, s: Span, i: int) -> float:
    """How well a passage's span answers: the share of the question its sentence and the
    whole passage hold (a passage that tells more of what the question is about holds the
    answer more often than one sentence that echoes it), less for each passage found before
    it, more for a span that says more (up to SAYS_ENOUGH of _leftover's worth), less when
    the sentence is itself a question."""
    from mdmem.read.spans import phatic

    asks = s.sentence.rstrip().endswith(("?", "？")) or phatic(s.sentence)
    held = (s.cover + cover(q, p.text)) / 2
    return held - 0.1 * i + 0.5 * min(s.worth, SAYS_ENOUGH) / SAYS_ENOUGH - 0.2 * asks


def _gathered(spans: list[Span], lang: str) -> str:
    """Items from several passages, each once, in order of rank, joined as a list."""
    items: list[str] = []
    seen: list[set[str]] = []
    for s in spans:
        toks = set(tokens(s.text))
        if not toks or s.cover < MIN_COVER or any(toks <= t or t <= toks for t in seen):
            continue
        if items and not s.typed and _SAYS_A_CLAUSE().search(s.text):
            continue  # a clause of its own ('People are surprised', "don't run") is no item
        joined = phrase("list_sep", lang).join([*items, s.text])
        if items and (len(joined) > MAX_LINE or len(items) >= LIST_ITEMS):
            break
        items.append(s.text)
        seen.append(toks)
    # Comma-separated: an item may itself hold 'and' ('hiking and camping'), a last ' and '
    # would join two items into one.
    return phrase("list_sep", lang).join(items)


def _join(items: list[str], lang: str) -> str:
    if len(items) < 2:
        return "".join(items)
    return phrase("list_sep", lang).join(items[:-1]) + phrase("list_last", lang) + items[-1]


def quoted(q: Question, found: list[Passage], lang: str, *, evidence: int = EVIDENCE) -> tuple[list[str], list[dict[str, Any]]]:  # fmt: skip
    """What was said, quoted after facts that answer, when no passage holds enough of the
    question to answer it: the passages in the order found, each trimmed to its best sentence."""
    return _quotes(found, found[0], None, q, lang, evidence) if found and evidence else ([], [])


def _quotes(found: list[Passage], best: Passage, sentence: str | None, q: Question, lang: str, n: int) -> tuple[list[str], list[dict[str, Any]]]:  # fmt: skip
    """The basis passage first, trimmed to its sentence, then the next best, `n` in all; a
    question passage carries its reply on its line, and a basis that replies comes after its
    question on the first line. No passage is quoted twice."""
    asked = _question_of(found, best)
    order = [*([asked] if asked else []), best, *[p for p in found if p is not best and p is not asked]]
    lines: list[str] = []
    shown: list[dict[str, Any]] = []

    def cut(p: Passage) -> str:
        return trimmed(p.text, sentence if p is best and sentence else _sentence_for(q, p.text))

    for p in order:
        if len(lines) >= n:
            break
        if any((s["episode"], s["anchor"], s["text"]) == (p.episode, p.anchor, p.text) for s in shown):
            continue  # quoted already, with its question (a long message's other parts are not)
        if p.reply and shown and shown[-1]["anchor"] != _before(found, p):
            continue  # a reply quoted only with its question
        text = cut(p)
        line = quote(replace(p, text=text, reply=False), lang)
        reply = _reply_of(found, p) if p.asks else None
        if reply is not None:
            r = cut(reply)
            line += ("" if lang == "zh" else " ") + quote(replace(reply, text=r), lang)
            shown.append({**p.to_json(), "quote": text})
            shown.append({**reply.to_json(), "quote": r})
        else:
            shown.append({**p.to_json(), "quote": text})
        lines.append(line)
    return lines, shown


def _before(found: list[Passage], p: Passage) -> str | None:
    i = found.index(p)
    return found[i - 1].anchor if i > 0 else None


def _question_of(found: list[Passage], p: Passage) -> Passage | None:
    """The question passage just before a reply among those found, if it is there."""
    i = found.index(p) if p.reply and p in found else 0
    return found[i - 1] if i > 0 and found[i - 1].asks and found[i - 1].episode == p.episode else None


def _reply_of(found: list[Passage], p: Passage) -> Passage | None:
    i = found.index(p) if p in found else -1
    nxt = found[i + 1] if 0 <= i < len(found) - 1 else None
    return nxt if nxt is not None and nxt.reply and nxt.episode == p.episode else None


def _sentence_for(q: Question, text: str) -> str:
    from mdmem.read.spans import best_sentence

    return best_sentence(q, text)[0]


def trimmed(text: str, sentence: str) -> str:
    """A passage as quoted: whole when short, else the sentence that holds the answer with
    '…' where words were left out."""
    if len(text) <= QUOTE_CHARS or sentence not in text:
        return text
    at = text.find(sentence)
    return ("…" if at > 0 else "") + sentence + ("…" if at + len(sentence) < len(text.rstrip()) else "")


__all__ = ["EVIDENCE", "Composed", "cover", "from_facts", "from_passages", "nothing_about", "own"]
