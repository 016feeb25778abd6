"""Whether the facts found really answer a question, or what was said must be quoted too.

A fact answers alone when the question is about it: its label (or an alias, or its own name)
and its values explain the question's words, the people named and the question's frame words
("what", "name", "now") aside. "Who is Tim's favorite basketball player?" shares only
"favorite" with the likes and dislikes: "basketball player" is left over, so the passages that
say it are quoted after the fact. A fact matched only by the words of its value never answers
alone (`_by_words`). `passage_route` says how what was said joins the facts' answer.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from mdmem.lang.questions import head_words
from mdmem.lang.tokens import fold, stem, tokens, words
from mdmem.model.life import family
from mdmem.model.rules import Rules
from mdmem.read.match import Question, attribute_cover, covered, mention_units

# Words that frame a question rather than say what it is about.
_FRAME_WORDS = """name names named called call kind kinds type types sort sorts thing things
    exactly exact again ever usually really actually like"""
_FRAME = frozenset(stem(w) for w in _FRAME_WORDS.split()) | frozenset("多少几谁为何")
# This much left unexplained (two English words, four Chinese characters) is more than the
# fact says. One is not: 'Where do alerts go?', 'Which lockfile do we commit?' leave a verb.
LOOSE = 2.0


def labelled(q: Question, rules: Rules, facts: Iterable[dict[str, Any]]) -> set[int]:
    """The question units the facts' labels, aliases or names cover."""
    spots = attribute_cover(rules, q)
    out: set[int] = set()
    for f in facts:
        attribute = str(f.get("attribute", ""))
        out |= set(spots.get(attribute) or {})
        if attribute not in rules.attributes:  # an undeclared slot answers to its own name
            out |= set(covered([(attribute.replace("_", " "), True)], q))
    return out


def on_head(q: Question, labels: set[int], facts: list[dict[str, Any]]) -> bool:
    """Whether the facts' labels (or their values) cover the noun the question asks for,
    when it names one: "What outdoor activities has John done with his colleagues?" names his
    colleagues' slot, but asks for activities; "What pets does Nate have?" asks for the slot
    it names, "Which types of cars does Dave like?" is answered by his liking 'classic cars'."""
    if not labels:
        return False
    head = {stem(fold(w)) for w in head_words(q.text)}
    units = {i for i, u in enumerate(q.units) if u.stem in head}
    valued = {stem(fold(w)) for f in facts for v in fact_values(f, history=False) for w in words(v)}
    return not units or bool(units & labels) or bool(head & valued)


def loose_words(q: Question, rules: Rules, facts: list[dict[str, Any]],
                labels: set[int] | None = None) -> list[str]:  # fmt: skip
    """The question's content words that neither the facts' labels (`labelled`, computed
    unless given) nor their values explain, nor the names of the people they are about."""
    explained = set(labelled(q, rules, facts) if labels is None else labels)
    names: set[str] = set()
    for f in facts:
        for value in fact_values(f):
            explained |= mention_units(q, value)
        names.update(words(str(f.get("entity", "")).replace("_", " ")))
    out = []
    for i, u in enumerate(q.units):
        if i in explained or u.weight < 1.0 or fold(u.text) in names or u.stem in _FRAME:
            continue
        out.append(u.text)
    return out


def answers_alone(q: Question, rules: Rules, facts: list[dict[str, Any]],
                  labels: set[int] | None = None) -> bool:  # fmt: skip
    """Whether the facts explain the question well enough to stand without quoted passages."""
    left = loose_words(q, rules, facts, labels)
    return sum(0.5 if len(w) == 1 and not w.isascii() else 1.0 for w in left) < LOOSE


def passage_route(mode: str, facts: list[dict[str, Any]], q: Question, rules: Rules) -> str | None:
    """How what was said joins the answer (_route); an event or plan that answers alone is
    quoted with the words it was told in ("after")."""
    route = _route(mode, facts, q, rules)
    if route is None and any(family(str(f.get("attribute", ""))) for f in facts):
        return "after"
    return route


