"""Answers, English and Chinese: which sentence fits each fact state (docs/states.md) and
history, filled in from the phrasebooks of mdmem/lang/."""

from __future__ import annotations

import re
from typing import Any

from mdmem.lang.phrases import phrase
from mdmem.model import life
from mdmem.model.factfile import Fact
from mdmem.model.periods import Period, at_time, periods
from mdmem.model.rules import Rules, Topic
from mdmem.read.life_answer import life_sentence

NOTE_SLOT = "note"  # where ingest keeps verbatim requests: note, note_2, … (extract.VERBATIM_SLOT)
_NOTE = re.compile(rf"{NOTE_SLOT}(?:_[0-9]+)?")
# How an upstream fact changed → the phrase that says it (uncertain_because.change).
CHANGE = {
    "changed": "change_changed",
    "uncertain": "change_uncertain",
    "expired": "change_expired",
    "deleted": "change_deleted",
}


def nothing(lang: str) -> str:
    return phrase("nothing", lang)


def whose(entity: str, lang: str) -> str:
    """'Your' / '你的' for the person, 'Alice's' / 'alice的' for anyone else."""
    if entity == "user":
        return phrase("whose_user", lang)
    return phrase("whose_other", lang, **_names(entity))


def _names(entity: str) -> dict[str, str]:
    """An entity's name as words, as is and capitalised: each language takes the form it needs."""
    name = entity.replace("_", " ")
    return {"name": name, "Name": name[:1].upper() + name[1:]}


def show(rules: Rules, attribute: str, value: Any, lang: str) -> str:
    """A value in the spelling that fits the language; lists joined ('a, b and c' / 'a、b、c')."""
    if isinstance(value, list):
        items = [rules.spelling(attribute, str(v), lang) for v in value]
        sep = phrase("list_sep", lang)
        # A separator inside an item would make 'a, b and c' ambiguous: then separators only.
        if len(items) < 2 or any(sep.strip() in i for i in items):
            return sep.join(items)
        return sep.join(items[:-1]) + phrase("list_last", lang) + items[-1]
    return rules.spelling(attribute, str(value), lang) if value is not None else "?"


def shown(fact: Fact, rules: Rules, lang: str) -> str:
    """The fact's value as `show` gives it; a list whose items have their own start or polarity
    gives each item with them ('Max (since 2021-01-01) and Pixie (since 2023-04-02)')."""
    if not fact.items or not isinstance(fact.value, list):
        return show(rules, fact.attribute, fact.value, lang)
    dated = _item_dated(fact)
    items = []
    for v in fact.value:
        text = rules.spelling(fact.attribute, str(v), lang)
        fields = fact.items.get(v, {})
        start = fields.get("valid_from") or fact.valid_from
        if dated and start:
            text = phrase("item_since", lang, value=text, date=day(start))
        if fields.get("polarity") == "dislike":
            text = phrase("item_dislike", lang, value=text)
        items.append(text)
    sep = phrase("list_sep", lang)
    if len(items) < 2:
        return sep.join(items)
    return sep.join(items[:-1]) + phrase("list_last", lang) + items[-1]


def _item_dated(fact: Fact) -> bool:
    """Whether some list item started on a day of its own (then each item says its start)."""
    return any(f.get("valid_from") not in (None, fact.valid_from) for f in fact.items.values())


def affirms(fact: Fact) -> bool:
    """Whether the fact can answer 'yes' to a question naming its value: not a dislike."""
    return not any(f.get("polarity") == "dislike" for f in fact.items.values())


def is_note(attribute: str) -> bool:
    """True for the verbatim slots ingest fills: note, note_2, note_3 …"""
    return bool(_NOTE.fullmatch(attribute))


def label(rules: Rules, attribute: str, lang: str) -> str:
    """A readable label: the declared one; for an undeclared slot the slug in words (a verbatim
    note: 'note' / '记下的原话'), never the raw slug."""
    attr = rules.attributes.get(attribute) or (rules.attribute(attribute) if life.family(attribute) else None)
    if attr is not None:
        return attr.label_for(lang)
    if is_note(attribute):
        return phrase("note_label", lang)
    return attribute.replace("_", " ")


def note_sentence(fact: Fact, lang: str) -> str:
    """A verbatim note, given back exactly as kept (no re-spelling, nothing appended)."""
    value = fact.value if isinstance(fact.value, str) else "\n".join(fact.value or [])
    if fact.entity == "user":
        who = phrase("who_user", lang)
    else:
        who = phrase("who_other", lang, **_names(fact.entity))
    sep = "\n" if "\n" in value else phrase("gap", lang)
    return phrase("note", lang, who=who, date=day(fact.valid_from), sep=sep, value=value)


