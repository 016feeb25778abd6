"""The pure cascade planner: what a change to one fact does to the facts that depend on it."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from mdmem.lang.phrases import LANGS, phrase
from mdmem.model import life
from mdmem.model.factfile import Fact, Value
from mdmem.model.graph import Edge, Graph
from mdmem.model.rules import Dependency, Rules, norm, template_fields

SEVERITY = {"derive": 0, "uncertain": 1, "expire": 2}


@dataclass(frozen=True)
class Effect:
    """How a fact changed, as seen by the facts downstream of it."""

    key: str
    kind: str  # changed | uncertain | expired | deleted
    at: str  # world date of the change
    old: Value = None
    new: Value = None
    origin: str = ""  # the statement that started the cascade

    @staticmethod
    def between(before: Fact | None, after: Fact, at: str, origin: str = "") -> Effect | None:
        """The effect of before → after, or None when dependents need not hear of it."""
        old = before.last_value() if before is not None else None
        origin = origin or after.key
        if after.status == "deleted":
            return Effect(after.key, "deleted", at, origin=origin)
        if after.status == "expired":
            return Effect(after.key, "expired", at, old=old, origin=origin)
        if after.status == "uncertain":
            return Effect(after.key, "uncertain", at, old=old, origin=origin)
        if before is None or before.status == "deleted" or old is None:
            return None  # a first value: nothing downstream was built on an older one
        if after.value != old:
            return Effect(after.key, "changed", at, old=old, new=after.value, origin=origin)
        return None


@dataclass(frozen=True)
class Change:
    """One planned write: a fact before and after, and why."""

    key: str
    decision: str
    before: Fact | None
    after: Fact | None
    cause: str | None = None  # the fact key whose change caused this one


def cascade(
    state: dict[str, Fact],
    rules: Rules,
    trigger: Effect,
    *,
    now: str,
    justified: Iterable[str] = (),
) -> list[Change]:
    """Plan the cascade of one effect over `state` (updated in place); changes in topological order."""
    justified = set(justified)
    graph = Graph(rules, state)
    effects: dict[str, Effect] = {trigger.key: trigger}
    changes: list[Change] = []
    for key in graph.downstream_order([trigger.key]):
        fact = state.get(key)
        incoming = [(e, effects[e.trigger]) for e in graph.parents(key) if e.trigger in effects]
        if fact is None or not incoming or fact.status == "deleted":
            continue
        if rules.attribute(fact.attribute).stability == "high" or key in justified:
            continue
        if fact.derived_from is None and fact.valid_from and fact.valid_from >= trigger.at:
            continue  # stated at or after the change: it already reflects it
        outcome, edge, eff = max(
            ((_outcome(e.dep, eff, state, fact, rules), e, eff) for e, eff in incoming),
            key=lambda t: SEVERITY[t[0][0]],
        )
        after = _apply(fact, outcome, edge, eff, state, rules, now)
        if after is None:
            continue
        decision = {"derive": "DERIVE", "uncertain": "UNCERTAIN", "expire": "EXPIRE"}[outcome[0]]
        changes.append(Change(key, decision, fact, after, cause=edge.trigger))
        state[key] = after
        effect = Effect.between(fact, after, eff.at, origin=eff.origin)
        if effect is not None:
            effects[key] = effect
    return changes


def _outcome(
    dep: Dependency, eff: Effect, state: Mapping[str, Fact], fact: Fact, rules: Rules
) -> tuple[str, Any]:
    """('derive', value) | ('uncertain', None) | ('expire', None) for one incoming edge."""
    if dep.action == "expire":  # any change or doubt upstream ends the value
        return ("expire", None)
    if eff.kind == "uncertain":
        return ("uncertain", None)
    if dep.action == "derive" and eff.kind == "changed":
        value = _derive(dep, eff, state, fact.entity, rules)
        if value is not None:
            return ("derive", value)
    return ("uncertain", None)  # confirm, or a derive whose inputs are not all known


def _derive(
    dep: Dependency, eff: Effect, state: Mapping[str, Fact], entity: str, rules: Rules
) -> str | None:
    if not isinstance(eff.new, str):
        return None

    def active(name: str) -> str | None:
        src = state.get(f"{entity}/{name}")
        ok = src is not None and src.status == "active" and isinstance(src.value, str)
        return src.value if ok else None  # type: ignore[union-attr,return-value]

    return derive_value(dep, rules, eff.new, active)


def derive_value(
    dep: Dependency, rules: Rules, when_value: str, value_of: Callable[[str], str | None]
) -> str | None:
    """What a derive edge gives for the trigger's new value, or None when an input is unknown.

    value_of(attribute) is another active value of the same entity (for templates).
    """
    if dep.learned:
        return dep.value  # said by the person: a literal value, not a template
    if dep.lookup:
        table = {norm(k): v for k, v in dep.lookup.items()}
        # The key may be any spelling of the new value's group (上海 / Shanghai).
        for spelling in rules.group(dep.when, when_value) or (when_value,):
            if norm(spelling) in table:
                return table[norm(spelling)]
        return None
    assert dep.value is not None
    values = {}
    for name in template_fields(dep.value):
        value = when_value if name == dep.when else value_of(name)
        if value is None:
            return None
        values[name] = value
    return dep.value.format(**values)


def _because(
    eff: Effect, edge: Edge, state: Mapping[str, Fact], fact: Fact, rules: Rules
) -> dict[str, Any]:
    why: dict[str, Any] = {"fact": eff.key, "change": eff.kind}
    if eff.kind != "deleted":  # a forgotten value is never copied anywhere
        if eff.old is not None:
            why["old"] = eff.old
        if eff.new is not None:
            why["new"] = eff.new
    why["changed_at"] = eff.at
    if eff.origin and eff.origin != eff.key:
        why["origin"] = eff.origin
    why["question"] = question(fact, edge.dep, eff, state, rules)
    return why


def question(
    fact: Fact, dep: Dependency | None, eff: Effect, state: Mapping[str, Fact], rules: Rules
) -> dict[str, str]:
    """The gentle question to ask about a doubtful fact, in English and Chinese."""
    attr = rules.attribute(fact.attribute)
    trig = rules.attribute(eff.key.split("/", 1)[1])
    old = fact.last_value()
    old_s = ", ".join(old) if isinstance(old, list) else (old or "")
    if dep is not None and dep.ask and eff.kind == "changed":
        values = {
            k.split("/", 1)[1]: (f.value if isinstance(f.value, str) else "?")
            for k, f in state.items()
            if k.startswith(fact.entity + "/")
        }
        values[fact.attribute] = old_s or "?"
        out = {}
        for lang, template in sorted(dep.ask.items()):
            # Each language gets the spelling that fits it (上海 in Chinese, Shanghai in English).
            spelled = {a: rules.spelling(a, v, lang) for a, v in values.items()}
            try:
                out[lang] = template.format_map(_Missing(spelled))
            except (ValueError, IndexError):
                out[lang] = template
        return out
    if fact.status == "expired" or old is None:
        return {
            lang: phrase("ask_now", lang, label=attr.label_for(lang),
                         trigger=trig.label_for(lang), date=eff.at)
            for lang in LANGS
        }  # fmt: skip
    return {
        lang: phrase("ask_still", lang, label=attr.label_for(lang),
                     value=rules.spelling(fact.attribute, old_s, lang),
                     trigger=trig.label_for(lang), date=eff.at)
        for lang in LANGS
    }  # fmt: skip


def plain_question(fact: Fact, rules: Rules) -> dict[str, str]:
    """A question for a doubtful fact that carries none (set by hand, or tentative)."""
    attr = rules.attribute(fact.attribute)
    value = fact.last_value()
    shown = ", ".join(value) if isinstance(value, list) else (value or "?")
    key = "ask_tentative" if fact.status == "tentative" else "ask_plain"
    return {lang: phrase(key, lang, label=attr.label_for(lang), value=shown) for lang in LANGS}


class _Missing(dict):  # type: ignore[type-arg]
    def __missing__(self, key: str) -> str:
        return "?"


def archive(fact: Fact, valid_to: str, reason: str) -> dict[str, Any]:
    """The history entry for fact's current value (its kind and items too), closed at valid_to."""
    entry: dict[str, Any] = {"value": fact.value}
    if fact.kind:
        entry["kind"] = fact.kind
    if fact.items:
        entry["items"] = copy.deepcopy(fact.items)
    for name, value in life.fields_of(fact).items():  # an event's or a plan's own fields go with it
        entry[name] = copy.deepcopy(value)
    entry |= {
        "status": "archived",
        "valid_from": fact.valid_from,
        "valid_to": valid_to,
        "recorded_at": fact.recorded_at,
        "source": fact.source,
        "reason": reason,
    }
    if fact.evidence:
        entry["evidence"] = fact.evidence
    return entry


