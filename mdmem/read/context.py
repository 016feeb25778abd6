"""`mdmem context`: the whole current memory as one Markdown document for an agent's prompt (pure).

Sections: facts needing confirmation (with their questions), current facts by entity and
topic, facts no longer known, forgotten slots, recent changes. Within a character budget the
most important items stay: current facts (the changeable and recently changed before the
stable), then what is doubtful or gone, then the questions to ask about it, then recent
changes; a last line says what was left out. The text is for the agent: facts are named by
their labels, never by internal keys, and nothing in it addresses the operator.
Same vault, same output: every order is explicit.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from mdmem.lang.detect import has_cjk
from mdmem.lang.phrases import doc
from mdmem.model.factfile import Fact
from mdmem.model.rules import Rules
from mdmem.read.answer import ended_on, show
from mdmem.read.answer import label as label_of
from mdmem.read.timeline import Event, build_timeline
from mdmem.read.timeline_formats import change_text, describe

STABILITY_RANK = {"low": 0, "medium": 1, "high": 2}
RECENT_LIMIT = 10
SECTIONS = ("pending", "current", "gone", "forgotten", "recent")
TITLES = {
    "pending": doc("context_pending"),
    "current": doc("context_current"),
    "gone": doc("context_gone"),
    "forgotten": doc("context_forgotten"),
    "recent": doc("context_recent"),
}


# Tiers of importance within a budget: lower is kept first.
CURRENT, DOUBT, QUESTION, CHANGE = 0, 1, 2, 3


@dataclass
class Item:
    """One line (or a few) of the document, with what it is about and how much it matters."""

    section: str
    text: str
    rank: tuple[int, tuple[Any, ...], str]  # (tier, order within it, key): lower is kept first
    order: tuple[Any, ...]  # position within its section
    group: str = ""  # the sub-heading lines it sits under ("### user\n#### commute")
    data: dict[str, Any] = field(default_factory=dict)
    kind: str = "fact"  # fact | change
    ask: str = ""  # the question to ask, appended when the budget has room for it
    asked: bool = True

    @property
    def shown(self) -> str:
        return self.text + (self.ask if self.asked else "")


@dataclass
class Context:
    now: str
    lang: str
    items: list[Item]
    omitted: list[Item]
    max_chars: int | None = None

    def to_markdown(self) -> str:
        text = _render(self.items, self.omitted, self.now, self.max_chars)
        if self.max_chars is not None and len(text) > self.max_chars:
            text = text[: self.max_chars - 1].rsplit("\n", 1)[0] + "\n"  # a budget below the title
        return text

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"as_of": self.now, "lang": self.lang}
        for s in SECTIONS:
            mine = [i for i in self.items if i.section == s]
            out[s] = [i.data for i in sorted(mine, key=lambda i: i.order)]
        out["omitted"] = [i.data for i in self.omitted]
        return out


def build_context(
    facts: Mapping[str, Fact],
    rules: Rules,
    entries: Iterable[dict[str, Any]],
    *,
    now: str,
    entity: str | None = None,
    max_chars: int | None = None,
    present: Iterable[str] | None = None,
) -> Context:
    """The context document's items, trimmed to max_chars (Markdown characters) when given."""
    chosen = {k: f for k, f in sorted(facts.items()) if entity is None or f.entity == entity}
    lang = _language(chosen.values())
    names = _names(facts, rules, lang)
    items = _fact_items(chosen, rules, lang, now, names)
    heads = build_timeline(facts, entries, entity=entity, present=present)
    items += _change_items(heads, names)
    if max_chars is None:
        return Context(now, lang, items, [])
    kept, omitted = _fit(items, now, max_chars)
    for item in omitted:
        item.data.setdefault("label", names.get(str(item.data.get("fact")), item.data.get("fact")))
    return Context(now, lang, kept, omitted, max_chars)


