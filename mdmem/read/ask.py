"""`mdmem ask`: find the facts a question is about and answer from their state (docs/states.md, docs/reading.md).

retrieve.py finds the facts (rules.yaml's words and the full-text index); this module picks
the mode (current, past, over time, as of a date, a whole topic), answers with the sentences
of answer.py in the question's language, or, with `llm=`, hands the same facts to a model.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from mdmem.engine.plans import seen_on
from mdmem.errors import MdmemError
from mdmem.lang import phrases
from mdmem.lang.detect import detect_lang
from mdmem.lang.phrases import phrase
from mdmem.lang.tokens import fold, tokens
from mdmem.llm import LLMError, complete
from mdmem.model.factfile import DATE_RE, Fact
from mdmem.model.rules import Rules, norm
from mdmem.read import answer as tpl
from mdmem.read.index import Index
from mdmem.read.match import Question
from mdmem.read.retrieve import fact_json, premise, retrieve
from mdmem.read.route import answers_alone, fact_values, labelled, old_values
from mdmem.read.said import asks_what_was_said, passage_answer, recall
from mdmem.store.vault import Vault

PASSAGES = 3  # passages quoted when the words answer: enough to find it, few enough to read

# Phrases that say "uncertain/unknown" and "removed": the evaluator reads these (evaluate.py).
UNCERTAIN_WORDS = phrases.UNCERTAIN_WORDS
REMOVED_WORDS = phrases.REMOVED_WORDS

_HISTORY = re.compile(
    r"\b(?:over time|from (?:the )?earliest|earliest to latest|oldest to newest|in (?:chronological )?order"
    r"|history|timeline|chronolog\w*|how (?:has|have|did) .{0,40}chang\w*|changes|list (?:all|every)"
    r"|all (?:the )?\w+(?: \w+)? (?:i|we)(?:'ve| have) (?:ever )?\w+|every \w+ (?:i|we)(?:'ve| have)|so far)\b"
    r"|变化|变过|换过|历史|历程|怎么变|如何变|先后|依次|顺序|从最早|按时间|一直以来|哪些.{0,6}过|过哪些|过几",
    re.I,
)
_PAST = re.compile(
    r"\b(?:used to|before|previous(?:ly)?|former(?:ly)?|earlier|in the past|originally|at first"
    r"|prior|back then|once)\b|以前|之前|过去|原来|原先|曾经|先前|从前|当初|早先|一开始|上一[个份家]",
    re.I,
)
_YES_NO = re.compile(
    r"^\s*(?:do|does|did|is|are|am|was|were|have|has|can|could|should|will|would)\b"
    r"|(?:吗|么|是不是|对吗|对不对|有没有|是否)\s*[？?]?\s*$",
    re.I,
)


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

    def to_json(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "answer": self.text,
            "lang": self.lang,
            "mode": self.mode,
            "as_of": self.as_of,
            "topic": self.topic,
            "model": self.model,
            "facts": self.facts,
            "evidence": self.evidence,
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
) -> Answer:
    """Answer a question from the vault: current state first, history when asked."""
    if as_of is not None and not _is_day(as_of):
        raise MdmemError(f"--as-of {as_of!r} is not a date; write it like 2025-06-01")
    with Index(vault.root) as index:
        # Each read refreshes the folders it reads; what changed is parsed once, for the
        # snapshot too. A warm ask about one person stats that person's files only.
        index.refresh_as_read(vault.parsed)
        result = answer_from_index(index, vault.rules, question, as_of=as_of, entity=entity,
                                   today=vault.now[:10])  # fmt: skip
    if as_of is None:
        route = _route(result, vault.rules)
        if route is not None:
            _from_passages(vault, result, instead=route == "instead")
    if llm is not None:
        text = llm_answer(result, model=llm, api_base=api_base, options=llm_options)
        if text != result.text:  # else the model dropped what the template says: not its answer
            result.text, result.model = text, llm
    return result


def _route(result: Answer, rules: Rules) -> str | None:
    """How what was said joins the answer: None (the facts answer), "after" the facts, or
    "instead" of facts that only share a word with the question (route.py)."""
    if result.mode == "none" or asks_what_was_said(result.question):
        return "after"
    if result.mode not in ("current", "topic", "past", "history"):
        return None
    q = Question.of(result.question)
    labels = labelled(q, rules, result.facts)
    named = result.mode == "topic" or bool(labels)
    # A question that takes an old value for current gets the correction: the fact is said
    # (also when it names the value in part: "St. Brigid's" for "St. Brigid's Hospital").
    asked = set(q.query)
    named = named or any(asked & set(tokens(v, query=True)) for v in old_values(result.facts))
    if answers_alone(q, rules, result.facts, labels):
        return "after" if _by_words(result) else None
    # A fact in doubt or removed is said even when only its words matched: that is news.
    active = all(f.get("status") == "active" for f in result.facts)
    return "after" if named or not active else "instead"


def _by_words(result: Answer) -> bool:
    """Whether the facts may say less than what was said, which is then quoted after them: no
    fact was named by its slot, only hit by words of its value ('Why did Jon start his dance
    studio?' hits his liking dancing), or one holds no name or a list that may be partial."""
    if result.mode not in ("current", "topic"):
        return False
    facts = result.facts
    named = [f for f in facts if f.get("score_rules", 0) > 0 or result.mode == "topic"]
    # A fact that holds no name ('children: mentioned, not by name') or a list that may be
    # partial says less than the words did.
    partial = [f for f in facts if f.get("status") == "active" and (f.get("value") is None or isinstance(f.get("value"), list))]  # fmt: skip
    return bool(partial) or not named and all(f.get("status") == "active" for f in facts)


def _from_passages(vault: Vault, result: Answer, *, instead: bool = False) -> None:
    """Quote what was said when no fact answers, or `instead` of facts that do not; after the
    facts when the question asks for the words ('what did I tell you about…') or more than
    they say: the structured state still comes first."""
    found = recall(vault, result.question, limit=PASSAGES)
    if not instead and result.mode != "history":
        # After a fact, a passage that says only a value it no longer holds would answer the
        # old value: the fact has already said what is current.
        old = [fold(v) for v in old_values(result.facts)]
        found = [p for p in found if not any(v in fold(p.text) for v in old)]
    if not found:
        return
    quoted = passage_answer(result.question, found, result.lang)
    if result.mode == "none" or instead:
        result.text, result.mode, result.facts = quoted, "said", []
    else:
        result.text = f"{result.text}\n{quoted}"
    result.evidence = [p.to_json() for p in found]


def answer_from_index(
    index: Index,
    rules: Rules,
    question: str,
    *,
    as_of: str | None = None,
    entity: str | None = None,
    today: str | None = None,
) -> Answer:
    """The template answer from an up-to-date index (pure apart from reading the index); a plan
    whose day passed before `today` is answered as uncertain (engine/plans.py)."""
    lang = detect_lang(question)
    q = Question.of(question)
    matches, topic = retrieve(index, rules, q, entity=entity)
    for m in matches if today else []:
        m.fact = seen_on(m.fact, rules, str(today))
    mode = "as_of" if as_of else "history" if _HISTORY.search(question) else "current"
    if mode == "current" and _PAST.search(question):
        mode = "past"
    if topic is not None and mode == "current":
        mode = "topic"
    ans = Answer(question, "", lang, mode, as_of=as_of, topic=topic)
    if not matches:
        ans.mode = "none"
        ans.text = tpl.nothing(lang)
        return ans
    ans.facts = [fact_json(m) for m in matches]
    facts = [m.fact for m in matches]
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
        yes_no = bool(_YES_NO.search(question))
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


# --- the model path --------------------------------------------------------------------------


def llm_prompt(result: Answer) -> list[dict[str, str]]:
    """The messages a model sees: the rules of the states, the retrieved facts, and the template
    answer, whose values and state words the model's answer must keep."""
    language = phrase("language_name", result.lang)
    system = (
        "You answer a person's question from an assistant's memory about them. Use only the"
        " facts given; never guess. States: active = current and trusted; tentative = say it is"
        " unconfirmed; uncertain = say it is uncertain, name the previous value and what"
        " changed, and ask the pending question; expired = unknown now, say what it was until"
        " when; deleted = say the information was removed at the person's request and never"
        " reveal any value. Prefer current values; give history only when the question asks"
        " about the past. The draft answer is correct: rephrase it, keeping every value, date"
        " and state word it says (unknown, uncertain, removed …); never drop one."
        f" Answer briefly in {language}."
    )
    payload = {
        "question": result.question,
        "as_of": result.as_of,
        "mode": result.mode,
        "facts": result.facts,
        "draft_answer": result.text,
    }
    return [
        {"role": "system", "content": system},
        {"role": "user", "content": json.dumps(payload, ensure_ascii=False, indent=1)},
    ]


def _said(fact: dict[str, Any], dated: bool) -> list[str]:
    """The values a fact's JSON holds (current and past), and with `dated` its dates."""
    out = fact_values(fact)
    past = [h for h in fact.get("history") or [] if isinstance(h, dict)]
    if dated:
        out += [str(d) for h in (fact, *past) for d in (h.get("valid_from"), h.get("valid_to")) if d]
    return out


def lost(template: str, text: str, facts: list[dict[str, Any]], mode: str = "current") -> list[str]:
    """What the template answer says that a model's text drops: each value of the facts the
    template names, their dates when they are history (a doubtful fact, a question about the
    past), and its state words (unknown/uncertain, removed). Empty: nothing lost."""
    t, m = norm(template), norm(text)
    history = mode in ("history", "past", "as_of")
    missing = [v for f in facts for v in _said(f, history or f.get("status") != "active")
               if norm(v) in t and norm(v) not in m]  # fmt: skip
    for words, name in ((UNCERTAIN_WORDS, "uncertain/unknown"), (REMOVED_WORDS, "removed")):
        if any(norm(w) in t for w in words) and not any(norm(w) in m for w in words):
            missing.append(f"that it is {name}")
    return list(dict.fromkeys(missing))


def llm_answer(
    result: Answer,
    *,
    model: str,
    api_base: str | None = None,
    options: dict[str, Any] | None = None,
) -> str:
    """A fluent answer from a model through litellm, given exactly the retrieved facts; the
    template answer when the model's drops a value, a date or a state word the template says."""
    try:
        text = complete(model, llm_prompt(result), api_base=api_base, **(options or {}))
    except LLMError as e:
        raise MdmemError(
            f"the model {model!r} could not answer ({e}); check the model name and --api-base,"
            " or ask without --llm"
        ) from None
    if not text.strip():
        raise MdmemError(f"the model {model!r} returned an empty answer; try again or drop --llm")
    if result.text and lost(result.text, text, result.facts, result.mode):
        return result.text  # the model lost what memory says: the template's words stand
    return text.strip()
