"""Which attributes, topics and entities a question names, through rules.yaml's words.

An attribute's score is how much of the question its words explain: each question word (or
Chinese character) that one of its labels, aliases or its name covers counts once, a
function word a little, a literal phrase fully, a stemmed, partial or gapped one less. So
"which district do I live in?" is more about the home address (district, live) than the
home city (live), and "我在哪个城市上班" more about the work city (城市, 上班) than the home
city (哪个城市). ask.py adds the full-text score on top.
"""

from __future__ import annotations

from collections.abc import Iterable

from mdmem.lang.tokens import (
    STOP,
    ZH_STOP_BIGRAMS,
    ZH_STOP_CHARS,
    fold,
    is_cjk,
    stem,
    token_re,
    words,
)
from mdmem.model.rules import Rules
from mdmem.read.question import FUNCTION_WORD, Question, Unit

__all__ = ["FUNCTION_WORD", "Question", "Unit"]

LITERAL, GAPPED, STEMMED, PARTIAL_ZH, PARTIAL_EN = 1.0, 0.8, 0.8, 0.7, 0.6


def residual(q: Question, spots: Iterable[int]) -> str:
    """The question's text with the given units blanked out: what is left to match once the
    words a topic or attribute explains are set aside."""
    drop = set(spots)
    out = list(q.folded)
    n = 0
    for m in token_re().finditer(q.folded):
        if m.group(1):
            for i in range(len(m.group(1))):
                if n in drop:
                    out[m.start() + i] = " "
                n += 1
        else:
            if n in drop:
                out[m.start() : m.end()] = " " * (m.end() - m.start())
            n += 1
    return "".join(out)


def cover(phrase: str, q: Question, *, partial: bool) -> dict[int, float]:
    """The question units a phrase covers, each with how surely (1.0 literal … 0.6 partial)."""
    f = fold(phrase).strip()
    if not f:
        return {}
    if is_cjk(f):
        return _cover_cjk("".join(f.split()), q, partial)
    ws = words(f)
    spots = q.has_words(ws)
    if spots:
        return dict.fromkeys(spots, LITERAL)
    content = {stem(w) for w in ws if w not in STOP and len(w) > 1}
    found = {i: u for i, u in enumerate(q.units) if not u.cjk and u.stem in content}
    got = {u.stem for u in found.values()}
    if content and got == content:
        return dict.fromkeys(found, STEMMED)
    if partial and got:
        return dict.fromkeys(found, PARTIAL_EN)
    return {}


def _cover_cjk(p: str, q: Question, partial: bool) -> dict[int, float]:
    out: dict[int, float] = {}
    start = q.folded.find(p)
    while start >= 0:  # every literal occurrence
        out.update({q.offsets[start + k]: LITERAL for k in range(len(p)) if start + k in q.offsets})
        start = q.folded.find(p, start + 1)
    if out:
        return out
    if len(p) >= 3:  # the characters in order, a few apart: 怎么上班 in 我怎么去上班
        spots = _gapped(p, q.folded, len(p) + 3)
        if spots:
            return {q.offsets[s]: GAPPED for s in spots if s in q.offsets}
    grams = {p[i : i + 2] for i in range(len(p) - 1)} - ZH_STOP_BIGRAMS
    grams = {g for g in grams if not set(g) <= ZH_STOP_CHARS}
    hits = [g for g in grams if g in q.folded]
    # A label may match by one pair of characters (社保 of 社保城市); an alias needs two.
    if hits and (partial or len(hits) >= 2):
        for g in hits:
            s = q.folded.find(g)
            out.update({q.offsets[s + k]: PARTIAL_ZH for k in (0, 1) if s + k in q.offsets})
    return out


def _gapped(p: str, text: str, span: int) -> list[int]:
    """Offsets of p's characters in text, in order, within `span` characters, or []."""
    start = text.find(p[0])
    while start >= 0:
        spots, pos = [start], start
        for c in p[1:]:
            pos = text.find(c, pos + 1)
            if pos < 0 or pos - start >= span:
                break
            spots.append(pos)
        if len(spots) == len(p):
            return spots
        start = text.find(p[0], start + 1)
    return []


