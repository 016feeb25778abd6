"""Time expressions of events and plans, English and Chinese, resolved against the day said.

"last Sunday", "two weekends ago", "去年夏天" look back; "next month", "in two weeks", "下个月"
look ahead; "in March", "on Friday", "十二月" point either way, and the reading decides: an event
took the latest March not after the day it was told, a plan the next one (a plan named in
January for "March" is this March; "我还打算十二月去…" said in October is this December, not the
one before). A time is written in model/life.py's notation at the precision it was said: a day,
a month, a year, or a span (a weekend, a week, a season).

One expression, compiled on first use, scans a clause once: linear in its length.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta
from functools import cache

from mdmem.extract.candidates import words
from mdmem.extract.dates import MONTHS, NUMBERS, ZH_WEEKDAY, zh_number
from mdmem.model.life import time_text

PAST, FUTURE, EITHER = "past", "future", "either"
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_SEASONS = {"spring": 3, "summer": 6, "fall": 9, "autumn": 9, "winter": 12, "春": 3, "夏": 6, "秋": 9, "冬": 12}  # fmt: skip
_MON = "|".join(sorted(MONTHS, key=len, reverse=True))
_WD = "|".join(_WEEKDAYS)
_N = r"\d{1,2}|an?|one|two|three|four|five|six|seven|eight|nine|ten|a\s+few|a\s+couple\s+of|couple\s+of|few"
_ZN = r"\d{1,2}|[一两二三四五六七八九十半几]"
_ZH_WD = r"[一二三四五六日天]"
_PATTERN = (
    r"(?<![A-Za-z0-9_])(?:"
    r"(?P<word>the\s+day\s+before\s+yesterday|the\s+day\s+after\s+tomorrow|yesterday|today|tonight|tomorrow"
    r"|this\s+(?:morning|afternoon|evening)|last\s+night|earlier\s+today)"
    rf"|(?P<n>{_N})\s+(?P<unit>days?|weeks?|weekends?|months?|years?)\s+(?P<dir>ago|from\s+now|later)"
    rf"|in\s+(?P<inn>{_N})\s+(?P<inunit>days?|weeks?|months?|years?)"
    rf"|(?:in\s+|over\s+)?the\s+(?:next|coming)\s+(?P<nextn>{_N})\s+(?P<nextunit>days|weeks|months|years)"
    rf"|(?P<rel>last|next|this\s+past|this\s+coming|this|coming)\s+(?P<what>weekend|week|month|year|{_WD}"
    r"|spring|summer|fall|autumn|winter)"
    r"|(?P<later>later|earlier)\s+this\s+(?P<lunit>week|month|year)"
    r"|(?:at\s+)?the\s+end\s+of\s+(?P<endrel>the|this|next)\s+(?P<endunit>week|month|year)"
    rf"|(?:(?:on|in)\s+)?(?P<mon>{_MON})\.?(?:\s+(?P<mday>\d{{1,2}})(?:st|nd|rd|th)?)?(?:,?\s+(?P<myear>(?:19|20)\d\d))?(?![\w])"
    rf"|(?:on\s+)?(?:the\s+)?(?P<dmday>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<dmon>{_MON})(?:,?\s+(?P<dyear>(?:19|20)\d\d))?(?![\w])"
    rf"|on\s+(?P<wday>{_WD})"
    r"|(?:in\s+)?(?P<season>spring|summer|fall|autumn|winter)\s+(?:of\s+)?(?P<syear>(?:19|20)\d\d)"
    r"|(?:in\s+)?(?P<year>(?:19|20)\d\d)(?![\w-])"
    # the past with no day to put it on: "a few years back", "back then", "as a kid"
    rf"|(?P<vague>(?:{_N}|many|several)\s+(?:years|decades)\s+(?:ago|back)|years\s+ago|back\s+then|back\s+in\s+the\s+day"
    r"|as\s+a\s+(?:kid|child|teen|teenager)|when\s+I\s+was\s+(?:a\s+kid|little|young|younger|a\s+child|a\s+teen\w*)"
    r"|in\s+high\s+school|in\s+college|growing\s+up|a\s+long\s+time\s+ago|ages\s+ago|once\s+upon)"
    # a day gone by, not named: "the other day" is the week before the day said, "recently" the month
    r"|(?P<other>the\s+other\s+(?:day|night|evening|morning))|(?P<recent>(?:just\s+|only\s+)?recently|not\s+(?:so\s+|too\s+|that\s+)?long\s+ago)"
    # Chinese
    r"|(?P<zword>大前天|前天|昨天|昨晚|今天|今早|今晚|明天|后天|大后天|刚才)"
    r"|(?P<zvague>小时候|以前|很久以前|那时候|当年|上学的时候|读书的时候|几年前|多年前)"
    rf"|(?P<zweek>上上|上|下下|下|这|本)(?:个)?(?:周|星期|礼拜)(?P<zwd>{_ZH_WD}|末)?"
    rf"|(?P<zwkend>周末)"
    r"|(?P<zmonth>上上|上|下|这|本)个?月(?P<zmpart>初|底)?"
    r"|(?P<zyear>前年|去年|今年|明年|后年)(?P<zsub>春天|夏天|秋天|冬天|年底|年初|(?:十[一二]|[一二三四五六七八九十]|1[0-2]|0?[1-9])月份?)?"
    r"|(?P<zy>(?:19|20)\d\d)\s*年(?:\s*(?P<zym>1[0-2]|0?[1-9])\s*月)?"
    r"|(?<![\d年月])(?P<zm>十[一二]|[一二三四五六七八九十]|1[0-2]|0?[1-9])\s*月份?(?:(?P<zmd>\d{1,2}|[一二三四五六七八九十]{1,3})[日号])?"
    rf"|(?P<zn>{_ZN})\s*(?:个)?(?P<zu>天|周|星期|礼拜|月|年)(?:以)?(?P<zdir>前|后|之后|以后)"
    r")"
)


@cache
def _rx() -> re.Pattern[str]:
    return re.compile(_PATTERN, re.I)


@dataclass(frozen=True)
class Time:
    """A time expression in a text: where it is, its words, its tense, and what it names."""

    start: int
    end: int
    words: str
    tense: str  # past | future | either: which way the words themselves point
    when: str | None  # model/life.py notation, or None when it names no day ("the other day")


# Words one of the expressions needs (or a digit, or a Chinese time character): a text with none
# holds no time, and the expression, long as it is, is not run over it.
_CUES = words(
    """yesterday today tonight tomorrow morning afternoon evening night last next this coming past ago later
    earlier end weekend weekends week weeks month months year years day days decades spring summer fall
    autumn winter back kid child teen teenager little young younger school college growing long ages once
    other recently"""
) | frozenset(MONTHS) | frozenset(_WEEKDAYS)
_WORD = re.compile(r"[a-z]+")
_ZH_CUES = re.compile(r"[\d年月日号周天昨今明前后去上下这本候底初春夏秋冬礼拜星期]")


def has_time(text: str) -> bool:
    """Whether `text` may hold a time expression (a cheap test before `find_times`)."""
    low = text.lower()
    return _ZH_CUES.search(low) is not None or any(w in _CUES for w in _WORD.findall(low))


def find_times(text: str, said: str, *, future: bool) -> list[Time]:
    """Every time expression of `text` in order, resolved against the day it was `said`
    (YYYY-MM-DD), reading the ones that point either way as past (an event) or `future` (a plan)."""
    if not has_time(text):
        return []
    ref = date.fromisoformat(said[:10])
    out = []
    for m in _rx().finditer(text):
        alone = m["mon"] and not (m["mday"] or m["myear"]) and m.group(0)[:3].lower() not in ("in ", "on ")
        if alone and not m.group(0)[0].isupper():
            continue  # "I may go", "we march on": a month named alone is written as one
        tense, span = _resolve(m, ref, future)
        when = time_text(*span) if span is not None else None
        words = m.group(0).rstrip(".") if m["mon"] or m["dmon"] else m.group(0)  # "in March." ends a sentence
        out.append(Time(m.start(), m.start() + len(words), words, tense, when))
    return out


def _week(d: date) -> date:
    return d - timedelta(days=d.weekday())


def _month(d: date, n: int = 0) -> tuple[date, date]:
    index = d.year * 12 + d.month - 1 + n
    first = date(index // 12, index % 12 + 1, 1)
    nxt = index + 1
    return first, date(nxt // 12, nxt % 12 + 1, 1)


def _year(y: int) -> tuple[date, date]:
    return date(y, 1, 1), date(y + 1, 1, 1)


def _day(d: date) -> tuple[date, date]:
    return d, d + timedelta(days=1)


def _count(raw: str) -> tuple[int, int]:
    """A number said in words: (least, most): "a few" is 2 to 4."""
    raw = " ".join(raw.lower().split())
    if raw in ("a few", "few"):
        return 2, 4
    if raw in ("a couple of", "couple of"):
        return 2, 2
    if raw.isdigit():
        return int(raw), int(raw)
    if raw == "几":
        return 2, 4
    n = NUMBERS.get(raw)
    if n is None:
        n = zh_number(raw) or 1
    return n, n


def _shift(ref: date, unit: str, n: int) -> tuple[date, date]:
    """The span `n` units from ref (negative: back), at the unit's precision."""
    if unit.startswith("day") or unit == "天":
        return _day(ref + timedelta(days=n))
    if unit.startswith("weekend"):  # this week's is 0; the next one to come is 1
        sat = _week(ref) + timedelta(days=5)
        sat += timedelta(days=7 * (n - 1 if n > 0 and ref < sat else n))
        return sat, sat + timedelta(days=2)
    if unit.startswith("week") or unit in ("周", "星期", "礼拜"):
        mon = _week(ref) + timedelta(days=7 * n)
        return mon, mon + timedelta(days=7)
    if unit.startswith("month") or unit == "月":
        return _month(ref, n)
    return _year(ref.year + n)


