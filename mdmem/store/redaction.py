"""Redaction by statement: what a forget cuts out of the episodes, and nothing else.

A forgotten value goes with the statements that said it: the clause (or sentence) its evidence
link points at, and the same statement wherever it was said again. The same word where it
states another live fact, or where it means something else, stays. Only `forget --text` cuts
words as words, because then the person named the words
(docs/episodes.md#forgetting-removes-the-statement-not-the-word).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from mdmem.errors import FactFileError
from mdmem.extract.modality import clause_end, clause_start
from mdmem.extract.speakers import speaker_entities
from mdmem.extract.transcript import Message, role_for_speaker
from mdmem.files import read_text
from mdmem.model.episode import Said, parse, render
from mdmem.model.factfile import Fact
from mdmem.store.episodes import FORGOTTEN
from mdmem.store.statements import (
    Reader,
    Span,
    Stated,
    covering,
    evidence_place,
    is_derived,
    said_values,
    sentence_spans,
    subtract,
    trimmed,
    value_entries,
    word_spans,
)


@dataclass(frozen=True)
class Target:
    """The values of one fact that a forget removes, and where they were said."""

    key: str
    values: tuple[str, ...]
    evidence: frozenset[tuple[str, str]] = frozenset()  # (episode path, anchor)


@dataclass(frozen=True)
class Cut:
    """One span of one message that goes: `--dry-run` lists these."""

    episode: str
    anchor: str
    start: int
    end: int
    text: str
    why: str  # the fact it stated, or "phrase" for `forget --text`

    def to_json(self, words: bool) -> dict[str, object]:
        out: dict[str, object] = {"episode": self.episode, "anchor": self.anchor,
                                  "start": self.start, "end": self.end, "why": self.why}  # fmt: skip
        if words:
            out["text"] = self.text
        return out


@dataclass
class Redaction:
    """The cuts, and the episode files with them made (for one transaction)."""

    cuts: list[Cut] = field(default_factory=list)
    ops: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def target(fact: Fact, values: Iterable[str] | None = None) -> Target | None:
    """What forgetting these values of a fact (None: all of them) takes from what was said.
    A derived value was never said: it takes nothing (its evidence is its input's statement)."""
    wanted = None if values is None else set(values)
    said: list[str] = []
    where: set[tuple[str, str]] = set()
    for entry in value_entries(fact):
        items = [v for v in said_values(entry) if wanted is None or v in wanted]
        if not items or is_derived(entry):
            continue
        said += [v for v in items if v not in said]
        place = evidence_place(str(entry.get("evidence") or ""))
        if place is not None:
            where.add(place)
    if fact.evidence and fact.value is None and values is None:  # "I no longer commute": its end
        place = evidence_place(fact.evidence)
        if place is not None:
            where.add(place)
    return Target(fact.key, tuple(said), frozenset(where)) if said or where else None


def entities_of(messages: list[Said]) -> dict[str, str]:
    """Entity per speaker of an episode, as the ingest that wrote it gave them."""
    fake = [Message(s.speaker, role_for_speaker(s.speaker), "", s.time, 0, None) for s in messages]
    return speaker_entities(fake)


class Cutter:
    """Finds the cuts of a forget in every episode of a vault."""

    def __init__(self, root: Path, reader: Reader, targets: list[Target], live: Mapping[str, Fact],
                 phrases: Iterable[str] = (), *, wipe: bool = False,
                 cuts: Mapping[tuple[str, str], list[str]] | None = None) -> None:  # fmt: skip
        self.root = root
        self.asked = dict(cuts or {})  # (episode, anchor) → words a request in a chat points at
        self.wipe = wipe  # `forget --all`: every message goes
        self.reader = reader
        self.targets = targets
        self.live = {k: f for k, f in live.items() if f.status != "deleted"}
        self.phrases = [p for p in phrases if p.strip()]
        self._evidence_of = self._evidence_index()
        self._spellings = {t.key: self._spell(t) for t in targets}

    def _spell(self, t: Target) -> list[str]:
        """Every spelling of the target's values (上海 and Shanghai), folded."""
        attribute = t.key.split("/", 1)[1]
        out = {v.casefold() for v in t.values}
        for v in t.values:
            out |= {s.casefold() for s in self.reader.rules.group(attribute, v) or ()}
        return sorted(w for w in out if w.strip())

    def _evidence_index(self) -> dict[tuple[str, str], list[str]]:
        """(episode, anchor) → the live facts said there (for protecting what they stand on)."""
        out: dict[tuple[str, str], list[str]] = {}
        for key, fact in self.live.items():
            for entry in value_entries(fact):
                place = evidence_place(str(entry.get("evidence") or ""))
                if place is not None and not is_derived(entry):
                    out.setdefault(place, []).append(key)
        return out

    def run(self) -> Redaction:
        out = Redaction()
        base = self.root / "episodes"
        if not (self.targets or self.phrases or self.wipe or self.asked) or not base.is_dir():
            return out
        probes = sorted({w for ws in self._spellings.values() for w in ws} | {p.casefold() for p in self.phrases})
        wanted = {rel for t in self.targets for rel, _ in t.evidence} | {rel for rel, _ in self.asked}
        for path in sorted(base.glob("*/*.md")):
            rel = path.relative_to(self.root).as_posix()
            text = read_text(path)
            if text is None:
                continue
            low = text.casefold()
            if not self.wipe and rel not in wanted and not any(p in low for p in probes):
                continue
            try:
                ep = parse(text, rel)
            except FactFileError as e:
                self._broken(rel, text, e, out)
                continue
            entities = entities_of(ep.messages)
            changed = False
            for i, said in enumerate(ep.messages):
                entity = entities.get(said.speaker.casefold(), "user")
                cuts = self.message(rel, said, entity)
                if cuts:
                    out.cuts += cuts
                    ep.messages[i] = Said(said.anchor, said.speaker, said.time, cut(said.text, cuts))
                    changed = True
            if changed:
                out.ops.append((rel, render(ep)))
        return out

    def message(self, rel: str, said: Said, entity: str) -> list[Cut]:
        """The cuts of one message: the targets' statements, less what other facts stand on."""
        text, low = said.text, said.text.casefold()
        here = (rel, said.anchor)
        if self.wipe:
            return [Cut(rel, said.anchor, 0, len(text), text, "all")] if text != FORGOTTEN else []
        mine: list[tuple[Span, str]] = [(s, "phrase") for p in self.phrases for s in _anywhere(text, p)]
        asked = [s for w in self.asked.get(here, []) for s in _anywhere(text, w)]
        relevant = [t for t in self.targets
                    if here in t.evidence or any(w in low for w in self._spellings[t.key])]  # fmt: skip
        if not relevant and not mine and not asked:
            return []
        stated = self.reader.statements(text, entity) if relevant else []
        for t in relevant:
            spans = [s.span for s in stated if self.reader.states(s, t.key, list(t.values))]
            if here in t.evidence and not spans:  # its end, or a fact with no value ("no pets")
                spans = [s.span for s in stated if s.key == t.key and (s.kind == "invalidate" or not t.values)]
                spans = spans or self._fallback(text, t)
            mine += [(s, t.key) for s in spans]
        keep = self._protected(text, here, stated) if mine else []
        out = [Cut(rel, said.anchor, a, b, text[a:b], "request") for a, b in trimmed(text, asked)]
        for why in dict.fromkeys(w for _, w in mine):
            for a, b in trimmed(text, subtract((s for s, w in mine if w == why), keep)):
                out.append(Cut(rel, said.anchor, a, b, text[a:b], why))
        return _disjoint(text, out)

    def _fallback(self, text: str, t: Target) -> list[Span]:
        """A statement the rule finder does not read (a model found it, or a rule changed):
        the clauses that hold the value; else the sentences naming the slot; else the message."""
        attribute = t.key.split("/", 1)[1]
        spans = [_clause(text, s) for s in self.reader.mentions(text, attribute, list(t.values))]
        if spans:
            return spans
        sentences = sentence_spans(text)
        named = [covering(sentences, a) for n in self.reader.names(attribute) if len(n) > 1
                 for a, _ in word_spans(text, n)]  # fmt: skip
        named_spans = [s for s in named if s is not None]
        return named_spans or [(0, len(text))]

    def _protected(self, text: str, here: tuple[str, str], stated: list[Stated]) -> list[Span]:
        """What other live facts stand on in this message: their statements' spans."""
        keep: list[Span] = []
        seen: set[str] = set()
        for s in stated:
            fact = self.live.get(s.key)
            if fact is None:
                continue
            remaining = [v for e in value_entries(fact) if not is_derived(e) for v in said_values(e)]
            if self.reader.states(s, s.key, remaining) or (s.kind != "assert" and here in self._places(s.key)):
                keep.append(s.span)
                seen.add(s.key)
        for key in self._evidence_of.get(here, []):
            if key in seen:
                continue  # found by the reader: its span is known exactly
            fact = self.live[key]
            values = [v for e in value_entries(fact) if not is_derived(e) for v in said_values(e)]
            keep += [_clause(text, s) for s in self.reader.mentions(text, fact.attribute, values)]
        return keep

    def _places(self, key: str) -> set[tuple[str, str]]:
        return {p for p, keys in self._evidence_of.items() if key in keys}

    def _broken(self, rel: str, text: str, e: FactFileError, out: Redaction) -> None:
        """An episode that does not parse: its whole text is read as one message of the owner."""
        cuts = self.message(rel, Said("", "User", None, text), "user")
        out.notes.append(f"{e}; its statements were redacted as plain text")
        if cuts:
            out.cuts += cuts
            out.ops.append((rel, cut(text, cuts)))


def _anywhere(text: str, phrase: str) -> list[Span]:
    """Every occurrence of a phrase, any case, inside words too (`forget --text`)."""
    low, p = text.casefold(), phrase.casefold()
    out, at = [], low.find(p)
    while at >= 0 and p:
        out.append((at, at + len(p)))
        at = low.find(p, at + len(p))
    return out if len(low) == len(text) else word_spans(text, phrase)


def _clause(text: str, span: Span) -> Span:
    """The clause of its sentence holding a span."""
    sentence = covering(sentence_spans(text), span[0]) or (0, len(text))
    s = text[sentence[0] : sentence[1]]
    a = sentence[0] + clause_start(s, span[0] - sentence[0])
    b = sentence[0] + clause_end(s, span[1] - sentence[0])
    return min(a, span[0]), max(b, span[1])


def _disjoint(text: str, cuts: list[Cut]) -> list[Cut]:
    """Overlapping cuts of different facts as one (the first fact named), in text order."""
    out: list[Cut] = []
    for c in sorted(cuts, key=lambda c: (c.start, -c.end)):
        if out and c.start <= out[-1].end:
            last = out[-1]
            if c.end > last.end:
                out[-1] = Cut(last.episode, last.anchor, last.start, c.end,
                              text[last.start : c.end], last.why)  # fmt: skip
            continue
        out.append(c)
    return out


def cut(text: str, cuts: Iterable[Cut | Span]) -> str:
    """The text with every cut (or span) replaced by '[forgotten]'."""
    spans = [(c.start, c.end) if isinstance(c, Cut) else c for c in cuts]
    for a, b in sorted(spans, reverse=True):
        text = text[:a] + FORGOTTEN + text[b:]
    return text
