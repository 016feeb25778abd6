"""`mdmem ask`: find the facts a question is about and answer from their state (docs/states.md, docs/reading.md).

retrieve.py finds the facts (rules.yaml's words and the full-text index); this module picks
the mode (current, past, over time, as of a date, a whole topic), answers with the sentences
of answer.py in the question's language, or, with `llm=`, hands the same facts to a model.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any

from mdmem.engine.plans import seen_on
from mdmem.errors import MdmemError
from mdmem.lang import phrases
from mdmem.lang.phrases import phrase
from mdmem.lang.questions import ACTION, HAS, PRONOUN, YES_NO
from mdmem.lang.tokens import fold, tokens
from mdmem.model import life
from mdmem.model.factfile import DATE_RE, Fact
from mdmem.model.rules import Rules
from mdmem.read import answer as tpl
from mdmem.read import compose
from mdmem.read.compose import EVIDENCE
from mdmem.read.cover import told_of
from mdmem.read.index import Index
from mdmem.read.match import naming
from mdmem.read.passages import Passage, PassageIndex
from mdmem.read.question import BadDate, Question, undated
from mdmem.read.question import as_of as question_day
from mdmem.read.retrieve import fact_json, premise, retrieve
from mdmem.read.route import labelled, of_someone_else, old_values, on_head, passage_route
from mdmem.read.said import search
from mdmem.store.vault import Vault

SURE_SPAN = 0.6  # a span this sure answers before facts that say less than the question asks
TYPED_SPAN = 0.45  # as sure, when the words hold the time, place, person or number asked
PASSAGES = 3  # passages searched when the words answer: enough to find it, few enough to read
MANY_PASSAGES = 8  # for a question that asks for several things, whose items are said apart

# Phrases that say "uncertain/unknown" and "removed": the evaluator reads these (evaluate.py).
UNCERTAIN_WORDS = phrases.UNCERTAIN_WORDS
REMOVED_WORDS = phrases.REMOVED_WORDS

@dataclass
class Answer:
    """What `ask` returns: the text in the question's language and the facts it rests on."""

    question: str
    text: str
    lang: str
    mode: str  # current | past | history | as_of | topic | said | none
    facts: list[dict[str, Any]] = field(default_factory=list)
    as_of: str | None = None
    topic: str | None = None
    model: str | None = None
    evidence: list[dict[str, Any]] = field(default_factory=list)  # passages quoted
    answer: str = ""  # the first line: the answer itself (compose.py)
    type: str = "what"  # the question's type (lang/questions.py)
    source: str = "none"  # what the first line comes from: fact | event | plan | passage | none
    basis: list[dict[str, Any]] = field(default_factory=list)  # whose facts or words it states
    confidence: float = 0.0
    about: list[str] = field(default_factory=list)  # the people and speakers it was about
    fact_objects: list[Fact] = field(default_factory=list, repr=False)  # the facts themselves

    def to_json(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "answer": self.answer or self.text.split("\n", 1)[0],
            "text": self.text,
            "lang": self.lang,
            "type": self.type,
            "mode": self.mode,
            "as_of": self.as_of,
            "topic": self.topic,
            "model": self.model,
            "source": self.source,
            "confidence": self.confidence,
            "basis": self.basis,
            "facts": self.facts,
            "evidence": self.evidence,
            "about": self.about,
        }


def _is_day(text: str) -> bool:
    try:
        date.fromisoformat(text[:10])
    except ValueError:
        return False
    return bool(DATE_RE.fullmatch(text))


