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
    **Caroline** · 2023-05-08T13:56:00

    I went to a LGBTQ support group yesterday. ^m1

    **Melanie** · 2023-05-08T13:57:00

    That's great! ^m2

Each message is a header paragraph (speaker and time) followed by the message exactly as said,
blank lines and quotes included, ending in the Obsidian block id a fact's evidence link points
at (`^m1`): at the end of its last line, so that a hover or an embed of the link shows what was
said; on a line of its own after a blank one when the message ends in a list, a quote, a table
or a code block. A message line that would read as a header is escaped with one leading
backslash, so rendering and parsing are exact inverses. Files written before the id moved
(`**Caroline** · 2023-05-08T13:56:00 ^m1`, the id on the header) are read as they are, and
written in the new layout when a message is added to them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any

from mdmem.errors import FactFileError
from mdmem.lazy_regex import lazy
from mdmem.model.slug import slugify

FIELDS = ("source", "title", "sha256", "date", "speakers", "journal")
NO_TIME = "—"
# A header; one written before the block id moved to the message carries it (` ^m3`).
_HEADER = lazy(r"^\*\*(?P<speaker>.+)\*\* · (?P<time>\S+)(?: \^(?P<anchor>m\d+))?$")
_ESCAPED = lazy(r"^\\+\*\*.+\*\* · \S+(?: \^m\d+)?$")
_TRAILING_ID = lazy(r"^(?P<text>.*) \^(?P<anchor>m\d+)$")
_OWN_LINE_ID = lazy(r"^\^(?P<anchor>m\d+)$")
# A last line the id cannot end: it would break the block or join the wrong one.
_NOT_PARAGRAPH = lazy(r"^(?: {4}|\t| {0,3}(?:```|~~~|\||>|#|[-*+](?:\s|$)|\d{1,9}[.)](?:\s|$)|<))|^\s*$")
_DAY = lazy(r"^\d{4}-\d{2}-\d{2}$")
_TIME = lazy(r"\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?")


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
    title: str | None = None  # an export's conversation title


def episode_path(date: str, source: str, title: str | None = None) -> str:
    """'episodes/2023/2023-05-08-<source slug>.md' for a session of a source; a conversation
    of an export (`chatgpt:<id>`) is named by its title and the start of its id."""
    if not _DAY().match(date):
        raise ValueError(f"episode date {date!r} is not YYYY-MM-DD")
    kind, colon, ident = source.partition(":")
    if colon and "/" not in kind and ident:
        name = "-".join(x for x in (slugify(title or "")[:60].strip("_-"), slugify(ident)[:8] or kind) if x)  # fmt: skip
    else:
        stem = source.rsplit("/", 1)[-1].rsplit(".", 1)[0] if "/" in source or "." in source else source  # fmt: skip
        name = slugify(stem) or "chat"
    if not name.startswith(date):
        name = f"{date}-{name}"
    return f"episodes/{date[:4]}/{name[:80]}.md"


def render(ep: Episode) -> str:
    """The episode's file text: frontmatter, then each message's header and body."""
    from mdmem.model.yaml_text import dump_yaml  # PyYAML only when an episode is written or read

    data: dict[str, Any] = {"source": ep.source}
    if ep.title:
        data["title"] = ep.title
    data.update({"sha256": ep.sha256, "date": ep.date, "speakers": list(ep.speakers)})
    if ep.journal:
        data["journal"] = ep.journal
    for key in sorted(ep.extra):
        if key not in FIELDS:
            data[key] = ep.extra[key]
    parts = ["---\n" + dump_yaml(data) + "---\n"]
    for m in ep.messages:
        if "\n" in m.speaker or not m.speaker.strip():
            raise ValueError(f"speaker {m.speaker!r} cannot head a message")
        lines = ["\\" + ln if _HEADER().match(ln) or _ESCAPED().match(ln) else ln
                 for ln in m.text.split("\n")]  # fmt: skip
        if not m.anchor:  # the person took the id out: it stays out
            pass
        elif _NOT_PARAGRAPH().match(lines[-1]):
            lines += ["", f"^{m.anchor}"]
        else:
            lines[-1] += f" ^{m.anchor}"
        parts.append(f"**{m.speaker}** · {m.time or NO_TIME}\n\n" + "\n".join(lines) + "\n")
    return "\n".join(parts)


def parse(text: str, path: str = "<episode>") -> Episode:
    """Parse an episode file; raise FactFileError naming the line and the fix."""
    import yaml

    from mdmem.model.yaml_text import error_at, load_yaml

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
        line, problem = error_at(e, "\n".join(lines[1:end]), first_line=2)
        raise FactFileError(
            f"invalid YAML in the frontmatter ({problem}); fix the syntax", path=path, line=line
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
    journal, title = data.get("journal"), data.get("title")
    ep = Episode(
        source=data["source"], sha256=data["sha256"], date=data["date"], speakers=speakers,
        journal=str(journal) if journal is not None else None,
        extra={k: v for k, v in data.items() if k not in FIELDS},
        title=str(title) if title is not None else None,
    )  # fmt: skip
    ep.messages = _messages(lines[end + 1 :], path, end + 2)
    return ep


def _is_day(text: str) -> bool:
    try:
        return bool(_DAY().match(text)) and date.fromisoformat(text).isoformat() == text
    except ValueError:
        return False


def _messages(lines: list[str], path: str = "<episode>", first: int = 1) -> list[Said]:
    """Headers start messages when a blank line (or the frontmatter) stands before them; a
    header's time must be a time (`first`: the file's line of lines[0], for the error)."""
    starts = [
        i for i, ln in enumerate(lines) if _HEADER().match(ln) and (i == 0 or lines[i - 1] == "")
    ]
    out = []
    for n, i in enumerate(starts):
        m = _HEADER().match(lines[i])
        assert m is not None
        stop = starts[n + 1] - 1 if n + 1 < len(starts) else len(lines)
        body = lines[i + 1 : stop]
        if body and body[0] == "":
            body = body[1:]
        while body and body[-1] == "":
            body.pop()
        anchor = m["anchor"]
        if anchor is None:  # the id ends the message: on its last line, or on a line of its own
            anchor, body = _take_id(body)
        text = "\n".join(ln[1:] if _ESCAPED().match(ln) else ln for ln in body)
        time = None if m["time"] == NO_TIME else m["time"]
        if time is not None and not (_TIME().fullmatch(time) and _is_day(time[:10])):
            raise FactFileError(f"the time {time!r} is not a time: write it like 2026-02-10T09:30:00, or {NO_TIME} for none", path=path, line=first + i)  # fmt: skip
        out.append(Said(anchor, m["speaker"], time, text))
    return out


def _take_id(body: list[str]) -> tuple[str, list[str]]:
    """The block id that ends a message, and its lines without it ('' when the person took it out)."""
    if body and (own := _OWN_LINE_ID().match(body[-1])):
        body = body[:-1]
        if body and body[-1] == "":
            body = body[:-1]
        return own["anchor"], body
    if body and (end := _TRAILING_ID().match(body[-1])):
        return end["anchor"], [*body[:-1], end["text"]]
    return "", body
