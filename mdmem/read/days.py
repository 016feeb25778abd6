"""Days, months and years as an answer says them, in the question's language: '7 May 2023',
'May 2023', '2023'; '2023年5月7日', '2023年5月', '2023年'. The one place answers word a date."""

from __future__ import annotations

from datetime import date

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December")  # fmt: skip


WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_ZH_WEEKDAYS = "一二三四五六日"


def day_text(day: str, lang: str, *, weekday: bool = False) -> str:
    """'7 May 2023' / '2023年5月7日'; with `weekday` 'Sunday, 7 May 2023' / '2023年5月7日（星期日）'."""
    d = date.fromisoformat(day[:10])
    if lang == "zh":
        return f"{d.year}年{d.month}月{d.day}日" + (f"（星期{_ZH_WEEKDAYS[d.weekday()]}）" if weekday else "")
    return (f"{WEEKDAYS[d.weekday()]}, " if weekday else "") + f"{d.day} {MONTHS[d.month - 1]} {d.year}"


def month_text(year: int, month: int, lang: str) -> str:
    """'May 2023' / '2023年5月'."""
    return f"{year}年{month}月" if lang == "zh" else f"{MONTHS[month - 1]} {year}"


# The three months a season said in words stands for ('last summer': June to August).
_SEASONS = {3: ("spring", "春天"), 6: ("summer", "夏天"), 9: ("fall", "秋天"), 12: ("winter", "冬天")}


def period_text(start: str, through: str | None, lang: str) -> str:
    """A span of time as a person says it, from its first day and the day after its last
    (None: one day): a year, a month, 'the week of 7 May 2023', or a day."""
    first = date.fromisoformat(start)
    days = (date.fromisoformat(through) - first).days if through else 1
    if days >= 365 and first.month == 1 and first.day == 1:
        return f"{first.year}年" if lang == "zh" else str(first.year)
    if 89 <= days <= 92 and first.day == 1 and first.month in _SEASONS:  # 'last summer'
        season = _SEASONS[first.month][lang == "zh"]
        return f"{first.year}年{season}" if lang == "zh" else f"{season} {first.year}"
    if 28 <= days <= 31 and first.day == 1:
        return month_text(first.year, first.month, lang)
    if days > 31 and first.day == 1:  # several months: the first and the last
        last = date.fromordinal(first.toordinal() + days - 1)
        return f"{month_text(first.year, first.month, lang)} – {month_text(last.year, last.month, lang)}"
    if days == 7:
        return f"{day_text(start, lang)}那一周" if lang == "zh" else f"the week of {day_text(start, lang)}"
    return day_text(start, lang)


def notation_text(text: str, lang: str) -> str:
    """A date in the vault's notation ('2023-05-07', '2023-05', '2023', or a span of two of them
    joined by '/') as said: '7 May 2023', 'May 2023 – June 2023'. Anything else as written."""
    first, _, last = text.partition("/")
    return _one(first, lang) + (f" – {_one(last, lang)}" if last else "")


def _one(text: str, lang: str) -> str:
    try:
        if len(text) == 10:
            return day_text(text, lang)
        if len(text) == 7:
            return month_text(int(text[:4]), int(text[5:]), lang)
        if len(text) == 4 and text.isdigit():
            return f"{text}年" if lang == "zh" else text
    except (ValueError, IndexError):
        pass
    return text