def _route(mode: str, facts: list[dict[str, Any]], q: Question, rules: Rules) -> str | None:
    """How what was said joins the answer: None (the facts answer), "after" the facts,
    "beside" facts that say less than the question asks (the words' span may answer first),
    or "instead" of facts that only share a word with the question."""
    if mode == "none" or q.said:
        return "after"
    if mode not in ("current", "topic", "past", "history", "as_of"):
        return None
    labels = labelled(q, rules, facts)
    named = mode == "topic" or bool(labels)
    # A question that takes an old value for current gets the correction: the fact is said
    # (also when it names the value in part: "St. Brigid's" for "St. Brigid's Hospital").
    asked = set(q.query)
    named = named or any(asked & set(tokens(v, query=True)) for v in old_values(facts))
    active = all(f.get("status") == "active" for f in facts)
    if answers_alone(q, rules, facts, labels):
        if not _by_words(mode, facts):
            return None
        # Facts hit only by the words of their value ("What movie did Joanna watch?" hits her
        # liking watching movies) say less than the words did.
        unnamed = active and not any(f.get("score_rules", 0) > 0 for f in facts) and mode != "topic"
        return "beside" if unnamed else "after"
    # A fact in doubt or removed is said even when only its words matched: that is news.
    if not active:
        return "after"
    return "beside" if named else "instead"


def _by_words(mode: str, facts: list[dict[str, Any]]) -> bool:
    """Whether the facts may say less than what was said, which is then quoted after them: no
    fact was named by its slot, only hit by words of its value ('Why did Jon start his dance
    studio?' hits his liking dancing), or one holds no name or a list that may be partial."""
    if mode not in ("current", "topic", "as_of"):
        return False
    named = [f for f in facts if f.get("score_rules", 0) > 0 or mode == "topic"]
    # A fact that holds no name ('children: mentioned, not by name') or a list that may be
    # partial says less than the words did.
    partial = [f for f in facts if f.get("status") == "active" and (f.get("value") is None or isinstance(f.get("value"), list))]  # fmt: skip
    return bool(partial) or not named and all(f.get("status") == "active" for f in facts)


def old_values(facts: list[dict[str, Any]]) -> list[str]:
    """The values the facts held before and hold no more."""
    now = {fold(v) for f in facts for v in fact_values(f, history=False)}
    return [v for f in facts for v in fact_values(f) if fold(v) not in now]


def fact_values(fact: dict[str, Any], *, history: bool = True) -> list[str]:
    """The values a fact's JSON holds: current, then (with history) past, list items apart."""
    out: list[str] = []
    past = [h for h in fact.get("history") or [] if isinstance(h, dict)] if history else []
    for v in (fact.get("value"), *(h.get("value") for h in past)):
        out += [str(x) for x in (v if isinstance(v, list) else [v]) if x is not None and str(x).strip()]
    return out


# One word for each family of relatives, so 'mom' finds a fact of a 'mother' or of 'parents'.
_KIN_FAMILY = {"mum": "mom", "mother": "mom", "dad": "mom", "father": "mom", "parent": "mom",
               "kid": "child", "children": "child", "son": "child", "daughter": "child"}  # fmt: skip


def of_someone_else(q: Question, rules: Rules, facts: list[dict[str, Any]]) -> bool:
    """Whether the question asks about a relative or friend (q.kin: "Where does her brother
    live?") whom none of the facts is about: those facts are the person's own (her home city),
    never the relative's answer."""
    if not q.kin or not facts:
        return False
    kin = stem(fold(q.kin))
    want = {_KIN_FAMILY.get(kin, kin)}
    for f in facts:
        attr = rules.attribute(str(f.get("attribute", "")))
        said = " ".join([str(f.get("entity", "")), str(f.get("attribute", "")), *attr.label.values(),
                         *attr.aliases, str(f.get("value", ""))]).replace("-", " ").replace("_", " ")  # fmt: skip
        if q.kin in said or want & {_KIN_FAMILY.get(s, s) for s in (stem(w) for w in words(fold(said)))}:
            return False
    return True