def _names(facts: Mapping[str, Fact], rules: Rules, lang: str) -> dict[str, str]:
    """fact key → how the document names it: 'home city', or 'alice · employer'."""
    out = {}
    for key, f in facts.items():
        who = "" if f.entity == "user" else f"{f.entity} · "
        out[key] = who + label_of(rules, f.attribute, lang)
    return out


def _named(text: str, names: Mapping[str, str]) -> str:
    """A timeline line with fact keys ('user/home_city') replaced by their names."""
    for key in sorted((k for k in names if k in text), key=len, reverse=True):
        text = text.replace(key, names[key])
    return text


def _language(facts: Iterable[Fact]) -> str:
    values = [str(f.last_value()) for f in facts if f.last_value() is not None]
    return "zh" if values and sum(has_cjk(v) for v in values) * 2 > len(values) else "en"


def _topic_of(rules: Rules) -> dict[str, tuple[int, str, int]]:
    """attribute → (topic position, topic label, position in the topic): the first topic wins."""
    out: dict[str, tuple[int, str, int]] = {}
    for t, topic in enumerate(rules.topics.values()):
        for a, attr in enumerate(topic.attributes):
            out.setdefault(attr, (t, topic.label.get("en") or topic.name, a))
    return out


def _fact_items(
    facts: Mapping[str, Fact], rules: Rules, lang: str, now: str, names: Mapping[str, str]
) -> list[Item]:
    topics = _topic_of(rules)
    items = []
    for key, f in facts.items():
        attr = rules.attribute(f.attribute)
        label = label_of(rules, f.attribute, lang)
        who = "" if f.entity == "user" else f"{f.entity} · "
        ent_rank = (f.entity != "user", f.entity)
        value = (
            show(rules, f.attribute, f.last_value(), lang) if f.last_value() is not None else None
        )
        data: dict[str, Any] = {"fact": key, "label": label, "status": f.status, "value": f.value,
                                "since": f.valid_from}  # fmt: skip
        since = doc("context_since", date=f.valid_from[:10]) if f.valid_from else ""
        why = f.uncertain_because or {}
        recency = _neg_day(f.valid_from or "")
        if f.status in ("uncertain", "tentative") or (f.status == "expired" and why):
            q = why.get("question") or {}
            question = q.get(lang) or q.get("en") if isinstance(q, dict) else None
            if f.status == "tentative":
                state = doc("context_tentative", value=value, since=since)
            elif f.status == "uncertain":
                changed = str(why.get("changed_at", "?"))[:10]
                cause = str(why.get("fact") or "")
                state = doc("context_uncertain", value=value, date=changed) + (
                    doc(
                        "context_because",
                        fact=_name(cause, names),
                        change=_change(why),
                    )  # fmt: skip
                    if cause
                    else ""
                )
            else:
                state = doc("context_was_until", value=value, date=_until(f))
            text = f"- **{who}{label}**: {state}."
            ask = doc("context_ask", question=question) if question else ""
            data.update(question=question, because=why.get("fact"))
            items.append(Item("pending", text, (DOUBT, (0, str(why.get("changed_at", ""))), key),
                              (str(why.get("changed_at", "")), key), data=data, ask=ask))  # fmt: skip
        elif f.status == "expired":
            state = (
                doc("context_was_until", value=value, date=_until(f))
                if value
                else doc("context_unknown")
            )
            text = f"- **{who}{label}**: {state}."
            items.append(Item("gone", text, (DOUBT, (1, *recency), key), (ent_rank, key), data=data))
        elif f.status == "deleted":
            text = doc("context_forgotten_item", who=who, label=label)
            data = {"fact": key, "label": label, "status": "deleted"}
            items.append(Item("forgotten", text, (DOUBT, (2,), key), (ent_rank, key), data=data))
        elif value is not None:
            note = since
            if f.derived_from:
                src = str(f.derived_from.get("fact", "")).split("/", 1)[-1]
                note = (
                    doc(
                        "context_derived", date=f.valid_from[:10], source=label_of(rules, src, lang)
                    )
                    if f.valid_from
                    else ""
                )
            other = (len(topics) + 1, doc("context_other_topic"), 0)
            t_pos, t_label, a_pos = topics.get(f.attribute, other)
            group = f"### {f.entity}\n#### {t_label}"
            rank = (CURRENT, (STABILITY_RANK.get(attr.stability, 1), *recency), key)
            items.append(Item("current", f"- {label}: {value}{note}", rank,
                              (ent_rank, t_pos, a_pos, f.attribute), group=group, data=data))  # fmt: skip
    return items