def ask(
    vault: Vault,
    question: str,
    *,
    as_of: str | None = None,
    entity: str | None = None,
    llm: str | None = None,
    api_base: str | None = None,
    llm_options: dict[str, Any] | None = None,
    evidence: int = EVIDENCE,
    about: Iterable[str] = (),
) -> Answer:
    """Answer a question from the vault: the answer on the first line, then its evidence.
    `about`: whom the conversation's question before was about (its Answer.about); a question
    that names no one and says 'she' or 'he' is about them when they are one person."""
    if as_of is not None and not _is_day(as_of):
        raise MdmemError(f"--as-of {as_of!r} is not a date; write it like 2025-06-01")
    if not question.strip():
        raise MdmemError("the question is empty; ask it in words, like: mdmem ask \"Where do I live?\"")
    if evidence < 0:
        raise MdmemError(f"--evidence {evidence} is below 0; give how many quotes to show, like --evidence 3")
    q = Question.of(question)
    said = PassageIndex(vault.root, vault.meta)
    try:
        said.refresh()
        with Index(vault.root) as index:
            # Each read refreshes the folders it reads; what changed is parsed once, for the
            # snapshot too. A warm ask about one person stats that person's files only.
            index.refresh_as_read(vault.parsed)
            q = _named(naming(q, index.entities(), said.speakers()), index)
            q = _after(q, list(about), index.entities(), said.speakers())
            unknown = [n for n in q.strangers if not said.search(tokens(n), limit=1)]
            if unknown and not q.people and not q.speakers and entity is None:
                result = Answer(question, "", q.lang, "none", as_of=as_of, type=q.type)
                _finish(result, compose.nothing_about(unknown, q.lang))
                return result
            asked = as_of
            if as_of is None:
                try:
                    asked = question_day(q, vault.now[:10])
                except BadDate as bad:
                    result = Answer(question, "", q.lang, "none", type=q.type)
                    _finish(result, compose.Composed(phrase("bad_date", q.lang, date=str(bad))))
                    return result
            result = answer_from_index(index, vault.rules, q, as_of=asked, entity=entity, today=vault.now[:10])
            if as_of is None and asked is not None and result.mode == "none":
                result = answer_from_index(index, vault.rules, q, entity=entity, today=vault.now[:10])  # the time is the words'
            if of_someone_else(q, vault.rules, result.facts):  # her brother's city is not hers
                result = Answer(question, tpl.nothing(q.lang), q.lang, "none", as_of=as_of, type=q.type)
        found: list[Passage] = []
        # The state on a day the option names is the facts' alone; a day the question's words
        # name ('What did Joanna watch on 1 May 2022?') may be answered by what was said then.
        route = passage_route(result.mode, result.facts, q, vault.rules) if as_of is None else None
        if route is not None:
            found = _passages(said, q, result, instead=route == "instead")
    finally:
        said.close()
    named = [f for f in result.facts if f.get("kind") is None and not life.family(str(f.get("attribute", "")))]
    slot = route is not None and not ACTION().search(q.text) and on_head(q, labelled(q, vault.rules, named), named)
    c = _compose(result, q, found, route, evidence, slot)
    result.about = [*q.speakers, *(p for p in q.people if fold(p) not in map(fold, q.speakers))]
    _finish(result, c if evidence else replace(c, quotes=[], evidence=[]))  # --evidence 0: the answer alone
    if llm is not None:
        from mdmem.read.model_answer import llm_answer  # with mdmem.llm: only when a model words it

        text = llm_answer(result, model=llm, api_base=api_base, options=llm_options)
        if text != result.text:  # else the model dropped what the template says: not its answer
            result.text, result.model = text, llm
            result.answer = text.strip().split("\n", 1)[0]
    return result


def _after(q: Question, about: list[str], entities: list[str], speakers: list[str]) -> Question:
    """'When did she start?' after a question about Caroline is about Caroline: a question
    that names no one, with a third-person pronoun, after a question about one person."""
    if len(about) != 1 or q.people or q.speakers or q.names or not PRONOUN().search(q.text):
        return q
    who = fold(about[0])
    return replace(q, people=tuple(e for e in entities if fold(e) == who),
                   speakers=tuple(s for s in speakers if fold(s) == who))  # fmt: skip


def _named(q: Question, index: Index) -> Question:
    """The question without the capitalised words that are values of facts ('Is Google still
    my employer?'): only the rest may be people memory knows nothing of."""
    values = {n for n in q.strangers if index.search(tokens(n), limit=1)}
    return replace(q, names=tuple(n for n in q.names if n not in values)) if values else q


def _finish(result: Answer, c: compose.Composed) -> None:
    result.answer = c.first.split("\n", 1)[0]
    result.text = "\n".join([c.first, *c.quotes])
    result.source, result.basis, result.confidence = c.source, c.basis, c.confidence
    result.evidence = c.evidence


