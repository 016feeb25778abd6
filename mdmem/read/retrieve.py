"""Retrieval for `ask`: which facts a question is about, scored and chosen (docs/reading.md).

A fact's score adds how much of the question its attribute's words from rules.yaml explain
(match.py) and which query tokens the full-text index found in its name, value, history and
body (index.py). The best facts are answered, plus near-ties, plus any fact whose old value
the question takes for current (the stale premise to correct). A broad question about a
topic gets every fact of the topic, unless it also names a value (then it is about that fact).
A fact is not answered when the question only brushes it: matched by text while another is
named by label, or by words a better-named attribute explains. When that better-named
attribute holds nothing, a `derive` rule may still answer it (infer.py); else "I don't know".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from mdmem.lang.tokens import tokens, weight
from mdmem.model.factfile import Fact
from mdmem.model.rules import Rules
from mdmem.model.slug import slugify
from mdmem.read.answer import NOTE_SLOT
from mdmem.read.index import Hit, Index
from mdmem.read.infer import inferred
from mdmem.read.life_answer import asks_for, family_slot
from mdmem.read.match import (
    Question,
    attribute_cover,
    mention_units,
    mentioned_entities,
    mentions,
    residual,
    score,
    topic_cover,
    value_spellings,
)
from mdmem.read.notes import asks_exact, asks_verbatim, best_notes
from mdmem.store.vault import DEFAULT_ENTITY

COLUMN_WEIGHT = {"name": 1.0, "value": 2.0, "history": 1.5, "body": 0.5}
MIN_SCORE = 0.8  # below this a fact is noise, and "nothing found" is the honest answer
KEEP_RATIO = 0.9  # other facts are answered too when they score this close to the best
MAX_FACTS = 3
MAX_PREMISE = 2  # facts added because the question names their old value

_BROAD = re.compile(
    r"\b(?:everything|all about|tell me about|what do you know about|overview|summar(?:y|i[sz]e)"
    r"|situation|set-?up|details|all (?:my|our|the) \w+ (?:info|information|facts))\b"
    r"|情况|所有|全部|一切|都有什么|有哪些|都有|介绍|概况|总结|汇总|相关信息|都记得",
    re.I,
)


@dataclass
class Match:
    """A fact the question may be about, with the parts of its score."""

    fact: Fact
    score: float = 0.0
    rules: float = 0.0
    text: float = 0.0
    topic: str | None = None
    words: frozenset[str] = frozenset()  # the query tokens the text search matched


def premise(fact: Fact, q: Question, rules: Rules) -> tuple[bool, bool]:
    """Whether the question names the fact's current value, and one of its old values."""
    current = _spellings(rules, fact.attribute, fact.value)
    old = {
        s for h in fact.history for s in _spellings(rules, fact.attribute, h.get("value"))
    } - current
    return any(mentions(q, s) for s in current), any(mentions(q, s) for s in old)


def _values(fact: Fact, rules: Rules) -> set[str]:
    """Every spelling of the fact's current and old values."""
    out = _spellings(rules, fact.attribute, fact.value)
    for h in fact.history:
        out |= _spellings(rules, fact.attribute, h.get("value"))
    return out


def _spellings(rules: Rules, attribute: str, value: Any) -> set[str]:
    values = value if isinstance(value, list) else [value] if isinstance(value, str) else []
    out: set[str] = set()
    for v in values:
        out.update(rules.group(attribute, v) or (v,))
    return out


def fact_json(m: Match) -> dict[str, Any]:
    f = m.fact
    out: dict[str, Any] = {
        "key": f.key,
        "entity": f.entity,
        "attribute": f.attribute,
        "status": f.status,
        "value": f.value,
        "valid_from": f.valid_from,
        "score": round(m.score, 3),
        "score_rules": round(m.rules, 3),
        "score_text": round(m.text, 3),
    }
    if f.status == "deleted":
        return out
    if f.history:
        out["history"] = [
            {
                "value": h.get("value"),
                "valid_from": h.get("valid_from"),
                "valid_to": h.get("valid_to"),
            }
            for h in f.history
        ]
    if f.derived_from:
        out["derived_from"] = f.derived_from
    if f.uncertain_because:
        why = f.uncertain_because
        out["uncertain_because"] = {
            k: why[k] for k in ("fact", "change", "changed_at", "question") if k in why
        }
    if f.status == "expired":
        out["last_value"] = f.last_value()
    return out