def _season(ref: date, month: int, direction: str) -> tuple[date, date]:
    """The season beginning in `month`: the last one ended before ref, the next one to begin,
    or this year's."""
    first = date(ref.year, month, 1)
    if direction == PAST and _month(first, 2)[1] > ref:
        first = date(ref.year - 1, month, 1)
    elif direction == FUTURE and first <= ref:
        first = date(ref.year + 1, month, 1)
    return first, _month(first, 2)[1]


def _month_named(ref: date, month: int, year: int | None, future: bool) -> tuple[date, date]:
    if year is not None:
        return _month(date(year, month, 1))
    if future:
        return _month(date(ref.year + (month < ref.month), month, 1))
    return _month(date(ref.year - (month > ref.month), month, 1))


def _weekday(ref: date, wd: int, direction: str) -> tuple[date, date]:
    if direction == PAST:
        return _day(ref - timedelta(days=(ref.weekday() - wd) % 7 or 7))
    if direction == FUTURE:
        return _day(ref + timedelta(days=(wd - ref.weekday()) % 7 or 7))
    return _day(ref + timedelta(days=(wd - ref.weekday()) % 7))  # "this Friday": this week's


def _resolve(m: re.Match[str], ref: date, future: bool) -> tuple[str, tuple[date, date] | None]:
    g = {k: (v.lower() if isinstance(v, str) else v) for k, v in m.groupdict().items()}
    either = FUTURE if future else PAST
    try:
        if g["vague"] or g["zvague"]:
            return PAST, None
        if g["other"] or g["recent"]:
            return PAST, (ref - timedelta(days=7 if g["other"] else 30), ref)
        if g["word"] or g["zword"]:
            w = " ".join((g["word"] or g["zword"]).split())
            back = {"the day before yesterday": -2, "yesterday": -1, "last night": -1, "大前天": -3,
                    "前天": -2, "昨天": -1, "昨晚": -1, "tomorrow": 1, "the day after tomorrow": 2,
                    "明天": 1, "后天": 2, "大后天": 3}.get(w, 0)  # fmt: skip
            return (PAST if back < 0 else FUTURE if back > 0 else EITHER), _day(ref + timedelta(days=back))
        if g["unit"]:
            least, most = _count(g["n"])
            sign = -1 if g["dir"] == "ago" else 1
            a, b = _shift(ref, g["unit"], sign * most), _shift(ref, g["unit"], sign * least)
            return (PAST if sign < 0 else FUTURE), (min(a[0], b[0]), max(a[1], b[1]))
        if g["nextunit"]:  # "in the next few months": from now until then
            _, most = _count(g["nextn"])
            return FUTURE, (ref + timedelta(days=1), _shift(ref, g["nextunit"], most)[1])
        if g["inunit"]:
            least, most = _count(g["inn"])
            a, b = _shift(ref, g["inunit"], least), _shift(ref, g["inunit"], most)
            return FUTURE, (a[0], b[1])
        if g["what"]:
            return _relative(g["rel"], g["what"], ref)
        if g["lunit"]:
            lo, hi = _shift(ref, g["lunit"], 0)
            return (PAST if g["later"] == "earlier" else FUTURE), ((lo, ref + timedelta(days=1)) if g["later"] == "earlier" else (ref, hi))
        if g["endunit"]:
            return FUTURE, _shift(ref, g["endunit"], 1 if g["endrel"] == "next" else 0)
        if g["mon"] or g["dmon"]:
            month = MONTHS[(g["mon"] or g["dmon"]).rstrip(".")]
            year_raw, day_raw = (g["myear"], g["mday"]) if g["mon"] else (g["dyear"], g["dmday"])
            year = int(year_raw) if year_raw else None
            if day_raw is None:
                return EITHER if year is None else _tense(year, ref), _month_named(ref, month, year, future)
            d = date(year or ref.year, month, int(day_raw))
            if year is None and not future and d > ref:
                d = d.replace(year=d.year - 1)
            elif year is None and future and d < ref:
                d = d.replace(year=d.year + 1)
            return EITHER, _day(d)
        if g["wday"]:
            return EITHER, _weekday(ref, _WEEKDAYS.index(g["wday"]), either)
        if g["season"]:
            first = date(int(g["syear"]), _SEASONS[g["season"]], 1)
            return _tense(first.year, ref), (first, _month(first, 2)[1])
        if g["year"]:
            return _tense(int(g["year"]), ref), _year(int(g["year"]))
        return _resolve_zh(g, ref, future)
    except (ValueError, KeyError, OverflowError):
        return EITHER, None