def _compose(result: Answer, q: Question, found: list[Passage], route: str | None, evidence: int,
             asked: bool = True) -> compose.Composed:  # fmt: skip
    """The answer line and its evidence: the facts' sentence when they answer (quotes after
    it when they may say less than the words did), else a span of the best passage. `asked`:
    the question names the facts' slot (their label covers some of its words)."""
    facts = result.fact_objects
    # A what-question the facts say less about than the words did, whose slot it does not name
    # or whose facts hold no name ("What did Calvin and his friends arrange?" and 'friends:
    # mentioned, not by name'): the span of what was said answers, the facts come after it.
    # Labels cover a Chinese question's characters only in part: there, only facts with no name.
    unnamed = bool(facts) and all(f.kind in ("none", "unnamed") for f in facts)
    vague = q.type == "what" and route in ("after", "beside") and (unnamed or not asked and q.lang != "zh")
    # A fact's state sentence answers no why or how ("Why did he apologize to his partner?"),
    # and a fact that holds no name no when, where or who: the span of what was said does.
    if route in ("after", "beside") and (q.why or q.how or q.describes or unnamed and q.type in ("when", "where", "who")):
        vague = True
    spoken = compose.from_passages(q, found, result.lang, evidence=evidence) if found else None
    typed = q.type in ("when", "where", "who", "how_many") and route == "after" and result.mode == "current"
    told = None if result.mode == "none" else compose.from_facts(result.text, facts, q, result.lang, asked and result.mode == "current")
    life = told is not None and told.source in ("event", "plan")
    if life and told and spoken is not None and q.type == "when" and compose.said_alike(facts, spoken):
        told.first = spoken.first  # the same words, dated as said: 'the week before 21 January 2022'
    if told and told.first != result.text:
        typed = False  # an event's date or place, or a count of the fact's items, answers
    sure = TYPED_SPAN if typed else SURE_SPAN
    # A fact in doubt is news, never overruled by words said before the change ('15 minute').
    settled = all(f.status == "active" for f in facts)
    if spoken is not None and spoken.typed and (q.often or q.lasts) and settled and not _measured(q, facts):
        typed, sure = True, 0.0  # "How often…": the frequency said, before facts that hold none
    if spoken is not None and (vague or (typed or route == "beside" and not life) and spoken.confidence >= sure):
        # The facts say less than the words did, and the words hold the time, place, person
        # or number asked, or the facts only share words with the question: the span is the
        # answer; the facts' sentence comes first among the evidence.
        # With no fact, that line says so ('I don't know…'): the span is only what was said.
        spoken.quotes.insert(0, result.text)
        return spoken
    if told is not None and (route not in ("instead",) or spoken is None):
        c = told
        if spoken is not None:
            c.quotes, c.evidence = [*c.quotes, *spoken.quotes], spoken.evidence
        elif found:  # no passage answers, but what was said may tell more than the facts
            lines, c.evidence = compose.quoted(q, found, result.lang, evidence=evidence)
            c.quotes = [*c.quotes, *lines]
        return c
    if spoken is None:
        # No passage holds enough of the question to take an answer from: say so, and quote
        # the closest of what was said (never as the answer) for the reader to judge.
        result.mode, result.facts = "none", []
        near = [p for p in found if compose.cover(q, p.text) >= compose.MIN_COVER]
        lines, shown = compose.quoted(q, near, result.lang, evidence=evidence)
        line = phrase("nothing_closest", result.lang) if lines else tpl.nothing(result.lang)
        return compose.Composed(line, lines, shown)
    result.mode, result.facts = "said", []
    return spoken


def _measured(q: Question, facts: list[Fact]) -> bool:
    """Whether a fact holds the frequency or duration the question asks for ('60 minutes')."""
    from mdmem.read.spans import measure

    return any(measure(q, str(f.value)) or (isinstance(f.value, str) and f.value.isdigit()) for f in facts)


def _passages(said: PassageIndex, q: Question, result: Answer, *, instead: bool = False) -> list[Passage]:  # fmt: skip
    """What was said that bears on the question, when no fact answers, `instead` of facts that
    do not, or after the facts when the question asks for the words or more than they say.
    After a fact, a passage that says only a value it no longer holds would answer the old
    value: the fact has already said what is current."""
    if result.mode == "as_of" and not instead:  # quotes for a fact of that time: not 'March'
        q = undated(q)
    found = search(said, q, limit=MANY_PASSAGES if q.many else PASSAGES)
    if not instead and result.mode not in ("history", "as_of"):
        old = [fold(v) for v in old_values(result.facts)]
        found = [p for p in found if not any(v in fold(p.text) for v in old)]
    return found


