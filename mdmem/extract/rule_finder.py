"""The rule finder, mdmem's default: candidates from the rules' patterns and generic forms.

Deterministic and offline. It reads the people's turns only, sentence by sentence, and finds:
the `extract`/`invalidate` patterns of rules.yaml, generic "my X is Y" forms, forget and verbatim
requests, and learned dependencies; `weigh.Extractor` then weighs each for mood and time.
Code blocks are not read, long sentences are read in pieces, and a message that takes longer
than its time budget is skipped with a note (`extract.guard`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import Any, NamedTuple

from mdmem.errors import MdmemError
from mdmem.extract.candidates import Found, Resolver
from mdmem.extract.finder import Extraction, Finder
from mdmem.extract.generic import find_generic
from mdmem.extract.grammar import find_grammar
from mdmem.extract.grammar.habits import HABITS
from mdmem.extract.grammar.lexicon import lexicon
from mdmem.extract.grammar.names import answered, members_of, named_next
from mdmem.extract.grammar.people import Mention, Voiced, voices
from mdmem.extract.grammar.preferences import hobbies_answered
from mdmem.extract.guard import (
    MAX_CANDIDATES,
    UNREAD,
    Budget,
    Runaway,
    pieces,
    without_code,
)
from mdmem.extract.happenings import find_happenings
from mdmem.extract.modality import is_joke, is_question, sentences
from mdmem.extract.prefilter import Pattern, PatternSet, Source, lowered
from mdmem.extract.requests import find_correction, find_dependencies, find_forget, find_verbatims
from mdmem.extract.speakers import speaker_entities
from mdmem.extract.transcript import Message, is_human_role
from mdmem.extract.turns import answer_statements, duration_followups
from mdmem.extract.values import tidy
from mdmem.extract.weigh import VERBATIM_SLOT, Extractor
from mdmem.model.factfile import Fact
from mdmem.model.rules import Rules

__all__ = ["VERBATIM_SLOT", "extract", "find_candidates", "rule_finder", "rule_patterns"]


_PATTERNS: dict[int, tuple[Rules, PatternSet[tuple[str, str]]]] = {}


def rule_patterns(rules: Rules) -> PatternSet[tuple[str, str]]:
    """Every extract/invalidate pattern of the rules, prefiltered; cached per Rules object."""
    cached = _PATTERNS.get(id(rules))
    if cached is not None and cached[0] is rules:
        return cached[1]
    items: list[tuple[tuple[str, str], Pattern]] = []
    for name, attr in rules.attributes.items():  # as sources: compiled only when a message may match
        items += [((name, "assert"), Source(p)) for p in attr.extract_patterns]
        items += [((name, "invalidate"), Source(p)) for p in attr.invalidate_patterns]
    pset = PatternSet(items)
    if len(_PATTERNS) > 8:
        _PATTERNS.clear()
    _PATTERNS[id(rules)] = (rules, pset)
    return pset


def find_candidates(text: str, patterns: PatternSet[tuple[str, str]], resolver: Resolver,
                    budget: Budget | None = None, asked: str = "",
                    topic: frozenset[str] = frozenset(),
                    people: Mapping[str, str] | None = None,
                    last: str | None = None,
                    kin: Mapping[str, str] | None = None) -> list[tuple[str, Found]]:  # fmt: skip
    """(sentence, candidate) pairs of one message, in order: verbatim requests first, then per
    sentence the dependencies, forget requests, rule patterns, generic forms and the grammar's,
    then what the sentence says of other people; `asked` is the message before it, whose last
    sentence may ask what the first sentences answer; `topic` the slots the speaker's previous
    message spoke of ("半小时左右就到" after the commute); `people` the people the speaker spoke
    of before (casefolded name → owner), `last` the one they spoke of last, `kin` the one
    person they are related to by a noun (casefolded noun → owner). Raises `guard.Runaway` when the message takes longer
    than `budget` (default: `MESSAGE_BUDGET`)."""
    budget = budget or Budget()
    out: list[tuple[str, Found]] = []
    kept = find_verbatims(text)
    for slot, payload, (a, b) in kept:
        attr = resolver.attribute(slot) if slot else None  # None: the next free note
        out.append((text, Found(attr, payload, "verbatim", a, a, b)))
    for _, _, (a, b) in reversed(kept):
        text = text[:a] + "\n" + text[b:]  # the kept text is not read for facts
    text = without_code(text)  # a pasted script is not the person speaking
    read = lowered(text)
    candidates = patterns.candidates(read)
    previous = None  # the sentence before
    them = ""  # the one member it spoke of, whom "him"/"her"/"them" may stand for
    members = _slots(resolver.rules).members
    recent: list[str | None] = [None, None]  # the two sentences before
    question = sentences(asked)[-1] if asked.strip() else ""
    for n, sentence in enumerate(_sentences(text, budget)):
        if is_joke(sentence) and previous is not None:  # "I'm moving to Mars. Just kidding!"
            out = [(s, f) for s, f in out if s != previous]
        found = _find(sentence, candidates, resolver, budget, read, them)
        if all(f.form == "named" for f in found) and out and out[-1][0] in recent:
            between = None if out[-1][0] == previous else previous  # "one of my snakes! They …. This is Susie."
            found = named_next(sentence, out, between) or found  # "We adopted a puppy! His name is Biscuit."
        elif not found and n < 3:
            # "What are your dogs' names?" — "Their names are …", "Thanks! … his name is Arlo!"
            found = answered(sentence, question, resolver, context=asked, first=previous is None)
            found = found or (hobbies_answered(sentence, question, resolver) if previous is None else [])
            for said in [] if found or n else answer_statements(question, sentence, resolver.declared):
                # "你在哪上班呀？" "华为，在坂田那边": the answer read as "我在华为上班"
                if said_found := _find(said, patterns.candidates(lowered(said)), resolver, budget):
                    out += [(said, f) for f in said_found if f.kind == "assert"]
                    break
        if not any(f.attribute == "commute_minutes" for f in found):
            near = topic | {f.attribute or "" for _, f in out} | {f.attribute or "" for f in found}
            asking = question if previous is None and is_question(question) else ""
            found += duration_followups(sentence, near, asking, _slots(resolver.rules).attributes)
        previous, recent = sentence, [sentence, previous]
        found = _of_kin(found, kin or {})
        mentions = [Mention(f.owner, f.start, f.end) for f in found if f.attribute == "relation" and f.owner]
        theirs = list(voices(sentence, mentions, people or {}, last))
        found = [f for f in found if not _voiced(f, sentence, theirs)]  # 我哥叫李想，住在深圳: his city
        them = _member(found, members)
        out += [(sentence, f) for f in sorted(found, key=lambda f: (f.start, f.kind))]
        for v in theirs:
            out += [(v.said, f) for f in _theirs(v.said, patterns, resolver, budget, v.owner)]
        last = mentions[-1].owner if mentions else last
    return out


def _theirs(said: str, patterns: PatternSet[tuple[str, str]], resolver: Resolver, budget: Budget,
            owner: str) -> list[Found]:  # fmt: skip
    """What another person's clause, re-voiced as theirs, says of them (never a request)."""
    found = _find(said, patterns.candidates(lowered(said)), resolver, budget)
    return [replace(f, owner=owner) for f in found
            if f.kind in ("assert", "invalidate") and f.attribute and f.attribute != "relation" and not f.owner]  # fmt: skip