def _tense(year: int, ref: date) -> str:
    return PAST if year < ref.year else FUTURE if year > ref.year else EITHER


def _relative(rel: str, what: str, ref: date) -> tuple[str, tuple[date, date] | None]:
    """"last week", "next month", "this summer", "last Sunday", "this coming weekend"."""
    rel = " ".join(rel.split())
    direction = PAST if rel in ("last", "this past") else FUTURE if rel in ("next", "this coming", "coming") else EITHER
    n = {PAST: -1, FUTURE: 1, EITHER: 0}[direction]
    if what in _WEEKDAYS:
        return direction, _weekday(ref, _WEEKDAYS.index(what), direction)
    if what in _SEASONS:
        return direction, _season(ref, _SEASONS[what], direction)
    if what == "weekend" and rel in ("this past", "this coming"):
        n = -1 if rel == "this past" else 0
    return direction, _shift(ref, what, n)


def _resolve_zh(g: dict[str, str | None], ref: date, future: bool) -> tuple[str, tuple[date, date] | None]:
    if g["zweek"]:
        n = {"上上": -2, "上": -1, "下": 1, "下下": 2}.get(str(g["zweek"]), 0)
        direction = PAST if n < 0 else FUTURE if n > 0 else EITHER
        mon = _week(ref) + timedelta(days=7 * n)
        part = g["zwd"]
        if part == "末":
            return direction, (mon + timedelta(days=5), mon + timedelta(days=7))
        if part:
            return direction, _day(mon + timedelta(days=ZH_WEEKDAY[part]))
        return direction, (mon, mon + timedelta(days=7))
    if g["zwkend"]:  # 周末 alone: the weekend this week (a plan), or the last one gone (an event)
        sat = _week(ref) + timedelta(days=5)
        if not future and sat > ref:
            sat -= timedelta(days=7)
        return EITHER, (sat, sat + timedelta(days=2))
    if g["zmonth"]:
        n = {"上上": -2, "上": -1, "下": 1}.get(str(g["zmonth"]), 0)
        return (PAST if n < 0 else FUTURE if n > 0 else EITHER), _month(ref, n)
    if g["zyear"]:
        n = {"前年": -2, "去年": -1, "今年": 0, "明年": 1, "后年": 2}[str(g["zyear"])]
        year, sub = ref.year + n, g["zsub"]
        direction = PAST if n < 0 else FUTURE if n > 0 else EITHER
        if not sub:
            return direction, _year(year)
        if sub[0] in _SEASONS and sub.endswith("天"):
            first = date(year, _SEASONS[sub[0]], 1)
            return direction, (first, _month(first, 2)[1])
        if sub in ("年底", "年初"):
            return direction, _month(date(year, 12 if sub == "年底" else 1, 1))
        return direction, _month(date(year, _zh_month(sub.rstrip("份").rstrip("月")), 1))
    if g["zy"]:
        year = int(str(g["zy"]))
        if g["zym"]:
            return _tense(year, ref), _month(date(year, int(str(g["zym"])), 1))
        return _tense(year, ref), _year(year)
    if g["zm"]:
        month = _zh_month(str(g["zm"]))
        if g["zmd"]:
            day_raw = str(g["zmd"])
            d = date(ref.year, month, int(day_raw) if day_raw.isdigit() else (zh_number(day_raw) or 1))
            if not future and d > ref:
                d = d.replace(year=d.year - 1)
            elif future and d < ref:
                d = d.replace(year=d.year + 1)
            return EITHER, _day(d)
        return EITHER, _month_named(ref, month, None, future)
    if g["zu"]:
        least, most = _count(str(g["zn"]))
        sign = -1 if g["zdir"] == "前" else 1
        a, b = _shift(ref, str(g["zu"]), sign * most), _shift(ref, str(g["zu"]), sign * least)
        return (PAST if sign < 0 else FUTURE), (min(a[0], b[0]), max(a[1], b[1]))
    return EITHER, None


def _zh_month(raw: str) -> int:
    if raw.isdigit():
        return int(raw)
    return zh_number(raw) or 1