def _change(why: dict[str, Any]) -> str:
    how = {"uncertain": "how_uncertain", "expired": "how_expired", "deleted": "how_removed"}
    return doc(how.get(str(why.get("change")), "how_changed"))


def _until(f: Fact) -> str:
    return str(ended_on(f) or "?")[:10]


def _neg_day(day: str) -> tuple[int, ...]:
    """Sorts later dates first."""
    return tuple(-ord(c) for c in day[:10])


def _change_items(heads: list[Event], names: Mapping[str, str]) -> list[Item]:
    journal = [h for h in heads if h.journal_id is not None]
    latest = sorted(journal, key=lambda h: (h.recorded, h.at, h.id), reverse=True)[:RECENT_LIMIT]
    items = []
    for n, h in enumerate(latest):
        lines = [f"- {h.at[:10]} {_name(h.fact, names)}: {_line(h, names)}"]
        lines += [f"  - {_name(c.fact, names)}: {_line(c, names)}" for c in h.children]
        data = {"at": h.at[:10], "fact": h.fact, "change": describe(h), "value": change_text(h),
                "cascade": [{"fact": c.fact, "change": describe(c), "value": change_text(c)}
                            for c in h.children]}  # fmt: skip
        rank = (CHANGE, (n,), "")  # the latest first
        items.append(Item("recent", "\n".join(lines), rank, (n,), data=data, kind="change"))
    return items


def _line(e: Event, names: Mapping[str, str]) -> str:
    """Why and how the fact changed, its cause named as the document names facts."""
    value = change_text(e)
    shown = replace(e, cause=_name(e.cause, names)) if e.cause else e
    return describe(shown) + (f": {value}" if value else "")


def _name(key: str, names: Mapping[str, str]) -> str:
    """A fact key's name: looked up, not searched for among every key of the vault."""
    return names[key] if key in names else _named(key, names)


# --- rendering and the budget ----------------------------------------------------------------


def _render(items: list[Item], omitted: list[Item], now: str, max_chars: int | None) -> str:
    lines = [doc("context_title", date=now[:10]), ""]
    if not items and not omitted:
        lines.append(doc("context_empty"))
    for section in SECTIONS:
        mine = sorted((i for i in items if i.section == section), key=lambda i: i.order)
        if not mine:
            continue
        lines.append(TITLES[section])
        group = None
        for i in mine:
            if i.group and i.group != group:
                lines.extend(_new_heads(group, i.group))
                group = i.group
            lines.append(i.shown)
        lines.append("")
    if omitted:
        body = len("\n".join(lines).rstrip("\n")) + 3  # a blank line before, a newline after
        lines.append(_footer(omitted, max_chars - body if max_chars else None))
    return "\n".join(lines).rstrip("\n") + "\n"


def _new_heads(old: str | None, new: str) -> list[str]:
    """Sub-headings to print when moving from one group to the next (only those that change)."""
    old_parts = old.split("\n") if old else []
    out: list[str] = []
    for depth, head in enumerate(new.split("\n")):
        if depth >= len(old_parts) or old_parts[depth] != head or out:
            out.append(head)
    return out


