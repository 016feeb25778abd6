"""Forget requests said in a conversation, honoured before anything is written.

For each request in a new message (`extract.forget_requests`) this finds what it points at:
- "delete that": the statement just made, in the same message before the request, else in the
  message before; when that sentence holds more than one thing it could mean (two statements,
  or a statement and other details), or nothing the rules read, the whole sentence goes, and
  the ingest says so;
- "off the record: …", "don't save this, but …": what follows it in the message;
- "forget my phone number": the fact, and its statements before the request;
- "forget what I said about my ex": the sentences before it (this message and the one before)
  that mention it;
- "forget everything about me": nothing is done; the ingest says which command would do it.
The new messages' words are cut before the finder reads them (so no fact, journal line, model
request or episode ever holds them); words in messages applied before, and facts already kept,
go through the one forget path (`store.forget_apply`).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from mdmem.edit.forget import scrubbing
from mdmem.edit.new_messages import NewMessages
from mdmem.engine.decide import Plan, Statement
from mdmem.extract.forget_requests import Request, find_requests
from mdmem.extract.speakers import speaker_entities
from mdmem.extract.transcript import Message, is_human_role
from mdmem.model.factfile import Fact
from mdmem.model.rules import Rules
from mdmem.store.episodes import FORGOTTEN
from mdmem.store.forget_apply import Forgot, forget_facts
from mdmem.store.statements import (
    Reader,
    Span,
    Stated,
    evidence_place,
    sentence_spans,
    subtract,
    trimmed,
    word_spans,
)
from mdmem.store.vault import Vault

MAX_REQUESTS = 200  # per message: a wall of "delete that" is read for its first requests only
# Words with nothing to forget in them: "ok", "never mind", "算了", "对了".
_FILLER = re.compile(
    r"^[\s\W]*(?:(?:ok(?:ay)?|oh|ah|um+|uh+|hmm+|well|wait|sorry|actually|anyway|so|and|but|also|yeah|yes|no"
    r"|please|never\s*mind|nevermind|oops|hey|right|alright|fine|thanks?|thank\s+you|lol"
    r"|算了|哦|嗯|啊|呃|那|还是|对了|其实|唉|哎|好吧|好的|好|行|那个|就是|不过|另外|还有|然后)[\s\W]*)*$",
    re.I,
)
# A detail worth keeping secret, outside any statement: digits, an address, a name, a code.
_DETAIL = re.compile(r"\d|[@#/]|[零一二三四五六七八九十百千万亿两]|(?<![.!?]\s)(?<!^)\b(?!I\b)[A-Z][a-z]+|[A-Z]{2,}")


@dataclass
class Requested:
    """What the requests of one ingest point at."""

    texts: dict[int, str] = field(default_factory=dict)  # position → its text with the cuts made
    episode_cuts: dict[int, list[str]] = field(default_factory=dict)  # applied before: words to cut
    wanted: dict[str, set[str] | None] = field(default_factory=dict)  # facts to forget
    lines: dict[str, int] = field(default_factory=dict)  # fact → the line that asked for it
    unknown: list[tuple[str, int]] = field(default_factory=list)  # named, but never kept: (fact, line)
    notes: list[str] = field(default_factory=list)  # what the person must be told
    requests: int = 0

    def messages(self, messages: list[Message]) -> list[Message]:
        """The transcript with the cuts made."""
        return [replace(m, text=self.texts[p]) if p in self.texts else m for p, m in enumerate(messages, 1)]


def plan_requests(messages: list[Message], new: list[int], rules: Rules, facts: Mapping[str, Fact],
                  *, applied: Iterable[int] = ()) -> Requested:  # fmt: skip
    """The cuts and forgets the requests in the new messages (1-based positions) ask for;
    `applied` are positions an earlier ingest kept in an episode."""
    return _Planner(messages, rules, facts).run(new, set(applied))


class _Planner:
    def __init__(self, messages: list[Message], rules: Rules, facts: Mapping[str, Fact]) -> None:
        self.messages = messages
        self.facts = facts
        self.reader = Reader(rules, {f.attribute for f in facts.values()})
        self.entities = speaker_entities(messages)
        self.humans = [p for p, m in enumerate(messages, 1) if is_human_role(m.role) and m.text.strip()]
        self._stated: dict[int, list[Stated]] = {}
        self.out = Requested()

    def said(self, pos: int) -> list[Stated]:
        """The statements of the message at a position (read once)."""
        if pos not in self._stated:
            m = self.messages[pos - 1]
            self._stated[pos] = self.reader.statements(m.text, self.entity(m))
        return self._stated[pos]

    def entity(self, m: Message) -> str:
        return self.entities.get(m.speaker.casefold(), "user")

    def run(self, new: list[int], applied: set[int]) -> Requested:
        spans: dict[int, list[Span]] = {}
        for pos in new:
            if pos not in self.humans:
                continue
            m = self.messages[pos - 1]
            found = find_requests(m.text, self.reader.resolver)[:MAX_REQUESTS]
            self.out.requests += len(found)
            gap_from, after_request = 0, False
            for r in found:
                if r.kind == "that" and after_request and _FILLER.match(m.text[gap_from : r.start]):
                    gap_from = r.end  # "scrap that, I'd rather you not keep it": the same target
                    continue
                targets = self.targets(r, pos, gap_from)
                for tpos, span in targets:
                    spans.setdefault(tpos, []).append(span)
                    self.forget_said(tpos, span, m.line)
                if r.kind in ("that", "this", "about") and not targets:
                    self.out.notes.append(f"L{m.line}: a request to forget, but nothing said before it to forget")
                gap_from, after_request = r.end, True
        for pos, cut_spans in spans.items():
            text = self.messages[pos - 1].text
            merged = trimmed(text, subtract(cut_spans, []))
            self.out.texts[pos] = _cut(text, merged)  # what the finder reads, context included
            if pos in applied and merged:
                self.out.episode_cuts[pos] = [text[a:b] for a, b in merged]
        return self.out

    def previous(self, pos: int) -> int | None:
        earlier = [p for p in self.humans if p < pos]
        return earlier[-1] if earlier else None

    def targets(self, r: Request, pos: int, gap_from: int) -> list[tuple[int, Span]]:
        """(position, span) of every message part a request points at."""
        m = self.messages[pos - 1]
        if r.kind == "all":
            self.out.notes.append(
                f"L{m.line}: a request to forget everything: not carried out from a conversation;"
                " `mdmem forget --all --dry-run` shows what would go, `mdmem forget --all` forgets it"
            )
            return []
        if r.kind == "named":
            return self.named(r, pos)
        if r.kind == "about":
            return self.about(r, pos)
        if r.kind == "this":
            ahead = _after(m.text, r.end)
            if ahead is not None:
                return [(pos, ahead)]
        # "that": the words just said, in this message, else in the message before
        area = (gap_from, r.start)
        if _FILLER.match(m.text[area[0] : area[1]]):
            before = self.previous(pos)
            if before is None:
                return []
            pos, area = before, (0, len(self.messages[before - 1].text))
        text = self.messages[pos - 1].text
        span, clear = _last_said(text, area, self.said(pos))
        if not clear:
            self.out.notes.append(
                f"L{m.line}: a forget request: not clear which words it means; the whole sentence"
                f" before it (L{self.messages[pos - 1].line}) was redacted"
            )
        return [(pos, span)]

    def named(self, r: Request, pos: int) -> list[tuple[int, Span]]:
        """A named slot: the fact is forgotten, with its statements made before the request."""
        key = f"{self.entity(self.messages[pos - 1])}/{r.attribute}"
        fact = self.facts.get(key)
        hits = [(p, s.span) for p in self.humans if p <= pos for s in self.said(p)
                if s.key == key and (p < pos or s.core[1] <= r.start)]  # fmt: skip
        if fact is not None and fact.status != "deleted":
            self.out.wanted[key] = None
            self.out.lines.setdefault(key, self.messages[pos - 1].line)
        else:
            self.out.unknown.append((key, self.messages[pos - 1].line))
        if not hits and key not in self.out.wanted:
            line = self.messages[pos - 1].line
            self.out.notes.append(f"L{line}: a request to forget {r.words or r.attribute}, but nothing about it is kept")
        return hits

    def about(self, r: Request, pos: int) -> list[tuple[int, Span]]:
        """Words no rule names: the sentences before the request that say them."""
        words = re.sub(r"^(?:my|our|the|a|an|我的|我们的)\s*", "", r.words.strip(), flags=re.I)
        out: list[tuple[int, Span]] = []
        before = self.previous(pos)
        for p, limit in ((before, None), (pos, r.start)):
            if p is None or not words:
                continue
            text = self.messages[p - 1].text
            for a, b in sentence_spans(text):
                b = min(b, limit) if limit is not None else b
                if a < b and word_spans(text[a:b], words):
                    out.append((p, (a, b)))
        return out

    def forget_said(self, pos: int, span: Span, line: int) -> None:
        """A fact kept from a statement inside a cut span loses the value it said."""
        for s in self.said(pos):
            if not (span[0] <= s.core[0] and s.core[1] <= span[1]):
                continue
            fact = self.facts.get(s.key)
            if fact is None or fact.status == "deleted" or (s.key in self.out.wanted and self.out.wanted[s.key] is None):
                continue
            held = [v for v in [fact.value, *(h.get("value") for h in fact.history)] if isinstance(v, str)]
            said = [v for v in held if self.reader.states(s, s.key, [v])]
            if said:
                wanted = self.out.wanted.setdefault(s.key, set())
                assert wanted is not None
                wanted.update(said)
                self.out.lines.setdefault(s.key, line)


def _last_said(text: str, area: Span, stated: list[Stated]) -> tuple[Span, bool]:
    """The words a "that" points at in area: the one statement of the sentence before the
    request, or the whole sentence (False: it was not clear)."""
    sentences = [(max(a, area[0]), min(b, area[1])) for a, b in sentence_spans(text) if b > area[0] and a < area[1]]
    sentences = [s for s in sentences if text[s[0] : s[1]].strip(" \t\n,;:，；：、—–-") and not _FILLER.match(text[s[0] : s[1]])]
    if not sentences:
        return area, False
    chosen = [sentences[-1]]
    while len(chosen) < len(sentences) and not _informative(text, chosen[0], stated):
        chosen.insert(0, sentences[-len(chosen) - 1])  # "My PIN is 1234. I use it everywhere."
    lo, hi = chosen[0][0], chosen[-1][1]
    inside = [s for s in stated if lo <= s.core[0] and s.core[1] <= hi]
    if len(chosen) == 1 and len(inside) == 1:
        loose = subtract([(lo, hi)], [inside[0].span])
        if not any(_DETAIL.search(text[a:b]) for a, b in loose):
            return _to_end(text, inside[0].span, hi), True
    return (lo, hi), bool(inside) and len(chosen) == 1 and len(inside) == 1


def _to_end(text: str, span: Span, hi: int) -> Span:
    """A statement's span, with what trails it up to the request ("…, it's at the gym")."""
    rest = text[span[1] : hi]
    return (span[0], hi) if rest.strip(" \t,;:.!?，；：。！？") else span


