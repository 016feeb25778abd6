"""A question read once, at the door: its language, words, type, time and the people it names.

`Question.of(text)` tokenises and classifies; `match.naming(q, entities, speakers)` adds whom
it names, out of the entities and speakers the vault knows. Retrieval (retrieve.py, match.py),
the routing (ask.py, route.py), passage search (said.py) and the composer (compose.py) all read
this one value instead of reading the text again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import date, timedelta

from mdmem.lang import questions as qt
from mdmem.lang.detect import detect_lang
from mdmem.lang.tokens import STOP, ZH_STOP_CHARS, fold, stem, token_re, tokens, words
from mdmem.read.days import MONTHS

FUNCTION_WORD = 0.3

# A capitalised word where a person's name goes: before 's, or after a verb that asks about
# someone ("does Zoe", "is Zoe", "Who is Zoe"). Months, days and "I" are never names.
_NAME_SPOT = re.compile(
    r"\b([A-Z][a-z]+)(?=['’]s\b)"
    r"|\b(?:do|does|did|is|was|are|were|has|have|had|can|could|will|would|about|with|and)\s+([A-Z][a-z]+)\b"
)
_NOT_NAMES = frozenset(
    ["i", "january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "christmas", "easter", "i'm"]
)
_YEAR = re.compile(r"\b(1[89]\d\d|2\d\d\d)\b|(\d{4})年")


@dataclass(frozen=True)
class Unit:
    """One word, or one Chinese character, of a question."""

    text: str
    stem: str
    weight: float
    cjk: bool


@dataclass(frozen=True)
class Question:
    """A question in the forms every reader compares against."""

    text: str
    folded: str
    units: tuple[Unit, ...]
    offsets: dict[int, int]  # folded-text offset of a CJK character → its unit
    query: tuple[str, ...]  # full-text query tokens
    lang: str = "en"
    type: str = "what"  # when | where | who | how_many | yes_no | what (lang/questions.py)
    many: bool = False  # asks for several things: gathered and counted
    why: bool = False
    how: bool = False
    often: bool = False  # asks how often: a frequency answers ('three times a week')
    lasts: bool = False  # asks how long it lasted: a duration answers ('for three years')
    ends: bool = False  # asks when something ended ('When did he lose his job?'): the day it stopped
    describes: bool = False  # asks how something was or felt: the words that say it answer
    named: bool = False  # asks for a thing known by its name ('What movie…'): a name answers
    favorite: bool = False  # asks for someone's favourite: what they call it answers
    options: tuple[str, ...] = ()  # the choice it offers ('a beach or the mountains'): one answers
    history: bool = False  # "over time", 变化: every value with its period
    past: bool = False  # "used to", 以前: earlier values
    said: bool = False  # asks for the words themselves
    kin: str = ""  # the relative or friend it asks about ('brother' in "Where does her brother live?")
    period: tuple[str, str] | None = None  # a period it names outright, widened by a week
    people: tuple[str, ...] = ()  # the entities it names (naming())
    speakers: tuple[str, ...] = ()  # the speakers it names (naming())
    names: tuple[str, ...] = ()  # words in a name's place ('Zoe' in "Where does Zoe live?")
    all_speakers: tuple[str, ...] = ()  # everyone who said something in the vault (naming())
    resolved: bool = False  # naming() has run: people and speakers are known

    @classmethod
    def of(cls, text: str) -> Question:
        folded = fold(text)
        units: list[Unit] = []
        offsets: dict[int, int] = {}
        for m in token_re().finditer(folded):
            if m.group(1):
                for i, c in enumerate(m.group(1)):
                    offsets[m.start() + i] = len(units)
                    units.append(Unit(c, c, FUNCTION_WORD if c in ZH_STOP_CHARS else 1.0, True))
            else:
                w = m.group(2)
                weak = w in STOP or (len(w) == 1 and not w.isdigit())
                units.append(Unit(w, stem(w), FUNCTION_WORD if weak else 1.0, False))
        lang = detect_lang(text)
        often, lasts = qt.asks_often(text, lang), qt.asks_duration(text, lang)
        names = tuple(
            dict.fromkeys(
                n for m in _NAME_SPOT.finditer(text) for n in m.groups()
                if n and n.casefold() not in _NOT_NAMES and n.casefold() not in STOP
            )
        )  # fmt: skip
        return cls(
            text, folded, tuple(units), offsets, tuple(dict.fromkeys(tokens(text, query=True))),
            lang=lang, type=qt.question_type(text, lang), many=qt.asks_for_list(text, lang),
            why=qt.asks_why(text, lang), how=qt.asks_how(text, lang),
            often=often, lasts=lasts, ends=qt.asks_end(text, lang),
            describes=qt.asks_describe(text, lang), named=qt.asks_named(text, lang),
            favorite=bool(qt.FAVORITE.search(text)),
            options=qt.choice_options(text, bool(qt.YES_NO.search(text))),
            history=bool(qt.HISTORY.search(text)), past=bool(qt.PAST.search(text)),
            said=bool(qt.SAID.search(text)), period=named_period(text), names=names,
            kin=next((g for m in qt.KIN.finditer(text) for g in m.groups() if g), ""),
        )  # fmt: skip

    def naming(self, people: list[str], speakers: list[str]) -> Question:
        """The same question with the entities it names (match.naming finds them) and the
        speakers whose first name it uses, out of everyone who said something."""
        said = set(words(self.text))
        who = [s for s in speakers if fold(s).split() and fold(s).split()[0] in said]
        return replace(self, people=tuple(people), speakers=tuple(who), all_speakers=tuple(speakers), resolved=True)

    @property
    def strangers(self) -> list[str]:
        """The names in a name's place that match no entity or speaker it names."""
        known = {w for p in (*self.people, *self.speakers) for w in fold(p).replace("-", " ").replace("_", " ").split()}  # fmt: skip
        return [n for n in self.names if fold(n) not in known]

    @property
    def stems(self) -> set[str]:
        return {u.stem for u in self.units if not u.cjk and u.weight == 1.0}

    @property
    def content(self) -> list[Unit]:
        """The units that say what it is about (function words and the names it uses aside)."""
        names = {fold(w) for p in (*self.speakers, *self.people) for w in p.replace("-", " ").split()}
        return [u for u in self.units if u.weight >= 1.0 and u.text not in names]

    def has_words(self, phrase: list[str]) -> list[int]:
        """Unit positions of the first literal occurrence of a word sequence ([] if none)."""
        n = len(phrase)
        for i in range(len(self.units) - n + 1):
            if all(
                not self.units[i + k].cjk and self.units[i + k].text == phrase[k] for k in range(n)
            ):
                return list(range(i, i + n))
        return []


