"""The time a sentence tells, resolved against the day it was said: the span of a when-question.

'yesterday' said on 8 May 2023 is 7 May 2023; 'last week' is 'the week before 8 May 2023';
'next month' is June 2023; 'a few years ago' is 'a few years before 2023'; 'last summer' is
'summer 2022'. A time said without a day is said as a span before or after the day it was
said, never as a made-up day. read/spans.py takes it for a when-question.
"""

from __future__ import annotations

import re
from datetime import date, timedelta

from mdmem.lang.tokens import words
from mdmem.lang.verbs import PAST
from mdmem.lazy_regex import lazy
from mdmem.read.days import WEEKDAYS, day_text, month_text, period_text

# Time words whose span is fuzzy: said as a span before the day they were said, not as a day.
_FUZZY = re.compile(
    r"\b(?:last|this past|the past|past) (week|weekend)\b|\b(?:a|one) week ago\b|\b(a few|few|couple of|a couple of) days ago\b"
    r"|\bthe other (?:day|night|evening|morning)\b|\b(?P<recent>recently)\b",
    re.I,
)  # fmt: skip
# Weeks, months or years ago, said without a day: a span before the day they were said, as
# said ('two weeks before 11 August 2023', 'a few years before 2023'), never a made-up day.
_AGO = re.compile(r"\b(a few|few|several|a couple of|couple of|two|three|four|five|six|2|3|4|5|6) (weeks|months|years) ago\b", re.I)
_VAGUE_COUNT = frozenset(["a few", "few", "several", "a couple of", "couple of"])
# The week, month or year after the one it was said in ('next month' said on 20 January 2023).
# 'next summer' is the first summer to begin after that day; 'this weekend' is the weekend
# of the week it was said in, 'next weekend' the one after it.
_NEXT = re.compile(r"\b(next|this (?=weekend))\s*(week|month|year|weekend|spring|summer|fall|autumn|winter)\b", re.I)
# A day of the week said alone (not 'next', 'this', 'every' or 'last' Friday, not 'Fridays').
_WEEKDAY = lazy(r"(?<!\bnext )(?<!\bthis )(?<!\bevery )(?<!\blast )\b(" + "|".join(WEEKDAYS) + r")\b(?!s\b|['’]s\b)", re.I)
_SEASON_START = {"spring": 3, "summer": 6, "fall": 9, "autumn": 9, "winter": 12}


def when_text(sentence: str, said_on: str, lang: str, *, whole: str = "") -> str:
    """The time a sentence tells, resolved against the day it was said: '7 May 2023', 'May
    2023', 'the week before 16 May 2023'; the day it was said when it names none."""
    return told_time(sentence, said_on, lang, whole=whole) or day_text(said_on, lang)


def told_time(sentence: str, said_on: str, lang: str, *, whole: str = "") -> str | None:
    """when_text's time when the sentence (or the passage it is part of, `whole`) says one;
    None when it names none and only the day it was said is known."""
    from mdmem.extract.dates import find_when  # its patterns compile only when a span needs them

    fuzzy = _FUZZY.search(sentence)
    if fuzzy and lang != "zh":
        unit = (fuzzy.group(1) or "").lower()
        what = {"week": "the week", "weekend": "the weekend"}.get(unit, "the weeks" if fuzzy["recent"] else "a few days")
        if fuzzy.group(2) and "couple" in fuzzy.group(2).lower():
            what = "a couple of days"
        elif "week" in fuzzy.group(0).lower() and not unit:
            what = "the week"
        return f"{what} before {day_text(said_on, lang)}"
    relative = _relative(sentence, said_on) if lang != "zh" else None
    if relative is not None:
        return relative
    for text in (sentence, whole):
        found = find_when(text, said_on) if text else None
        if found is not None and not found.open_start:
            said = period_text(found.start, found.through, lang)
            # 'last Friday' is said with its day of the week: 'Friday, 21 January 2022'.
            day = date.fromisoformat(found.start)
            named = re.search(rf"\b{WEEKDAYS[day.weekday()]}\b", text, re.I) or (lang == "zh" and re.search(r"(?:周|星期|礼拜)[一二三四五六日天]", text))
            one = found.through is None or (date.fromisoformat(found.through) - day).days == 1
            return day_text(found.start, lang, weekday=True) if named and one else said
    return _past_weekday(sentence, said_on) if lang != "zh" else None


def _past_weekday(sentence: str, said_on: str) -> str | None:
    """'I won the tournament on Friday!' said on Sunday 10 July 2022: 'Friday, 8 July 2022',
    the latest such day before the day it was said; only a sentence told in the past ('I'm
    going on Friday' is a plan, 'on Fridays' a habit)."""
    m = _WEEKDAY().search(sentence)
    if m is None or not any(w in PAST or (len(w) > 4 and w.endswith("ed")) for w in words(sentence)):
        return None
    said = date.fromisoformat(said_on[:10])
    back = (said.weekday() - WEEKDAYS.index(m.group(1).capitalize())) % 7 or 7
    return day_text((said - timedelta(days=back)).isoformat(), "en", weekday=True)


def _relative(sentence: str, said_on: str) -> str | None:
    """'a few years before 2023', 'two weeks before 20 January 2024', 'the week after …',
    'February 2024' (next month), '2025' (next year); None when the sentence says none."""
    said = date.fromisoformat(said_on[:10])
    ago = _AGO.search(sentence)
    if ago and (ago.group(2).lower() == "weeks" or ago.group(1).lower() in _VAGUE_COUNT):
        how, unit = ago.group(1).lower(), ago.group(2).lower()  # 'five years ago' is a year: find_when's
        return f"{how} {unit} before {said.year if unit == 'years' else day_text(said_on, 'en')}"
    ahead = _NEXT.search(sentence)
    if ahead is None:
        return None
    unit = ahead.group(2).lower()
    if unit == "weekend":
        return f"the weekend {'after' if ahead.group(1).lower() == 'next' else 'of'} {day_text(said_on, 'en')}"
    if unit in _SEASON_START:
        month = _SEASON_START[unit]
        return f"{unit} {said.year if date(said.year, month, 1) > said else said.year + 1}"
    if unit == "week":
        return f"the week after {day_text(said_on, 'en')}"
    if unit == "month":
        nxt = date(said.year + said.month // 12, said.month % 12 + 1, 1)
        return month_text(nxt.year, nxt.month, "en")
    return str(said.year + 1)
