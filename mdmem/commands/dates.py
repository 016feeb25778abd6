"""Dates given as options: a day, a month or a year (2025-06-01, 2025-06, 2025), or words
("yesterday", "last month", "2 weeks ago", "上个月").

A day, month or year in digits is read here, strictly (2025-13 is refused, never guessed).
Words go to dateparser, a maintained parser for both languages, imported only when an option
holds words: a plain `mdmem ask` never pays for it. The same phrases are resolved by
extract/dates.py for message text; tests/commands/test_option_dates.py holds both to one
table.
"""

from __future__ import annotations

import calendar
import re
from datetime import date, datetime

from mdmem.errors import MdmemError
from mdmem.store.vault import utc_now

_DIGITS = re.compile(r"^(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?$")
HINT = "write it like 2025-06-01, 2025-06, 2025 or 'last month'"


def span(value: str, option: str, now: str | None = None) -> tuple[str, str]:
    """(first day, last day) of the time an option names, both ISO; MdmemError naming the
    option when it names none."""
    text = " ".join(value.split())
    m = _DIGITS.match(text)
    if m:
        return _digits(m, value, option)
    if not text or text[:1].isdigit() and "-" in text and not re.search(r"[a-zA-Z\u4e00-\u9fff]", text):
        raise MdmemError(f"{option} {value!r} is not a date; {HINT}")
    return _words(text, value, option, now or utc_now())


def _digits(m: re.Match[str], value: str, option: str) -> tuple[str, str]:
    year, month, day = int(m.group(1)), m.group(2), m.group(3)
    if month is None:
        return f"{year:04d}-01-01", f"{year:04d}-12-31"
    if not 1 <= int(month) <= 12:
        raise MdmemError(f"{option} {value!r}: there is no month {int(month)}; {HINT}")
    last = calendar.monthrange(year, int(month))[1]
    if day is None:
        return f"{year:04d}-{int(month):02d}-01", f"{year:04d}-{int(month):02d}-{last:02d}"
    if not 1 <= int(day) <= last:
        raise MdmemError(f"{option} {value!r}: {year:04d}-{int(month):02d} has no day {int(day)}; {HINT}")
    d = date(year, int(month), int(day)).isoformat()
    return d, d


def _words(text: str, value: str, option: str, now: str) -> tuple[str, str]:
    from dateparser.date import DateDataParser  # ~0.2 s: only for an option written in words

    base = datetime.fromisoformat(now.replace("Z", "+00:00")).replace(tzinfo=None)
    parser = DateDataParser(
        languages=["en", "zh"],
        settings={"RELATIVE_BASE": base, "PREFER_DATES_FROM": "past", "RETURN_TIME_AS_PERIOD": True},
    )
    found = parser.get_date_data(text)
    if found is None or found.date_obj is None:
        raise MdmemError(f"{option} {value!r} is not a date I can read; {HINT}")
    d = found.date_obj.date()
    period = found.period or "day"
    if period == "year":
        return f"{d.year:04d}-01-01", f"{d.year:04d}-12-31"
    if period == "month":
        last = calendar.monthrange(d.year, d.month)[1]
        return f"{d.year:04d}-{d.month:02d}-01", f"{d.year:04d}-{d.month:02d}-{last:02d}"
    return d.isoformat(), d.isoformat()


def first_day(value: str | None, option: str) -> str | None:
    """The first day of the time an option names (`--since`, `--date`)."""
    return None if value is None else span(value, option)[0]


def last_day(value: str | None, option: str) -> str | None:
    """The last day of the time an option names (`--as-of`, `--until`): 'as of June 2025' is
    as of its end."""
    return None if value is None else span(value, option)[1]