def _footer(omitted: list[Item], room: int | None = None) -> str:
    """The closing line saying what was left out: with names when there is room, else shorter.
    Written for the agent reading the document: names, not keys; no instructions."""
    facts = [i for i in omitted if i.kind == "fact"]
    changes = [i for i in omitted if i.kind == "change"]
    names = [
        str(i.data.get("label") or i.data.get("fact")) for i in sorted(facts, key=lambda i: i.rank)
    ]
    more = doc("context_left_out_more", count=len(names) - 5) if len(names) > 5 else ""
    variants = []
    for detail in (True, False):
        parts = []
        if facts:
            shown = ", ".join(names[:5]) + more
            one = len(facts) == 1
            if detail:
                key = "context_left_out_names_one" if one else "context_left_out_names"
            else:
                key = "context_left_out_facts_one" if one else "context_left_out_facts"
            parts.append(doc(key, count=len(facts), names=shown))
        if changes:
            one = len(changes) == 1
            key = "context_left_out_changes_one" if one else "context_left_out_changes"
            parts.append(doc(key, count=len(changes)))
        joined = doc("context_left_out_and").join(parts)
        variants.append(doc("context_left_out", parts=joined))
    for text in variants:
        if room is None or len(text) <= room:
            return text
    return variants[-1]


def _fit(items: list[Item], now: str, max_chars: int) -> tuple[list[Item], list[Item]]:
    """Keep the most important items whose document fits in max_chars.

    Greedy by rank on an exact running count of characters (item, its section title and
    sub-headings the first time they are needed), with room kept for the closing line; then the
    questions of the doubtful facts kept, as room allows.
    """
    ordered = sorted(items, key=lambda i: i.rank)
    for item in ordered:
        item.asked = False
    # Room for the closing line: with the names of what is left out when the budget allows.
    detailed, short = len(_footer(ordered)), len(_footer(ordered, 0))
    reserve = (detailed if detailed <= max_chars // 4 else short) + 3 if ordered else 0
    used = len(_render([], [], now, max_chars)) + reserve
    sections: set[str] = set()
    groups: set[str] = set()
    kept: list[Item] = []
    asking = True
    for item in ordered:
        if item.rank[0] > QUESTION and asking:
            used, asking = _ask(kept, used, max_chars), False
        cost = len(item.text) + 1
        if item.section not in sections:
            cost += len(TITLES[item.section]) + 2
        new_groups = [g for g in _prefixes(item.group) if g not in groups]
        cost += sum(len(g.rsplit("\n", 1)[-1]) + 1 for g in new_groups)
        if used + cost > max_chars:
            if item.kind == "change":
                break  # recent changes stay a run from the latest, without gaps
            continue
        kept.append(item)
        used += cost
        sections.add(item.section)
        groups.update(new_groups)
    if asking:
        used = _ask(kept, used, max_chars)
    kept_ids = {id(k) for k in kept}
    omitted = [i for i in ordered if id(i) not in kept_ids]
    while kept and len(_render(kept, omitted, now, max_chars)) > max_chars:
        asked = [k for k in kept if k.asked]
        if asked:
            asked[-1].asked = False  # the estimate was short: drop a question first
        else:
            omitted.append(kept.pop())  # then the least important kept item
    return kept, omitted


def _ask(kept: list[Item], used: int, max_chars: int) -> int:
    """Add the questions of the doubtful facts kept, in order, while they fit."""
    for item in kept:
        if item.ask and used + len(item.ask) <= max_chars:
            item.asked = True
            used += len(item.ask)
    return used


def _prefixes(group: str) -> list[str]:
    """'### user\n#### commute' → ['### user', '### user\n#### commute'] (each heading level)."""
    if not group:
        return []
    parts = group.split("\n")
    return ["\n".join(parts[: n + 1]) for n in range(len(parts))]


def answer_markdown(answer: Any) -> str:
    """A '## Answer' section for `context --query`: the answer line `ask` gives, then its
    evidence quoted, as `ask` prints them."""
    title = "## 回答" if answer.lang == "zh" else "## Answer"
    first, *evidence = answer.text.split("\n")
    return f"{title}\n\n{first}\n" + "".join(f"\n- {line}" for line in evidence) + ("\n" if evidence else "")