def _informative(text: str, span: Span, stated: list[Stated]) -> bool:
    return any(span[0] <= s.core[0] < span[1] for s in stated) or bool(_DETAIL.search(text[span[0] : span[1]]))


def _after(text: str, at: int) -> Span | None:
    """What follows a request in its sentence, else the next sentence, else None."""
    sentences = sentence_spans(text)
    rest = [(max(a, at), b) for a, b in sentences if b > at]
    for a, b in rest:
        if text[a:b].strip(" \t\n,;:.!?，；：。！？—–-"):
            return a, b
    return None


def _cut(text: str, spans: list[Span]) -> str:
    for a, b in sorted(spans, reverse=True):
        text = text[:a] + FORGOTTEN + text[b:]
    return text


@dataclass
class Honoured:
    """What an ingest did for the requests in its new messages."""

    step: NewMessages  # the messages with the cuts made (their identities as said)
    notes: list[str] = field(default_factory=list)
    forgot: Forgot | None = None  # the forget of facts and earlier words, its own journal entry
    noops: list[tuple[Statement, str]] = field(default_factory=list)  # named, but never kept

    def plan(self) -> Plan:
        """What the requests decided, for the ingest's own account of it."""
        done = self.forgot.plan if self.forgot is not None else Plan()
        return Plan(list(done.changes), [*done.decisions, *self.noops])