def _member(found: list[Found], members: frozenset[str]) -> str:
    """The one member a sentence spoke of: "This is my dog Rex." → "Rex", "I got a kitten." → "my kitten"."""
    said = {v if v[:1].isupper() else f"my {v}" for f in found
            if f.attribute in members and f.kind == "assert" and not f.owner and f.form in ("", "unnamed")
            and isinstance(v := f.value, str) and v}  # fmt: skip
    return next(iter(said)) if len(said) == 1 else ""


def _same_kin(said: str, known: str) -> bool:
    """ "哥" is "哥哥", "brother" is "big brother": a relation noun said again, maybe shorter."""
    return said == known or said * 2 == known or said == known * 2 or known.endswith(" " + said)


def _of_kin(found: list[Found], kin: Mapping[str, str]) -> list[Found]:
    """A relative said by the noun alone ("我哥…", "my brother …") is the one person already
    known to be so related: theirs are the facts of the clause, and they are no new relative."""
    out = list(found)
    for f in found:
        if f.attribute != "relation" or f.owner != f.value or not isinstance(f.value, str):
            continue
        owners = {o for noun, o in kin.items() if _same_kin(f.value.casefold(), noun)}
        if len(owners) != 1:
            continue
        owner = owners.pop()
        out = [replace(f, owner=owner) if g is f else g for g in out
               if not (g.form == "unnamed" and g.start == f.start and g.owner is None)]  # fmt: skip
    return out


# Words that say a fact is the speaker's wherever it stands: their own possessive or subject,
# and "back home", which points at the speaker's home whoever else is spoken of.
_MINE = re.compile(r"\s*(?:my|our|I|we|back\s+home)\b|\s*我(?:的|们)?", re.I)