def _apply(
    fact: Fact,
    outcome: tuple[str, Any],
    edge: Edge,
    eff: Effect,
    state: Mapping[str, Fact],
    rules: Rules,
    now: str,
) -> Fact | None:
    kind, value = outcome
    trig_label = rules.attribute(eff.key.split("/", 1)[1]).label_for("en")
    if kind == "derive":
        derived_from = {"fact": eff.key, "valid_from": eff.at}
        if fact.status == "active" and rules.same_value(fact.attribute, fact.value, value):
            return None
        if fact.value is not None and rules.same_value(fact.attribute, fact.value, value):
            return fact.evolve(status="active", uncertain_because=None, derived_from=derived_from)
        history = list(fact.history)
        if fact.value is not None or fact.kind:
            history.append(archive(fact, eff.at, f"re-derived: {trig_label} changed"))
        trigger = state.get(eff.key)  # a derived value was never said: it points where its input was
        return fact.evolve(
            value=value, kind=None, items={}, status="active", valid_from=eff.at,
            valid_to=None, recorded_at=now,
            source=f"rule:{edge.dep.id}", derived_from=derived_from, uncertain_because=None,
            evidence=trigger.evidence if trigger is not None else None, history=history,
        )  # fmt: skip
    if fact.status == "expired" and not (eff.kind == "deleted" and _mentions(fact, eff.key)):
        return None  # already known to be no longer true: doubt adds nothing
    target = fact.evolve(status="uncertain" if kind == "uncertain" else "expired")
    if kind == "expire" and (fact.value is not None or fact.kind):
        target.history = [*fact.history, archive(fact, eff.at, f"expired: {trig_label} changed")]
        target.value, target.kind, target.items = None, None, {}
        target = target.evolve(**life.CLEARED)
        target.evidence = None  # it went to history with the value it was evidence for
    because = _because(eff, edge, state, target, rules)
    if fact.status == target.status and _same_cause(fact.uncertain_because, because):
        return None  # the same cascade applied twice changes nothing
    target.uncertain_because = because
    target.derived_from = None
    return target


def _mentions(fact: Fact, key: str) -> bool:
    why = fact.uncertain_because or {}
    return key in (why.get("fact"), why.get("origin"))


def _same_cause(old: dict[str, Any] | None, new: dict[str, Any]) -> bool:
    if not old:
        return False
    fields = ("fact", "change", "new", "changed_at", "origin")
    return all(old.get(f) == new.get(f) for f in fields)