def retrieve(
    index: Index, rules: Rules, q: Question, *, entity: str | None = None
) -> tuple[list[Match], str | None]:
    """The facts to answer from, best first, and the topic when the question is a broad one."""
    if entity is not None:
        return _retrieve(index, rules, q, [entity])
    known = index.entities()
    named = list(q.people) if q.resolved else mentioned_entities(known, q)
    if named:
        return _retrieve(index, rules, q, named)
    if q.speakers or q.strangers:
        # Someone is named who has no facts of their own: only what they own may answer
        # (Caroline's dog), never someone else's fact.
        scope = [e for e in known for s in q.speakers if e.startswith(slugify(s) + "-")]
        if len(q.speakers) == 1 and not q.strangers and len(q.all_speakers) == 1 and DEFAULT_ENTITY in known:
            scope.append(DEFAULT_ENTITY)  # the only speaker of the vault is its owner
        return _retrieve(index, rules, q, scope) if scope else ([], None)
    if DEFAULT_ENTITY in known:  # the person by default; anyone else when that finds nothing
        found = _retrieve(index, rules, q, [DEFAULT_ENTITY])
        if found[0] or known == [DEFAULT_ENTITY]:
            return found
    return _retrieve(index, rules, q, None)


def _retrieve(
    index: Index, rules: Rules, q: Question, scope: list[str] | None
) -> tuple[list[Match], str | None]:
    strong = asks_verbatim(q)
    notes = [Match(f, score=s, text=s) for f, s in best_notes(index, q, scope)] if strong or asks_exact(q) else []
    if notes and strong:  # "发版前的检查要求原话是什么": that note, not the release facts
        return notes, None
    attr_spots = attribute_cover(rules, q)
    attr_scores = {a: score(spots) for a, spots in attr_spots.items()}
    topic_spots = topic_cover(rules, q)
    topics = {t: score(spots) for t, spots in topic_spots.items()}
    for broad in _broad_topics(topic_spots, attr_spots, q):
        facts = index.facts(attributes=rules.topics[broad].attributes, entities=scope)
        if (
            facts
            and not _BROAD.search(q.text)
            and _names_a_value(index, q, topic_spots[broad], scope)
        ):
            break  # "我还在华信咨询上班吧": about that one value, not the whole topic
        if facts:  # the best-matching topic that holds anything
            order = {a: i for i, a in enumerate(rules.topics[broad].attributes)}
            facts.sort(key=lambda f: (f.entity, order[f.attribute]))
            return [Match(f, topics[broad], topic=broad) for f in facts], broad
    found: dict[str, Match] = {}
    if attr_scores:
        for fact in index.facts(attributes=attr_scores, entities=scope):
            found[fact.key] = Match(fact, rules=attr_scores.get(fact.attribute) or attr_scores[family_slot(fact.attribute)])
    if strong:  # "what did I ask you to remember", no note's words in it: every note
        for fact in index.facts(numbered=NOTE_SLOT, entities=scope):
            found.setdefault(fact.key, Match(fact)).rules += 1.0
    query = list(q.query) + [t for s in value_spellings(rules, q) for t in tokens(s)]
    named: set[str] = set()  # facts an undeclared slot's own name in the question points at
    for hit in index.search(query, entities=scope):
        m = found.setdefault(
            hit.fact.key, Match(hit.fact, rules=attr_scores.get(hit.fact.attribute, 0.0))
        )
        # A declared attribute's name was already weighed with its labels and aliases.
        m.text = _text_score(hit, with_name=hit.fact.attribute not in rules.attributes)
        m.text /= 1 if asks_for(hit.fact, q.text) else 2  # "what is my parking spot?" is no event's
        m.words = frozenset(t for toks in hit.matched.values() for t in toks)
        if hit.matched.get("name") and hit.fact.attribute not in rules.attributes:
            named.add(hit.fact.key)
    for m in found.values():
        m.score = m.rules + m.text
    held = {m.fact.attribute for m in found.values()}
    outranked = _neighbours(found, attr_spots, held, named, q, rules)
    kept = [m for m in found.values() if m.score >= MIN_SCORE and m.fact.key not in outranked]
    # A fact the question names only by its value ('… to 珠江新城 …') is context for the one it
    # names by label ('how long'): that is answered first, the other after it.
    # Words inside a value the question names belong to it: 血压 in 高血压 does not name the
    # blood pressure, so a question about 高血压 has no labelled fact to come first.
    # (Only facts the text search hit can have a value the question names.)
    taken = {
        i for m in kept if m.text > 0 for v in _values(m.fact, rules) for i in mention_units(q, v)
    }
    labelled = any(
        m.rules >= 1.0 and not set(attr_spots.get(m.fact.attribute, {})) <= taken for m in kept
    )
    # A fact the question names by its value and only weakly by a label ('How much
    # levothyroxine do I take?': the medication's 'take') is context too.
    by_value = {
        m.fact.key
        for m in kept
        if m.text > 0 and m.rules < 1.0 and any(mention_units(q, v) for v in _values(m.fact, rules))
    }
    ranked = sorted(
        kept,
        key=lambda m: (
            labelled and (m.rules == 0.0 or m.fact.key in by_value),
            -m.score,
            m.fact.entity != DEFAULT_ENTITY,
            m.fact.key,
        ),
    )
    if notes and (not ranked or notes[0].score > ranked[0].score):
        return notes, None  # "the exact …" and a note says it better than any fact
    derived = _derived(index, rules, attr_scores, held, ranked, scope)
    if derived is not None:
        chosen = [derived]
    elif not ranked:
        return [], None
    else:
        best = ranked[0].score
        chosen = [m for m in ranked if m.score >= KEEP_RATIO * best][:MAX_FACTS]
    # A fact whose old value the question takes as current is part of the answer: the
    # correction ("from Haizhu" after the move names the new address too).
    keys = {m.fact.key for m in chosen}
    stale = [
        m for m in ranked if m not in chosen and m.fact.status != "deleted"
        and premise(m.fact, q, rules) == (False, True)
        and (m.fact.derived_from or {}).get("fact") not in keys  # its cause says it already
    ]  # fmt: skip
    return chosen + stale[:MAX_PREMISE], None