def answer_from_index(
    index: Index,
    rules: Rules,
    question: str | Question,
    *,
    as_of: str | None = None,
    entity: str | None = None,
    today: str | None = None,
) -> Answer:
    """The template answer from an up-to-date index (pure apart from reading the index); a plan
    whose day passed before `today` is answered as uncertain (engine/plans.py)."""
    q = question if isinstance(question, Question) else naming(Question.of(question), index.entities(), [])
    lang = q.lang
    matches, topic = retrieve(index, rules, q, entity=entity)
    for m in matches if today else []:
        m.fact = seen_on(m.fact, rules, str(today))
    # An event or a plan answers only a question about it: its words hold most of the
    # question's, or the question names them ("my plans"): "When did Gina open her store?"
    # is no question about her internship.
    matches = [m for m in matches if not life.family(m.fact.attribute) or m.rules > 0 or told_of(q, m.fact)]
    mode = "as_of" if as_of else "history" if q.history else "current"
    if mode == "current" and q.past:
        mode = "past"
    if topic is not None and mode == "current":
        mode = "topic"
    ans = Answer(q.text, "", lang, mode, as_of=as_of, topic=topic, type=q.type)
    if not matches:
        ans.mode = "none"
        ans.text = tpl.nothing(lang)
        return ans
    ans.facts = [fact_json(m) for m in matches]
    facts = ans.fact_objects = [m.fact for m in matches]
    if mode == "topic":
        assert topic is not None
        ans.text = tpl.topic_answer(facts, rules.topics[topic], rules, lang)
    elif mode == "as_of":
        assert as_of is not None
        ans.text = " ".join(tpl.as_of_sentence(f, rules, lang, as_of) for f in facts)
    elif mode in ("history", "past"):
        ans.text = " ".join(
            tpl.history_sentence(f, rules, lang, full=mode == "history") for f in facts
        )
    else:
        yes_no = bool(YES_NO.search(q.text))
        ans.text = _join(_current(f, q, rules, lang, yes_no, index, facts) for f in facts)
    return ans


def _join(parts: Iterable[tuple[str, ...]]) -> str:
    """Each fact's sentence after its lead-ins ('That is out of date. ', what changed
    upstream): a lead-in already said for an earlier fact is not said again."""
    said: set[str] = set()
    out = []
    for *leads, sentence in parts:
        out.append("".join(lead for lead in leads if lead not in said) + sentence)
        said.update(leads)
    return " ".join(out)


def _current(
    fact: Fact, q: Question, rules: Rules, lang: str, yes_no: bool, index: Index,
    answered: list[Fact],
) -> tuple[str, str, str]:  # fmt: skip
    """(lead-in, upstream change, sentence): the state, led by a correction when the question assumes an old
    value, and by what changed upstream when the value it assumes is now in doubt."""
    sentence = tpl.state_sentence(fact, rules, lang)
    if fact.status == "deleted":
        return "", "", sentence
    says_current, says_old = premise(fact, q, rules)
    origin = ""
    why = fact.uncertain_because or {}
    # An uncertain fact's sentence names its own trigger; what started the cascade further
    # upstream (or what an expired fact's sentence leaves out) is said before it.
    upstream = fact.status == "expired" or why.get("origin") not in (None, why.get("fact"))
    # An expired fact's sentence never says why it stopped being known: the change that ended
    # it is always said ('You moved to Hangzhou on D. Your commute is unknown — was 60 until D').
    premised = says_old or says_current or fact.status == "expired"
    if premised and fact.status in ("uncertain", "expired") and upstream:
        origin = _origin(fact, rules, lang, index, answered)
    if says_old and not says_current:
        return phrase("stale", lang), origin, sentence
    if fact.status in ("uncertain", "expired") and (says_old or says_current):
        return phrase("doubtful", lang), origin, sentence
    if says_current and yes_no and fact.status == "active" and tpl.affirms(fact):
        return phrase("yes", lang), origin, sentence
    if yes_no and fact.status == "active" and fact.kind == "unnamed" and HAS().search(q.text) and labelled(q, rules, [{"attribute": fact.attribute}]):
        return phrase("yes", lang), origin, sentence  # "Is she married?": her husband was mentioned
    return "", origin, sentence


def _origin(fact: Fact, rules: Rules, lang: str, index: Index, answered: list[Fact]) -> str:
    """'You moved to Hangzhou on D.' for a doubtful fact whose cause started upstream ('' when
    that change is already part of the answer or not on record)."""
    why = fact.uncertain_because or {}
    key = str(why.get("origin") or why.get("fact") or "")
    if "/" not in key or any(f.key == key for f in answered):
        return ""
    entity, attribute = key.split("/", 1)
    found = index.facts(attributes=[attribute], entities=[entity])
    if not found:
        return ""
    return tpl.origin_sentence(found[0], rules, lang, str(why.get("changed_at") or ""))