def covered(phrases: Iterable[tuple[str, bool]], q: Question) -> dict[int, float]:
    """The units (phrase, partial-allowed) pairs cover together, each by its best phrase."""
    best: dict[int, float] = {}
    for phrase, partial in phrases:
        spots = cover(phrase, q, partial=partial)
        # A literal phrase of several words counts its function words more ("about me").
        floor = 0.5 if len(spots) > 1 and all(v == LITERAL for v in spots.values()) else 0.0
        for i, how in spots.items():
            worth = max(q.units[i].weight, floor) * how
            best[i] = max(best.get(i, 0.0), worth)
    return best


_LAST_COVER: list[tuple[Rules, tuple[int, str], dict[str, dict[int, float]]]] = []


def attribute_cover(rules: Rules, q: Question) -> dict[str, dict[int, float]]:
    """The question units each declared attribute's name, labels and aliases cover (the last
    question's is kept: retrieval and routing ask it several times of one question; callers
    only read it)."""
    key = (len(rules.attributes), q.folded)
    if _LAST_COVER and _LAST_COVER[0][0] is rules and _LAST_COVER[0][1] == key:
        return _LAST_COVER[0][2]
    out = {}
    for name, attr in rules.attributes.items():
        phrases = [(lbl, True) for lbl in attr.label.values()]
        phrases.append((name.replace("_", " "), True))
        phrases += [(a, False) for a in attr.aliases]
        spots = covered(phrases, q)
        if spots:
            out[name] = spots
    _LAST_COVER[:] = [(rules, key, out)]
    return out


def topic_cover(rules: Rules, q: Question) -> dict[str, dict[int, float]]:
    """The question units each topic's name, labels and aliases cover."""
    out = {}
    for name, topic in rules.topics.items():
        phrases = [(lbl, False) for lbl in topic.label.values()]
        phrases.append((name.replace("_", " "), False))
        phrases += [(a, False) for a in topic.aliases]
        spots = covered(phrases, q)
        if spots:
            out[name] = spots
    return out


def score(spots: dict[int, float]) -> float:
    return sum(spots.values())


def attribute_scores(rules: Rules, q: Question) -> dict[str, float]:
    """Score of every declared attribute whose name, labels or aliases the question uses."""
    return {name: score(spots) for name, spots in attribute_cover(rules, q).items()}


def topic_scores(rules: Rules, q: Question) -> dict[str, float]:
    """Score of every topic the question names (by its name, labels or aliases)."""
    return {name: score(spots) for name, spots in topic_cover(rules, q).items()}


def mentioned_entities(entities: list[str], q: Question) -> list[str]:
    """Entities other than the default one that the question names ('Alice's job', '小王')."""
    present = {u.text for u in q.units}
    out = []
    for e in entities:
        spoken = e.replace("_", " ").replace("-", " ")
        if e == "user":
            continue
        if is_cjk(spoken):
            if "".join(spoken.split()) in q.folded:
                out.append(e)
        elif set(spoken.split()) <= present and mentions(q, spoken):  # cheap test first
            out.append(e)
    return out


def naming(q: Question, entities: list[str], speakers: list[str]) -> Question:
    """The question with the entities and the speakers it names, read once at the door."""
    return q.naming(mentioned_entities(entities, q), speakers)


def value_spellings(rules: Rules, q: Question) -> list[str]:
    """Every spelling of each `values` group the question mentions (Shanghai → 上海, 上海市)."""
    extra: list[str] = []
    seen: set[tuple[str, ...]] = set()
    for attr in rules.attributes.values():
        for group in attr.values:
            if group in seen:
                continue
            seen.add(group)
            if any(mentions(q, v) for v in group):
                extra.extend(group)
    return extra


def mention_units(q: Question, value: str) -> set[int]:
    """The question units a literal mention of value occupies (empty when not mentioned)."""
    f = fold(value).strip()
    if not f:
        return set()
    if is_cjk(f):
        p = "".join(f.split())
        start = q.folded.find(p)
        return (
            {q.offsets[start + k] for k in range(len(p)) if start + k in q.offsets}
            if start >= 0
            else set()
        )
    ws = words(f)
    return set(q.has_words(ws)) if ws else set()


def mentions(q: Question, value: str) -> bool:
    """True when the question contains value as a phrase (CJK: as a substring)."""
    f = fold(value).strip()
    if not f:
        return False
    if is_cjk(f):
        return f in q.folded or "".join(f.split()) in q.folded
    ws = words(f)
    return bool(ws) and bool(q.has_words(ws))
