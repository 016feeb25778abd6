"""Where a fact was stated: the clause (or sentence) of a message that said it.

Forgetting removes statements, not words (docs/episodes.md, "Forgetting removes the
statement, not the word").
A message is read again by the rule finder, which gives each statement its exact words (its
*core*: "my social insurance is paid in Berlin"); the statement's *span* is that core widened
to its clause, never into another statement's core, and to the whole sentence when it fills it.
Nothing here writes: `store.redaction` cuts the spans, in one transaction with the facts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from mdmem.extract.candidates import Found, Resolver, canonical, slot_names
from mdmem.extract.guard import Runaway
from mdmem.extract.modality import clause_end, clause_start
from mdmem.extract.speakers import owner_entity
from mdmem.model.factfile import Fact, Value
from mdmem.model.rules import Rules, norm

Span = tuple[int, int]  # [start, end) in a message's text
_LINK = re.compile(r"^\[\[(?P<path>[^#\]]+)#\^(?P<anchor>m\d+)\]\]$")
_SENTENCE = re.compile(r"[^\n]*?(?:[.!?…]+[\"”’')\]]*(?=\s|$)|[。！？；]+[”’」』）)]*|\n|$)")
_END_MARKS = " \t.!?…。！？；;\"”’')]」』）"
STATEMENT_KINDS = ("assert", "invalidate", "verbatim", "depends", "correct")


@dataclass(frozen=True)
class Stated:
    """One statement in one message."""

    key: str  # entity/attribute it is about
    value: Value
    kind: str  # assert | invalidate | verbatim | depends | correct
    core: Span  # the words the finder matched, the value included
    span: Span  # the clause (or whole sentence) that states it


def evidence_place(link: str | None) -> tuple[str, str] | None:
    """'[[episodes/2026/2026-02-10-en#^m1]]' → ('episodes/2026/2026-02-10-en.md', 'm1')."""
    m = _LINK.match((link or "").strip())
    if m is None:
        return None
    path = m["path"] if m["path"].endswith(".md") else m["path"] + ".md"
    return path, m["anchor"]


def sentence_spans(text: str) -> list[Span]:
    """The sentences of a message as spans (a line break always ends one), blanks left out."""
    out = []
    for m in _SENTENCE.finditer(text):
        a, b = m.start(), m.end()
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        if b > a:
            out.append((a, b))
    return out


def covering(spans: list[Span], at: int) -> Span | None:
    """The span holding position `at`."""
    return next(((a, b) for a, b in spans if a <= at < b), None)


def subtract(spans: Iterable[Span], holes: Iterable[Span]) -> list[Span]:
    """The spans, merged, less every hole (what is left of each, trimmed of blanks)."""
    merged: list[list[int]] = []
    for a, b in sorted(spans):
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    out = [(a, b) for a, b in merged]
    for ha, hb in sorted(holes):
        out = [piece for a, b in out for piece in ((a, min(b, ha)), (max(a, hb), b)) if piece[0] < piece[1]]
    return out


def trimmed(text: str, spans: Iterable[Span]) -> list[Span]:
    """Spans without their leading and trailing blanks; empty ones dropped."""
    out = []
    for a, b in spans:
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        if b > a and text[a:b].strip(" ,;:，；：、—–-"):
            out.append((a, b))
    return out


class Reader:
    """Reads messages for their statements, with one vault's rules (made once per operation)."""

    def __init__(self, rules: Rules, known: Iterable[str] = ()) -> None:
        # The rule finder (its grammar and request patterns: a few hundred regexes) only when a
        # forget reads messages, not for every command that imports the forget machinery.
        from mdmem.extract.rule_finder import find_candidates, rule_patterns

        self.rules = rules
        self.resolver = Resolver(rules, known)
        self.patterns = rule_patterns(rules)
        self._find = find_candidates

    def statements(self, text: str, entity: str) -> list[Stated]:
        """Every statement the rule finder reads in a message said by `entity`, in order."""
        try:
            found = self._find(text, self.patterns, self.resolver)
        except Runaway:  # too slow to read: the callers fall back on the value's own words
            return []
        placed: list[tuple[int, str, Found, Span]] = []
        cursor, last, at = 0, None, -1
        for sentence, f in found:
            if sentence is not last:  # the finder hands each sentence's candidates together
                at = 0 if sentence is text else text.find(sentence, cursor)
                last = sentence
                if at >= 0:
                    cursor = at + max(len(sentence), 1)  # the same words said again are further on
            if at < 0:
                continue  # a sentence the finder made up ("我在华为上班" for "华为"): no words of its own
            if f.kind not in STATEMENT_KINDS or not f.attribute:
                continue  # a request is not a statement
            value = f.value if isinstance(f.value, str) else ""
            lo = min(f.start, f.value_start) if value else f.start
            hi = max(f.end, f.value_start + len(value))
            placed.append((at, sentence, f, (at + lo, at + hi)))
        cores = [core for *_, core in placed]
        out = []
        for at, sentence, f, core in placed:
            others = [c for c in cores if c != core]
            key = f"{owner_entity(entity, f.owner)}/{f.attribute}"
            out.append(Stated(key, f.value, f.kind, core, _widen(text, at, sentence, core, others)))
        return out

    def names(self, attribute: str) -> tuple[str, ...]:
        return slot_names(self.rules, attribute)

    def states(self, s: Stated, key: str, values: list[str]) -> bool:
        """Whether a statement says one of these values of this fact (any spelling)."""
        if s.key != key:
            return False
        if s.kind != "assert" and s.kind != "verbatim":
            return False
        said = s.value if isinstance(s.value, list) else [s.value]
        attribute = key.split("/", 1)[1]
        for item in said:
            if not isinstance(item, str):
                continue
            item = canonical(self.rules, attribute, " ".join(item.split()).strip(" .,;:!?，。；：！？"))
            for v in values:
                if self.rules.same_value(attribute, item, v) or (len(norm(v)) > 2 and norm(v) in norm(item)):
                    return True
        return False

    def mentions(self, text: str, attribute: str, values: list[str]) -> list[Span]:
        """Where a message says one of the values in any spelling of its group (words, not
        parts of words): the fallback when the finder does not read the statement."""
        out: list[Span] = []
        for v in values:
            for spelling in self.rules.group(attribute, v) or (v,):
                out += word_spans(text, spelling)
        return sorted(set(out))


