"""The questions waiting for the person: what `mdmem pending` lists (pure)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mdmem.engine import plans
from mdmem.engine.cascade import plain_question
from mdmem.model import life
from mdmem.model.factfile import Fact
from mdmem.model.rules import Rules


def pending(facts: Mapping[str, Fact], rules: Rules, today: str) -> list[dict[str, Any]]:
    """Doubtful facts (uncertain, tentative, expired by a cascade) and plans whose day has
    passed by `today`, oldest change first. A plan still to come asks nothing yet; an event never."""
    out: list[dict[str, Any]] = []
    for key, fact in sorted(facts.items()):
        if fact.kind in life.KINDS:
            fact = plans.seen_on(fact, rules, today)
            if fact.status == "tentative" or fact.kind == life.EVENT:
                continue
        why: dict[str, Any] = fact.uncertain_because or {}
        if fact.status not in ("uncertain", "tentative") and not (fact.status == "expired" and why):
            continue
        q = why.get("question") or plain_question(fact, rules)
        out.append({"fact": key, "status": fact.status, "value": fact.value, "because": why, "question": q})
    out.sort(key=lambda p: (str(p["because"].get("changed_at", "")), p["fact"]))
    return out
