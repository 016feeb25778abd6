"""Dates said in passing ("from 2019 to 2021", "last year", "2024年3月起"), resolved to ISO days."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta

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
_NUM = {
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
    r"|(?P<rel>yesterday|last\s+(?:week|month|year|spring|summer|fall|autumn|winter)"
    r"|(?P<ago_n>\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten)\s+"
    r"(?P<ago_u>day|week|month|year)s?\s+ago"
    r"|昨天|前天|上周|上个?星期|上个?礼拜|上个月|去年|前年"
    r"|(?P<zh_n>\d+|[一两二三四五六七八九十半])\s*(?P<zh_u>天|周|个星期|个月|年)(?:以)?前))"
)
_POINT_RE = re.compile(_POINT, re.I)
_PERIOD_RE = re.compile(
    rf"(?:\bfrom|\bbetween|从|自)\s*(?P<a>{_POINT.replace('?P<', '?P<a_')})\s*"
    rf"(?:to|until|till|through|and|-|–|—|到|至)\s*"
    rf"(?P<b>{_POINT.replace('?P<', '?P<b_')}|now|today|present|现在|今天)",
    re.I,
)
_SINCE_RE = re.compile(
    rf"(?:\bsince|\bstarting(?:\s+in)?|\bas\s+of|自从?|从)\s*(?P<a>{_POINT.replace('?P<', '?P<a_')})"
    rf"|(?P<z>{_POINT.replace('?P<', '?P<z_')})\s*(?:起|开始|以来)",
    re.I,
)
# Cheap test before the big expressions: a digit, a month name or a relative word.
_ANY = re.compile(rf"\d|{_MONTH}|yesterday|last\s|ago\b|[昨前去上]", re.I)


@dataclass(frozen=True)
class When:
    """A statement's time: when it began and, for a closed period, when it ended."""

    start: str
    end: str | None = None
    open_start: bool = False  # "since …" / "…起": the value still holds


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
    except ValueError:
        return None  # "31 February 2024": not a date
    rel = g("rel")
    if rel:
        return _relative(" ".join(rel.lower().split()), g, ref)
    return None


def _relative(rel: str, g: Callable[[str], str | None], ref: date) -> date | None:
    last = rel.split()[-1] if rel.startswith("last") else ""
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
    n = int(n_raw) if n_raw.isdigit() else _NUM.get(n_raw.lower(), 1)
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
    if not _ANY.search(text):
        return None
    today = date.fromisoformat(ref[:10]) if ref else date.today()
    m = _PERIOD_RE.search(text)
    if m:
        start = _point(m.groupdict(), "a_", today)
        end_raw = m.group("b")
        if start is not None:
            if end_raw.lower() in ("now", "today", "present", "现在", "今天"):
                return When(start.isoformat(), None, True)
            end = _point(m.groupdict(), "b_", today)
            if end is not None and end > start:
                return When(start.isoformat(), end.isoformat())
    m = _SINCE_RE.search(text)
    if m:
        start = _point(m.groupdict(), "a_" if m.group("a") else "z_", today)
        if start is not None:
            return When(start.isoformat(), None, True)
    m = _POINT_RE.search(text)
    if m:
        start = _point(m.groupdict(), "", today)
        if start is not None:
            return When(start.isoformat())
    return None


def parse_date(text: str, ref: str | None) -> str | None:
    """One date phrase (a pattern's `date` group) as YYYY-MM-DD, or None."""
    found = find_when(text, ref)
    return found.start if found else None