def origin_sentence(origin: Fact, rules: Rules, lang: str, when: str | None = None) -> str:
    """What changed upstream of a doubtful fact: 'Your home city changed to Hangzhou on D.'"""
    b = _base(origin, rules, lang)
    if origin.status in ("active", "tentative") and origin.value is not None:
        value = show(rules, origin.attribute, origin.value, lang)
        return _cap(phrase("origin", lang, value=value, date=day(origin.valid_from or when), **b))
    change = {"deleted": "deleted", "expired": "expired"}.get(origin.status, "uncertain")
    why = origin.uncertain_because or {}
    at = origin.recorded_at if origin.status == "deleted" else why.get("changed_at")
    return _cap(
        phrase("origin_gone", lang, change=phrase(CHANGE[change], lang), date=day(at or when), **b)
    )


def day(value: str | None) -> str:
    return (value or "?")[:10]


def _base(fact: Fact, rules: Rules, lang: str) -> dict[str, str]:
    w = whose(fact.entity, lang)
    name = label(rules, fact.attribute, lang)
    many = lang == "en" and is_plural(name)  # only English agrees the verb with the label
    return {
        "whose": w,
        "whose_lower": w[:1].lower() + w[1:] if fact.entity == "user" else w,
        "label": name,
        "is": phrase("is_many" if many else "is_one", lang),
        "was": phrase("was_many" if many else "was_one", lang),
        "it_was": phrase("it_was_many" if many else "it_was_one", lang),
    }


_SINGULAR_S = re.compile(r"(?:ss|us|is|ics|news|series|species|gas|bus)$", re.I)


def is_plural(name: str) -> bool:
    """Whether an English label is a plural noun ('allergies', 'pets', 'hobbies'), so the
    answer says 'are': a label's last word ending in -s, bar 'address', 'status', 'analysis'."""
    last = name.strip().split(" ")[-1] if name.strip() else ""
    return last.isalpha() and last.lower().endswith("s") and not _SINGULAR_S.search(last)


def _trigger(fact: Fact, rules: Rules, lang: str) -> tuple[str, str, str]:
    """(trigger label, how it changed, when) for an uncertain or expired fact."""
    why = fact.uncertain_because or {}
    key = str(why.get("fact") or "")
    attr = key.split("/", 1)[-1] if key else ""
    name = label(rules, attr, lang) if attr else "?"
    if key and not key.startswith(fact.entity + "/"):
        name = phrase("other_label", lang, entity=key.split("/", 1)[0], label=name)
    change = phrase(CHANGE.get(str(why.get("change")), CHANGE["changed"]), lang)
    if why.get("change", "changed") == "changed" and why.get("new") not in (None, "", []):
        # naming the new upstream value answers the stale premise ("still at Acme?")
        new = show(rules, attr, why["new"], lang) if attr else str(why["new"])
        change = phrase("changed_to", lang, value=new)
    return name, change, day(why.get("changed_at") or fact.valid_from)


def state_sentence(fact: Fact, rules: Rules, lang: str) -> str:
    """The answer for a fact's current state, per docs/states.md."""
    b = _base(fact, rules, lang)
    if fact.status == "deleted":
        return _cap(phrase("deleted", lang, **b))
    if fact.status == "expired":
        last = fact.last_value()
        if last is None:
            return _cap(phrase("unknown", lang, **b))
        return _cap(phrase("expired", lang, value=show(rules, fact.attribute, last, lang),
                           date=day(ended_on(fact) or fact.valid_to), **b))  # fmt: skip
    if fact.kind == "unnamed" and fact.mentioned_as:  # "my husband": the noun said
        nouns = ("”、“" if lang == "zh" else "”, “").join(fact.mentioned_as)
        return _cap(phrase("unnamed_as", lang, nouns=nouns, date=day(fact.valid_from), **b))
    if fact.kind in ("none", "unnamed"):
        return _cap(phrase(fact.kind, lang, date=day(fact.valid_from), **b))
    if (said := life_sentence(fact, lang, b)) is not None:  # an event or a plan (read/life_answer.py)
        return _cap(said)
    value = shown(fact, rules, lang)
    if fact.value is None:
        return _cap(phrase("unknown", lang, **b))
    if (
        fact.status == "active"
        and is_note(fact.attribute)
        and fact.attribute not in rules.attributes
    ):
        return note_sentence(fact, lang)
    if fact.status == "uncertain":
        trig, change, when = _trigger(fact, rules, lang)
        text = phrase("uncertain", lang, value=value, trigger=trig, change=change, date=when, **b)
        q = (fact.uncertain_because or {}).get("question")
        ask = (q.get(lang) or q.get("en")) if isinstance(q, dict) else None
        if ask:
            text += phrase("gap", lang) + ask
        return _cap(text)
    if fact.status == "tentative":
        return _cap(phrase("tentative", lang, value=value, date=day(fact.valid_from), **b))
    if fact.derived_from:
        src = str(fact.derived_from.get("fact", "")).split("/", 1)[-1]
        note = phrase("derived", lang, date=day(fact.valid_from),
                      trigger=label(rules, src, lang), **b)  # fmt: skip
    elif fact.valid_from and not (fact.items and _item_dated(fact)):
        note = phrase("since", lang, date=day(fact.valid_from))
    else:
        note = ""
    return _cap(phrase("active", lang, value=value, note=note, **b))


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _period_text(p: Period, lang: str) -> str:
    if p.end is None:
        return phrase("period_open", lang, start=day(p.start))
    if p.start is None:
        return phrase("period_until", lang, end=day(p.end))
    return phrase("period_closed", lang, start=day(p.start), end=day(p.end))