def _derived(
    index: Index,
    rules: Rules,
    attr_scores: dict[str, float],
    held: set[str],
    ranked: list[Match],
    scope: list[str] | None,
) -> Match | None:
    """The question names, better than any fact found, an attribute the vault holds nothing
    for: the value a rule derives for it from facts it does hold ('my social insurance city'
    is the home city), else None."""
    absent = [(s, a) for a, s in attr_scores.items() if a not in held and s >= MIN_SCORE]
    if not absent:
        return None
    s, wanted = max(absent)
    if ranked and s <= max(m.rules for m in ranked):
        return None
    entity = scope[0] if scope else DEFAULT_ENTITY
    fact = inferred(index, rules, wanted, entity)
    return Match(fact, score=s, rules=s) if fact is not None else None


def _names_a_value(
    index: Index, q: Question, spots: dict[int, float], scope: list[str] | None
) -> bool:
    """Whether the question, the topic's own words aside, names a value some fact has or had
    (a whole word, or a Chinese pair): then it asks about that fact, not the topic."""
    rest = tokens(residual(q, spots), query=True)
    for hit in index.search(rest, entities=scope):
        found = hit.matched.get("value", set()) | hit.matched.get("history", set())
        if sum(weight(t) for t in found) >= 1.0:
            return True
    return False


