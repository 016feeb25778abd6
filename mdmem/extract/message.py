"""One turn of a conversation, who said it, and when: what every transcript reader returns."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, timezone

USER, ASSISTANT, PERSON = "user", "assistant", "person"

# Speaker names (text) and roles (JSON) share one vocabulary, matched case-insensitively.
_USER_NAMES = frozenset({"user", "human", "me", "you", "用户", "我", "人类"})
_ASSISTANT_NAMES = frozenset(
    {"assistant", "ai", "bot", "system", "model", "chatgpt", "claude", "gemini", "copilot"}
    | {"tool", "function", "developer", "助手", "助理", "ai助手", "系统", "机器人"}
)

DATE = r"(\d{4})\s*[-/.年]\s*(\d{1,2})\s*[-/.月]\s*(\d{1,2})(?:\s*日)?"
CLOCK = r"(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,]\d+)?)?"
STAMP = re.compile(rf"{DATE}(?:(?:T|\s+){CLOCK})?\s*(Z|UTC|[+-]\d{{2}}(?::?\d{{2}})?)?", re.I)


@dataclass(frozen=True)
class Message:
    """One turn of a transcript."""

    speaker: str
    role: str
    text: str
    time: str | None
    line: int
    session: int | None


def key(name: str) -> str:
    """A speaker name as compared: case and runs of blanks do not matter."""
    return " ".join(name.casefold().split())


def role_for_speaker(name: str) -> str:
    """Map a speaker name or JSON role to "user", "assistant" or "person"."""
    k = key(name)
    if k in _USER_NAMES:
        return USER
    return ASSISTANT if k in _ASSISTANT_NAMES else PERSON


def is_user_role(role: str) -> bool:
    """True for the assistant's user (the vault's owner)."""
    return role == USER


def is_human_role(role: str) -> bool:
    """True for turns said by a human (the user or a named person), whose statements are facts."""
    return role in (USER, PERSON)


def normalize_time(value: str) -> str:
    """Turn an ISO-like date or datetime into 'YYYY-MM-DD' or 'YYYY-MM-DDTHH:MM:SS' (UTC if zoned)."""
    m = STAMP.fullmatch(value.strip())
    if m is None:
        raise ValueError(f"{value!r} is not a date: use YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS")
    return stamp(m.groups(), value)


def time_or_none(value: object) -> str | None:
    """`normalize_time` of a text an export gives, or None when it is no time at all."""
    if not isinstance(value, str):
        return None
    try:
        return normalize_time(value)
    except ValueError:
        return None


def from_epoch(seconds: float) -> str:
    """Seconds since the epoch (milliseconds too, told by their size) as 'YYYY-MM-DDTHH:MM:SS' UTC."""
    if seconds > 1e11:
        seconds /= 1000
    return datetime.fromtimestamp(int(seconds), UTC).replace(tzinfo=None).isoformat()


def stamp(groups: tuple[str | None, ...], raw: str) -> str:
    """The groups of a STAMP match (year … zone) as a normalized date or datetime."""
    y, mo, d, hh, mm, ss, zone = groups
    try:
        day = date(int(y or 0), int(mo or 0), int(d or 0))
        if hh is None:
            return day.isoformat()
        moment = datetime.combine(day, time(int(hh), int(mm or 0), int(ss or 0)))
        if zone:
            moment = moment.replace(tzinfo=_zone(zone)).astimezone(UTC).replace(tzinfo=None)
    except (ValueError, OverflowError):
        raise ValueError(f"{raw.strip()!r} is not a valid date or time") from None
    return moment.isoformat()


def _zone(zone: str) -> timezone:
    if zone.upper() in ("Z", "UTC"):
        return UTC
    digits = zone[1:].replace(":", "")
    offset = timedelta(hours=int(digits[:2]), minutes=int(digits[2:] or 0))
    return timezone(-offset if zone[0] == "-" else offset)