def word_spans(text: str, words: str) -> list[Span]:
    """Every occurrence of words in text, any case; Latin words only as whole words."""
    words = words.strip()
    if not words:
        return []
    pattern = re.escape(words)
    if words[0].isalnum() and words[0].isascii():
        pattern = r"(?<![\w])" + pattern
    if words[-1].isalnum() and words[-1].isascii():
        pattern += r"(?![\w])"
    return [(m.start(), m.end()) for m in re.finditer(pattern, text, re.I)]


def _widen(text: str, at: int, sentence: str, core: Span, others: list[Span]) -> Span:
    """A statement's core widened to its clause, not into another core; the sentence when it
    fills it."""
    a, b = core[0] - at, core[1] - at
    lo = at + clause_start(sentence, a)
    hi = at + clause_end(sentence, b)
    lo, hi = min(lo, core[0]), max(hi, core[1])
    for oa, ob in others:
        if ob <= core[0]:
            lo = max(lo, ob)
        if oa >= core[1]:
            hi = min(hi, oa)
    while lo < core[0] and text[lo] in " \t,;:，；：、":
        lo += 1
    while hi > core[1] and text[hi - 1] in " \t,;:，；：、":
        hi -= 1
    end = at + len(sentence)
    if lo == at and not text[hi:end].strip(_END_MARKS):
        return lo, end  # the whole sentence, with its end
    while hi > core[1] and text[hi - 1] in _END_MARKS:
        hi -= 1  # a clause ending the sentence leaves it its full stop
    return lo, hi


def value_entries(fact: Fact) -> list[dict[str, object]]:
    """The fact's current value and each history entry, as {value, source, evidence, valid_from}."""
    out: list[dict[str, object]] = []
    if fact.value is not None:
        out.append({"value": fact.value, "source": fact.source, "evidence": fact.evidence,
                    "valid_from": fact.valid_from, "current": True})  # fmt: skip
    for h in fact.history:
        if h.get("value") is not None:
            out.append({**h, "current": False})
    return out


def said_values(entry: dict[str, object]) -> list[str]:
    """A value entry's items as text (a list value item by item)."""
    v = entry.get("value")
    items = v if isinstance(v, list) else [v]
    return [str(i) for i in items if isinstance(i, str) and i.strip()]


def is_derived(entry: dict[str, object]) -> bool:
    """A value a rule derived was never said: its evidence is its input's statement."""
    return str(entry.get("source") or "").startswith("rule:")
