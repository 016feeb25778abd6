"""Dates said in passing ("from 2019 to 2021", "last year", "2024年3月起"), resolved to ISO days.

The end a person names is included, and stored exclusive like every validity period in mdmem
([valid_from, valid_to)): "till 2023", "到2023年" and "from 2019 to 2023" end on 2024-01-01,
"until March 2021" on 2021-04-01, "until 5 March 2021" on 2021-03-06. When only the end is said
("I lived in Calgary till 2023"), the value is dated from the start of that end period: the
earliest time the sentence vouches for.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta

from mdmem.lazy_regex import lazy

MONTHS = {
    name: i
    for i, names in enumerate(
        [
            ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"),
            ("may",), ("june", "jun"), ("july", "jul"), ("august", "aug"),
            ("september", "sep", "sept"), ("october", "oct"), ("november", "nov"),
            ("december", "dec"),
        ],
        1,
    )
    for name in names
}  # fmt: skip
_MONTH = r"\b(?:" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_YEAR = r"(?:19|20)\d{2}"
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
ZH_WEEKDAY = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "一": 1, "两": 2, "二": 2, "三": 3,
    "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10, "半": 0,
}  # fmt: skip

# One point in time, English or Chinese, absolute or relative. Named groups tell which.
_POINT = (
    r"(?:(?P<iso>\d{4}-\d{2}-\d{2})"
    rf"|(?P<md_day>\d{{1,2}})(?:st|nd|rd|th)?\s+(?P<md_mon>{_MONTH}),?\s+(?P<md_year>{_YEAR})"
    rf"|(?P<dm_mon>{_MONTH})\s+(?:(?P<dm_day>\d{{1,2}})(?:st|nd|rd|th)?,?\s+)?(?P<dm_year>{_YEAR})"
    rf"|(?P<zh_year>{_YEAR})\s*年(?:\s*(?P<zh_mon>\d{{1,2}})\s*月(?:\s*(?P<zh_day>\d{{1,2}})\s*[日号])?)?"
    rf"|(?P<year>{_YEAR})\b"
    rf"|\bin\s+(?P<mo_mon>{_MONTH})(?![\w.]|\s*\d)"
    r"|(?<![\d年])(?P<mo_zh>1[0-2]|0?[1-9]|十[一二]?|[一二三四五六七八九])\s*月(?:份|初|中|底)?(?![\d一二三四五六七八九十]{0,3}\s*[日号])"
    rf"|(?P<rel>yesterday|last\s+(?:week|month|year|spring|summer|fall|autumn|winter|{'|'.join(_WEEKDAYS)})\b"
    r"|(?P<ago_n>\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten)\s+"
    r"(?P<ago_u>day|week|month|year)s?\s+ago"
    r"|上周[一二三四五六日天]|上个?(?:星期|礼拜)[一二三四五六日天]"
    r"|昨天|前天|上周|上个?星期|上个?礼拜|上个月|去年|前年"
    r"|(?P<zh_n>\d+|[一两二三四五六七八九十半])\s*(?P<zh_u>天|周|个星期|个月|年)(?:以)?前))"
)
# Compiled on first use: milliseconds each, and most processes (a reader) never need them.
_point_re = lazy(_POINT, re.I)
_period_re = lazy(
    # "2015年到2018年" needs no 从: a Chinese year opens a period by itself
    rf"(?:(?:\bfrom|\bbetween|\bsince|从|自)\s*|(?=(?:19|20)\d{{2}}\s*年))"
    rf"(?P<a>{_POINT.replace('?P<', '?P<a_')})\s*"
    rf"(?:to|until|till|through|and|-|–|—|到|至)\s*"
    rf"(?P<b>{_POINT.replace('?P<', '?P<b_')}|now|today|present|现在|今天)",
    re.I,
)
# Only the end said: "till 2023", "until last year", "到2023年", "一直住到去年".
_until_re = lazy(
    rf"(?:\buntil|\btill|['’]til|\bup\s+(?:to|until)|(?<![搬迁调转去回])到|直到)\s*"
    rf"(?P<b>{_POINT.replace('?P<', '?P<b_')})",
    re.I,
)
_since_re = lazy(
    rf"(?:\bsince|\bstarting(?:\s+in)?|\bas\s+of|自从?|从)\s*(?P<a>{_POINT.replace('?P<', '?P<a_')})"
    rf"|(?P<z>{_POINT.replace('?P<', '?P<z_')})\s*(?:起|开始|以来)",
    re.I,
)
# Cheap test before the big expressions: a digit, a month name or a relative word.
_any_re = lazy(rf"\d|{_MONTH}|yesterday|last\s|ago\b|[昨前去上月]", re.I)
_NOW = ("now", "today", "present", "现在", "今天")


@dataclass(frozen=True)
class When:
    """A statement's time: when it began and, for a closed period, when it ended."""

    start: str
    end: str | None = None
    open_start: bool = False  # "since …" / "…起": the value still holds
    through: str | None = None  # a single point: the exclusive end of the span it names


