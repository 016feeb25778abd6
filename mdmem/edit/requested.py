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
from bisect import bisect_left
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from mdmem.edit.forget import scrubbing
from mdmem.edit.new_messages import NewMessages
from mdmem.engine.decide import Plan, Statement
from mdmem.extract.forget_requests import Request, find_requests
from mdmem.extract.speakers import owner_entity, speaker_entities
from mdmem.extract.transcript import Message, is_human_role
from mdmem.model.factfile import Fact
from mdmem.model.rules import Rules
from mdmem.store.forget_apply import Forgot, forget_facts
from mdmem.store.redaction import cut
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
# Words with nothing to forget in them: "ok", "never mind", "算了", "对了", and words about the
# saying, not what was said: "I shouldn't have said that", "TMI", "说漏嘴了".
_FILLER = re.compile(
    r"^[\s\W]*(?:(?:ok(?:ay)?|oh|ah|um+|uh+|hmm+|well|wait|sorry|actually|anyway|so|and|but|also|yeah|yes|no"
    r"|please|never\s*mind|nevermind|oops|whoops|hey|right|alright|fine|thanks?|thank\s+you|lol|god|gosh|ugh"
    r"|argh|my\s+bad|tmi|too\s+much\s+info(?:rmation)?|yikes|jeez"
    r"|I\s+shouldn['’]t\s+have\s+(?:said|told\s+you|mentioned|shared|brought\s+up)\s*(?:that|it|this)?"
    r"|(?:that|it)['’]s\s+(?:private|personal|embarrassing|nobody['’]s\s+business)|(?:that|it)\s+was\s+(?:private|too\s+much)"
    r"|(?:just\s+)?between\s+(?:us|you\s+and\s+me)|off\s+the\s+record|forget\s+I\s+said\s+(?:that|it)"
    r"|算了|哦|嗯|啊|呃|那|还是|对了|其实|唉|哎|好吧|好的|好|行|那个|就是|不过|另外|还有|然后"
    r"|说漏嘴了?|多嘴了?|不该说的?|我不该说|哎呀|尴尬|不对|说错了|私事|隐私|保密哈?|随口一说|这个不太好)[\s\W]*)*$",
    re.I,
)
# A detail worth keeping secret, outside any statement: digits, an address, a name, a code.
_DETAIL = re.compile(r"\d|[@#/]|[零一二三四五六七八九十百千万亿两]|(?<=[a-z,]\s)(?!I\b)[A-Z][a-z]+")
_ABOUT_STOP = frozenset(["my", "our", "your", "her", "his", "their", "its", "the", "a", "an", "about", "what", "said", "told", "you", "that", "this", "it", "me", "bit", "part", "stuff", "thing", "things", "info", "details"])  # fmt: skip


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
        self.human = set(self.humans)  # for membership: a list made each message cost all of them
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
            if pos not in self.human:
                continue
            m = self.messages[pos - 1]
            found = find_requests(m.text, self.reader.resolver)[:MAX_REQUESTS]
            self.out.requests += len(found)
            gap_from, after_request = 0, False
            for r in found:
                if r.kind == "that" and after_request and self.same_target(pos, gap_from, r.start):
                    gap_from = r.end  # "scrap that, I'd rather you not keep it": the same target
                    continue
                targets = self.targets(r, pos, gap_from)
                for tpos, span in targets:
                    spans.setdefault(tpos, []).append(span)
                    self.forget_said(tpos, span, m.line)
                if r.kind in ("that", "this") and not targets:
                    self.out.notes.append(f"L{m.line}: a request to forget, but nothing said before it to forget")
                elif r.kind == "about" and not targets:
                    self.out.notes.append(f"L{m.line}: a request to forget {r.words}, but nothing about it is kept")
                gap_from, after_request = r.end, True
        for pos, cut_spans in spans.items():
            text = self.messages[pos - 1].text
            merged = trimmed(text, subtract(cut_spans, []))
            self.out.texts[pos] = cut(text, merged)  # what the finder reads, context included
            if pos in applied and merged:
                self.out.episode_cuts[pos] = [text[a:b] for a, b in merged]
        return self.out

    def same_target(self, pos: int, gap_from: int, at: int) -> bool:
        """Whether a "that" right after another request means what that one meant: nothing but
        filler between them, or, in the same sentence, nothing new stated or named
        ("值班人那条删了吧，轮值表以后在系统里看，不用你记")."""
        text = self.messages[pos - 1].text
        gap = text[gap_from:at]
        if _FILLER.match(gap):
            return True
        one_sentence = not re.search(r"[.!?。！？\n]", gap)
        return one_sentence and not _informative(text, (gap_from, at), self.said(pos))

    def previous(self, pos: int) -> int | None:
        at = bisect_left(self.humans, pos)  # humans is in order
        return self.humans[at - 1] if at else None

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
            hits = self.named(r, pos)
            return hits if hits is not None else self.nearest(r, pos, gap_from, spare=True)
        if r.kind == "about":
            return self.about(r, pos) or self.nearest(r, pos, gap_from, spare=True)
        if r.kind == "this":
            ahead = _after(m.text, r.end)
            if ahead is not None:
                return [(pos, ahead)]
        return self.nearest(r, pos, gap_from)

    def nearest(self, r: Request, pos: int, gap_from: int, *, spare: bool = False) -> list[tuple[int, Span]]:
        """What was just said: the words before the request in its message, else (when those
        say nothing: "Ugh, TMI.") the message before. `spare`: a request that names what it
        means leaves the other statements there alone."""
        line = self.messages[pos - 1].line
        area = (gap_from, r.start)
        before = self.previous(pos)
        text = self.messages[pos - 1].text
        if not _says(text, area) or (before is not None and _aside(text, area, self.said(pos))):
            if before is None:
                return []
            pos, area = before, (0, len(self.messages[before - 1].text))
        text = self.messages[pos - 1].text
        span, clear = _last_said(text, area, self.said(pos))
        spans = subtract([span], [s.span for s in self.said(pos)]) if spare else [span]
        if not clear:
            self.out.notes.append(
                f"L{line}: a forget request: not clear which words it means; the whole sentence"
                f" before it (L{self.messages[pos - 1].line}) was redacted"
                + (", less the other facts said there" if spare else "")
            )
        return [(pos, s) for s in spans]

    def named(self, r: Request, pos: int) -> list[tuple[int, Span]] | None:
        """A named slot: the fact is forgotten, with its statements made before the request;
        a slot never kept and never said here: the sentences before that name it (None: none)."""
        key = f"{owner_entity(self.entity(self.messages[pos - 1]), r.owner)}/{r.attribute}"
        fact = self.facts.get(key)
        hits = [(p, s.span) for p in self.humans if p <= pos for s in self.said(p)
                if s.key == key and (p < pos or s.core[1] <= r.start)]  # fmt: skip
        line = self.messages[pos - 1].line
        if fact is not None and fact.status != "deleted":
            self.out.wanted[key] = None
            self.out.lines.setdefault(key, line)
            return hits
        self.out.unknown.append((key, line))
        if hits:
            return hits
        names = [n for n in self.reader.names(str(r.attribute)) if len(n) > 1]
        names += [w for w in _content_words(f"{r.owner or ''} {r.words}") if w not in names]
        found = self.mentions(r, pos, names)
        if not found:
            self.out.notes.append(f"L{line}: a request to forget {r.words or r.attribute}, but nothing about it is kept")
        return found or None

    def about(self, r: Request, pos: int) -> list[tuple[int, Span]]:
        """Words no rule names: the sentences before the request that say them."""
        return self.mentions(r, pos, _content_words(r.words))

    def mentions(self, r: Request, pos: int, words: list[str]) -> list[tuple[int, Span]]:
        """The sentences (this message before the request, and the message before) that say
        one of the words (or a word of the same stem: "diagnosis", "diagnosed"), less the other
        statements made in them."""
        out: list[tuple[int, Span]] = []
        for p, limit in ((self.previous(pos), None), (pos, r.start)):
            if p is None or not words:
                continue
            text = self.messages[p - 1].text
            others = [s.span for s in self.said(p)]
            for a, b in sentence_spans(text):
                b = min(b, limit) if limit is not None else b
                if a < b and any(_says_word(text[a:b], w) for w in words):
                    keep = [o for o in others if not any(_says_word(text[o[0] : o[1]], w) for w in words)]
                    out += [(p, span) for span in subtract([(a, b)], keep)]
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