def honour(vault: Vault, step: NewMessages, facts: Mapping[str, Fact], default_date: str, *,
           dry_run: bool) -> Honoured:  # fmt: skip
    """Find the new messages' requests, cut their words, and forget what they ask for."""
    new = set(step.new)
    req = plan_requests(step.messages, step.new, vault.rules, facts,
                        applied=[p for p in range(1, len(step.messages) + 1) if p not in new])  # fmt: skip
    out = Honoured(dataclasses.replace(step, messages=req.messages(step.messages)), req.notes)
    for key, line in req.unknown:
        entity, attribute = key.split("/", 1)
        st = Statement(entity, attribute, kind="forget", at=default_date, source=f"{step.source}#L{line}")
        out.noops.append((st, "NOOP"))
    if not req.wanted and not req.episode_cuts:
        return out
    links = step.evidence(vault, default_date, sorted(req.episode_cuts))
    extra = {place: req.episode_cuts[pos] for pos, link in links.items()
             if (place := evidence_place(link)) is not None}  # fmt: skip
    if dry_run:
        out.forgot = forget_facts(vault, req.wanted, cuts=extra, dry_run=True)  # what it would do
    else:
        with scrubbing(vault):
            asked_at = {k: f"{step.source}#L{line}" for k, line in req.lines.items()}
            out.forgot = forget_facts(vault, req.wanted, cuts=extra, asked_at=asked_at,
                                      source={"kind": "forget-request", "path": step.source})  # fmt: skip
    return out