def _point(groups: dict[str, str | None], prefix: str, ref: date) -> date | None:
    def g(name: str) -> str | None:
        return groups.get(prefix + name)

    try:
        if g("iso"):
            return date.fromisoformat(str(g("iso")))
        if g("md_year"):
            return date(int(g("md_year") or 0), MONTHS[str(g("md_mon")).lower().rstrip(".")],
                        int(g("md_day") or 1))  # fmt: skip
        if g("dm_year"):
            return date(int(g("dm_year") or 0), MONTHS[str(g("dm_mon")).lower().rstrip(".")],
                        int(g("dm_day") or 1))  # fmt: skip
        if g("zh_year"):
            return date(int(g("zh_year") or 0), int(g("zh_mon") or 1), int(g("zh_day") or 1))
        if g("year"):
            return date(int(g("year") or 0), 1, 1)
        if g("mo_mon") or g("mo_zh"):  # "in March", "3月": the latest March not after ref
            raw = str(g("mo_mon") or g("mo_zh"))
            month = (
                int(raw) if raw.isdigit() else MONTHS.get(raw.lower().rstrip(".")) or _zh_month(raw)
            )
            return date(ref.year if month <= ref.month else ref.year - 1, month, 1)
    except ValueError:
        return None  # "31 February 2024": not a date
    rel = g("rel")
    if rel:
        return _relative(" ".join(rel.lower().split()), g, ref)
    return None


def _unit(groups: dict[str, str | None], prefix: str) -> str:
    """How much time a point names: a "year", a "month", a "season" or a "day"."""

    def g(name: str) -> str:
        return (groups.get(prefix + name) or "").lower()

    rel = " ".join(g("rel").split())
    unit = g("ago_u") or {"年": "year", "个月": "month"}.get(g("zh_u"), "")
    if g("year") or (g("zh_year") and not g("zh_mon")) or rel in ("last year", "去年", "前年"):
        return "year"
    if (g("dm_year") and not g("dm_day")) or (g("zh_mon") and not g("zh_day")) or g("mo_mon"):
        return "month"
    if g("mo_zh") or rel in ("last month", "上个月") or unit in ("year", "month"):
        return unit or "month"
    if rel.split()[-1:] and rel.split()[-1] in ("spring", "summer", "fall", "autumn", "winter"):
        return "season"
    return "day"


def _after(day: date, unit: str) -> date:
    """The exclusive end of the span of `unit` that begins on `day`."""
    if unit == "year":
        return date(day.year + 1, 1, 1)
    if unit in ("month", "season"):
        return _add_months(day.replace(day=1), 3 if unit == "season" else 1)
    return day + timedelta(days=1)


def _zh_month(raw: str) -> int:
    return {"十": 10, "十一": 11, "十二": 12}.get(raw) or NUMBERS.get(raw, 1)


def _relative(rel: str, g: Callable[[str], str | None], ref: date) -> date | None:
    last = rel.split()[-1] if rel.startswith("last") else ""
    if last in _WEEKDAYS:  # "last Monday": the latest Monday before the day it was said
        back = (ref.weekday() - _WEEKDAYS.index(last) - 1) % 7 + 1
        return ref - timedelta(days=back)
    if (
        rel[-1:] in ZH_WEEKDAY and rel[:1] == "上" and len(rel) > 2
    ):  # 上周三: last week's Wednesday
        return ref - timedelta(days=ref.weekday() + 7) + timedelta(days=ZH_WEEKDAY[rel[-1]])
    if rel in ("yesterday", "昨天"):
        return ref - timedelta(days=1)
    if rel == "前天":
        return ref - timedelta(days=2)
    if last == "week" or rel == "上周" or "星期" in rel or "礼拜" in rel:
        return ref - timedelta(days=7)
    if last == "month" or rel in ("上个月", "上月"):
        return _add_months(ref.replace(day=1), -1)
    if last == "year" or rel == "去年":
        return date(ref.year - 1, 1, 1)
    if rel == "前年":
        return date(ref.year - 2, 1, 1)
    if last:  # a season: its first month, the latest one that has begun before ref
        month = {"spring": 3, "summer": 6, "fall": 9, "autumn": 9, "winter": 12}[last]
        year = ref.year if month < ref.month else ref.year - 1
        return date(year, month, 1)
    n_raw, unit = g("ago_n"), g("ago_u")
    if n_raw is None:
        n_raw = g("zh_n")
        unit = {"天": "day", "周": "week", "个星期": "week", "个月": "month", "年": "year"}.get(
            g("zh_u") or ""
        )
    if n_raw is None or unit is None:
        return None
    n = int(n_raw) if n_raw.isdigit() else NUMBERS.get(n_raw.lower(), 1)
    if unit == "day":
        return ref - timedelta(days=n)
    if unit == "week":
        return ref - timedelta(days=7 * n)
    if unit == "month":
        return _add_months(ref.replace(day=1), -n)
    return date(ref.year - n, 1, 1) if n else ref.replace(day=1)


