"""Answer templates, English and Chinese: one sentence per fact state (docs/states.md), and history."""

from __future__ import annotations

import re
from typing import Any

from mdmem.model.factfile import Fact
from mdmem.model.periods import Period, at_time, periods
from mdmem.model.rules import Rules, Topic

PHRASES: dict[str, dict[str, str]] = {
    "nothing": {
        "en": "I don't know: nothing in memory answers that.",
        "zh": "不知道：记忆里没有这方面的记录。",
    },
    "stale": {"en": "That is out of date. ", "zh": "这个信息已经过时了。"},
    "doubtful": {"en": "That may no longer hold. ", "zh": "这可能已经不对了。"},
    "yes": {"en": "Yes. ", "zh": "是的。"},
    "active": {
        "en": "{whose} {label} {is} {value}{note}.",
        "zh": "{whose}{label}是{value}{note}。",
    },
    "since": {"en": " (since {date})", "zh": "（{date}起）"},
    "derived": {
        "en": " (since {date}; derived from {whose_lower} {trigger})",
        "zh": "（{date}起，根据{whose}{trigger}推出）",
    },
    "tentative": {
        "en": "{whose} {label} {is} {value}, unconfirmed (first mentioned {date}).",
        "zh": "{whose}{label}是{value}，尚未确认（{date}提到）。",
    },
    "uncertain": {
        "en": "{whose} {label} {is} uncertain — previously {value}, but {whose_lower} {trigger} {change} on {date}.",
        "zh": "{whose}{label}不确定——之前是{value}，但{whose}{trigger}在{date}{change}。",
    },
    "expired": {
        "en": "{whose} {label} {is} unknown — {was} {value} until {date}.",
        "zh": "{whose}{label}现在未知——到{date}为止是{value}。",
    },
    "unknown": {"en": "{whose} {label} {is} unknown.", "zh": "{whose}{label}未知。"},
    "deleted": {
        "en": "No information — {whose_lower} {label} {was} removed at your request.",
        "zh": "没有相关信息——{whose}{label}已按你的要求删除。",
    },
    "history": {
        "en": "{whose} {label} over time: {items}.",
        "zh": "{whose}{label}的变化：{items}。",
    },
    "past": {
        "en": "{whose} {label} {was} {items}; {now}",
        "zh": "{whose}{label}以前是{items}；{now}",
    },
    "no_past": {
        "en": "I have no earlier {label} on record. ",
        "zh": "记忆里没有更早的{label}。",
    },
    "now_active": {"en": "since {date} it has been {value}.", "zh": "{date}起是{value}。"},
    "now_uncertain": {
        "en": "it is uncertain now ({trigger} {change} on {date}).",
        "zh": "现在不确定（{trigger}在{date}{change}）。",
    },
    "now_unknown": {"en": "it has been unknown since {date}.", "zh": "{date}之后未知。"},
    "now_tentative": {
        "en": "since {date} it may be {value} (unconfirmed).",
        "zh": "{date}起可能是{value}（尚未确认）。",
    },
    "as_of": {
        "en": "On {day}, {whose_lower} {label} {was} {value} ({period}).",
        "zh": "{day}，{whose}{label}是{value}（{period}）。",
    },
    "as_of_before": {
        "en": "I don't know {whose_lower} {label} on {day}: the earliest value I have, {value}, starts on {date}.",
        "zh": "不知道{day}时{whose}{label}是什么：记忆里最早的是{value}，从{date}开始。",
    },
    "as_of_gap": {
        "en": "On {day}, {whose_lower} {label} {was} unknown — {it_was} {value} until {date}.",
        "zh": "{day}时{whose}{label}未知——到{date}为止是{value}。",
    },
    "topic": {"en": "Everything I have about {topic}:", "zh": "关于{topic}，我记得这些："},
    "period_open": {"en": "since {start}", "zh": "{start}起"},
    "period_closed": {"en": "{start} – {end}", "zh": "{start}至{end}"},
    "period_until": {"en": "until {end}", "zh": "到{end}为止"},
    "current": {"en": "current", "zh": "至今"},
    "now_uncertain_mark": {"en": "now uncertain", "zh": "现在不确定"},
    "unconfirmed_mark": {"en": "unconfirmed", "zh": "尚未确认"},
    "ended": {"en": "then unknown from {date}", "zh": "{date}之后未知"},
    "note": {
        "en": "{who} asked me to keep this word for word ({date}):{sep}{value}",
        "zh": "{who}让我记下的原话（{date}）：{sep}{value}",
    },
    "origin": {
        "en": "{whose} {label} changed to {value} on {date}. ",
        "zh": "{whose}{label}在{date}变成了{value}。",
    },
    "changed_to": {"en": "changed to {value}", "zh": "变成了{value}"},
    "origin_gone": {
        "en": "{whose} {label} {change} on {date}. ",
        "zh": "{whose}{label}在{date}{change}。",
    },
}
NOTE_SLOT = "note"  # where ingest keeps verbatim requests: note, note_2, … (extract.VERBATIM_SLOT)
NOTE_LABEL = {"en": "note", "zh": "记下的原话"}
_NOTE = re.compile(rf"{NOTE_SLOT}(?:_[0-9]+)?")
CHANGE = {
    "changed": {"en": "changed", "zh": "有变化"},
    "uncertain": {"en": "became uncertain", "zh": "变得不确定"},
    "expired": {"en": "stopped being known", "zh": "不再有效"},
    "deleted": {"en": "was removed", "zh": "被删除"},
}


def phrase(name: str, lang: str, **values: Any) -> str:
    """One template, filled in."""
    return PHRASES[name][lang].format(**values)