def _item(fact: Fact, p: Period, rules: Rules, lang: str) -> str:
    when = _period_text(p, lang)
    if p.current:
        mark = {"uncertain": "now_uncertain_mark", "tentative": "unconfirmed_mark"}.get(
            fact.status, "current"
        )
        when += phrase("item_sep", lang) + phrase(mark, lang)
    return phrase("dated", lang, value=show(rules, fact.attribute, p.value, lang), when=when)


def history_sentence(fact: Fact, rules: Rules, lang: str, *, full: bool) -> str:
    """Every value in time order with its period (full), or the earlier ones then the present."""
    b = _base(fact, rules, lang)
    if fact.status == "deleted":
        return _cap(phrase("deleted", lang, **b))
    ps = periods(fact)
    if not ps:
        return state_sentence(fact, rules, lang)
    sep = phrase("history_sep", lang)
    items = [_item(fact, p, rules, lang) for p in ps]
    if fact.status == "expired" and ps[-1].end:
        items.append(phrase("ended", lang, date=day(ps[-1].end)))
    if full:
        return _cap(phrase("history", lang, items=sep.join(items), **b))
    past = [p for p in ps if not p.current]
    if not past:
        return phrase("no_past", lang, **b) + state_sentence(fact, rules, lang)
    then = phrase("then", lang).join(_item(fact, p, rules, lang) for p in past)
    return _cap(phrase("past", lang, items=then, now=_now_clause(fact, rules, lang), **b))


def ended_on(fact: Fact) -> str | None:
    """The day a fact's last value stopped holding (the end of its last history entry)."""
    return fact.history[-1].get("valid_to") if fact.history else None


def _now_clause(fact: Fact, rules: Rules, lang: str) -> str:
    value = show(rules, fact.attribute, fact.value, lang)
    if fact.status == "expired":
        return phrase("now_unknown", lang, date=day(ended_on(fact)))
    if fact.status == "uncertain":
        trig, change, when = _trigger(fact, rules, lang)
        return phrase("now_uncertain", lang, trigger=trig, change=change, date=when)
    if fact.status == "tentative":
        return phrase("now_tentative", lang, date=day(fact.valid_from), value=value)
    return phrase("now_active", lang, date=day(fact.valid_from), value=value)


def as_of_sentence(fact: Fact, rules: Rules, lang: str, when: str) -> str:
    """The value a fact had on a given day (a change on that very day counts)."""
    b = _base(fact, rules, lang)
    if fact.status == "deleted":
        return _cap(phrase("deleted", lang, **b))
    ps = periods(fact)
    found = at_time(ps, when)
    if found is not None:
        text = phrase("as_of", lang, day=when, value=show(rules, fact.attribute, found.value, lang),
                      period=_period_text(found, lang).strip(), **b)  # fmt: skip
        if found.current and fact.status in ("uncertain", "tentative"):
            mark = "now_uncertain_mark" if fact.status == "uncertain" else "unconfirmed_mark"
            text = text[:-1] + phrase("marked_end", lang, mark=phrase(mark, lang))
        return _cap(text)
    if not ps:
        return state_sentence(fact, rules, lang)
    first = ps[0]
    if first.start is not None and when < first.start[:10]:
        return _cap(phrase("as_of_before", lang, day=when, date=day(first.start),
                           value=show(rules, fact.attribute, first.value, lang), **b))  # fmt: skip
    ended = max((p for p in ps if p.end is not None and p.end[:10] <= when),
                key=lambda p: p.end or "", default=ps[-1])  # fmt: skip
    return _cap(phrase("as_of_gap", lang, day=when, date=day(ended.end),
                       value=show(rules, fact.attribute, ended.value, lang), **b))  # fmt: skip


def topic_answer(facts: list[Fact], topic: Topic, rules: Rules, lang: str) -> str:
    """A broad question: every fact of the topic, one line each."""
    head = phrase("topic", lang, topic=topic.label.get(lang) or topic.label.get("en") or topic.name)
    return head + "\n" + "\n".join("- " + state_sentence(f, rules, lang) for f in facts)