def _add_months(d: date, months: int) -> date:
    index = d.year * 12 + d.month - 1 + months
    return date(index // 12, index % 12 + 1, 1)


def find_when(text: str, ref: str | None) -> When | None:
    """The time a clause speaks of, relative words resolved against `ref` (YYYY-MM-DD)."""
    if not _any_re().search(text):
        return None
    today = date.fromisoformat(ref[:10]) if ref else date.today()
    m = _period_re().search(text)
    if m:
        start = _point(m.groupdict(), "a_", today)
        end_raw = m.group("b")
        if start is not None:
            if end_raw.lower() in _NOW:
                return When(start.isoformat(), None, True)
            end = _point(m.groupdict(), "b_", today)
            if end is not None:
                end = _after(end, _unit(m.groupdict(), "b_"))
            if end is not None and end > start:
                return When(start.isoformat(), end.isoformat())
    m = _until_re().search(text)
    if m:
        last = _point(m.groupdict(), "b_", today)
        if last is not None:
            end = _after(last, _unit(m.groupdict(), "b_"))
            if end <= today:  # "until next year" is a plan, not a closed period
                return When(last.isoformat(), end.isoformat())
    m = _since_re().search(text)
    if m:
        start = _point(m.groupdict(), "a_" if m.group("a") else "z_", today)
        if start is not None:
            return When(start.isoformat(), None, True)
    m = _point_re().search(text)
    if m:
        start = _point(m.groupdict(), "", today)
        if start is not None:
            return When(
                start.isoformat(), through=_after(start, _unit(m.groupdict(), "")).isoformat()
            )
    return None


def parse_date(text: str, ref: str | None) -> str | None:
    """One date phrase (a pattern's `date` group) as YYYY-MM-DD, or None."""
    found = find_when(text, ref)
    return found.start if found else None


_ZH_DIGIT = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}  # fmt: skip
_zh_number_re = lazy(r"[零〇一二两三四五六七八九十百]{1,6}")


def zh_number(text: str) -> int | None:
    """A Chinese numeral below a thousand ("四十" 40, "二十五" 25, "十五" 15, "一百二" 120)."""
    if not _zh_number_re().fullmatch(text):
        return None
    total, digit = 0, None
    for i, ch in enumerate(text):
        if ch in _ZH_DIGIT:
            if digit is not None and ch not in "零〇":
                return None  # "四五": two digits in a row is a range, not a number
            digit = _ZH_DIGIT[ch] or None
        elif ch == "十":
            total += (digit if digit is not None else 1) * 10
            digit = None
        else:  # 百
            if digit is None:
                return None
            total += digit * 100
            digit = None
            if i == len(text) - 2 and text[-1] in _ZH_DIGIT:  # 一百二 = 120
                return total + _ZH_DIGIT[text[-1]] * 10
    return total + (digit or 0)


_NUMBER_WORD = r"\d{1,3}(?:\.\d)?|[零〇一二两三四五六七八九十百]{1,6}|an?|one|two|three|half\s+an?"
_duration_re = lazy(
    rf"^(?:(?:about|around|roughly|almost|nearly|over|under|just|only|大概|大约|差不多|将近|快)\s*)?"
    rf"(?:(?P<h>{_NUMBER_WORD})\s*(?:个\s*)?(?P<half>半)?\s*(?:hours?|hrs?|h|小时|钟头)"
    rf"(?:\s*(?:and\s+(?P<ah>a\s+half)|(?P<hm>\d{{1,2}}|[一二三四五六七八九十]{{1,3}})\s*(?:minutes?|mins?|分钟?)))?"
    rf"|(?P<halfh>半\s*个?\s*(?:小时|钟头))"
    rf"|(?P<m>\d{{1,3}}|[零〇一二两三四五六七八九十百]{{1,6}})\s*多?\s*(?:minutes?|mins?|分钟|分)?)"
    rf"(?:\s*(?:左右|多))?$",
    re.I,
)


def _amount(word: str) -> float | None:
    word = " ".join(word.lower().split())
    if re.fullmatch(r"\d{1,3}(?:\.\d)?", word):
        return float(word)
    if word.startswith("half"):
        return 0.5
    if word in NUMBERS:
        return float(NUMBERS[word])
    n = zh_number(word)
    return float(n) if n is not None else None


def minutes(text: str) -> str | None:
    """A duration as whole minutes in digits: "四十分钟" '40', "半小时" '30', "an hour" '60'."""
    m = _duration_re().match(text.strip())
    if m is None:
        return None
    if m["halfh"]:
        return "30"
    if m["m"]:
        n = _amount(m["m"])
        return str(int(n)) if n is not None and 0 < n < 1000 else None
    hours = _amount(m["h"])
    if hours is None:
        return None
    if m["half"] or m["ah"]:
        hours += 0.5
    extra = _amount(m["hm"]) if m["hm"] else 0.0
    total = round(hours * 60 + (extra or 0))
    return str(total) if 0 < total < 1000 else None