def nothing(lang: str) -> str:
    return phrase("nothing", lang)


def whose(entity: str, lang: str) -> str:
    """'Your' / '你的' for the person, 'Alice's' / 'alice的' for anyone else."""
    if entity == "user":
        return "Your" if lang == "en" else "你的"
    name = entity.replace("_", " ")
    return f"{name[:1].upper()}{name[1:]}'s" if lang == "en" else f"{name}的"


def show(rules: Rules, attribute: str, value: Any, lang: str) -> str:
    """A value in the spelling that fits the language; lists joined ('a, b and c' / 'a、b、c')."""
    if isinstance(value, list):
        items = [rules.spelling(attribute, str(v), lang) for v in value]
        if lang == "zh" or len(items) < 2:
            return "、".join(items)
        # A comma inside an item would make 'a, b and c' ambiguous: then commas only.
        if any("," in i for i in items):
            return ", ".join(items)
        return ", ".join(items[:-1]) + " and " + items[-1]
    return rules.spelling(attribute, str(value), lang) if value is not None else "?"


def is_note(attribute: str) -> bool:
    """True for the verbatim slots ingest fills: note, note_2, note_3 …"""
    return bool(_NOTE.fullmatch(attribute))


def label(rules: Rules, attribute: str, lang: str) -> str:
    """A readable label: the declared one; for an undeclared slot the slug in words (a verbatim
    note: 'note' / '记下的原话'), never the raw slug."""
    attr = rules.attributes.get(attribute)
    if attr is not None:
        return attr.label_for(lang)
    if is_note(attribute):
        return NOTE_LABEL[lang]
    return attribute.replace("_", " ")


def note_sentence(fact: Fact, lang: str) -> str:
    """A verbatim note, given back exactly as kept (no re-spelling, nothing appended)."""
    value = fact.value if isinstance(fact.value, str) else "\n".join(fact.value or [])
    if fact.entity == "user":
        who = "You" if lang == "en" else "你"
    else:
        who = whose(fact.entity, lang).removesuffix("'s").removesuffix("的")
    sep = "\n" if "\n" in value else " " if lang == "en" else ""
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
    return _cap(phrase("origin_gone", lang, change=CHANGE[change][lang], date=day(at or when), **b))


def day(value: str | None) -> str:
    return (value or "?")[:10]


def _base(fact: Fact, rules: Rules, lang: str) -> dict[str, str]:
    w = whose(fact.entity, lang)
    name = label(rules, fact.attribute, lang)
    many = lang == "en" and is_plural(name)
    return {
        "whose": w,
        "whose_lower": w[:1].lower() + w[1:] if fact.entity == "user" else w,
        "label": name,
        "is": "are" if many else "is",
        "was": "were" if many else "was",
        "it_was": "they were" if many else "it was",
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
        name = (
            f"{key.split('/', 1)[0]} {name}" if lang == "en" else f"{key.split('/', 1)[0]}的{name}"
        )
    change = CHANGE.get(str(why.get("change")), CHANGE["changed"])[lang]
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
        until = fact.history[-1].get("valid_to") if fact.history else None
        return _cap(phrase("expired", lang, value=show(rules, fact.attribute, last, lang),
                           date=day(until or fact.valid_to), **b))  # fmt: skip
    value = show(rules, fact.attribute, fact.value, lang)
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
            text += (" " if lang == "en" else "") + ask
        return _cap(text)
    if fact.status == "tentative":
        return _cap(phrase("tentative", lang, value=value, date=day(fact.valid_from), **b))
    if fact.derived_from:
        src = str(fact.derived_from.get("fact", "")).split("/", 1)[-1]
        note = phrase("derived", lang, date=day(fact.valid_from),
                      trigger=label(rules, src, lang), **b)  # fmt: skip
    elif fact.valid_from:
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
    sep = ", " if lang == "en" else "，"
    when = _period_text(p, lang)
    if p.current:
        mark = {"uncertain": "now_uncertain_mark", "tentative": "unconfirmed_mark"}.get(
            fact.status, "current"
        )
        when += sep + phrase(mark, lang)
    value = show(rules, fact.attribute, p.value, lang)
    return f"{value} ({when})" if lang == "en" else f"{value}（{when}）"


def history_sentence(fact: Fact, rules: Rules, lang: str, *, full: bool) -> str:
    """Every value in time order with its period (full), or the earlier ones then the present."""
    b = _base(fact, rules, lang)
    if fact.status == "deleted":
        return _cap(phrase("deleted", lang, **b))
    ps = periods(fact)
    if not ps:
        return state_sentence(fact, rules, lang)
    sep = "; " if lang == "en" else "；"
    items = [_item(fact, p, rules, lang) for p in ps]
    if fact.status == "expired" and ps[-1].end:
        items.append(phrase("ended", lang, date=day(ps[-1].end)))
    if full:
        return _cap(phrase("history", lang, items=sep.join(items), **b))
    past = [p for p in ps if not p.current]
    if not past:
        return phrase("no_past", lang, **b) + state_sentence(fact, rules, lang)
    then = (", then " if lang == "en" else "，然后是").join(
        _item(fact, p, rules, lang) for p in past
    )
    return _cap(phrase("past", lang, items=then, now=_now_clause(fact, rules, lang), **b))


def _now_clause(fact: Fact, rules: Rules, lang: str) -> str:
    value = show(rules, fact.attribute, fact.value, lang)
    if fact.status == "expired":
        return phrase("now_unknown", lang, date=day(fact.history[-1].get("valid_to")))
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
            text = text[:-1] + (
                f" ({phrase(mark, lang)})." if lang == "en" else f"（{phrase(mark, lang)}）。"
            )
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
