"""The model path of `ask --llm`: the messages a model sees (the retrieved facts and the
template answer) and the check that its answer keeps every value, date and state word the
template says; litellm is reached only through mdmem/llm.py, when a model is called."""

from __future__ import annotations

import json
from typing import Any, Protocol

from mdmem.errors import MdmemError
from mdmem.lang.phrases import REMOVED_WORDS, UNCERTAIN_WORDS, phrase
from mdmem.llm import LLMError, complete
from mdmem.model.rules import norm
from mdmem.read.route import fact_values


class Answer(Protocol):
    """What the model path reads of read/ask.py's Answer."""

    question: str
    text: str
    lang: str
    mode: str
    as_of: str | None
    facts: list[dict[str, Any]]


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
