"""Episode files: what the people said in one session, kept verbatim, one paragraph per message.

An episode is the layer under the facts: whatever no pattern or model could structure is still
kept, dated and attributed, so it can be quoted later. The format is plain Markdown that
Obsidian and any editor read::

    ---
    source: chats/2023-05-08.md
    sha256: 3f5a…
    date: '2023-05-08'
    speakers:
    - Caroline
    - Melanie
    journal: 20230508T135600-1a2b3c
    ---
    **Caroline** · 2023-05-08T13:56:00 ^m1

    I went to a LGBTQ support group yesterday.

    **Melanie** · 2023-05-08T13:57:00 ^m2

    That's great!

Each message is a header paragraph (speaker, time, and an Obsidian block id that a fact's
evidence link points at) followed by the message exactly as said, blank lines and quotes
included. A message line that would read as a header is escaped with one leading backslash,
so rendering and parsing are exact inverses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from typing import Any

import yaml

from mdmem.errors import FactFileError
from mdmem.model.slug import slugify
from mdmem.model.yaml_text import dump_yaml, load_yaml

FIELDS = ("source", "sha256", "date", "speakers", "journal")
NO_TIME = "—"
_HEADER = re.compile(r"^\*\*(?P<speaker>.+)\*\* · (?P<time>\S+) \^(?P<anchor>m\d+)$")
_ESCAPED = re.compile(r"^\\+\*\*.+\*\* · \S+ \^m\d+$")
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_TIME = re.compile(r"\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?")


@dataclass(frozen=True)
class Said:
    """One message as kept in an episode."""

    anchor: str  # 'm3': the block id a fact's evidence link names
    speaker: str
    time: str | None  # 'YYYY-MM-DD' or 'YYYY-MM-DDTHH:MM:SS', as the transcript gave it
    text: str  # exactly as said


@dataclass
class Episode:
    """One session of one source."""

    source: str
    sha256: str
    date: str
    speakers: list[str]
    journal: str | None = None
    messages: list[Said] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)  # keys a person added, kept as written


def episode_path(date: str, source: str) -> str:
    """'episodes/2023/2023-05-08-<source slug>.md' for a session of a source."""
    if not _DAY.match(date):
        raise ValueError(f"episode date {date!r} is not YYYY-MM-DD")
    stem = source.rsplit("/", 1)[-1].rsplit(".", 1)[0] if "/" in source or "." in source else source
    name = slugify(stem) or "chat"
    if not name.startswith(date):
        name = f"{date}-{name}"
    return f"episodes/{date[:4]}/{name[:80]}.md"


def render(ep: Episode) -> str:
    """The episode's file text: frontmatter, then each message's header and body."""
    data: dict[str, Any] = {
        "source": ep.source, "sha256": ep.sha256, "date": ep.date,
        "speakers": list(ep.speakers),
    }  # fmt: skip
    if ep.journal:
        data["journal"] = ep.journal
    for key in sorted(ep.extra):
        if key not in FIELDS:
            data[key] = ep.extra[key]
    parts = ["---\n" + dump_yaml(data) + "---\n"]
    for m in ep.messages:
        if "\n" in m.speaker or not m.speaker.strip():
            raise ValueError(f"speaker {m.speaker!r} cannot head a message")
        body = "\n".join("\\" + ln if _HEADER.match(ln) or _ESCAPED.match(ln) else ln
                         for ln in m.text.split("\n"))  # fmt: skip
        parts.append(f"**{m.speaker}** · {m.time or NO_TIME} ^{m.anchor}\n\n{body}\n")
    return "\n".join(parts)


def parse(text: str, path: str = "<episode>") -> Episode:
    """Parse an episode file; raise FactFileError naming the line and the fix."""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    lines = text.split("\n")
    if not lines or lines[0].rstrip() != "---":
        raise FactFileError("does not start with a '---' frontmatter line", path=path, line=1)
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].rstrip() == "---")
    except StopIteration:
        raise FactFileError("the frontmatter has no closing '---' line", path=path) from None
    try:
        data = load_yaml("\n".join(lines[1:end])) or {}
    except yaml.YAMLError as e:
        mark = getattr(e, "context_mark", None) or getattr(e, "problem_mark", None)
        line = mark.line + 2 if mark is not None else None
        raise FactFileError(
            "invalid YAML in the frontmatter; fix the syntax", path=path, line=line
        ) from None
    if not isinstance(data, dict):
        raise FactFileError("the frontmatter must be a mapping", path=path, line=2)
    for key in ("source", "sha256", "date"):
        if not isinstance(data.get(key), str):
            raise FactFileError(f"'{key}' is missing or not text", path=path, line=2)
    if not _is_day(data["date"]):
        at = next((i + 1 for i, ln in enumerate(lines[:end]) if ln.startswith("date:")), 2)
        raise FactFileError(f"'date' is {data['date']!r}, not a day: write it like '2026-02-10'", path=path, line=at)  # fmt: skip
    speakers = data.get("speakers") or []
    if not isinstance(speakers, list) or not all(isinstance(s, str) for s in speakers):
        raise FactFileError("'speakers' must be a list of names", path=path, line=2)
    journal = data.get("journal")
    ep = Episode(
        source=data["source"], sha256=data["sha256"], date=data["date"], speakers=speakers,
        journal=str(journal) if journal is not None else None,
        extra={k: v for k, v in data.items() if k not in FIELDS},
    )  # fmt: skip
    ep.messages = _messages(lines[end + 1 :], path, end + 2)
    return ep


def _is_day(text: str) -> bool:
    try:
        return bool(_DAY.match(text)) and date.fromisoformat(text).isoformat() == text
    except ValueError:
        return False


def _messages(lines: list[str], path: str = "<episode>", first: int = 1) -> list[Said]:
    """Headers start messages when a blank line (or the frontmatter) stands before them; a
    header's time must be a time (`first`: the file's line of lines[0], for the error)."""
    starts = [
        i for i, ln in enumerate(lines) if _HEADER.match(ln) and (i == 0 or lines[i - 1] == "")
    ]
    out = []
    for n, i in enumerate(starts):
        m = _HEADER.match(lines[i])
        assert m is not None
        stop = starts[n + 1] - 1 if n + 1 < len(starts) else len(lines)
        body = lines[i + 1 : stop]
        if body and body[0] == "":
            body = body[1:]
        while body and body[-1] == "":
            body.pop()
        text = "\n".join(ln[1:] if _ESCAPED.match(ln) else ln for ln in body)
        time = None if m["time"] == NO_TIME else m["time"]
        if time is not None and not (_TIME.fullmatch(time) and _is_day(time[:10])):
            raise FactFileError(f"the time {time!r} is not a time: write it like 2026-02-10T09:30:00, or {NO_TIME} for none", path=path, line=first + i)  # fmt: skip
        out.append(Said(m["anchor"], m["speaker"], time, text))
    return out