def _voiced(f: Found, sentence: str, theirs: list[Voiced]) -> bool:
    """Whether a fact found for the speaker lies in words that are another person's clause
    ("My neighbour Ilse has a horse called Dapple": Ilse's horse; "我哥叫李想，住在深圳": his
    city), unless its own words say it is the speaker's ("… lives with my sister Anna", "my aunt
    brought it from back home in Portugal")."""
    if f.owner or f.attribute == "relation" or not any(v.start <= f.value_start < v.end for v in theirs):
        return False
    return _MINE.match(sentence, f.start) is None


def _find(sentence: str, candidates: list[tuple[tuple[str, str], Any]], resolver: Resolver,
          budget: Budget, checked: str = "", them: str = "") -> list[Found]:  # fmt: skip
    """One sentence's dependencies, forget requests, corrections, rule patterns and generic forms;
    `checked`: the text the candidates were found in (a sentence that is all of it needs no test)."""
    low = lowered(sentence)
    tested = low == checked
    rules: list[Found] = []
    for (attr, kind), g in candidates:
        if not tested and not g.may_match(low):
            continue
        for m in budget.finditer(g.rx, sentence):
            value = m.groupdict().get("value") if kind == "assert" else None
            if kind == "assert" and not (value and value.strip()):
                continue
            vs = m.start("value") if value else m.end()
            date = m.groupdict().get("date")
            rules.append(Found(attr, value, kind, m.start(), vs, m.end(), date=date))
    rules = tidy(rules)
    grammar = find_grammar(sentence, resolver)
    # Events and plans (extract/happenings.py). "I moved to Shanghai": the slot's change tells it
    # (and the timeline shows it), not an event too; so does a hobby taken up or given up ("I
    # started surfing five years ago": the hobby, held since then).
    slots = _slots(resolver.rules)
    read = rules + [g for g in grammar if g.attribute in slots.doings]
    life = find_happenings(sentence, resolver.rules.grammar, [(r.start, r.end) for r in read], them)
    habits = [g for g in grammar if g.attribute == HABITS]  # "I've been cutting down on sugar": a habit, no event too
    life = [f for f in life if f.form != "event" or not _overlaps(f, read + habits)]
    if sets := {a for f in life if f.happening for a, _ in f.happening.sets}:
        # "I accepted an offer from X, starting in May": the plan, not X as the employer today
        rules = [r for r in rules if not (r.attribute in sets and r.kind == "assert")]
    found = find_dependencies(sentence, resolver) + find_forget(sentence, resolver)
    if (fix := find_correction(sentence)) is not None:
        found, rules = [fix], []  # the sentence is the correction: nothing else in it is news
    found += rules + life
    found += [g for g in find_generic(sentence, resolver) if not _overlaps(g, rules)]
    return found + [g for g in grammar if not _said(g, found, slots.things)]


class _Slots(NamedTuple):
    """What every sentence asks of the pack's words, gathered once per lexicon."""

    lex: object  # the lexicon these are of
    doings: frozenset[str]  # the slots of activities and skills
    things: frozenset[str]  # the slots of things
    members: frozenset[str]  # the slots of members
    attributes: frozenset[str]  # every attribute the rules declare


_SLOTS: dict[int, _Slots] = {}


def _slots(rules: Rules) -> _Slots:
    lex = lexicon(rules)
    got = _SLOTS.get(id(rules))
    if got is not None and got.lex is lex and len(got.attributes) == len(rules.attributes):
        return got
    got = _Slots(lex, frozenset({*lex.activities.slot.values(), *lex.skills.slot.values()}),
                 frozenset(lex.things.slot.values()), frozenset(members_of(lex).slot.values()),
                 frozenset(rules.attributes))  # fmt: skip
    if len(_SLOTS) > 8:
        _SLOTS.clear()
    _SLOTS[id(rules)] = got
    return got


def _sentences(text: str, budget: Budget) -> Iterator[str]:
    """The message's sentences, none longer than `guard.MAX_PIECE`: a long line is cut into
    pieces before it is split (a line break always ends a sentence), so that no expression,
    the sentence splitter's included, ever scans more than a piece."""
    for line in text.split("\n"):
        for piece in pieces(line):
            budget.check()
            for sentence in sentences(piece):  # parts of a piece: none longer than it
                yield from _named_after(sentence)


# "We adopted a puppy in March and named her Juno": the naming clause is read as the sentence
# after the kind it names ("… a puppy. We named her Juno."), so the name replaces the kind.
_AND_NAMED = re.compile(r"(?<=\w),?\s+(?=and\s+(?:named|called)\s+(?:him|her|it)\s+(?-i:[A-Z]))", re.I)