def _neighbours(
    found: dict[str, Match],
    spots: dict[str, dict[int, float]],
    held: set[str],
    named: set[str],
    q: Question,
    rules: Rules,
) -> set[str]:
    """Keys of facts the question is not about although they scored: a fact matched only by
    its text when another is named by its label or alias (血压 names the blood pressure; the
    condition 高血压 merely contains the word), and a fact whose words the question uses only
    as part of a better-matching attribute that holds nothing ('job title' is not the
    employer's 'job'; 'work for' is not the gym's 'work out'). A fact whose value the
    question names is never a neighbour: that is a premise to answer."""
    labelled = any(m.rules >= 1.0 for m in found.values())
    out = set()
    for key, m in found.items():
        if key in named or (m.text > 0 and any(premise(m.fact, q, rules))):
            continue
        if m.rules == 0.0 and (labelled or _explained(m.words, spots, held, q)):
            out.add(key)
            continue
        mine = spots.get(m.fact.attribute, {})
        # A count's slot never outranks the list it counts ("我有几只宠物": the pets answer it).
        count = rules.grammar.counts.get(m.fact.attribute) if rules.grammar else None
        if mine and any(
            attr not in held and attr != count and _dominates(theirs, mine, q)
            for attr, theirs in spots.items()
        ):
            out.add(key)
    return out


def _explained(
    words: frozenset[str], spots: dict[str, dict[int, float]], held: set[str], q: Question
) -> bool:
    """Whether every word a text-only hit matched is one a held attribute's label or alias
    covers well enough to answer ('deployed' names the deploy target, not the note that
    says 'deploy')."""
    if not words:
        return False
    stems: set[str] = set()
    for attr, mine in spots.items():
        if attr in held and score(mine) >= MIN_SCORE:
            stems.update(q.units[i].stem for i in mine)
    return all(w in stems or (len(w) > 1 and all(c in stems for c in w)) for w in words)


def _dominates(theirs: dict[int, float], mine: dict[int, float], q: Question) -> bool:
    """True when another attribute explains the question better and covers every content word
    this one covers: either it covers one of them more surely, or it covers further content
    words worth a whole word (a stemmed 'time' in 'over time' is not enough; 上班 is)."""
    content = {i for i in mine if q.units[i].weight >= 1.0} or set(mine)
    if not content <= set(theirs) or score(theirs) <= score(mine):
        return False
    surer = any(theirs[i] > mine[i] for i in content)
    extra = sum(w for i, w in theirs.items() if i not in mine and q.units[i].weight >= 1.0)
    return surer or extra >= 1.0


def _broad_topics(
    topics: dict[str, dict[int, float]], attrs: dict[str, dict[int, float]], q: Question
) -> list[str]:
    """Topics the question asks for as a whole ('tell me everything about my commute',
    '我的联系方式有哪些', 'what is our tech stack?'), best first; [] for a narrow question."""
    best = max((score(spots) for spots in attrs.values()), default=0.0)
    # Everything the leading attributes (near-ties included) explain in the question.
    leading = {i for spots in attrs.values() if score(spots) >= KEEP_RATIO * best for i in spots}
    cue = bool(_BROAD.search(q.text))
    out = []
    for name, spots in sorted(topics.items(), key=lambda kv: (-score(kv[1]), kv[0])):
        s = score(spots)
        # A cue word; a topic named more strongly than any one attribute; or the question
        # is the topic's own name, which an attribute also answers to ("我们的技术栈是什么").
        named = s >= 2.0 and set(spots) == leading
        if s >= MIN_SCORE and (cue or s > best + 0.5 or named):
            out.append(name)
    return out


def _text_score(hit: Hit, *, with_name: bool = True) -> float:
    """Each matched query token counts once, by its best column."""
    best: dict[str, float] = {}
    for col, toks in hit.matched.items():
        if col == "name" and not with_name:
            continue
        for t in toks:
            best[t] = max(best.get(t, 0.0), COLUMN_WEIGHT[col] * weight(t))
    return sum(best.values())