def _says(text: str, area: Span) -> bool:
    """Whether the words of an area say anything (not only "ok", "never mind", "TMI")."""
    words = text[area[0] : area[1]]
    return not _FILLER.match(words) and any(not _FILLER.match(words[a:b]) for a, b in sentence_spans(words))


def _aside(text: str, area: Span, stated: list[Stated]) -> bool:
    """A few words before the request that state nothing and name nothing ("说多了",
    "oh, that was dumb"): about the saying, so the request means the message before."""
    words = text[area[0] : area[1]]
    if any(area[0] <= s.core[0] < area[1] for s in stated) or _DETAIL.search(words):
        return False
    return len(re.findall(r"[A-Za-z']+", words)) <= 6 and len(re.findall(r"[\u4e00-\u9fff]", words)) <= 8


def _content_words(words: str) -> list[str]:
    """The words of a topic worth looking for: "her diagnosis" → diagnosis; "我哥欠钱" → 我哥欠钱."""
    out = []
    for w in re.findall(r"[A-Za-z][A-Za-z'’-]+|[\u4e00-\u9fff]+|\d+", words):
        w = re.sub(r"['’]s$", "", w)
        w = re.sub(r"^(?:关于|有关|对于|我的|我们的|我|的)+|(?:的事情?|的那个|的那些|的话|的)+$", "", w)
        if len(w) > 1 and w.lower() not in _ABOUT_STOP:
            out.append(w)
    return out


def _says_word(text: str, word: str) -> bool:
    """A word in a text, or a word of the same stem (Latin words of six letters or more)."""
    if not word.isascii():
        return word in text
    if len(word) >= 6:
        stem = word[: max(5, len(word) - 3)]
        return re.search(rf"(?<![A-Za-z]){re.escape(stem)}", text, re.I) is not None
    return bool(word_spans(text, word))


def _last_said(text: str, area: Span, stated: list[Stated]) -> tuple[Span, bool]:
    """The words a "that" points at in area: the one statement of the sentence before the
    request, or the whole sentence (False: it was not clear)."""
    sentences = [(max(a, area[0]), min(b, area[1])) for a, b in sentence_spans(text) if b > area[0] and a < area[1]]
    sentences = [s for s in sentences if text[s[0] : s[1]].strip(" \t\n,;:，；：、—–-")
                 and not _FILLER.match(text[s[0] : s[1]])]  # fmt: skip
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
    return (lo, hi), False


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
