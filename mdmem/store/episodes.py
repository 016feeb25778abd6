"""Episode files in a vault: built from the messages an ingest applies, merged with what the
person left in the file (a forget's cuts are `store.redaction`'s).

Every function here returns vault-relative (path, new text) pairs for the caller's transaction;
nothing is written directly, so an ingest's facts and episodes land together or not at all.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mdmem.errors import FactFileError
from mdmem.files import sha256
from mdmem.model.episode import Episode, Said, episode_path, parse, render
from mdmem.model.factfile import Fact

if TYPE_CHECKING:  # the transcript readers: only when episodes are written (ingest)
    from mdmem.extract.transcript import Message

FORGOTTEN = "[forgotten]"


def message_id(position: int, m: Message) -> str:
    """A message's identity in its source: its position, and a hash of who said what when
    (the part that says whether it was applied before, wherever it now stands)."""
    return f"{position}:{sha256(chr(0).join((m.speaker, m.time or '', m.text)))[:10]}"


@dataclass
class EpisodeOps:
    """The episode files an ingest writes, and the files it had to leave alone."""

    ops: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def build_episodes(
    messages: Iterable[tuple[int, Message]],
    *,
    source: str,
    digest: str,
    default_date: str,
    journal_id: str | None,
    existing: Callable[[str], str | None],
    title: str | None = None,
) -> EpisodeOps:
    """The episode files for newly applied human messages, (position, message) in order.

    Pass only the messages this ingest applies (ingest knows which it applied before): a
    message the person deleted from an episode must never come back with a re-run.

    A session's file that exists is the base: its messages (as the person may have edited or
    deleted them) stay, new messages are appended, and a message already there is not added
    again. A base that does not parse is left alone and reported.
    """
    from mdmem.extract.transcript import is_human_role

    by_day: dict[str, list[tuple[int, Message]]] = {}
    for pos, m in messages:
        if is_human_role(m.role) and m.text.strip():
            by_day.setdefault((m.time or default_date)[:10], []).append((pos, m))
    out = EpisodeOps()
    for day, items in sorted(by_day.items()):
        rel = episode_file(day, source, existing, title)
        text = existing(rel)
        try:
            ep = parse(text, rel) if text is not None else Episode(source, digest, day, [], title=title)  # fmt: skip
        except FactFileError as e:
            out.notes.append(f"{e}; its new messages were not added, fix the file by hand")
            continue
        have = {s.anchor for s in ep.messages}
        for pos, m in items:
            anchor = f"m{pos}"
            if anchor not in have:
                ep.messages.append(Said(anchor, m.speaker, m.time, m.text))
        ep.speakers = sorted({*ep.speakers, *(s.speaker for s in ep.messages)})
        ep.sha256, ep.journal = digest, journal_id
        new = render(ep)
        if new != text:
            out.ops.append((rel, new))
    return out


def episode_file(day: str, source: str, existing: Callable[[str], str | None],
                 title: str | None = None) -> str:  # fmt: skip
    """The episode file of a source's day; another source's file of that day is left alone."""
    rel = episode_path(day, source, title)
    text = existing(rel)
    if text is not None and _source_of(text) not in (None, source):
        rel = rel.removesuffix(".md") + f"-{sha256(source)[:6]}.md"
    return rel


def _source_of(text: str) -> str | None:
    m = re.search(r"^source: (.+)$", text, re.M)
    return m[1].strip().strip("'\"") if m else None


def fact_values(fact: Fact) -> list[str]:
    """Every value a fact holds or held: what forgetting it must remove from what was said."""
    out: list[str] = []
    for v in [fact.value, *(h.get("value") for h in fact.history)]:
        for item in v if isinstance(v, list) else [v]:
            if isinstance(item, str) and item.strip() and item not in out:
                out.append(item)
    return out


def redact_text(text: str, phrases: Iterable[str]) -> str:
    """Every occurrence of each phrase (any case) replaced by '[forgotten]', longest first."""
    return replace_phrases(text, longest_first(phrases))


def longest_first(phrases: Iterable[str]) -> list[str]:
    """The phrases to redact, blanks dropped, longest first (a phrase inside another goes after)."""
    return sorted({p for p in phrases if p.strip()}, key=lambda p: (-len(p), p))


def replace_phrases(text: str, ordered: list[str]) -> str:
    """`redact_text` with the phrases already put in order by `longest_first`."""
    for phrase in ordered:
        text = re.sub(re.escape(phrase), FORGOTTEN, text, flags=re.I)
    return text