def undated(q: Question) -> Question:
    """The question without the words of the period it names in its query ('Where did I work
    in March 2025?' → 'work'): what quotes a fact of that time is about the fact, not about
    every passage that says 'March'."""
    if q.period is None:
        return q
    dated = {t for w in (*MONTHS, *(a or b for a, b in _YEAR.findall(q.text))) for t in tokens(w, query=True)}
    kept = tuple(t for t in q.query if t not in dated)
    return replace(q, query=kept) if kept else q


def named_period(question: str) -> tuple[str, str] | None:
    """The period a question names outright ('in May 2022', 'on September 8, 2023'), as
    (first day, last day) widened by a week, since people tell of a day some days later;
    None when it names none or only a relative one ('last Friday')."""
    years = {a or b for a, b in _YEAR.findall(question)}
    if not years:
        return None
    from mdmem.extract.dates import find_when  # its patterns compile only when needed

    found = find_when(question, "2000-01-01")
    if found is None or found.start[:4] not in years:
        return None
    start = date.fromisoformat(found.start) - timedelta(days=7)
    end = date.fromisoformat(found.through) - timedelta(days=1) if found.through else None
    last = (end or date.fromisoformat(found.start)) + timedelta(days=7)  # `through` is exclusive
    return start.isoformat(), last.isoformat()


_ISO_LIKE = re.compile(r"(?<![\d-])(\d{4})-(\d{1,2})(?:-(\d{1,2}))?(?![\d-])")
_ZH_MONTH = re.compile(r"(去年|今年|前年)\s*([0-9]{1,2}|十[一二]?|[一二三四五六七八九])\s*月")
_ZH_NUM = {"一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10, "十一": 11, "十二": 12}


class BadDate(ValueError):
    """A question holds something written as a date that is none (2025-13)."""


def as_of(q: Question, today: str) -> str | None:
    """The day a question asks about, when it names a time already past ('Where did I work in
    March 2025?', 'as of 2025-06', 'last summer', 去年三月): the last day of that time. None
    when it names none; BadDate for a date that does not exist ('as of 2025-13')."""
    for m in _ISO_LIKE.finditer(q.text):
        import calendar  # with locale, ~1.5 ms of start-up: only for a date the question writes

        y, mo, d = int(m.group(1)), int(m.group(2)), m.group(3)
        if not 1 <= mo <= 12 or d is not None and not 1 <= int(d) <= calendar.monthrange(y, mo)[1]:
            raise BadDate(m.group(0))
    text = _ISO_LIKE.sub(lambda m: m.group(0) if m.group(3) else f"{MONTHS[int(m.group(2)) - 1]} {m.group(1)}", q.text)
    text = re.sub(r"\bas (?:of|at)\b", "in", text, flags=re.I)
    text = _ZH_MONTH.sub(lambda m: f"{int(today[:4]) - {'去年': 1, '今年': 0, '前年': 2}[m.group(1)]}年"
                                   f"{int(m.group(2)) if m.group(2).isdigit() else _ZH_NUM[m.group(2)]}月", text)  # fmt: skip
    if text == q.text and not _YEAR.search(text) and not re.search(r"\blast (?:spring|summer|fall|autumn|winter|year|month)\b|去年|上个月", text, re.I):
        return None
    from mdmem.extract.dates import find_when

    found = find_when(text, today)
    if found is None or found.open_start or found.end is not None or found.through is None:
        return None
    last = (date.fromisoformat(found.through) - timedelta(days=1)).isoformat()
    return last if last < today else None