def _named_after(sentence: str) -> list[str]:
    m = _AND_NAMED.search(sentence)
    return [sentence[: m.start()], sentence[m.end() :]] if m else [sentence]


def _overlaps(g: Found, rules: list[Found]) -> bool:
    return any(g.start < r.end and r.start < g.end for r in rules)


def _said(g: Found, found: list[Found], things: frozenset[str] = frozenset()) -> bool:
    """Whether a pattern or a generic form already read this value of this slot here (for a
    member said unnamed, any value of the slot: "My kids are Leo and Mia" names them)."""
    if g.form == "unnamed":
        return any(f.attribute == g.attribute for f in found)
    if g.attribute in things and any(f.attribute != g.attribute and f.start <= g.value_start < f.end for f in found):
        return True  # words a pattern read as another slot ("My gym membership is Gold Plus")
    if g.polarity:  # a favourite over another slot's value ("My favorite game is CS:GO")
        return any(isinstance(f.value, str) and f.value_start < g.end and g.value_start < f.value_start + len(f.value) for f in found)  # fmt: skip
    return any(f.attribute == g.attribute and (f.value == g.value or (f.value_start < g.end and g.value_start < f.end)) for f in found)  # fmt: skip


def extract(messages: list[Message], rules: Rules, facts: Mapping[str, Fact], *, source: str,
            default_date: str) -> Extraction:  # fmt: skip
    """Statements the people in `messages` made, for `plan_statements` (one batch)."""
    ex = Extractor(rules, facts, source=source, default_date=default_date)
    patterns = rule_patterns(rules)
    entities = speaker_entities(messages)
    slow: set[str] = set()  # rules.yaml patterns that ran away: not run again in this batch
    asked = ""  # the message before: a question it asks may be answered by the next
    topics: dict[str, frozenset[str]] = {}  # per speaker: the slots their last message spoke of
    lasts: dict[str, str | None] = {}  # per speaker: the person they spoke of last
    for msg in messages:
        if is_human_role(msg.role):
            entity = entities.get(msg.speaker.casefold(), "user")
            budget = Budget(slow=slow)
            try:
                found = find_candidates(msg.text, patterns, ex.resolver, budget, asked=asked,
                                        topic=topics.get(entity, frozenset()),
                                        people=ex.people_of(entity), last=lasts.get(entity),
                                        kin=ex.kin_of(entity))  # fmt: skip
            except Runaway as e:
                ex.notes.append(skipped_note(msg, e, rules))
                asked = ""
                continue
            if len(found) > MAX_CANDIDATES:
                ex.notes.append(
                    f"L{msg.line}: {len(found) - MAX_CANDIDATES:,} of {len(found):,} candidate "
                    f"statements {UNREAD} (at most {MAX_CANDIDATES} a message); "
                    "say them in shorter messages"
                )
                found = found[:MAX_CANDIDATES]
            topics[entity] = frozenset(f.attribute for _, f in found if f.attribute)
            spoken = [f.owner for _, f in found if f.attribute == "relation" and f.owner]
            lasts[entity] = spoken[-1] if spoken else lasts.get(entity)
            ex.message(msg, entity, found, budget)
        asked = msg.text[-400:]  # its last sentence may ask; the rest names what is asked about
    return ex.result()


def skipped_note(msg: Message, why: Runaway, rules: Rules) -> str:
    """The note for a message not read for facts because reading it ran away."""
    note = (
        f"L{msg.line}: {UNREAD}: reading it {why} ({len(msg.text):,} characters); its text "
        "is kept in the episode file"
    )
    if why.pattern is None:
        return note + ". Say it again in shorter messages"
    where = next(
        (f"{kind} pattern #{i} of attribute {name!r}"
         for name, attr in rules.attributes.items()
         for kind, sources in (("extract", attr.extract_patterns), ("invalidate", attr.invalidate_patterns))
         for i, source in enumerate(sources, 1) if source == why.pattern),
        "a pattern",
    )  # fmt: skip
    return (
        f"{note}. The {where} in {rules.path} ran away (nested repeats such as (a+)+ can "
        "take exponential time); it is skipped for the rest of this ingest: fix it"
    )


def rule_finder(**options: Any) -> Finder:
    """The `rules` finder (entry point `mdmem.finders`); it takes no options."""
    if options:
        raise MdmemError(f"the rules finder takes no options, not {', '.join(sorted(options))}")
    return extract
