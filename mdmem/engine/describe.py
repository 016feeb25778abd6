"""Plain-text and JSON descriptions of changes and writes, shared by the CLI, the journal and git."""

from __future__ import annotations

from typing import Any

from mdmem.engine.cascade import Change
from mdmem.lang.phrases import doc
from mdmem.model.factfile import Fact
from mdmem.model.periods import added_history

# A fact's kind → the words for it (lang/documents.py); `plan` takes the value.
SHAPE_WORDS = {"none": "shape_none", "unnamed": "shape_unnamed", "event": "shape_event", "plan": "shape_plan"}


def show_value(fact: Fact | None) -> str:
    if fact is None:
        return "—"
    if fact.status == "deleted":
        return doc("value_removed")
    if fact.kind == "unnamed" and fact.mentioned_as:
        return doc("shape_unnamed_as", nouns=", ".join(fact.mentioned_as))
    if fact.kind in ("none", "unnamed"):
        return doc(SHAPE_WORDS[fact.kind])
    v = fact.value
    if v is None:
        return doc("value_unknown")
    text = ", ".join(_item(fact, i) for i in v) if isinstance(v, list) else v
    if fact.kind == "plan":
        return doc("shape_plan_done" if fact.fulfilled_by else "shape_plan", value=text)
    return text


def _item(fact: Fact, item: str) -> str:
    """A list item with its own start and polarity, where it has them."""
    fields = fact.items.get(item, {})
    if fields.get("valid_from"):
        item = doc("shape_item_since", value=item, date=fields["valid_from"])
    return doc("shape_item_dislike", value=item) if fields.get("polarity") == "dislike" else item


def backfilled(c: Change) -> str | None:
    """'+ Vancouver (2019-01-01 – 2021-01-01)' for a BACKFILL: the earlier value it added
    (the current value is unchanged, so showing it would say nothing); None otherwise."""
    if c.decision != "BACKFILL" or c.after is None:
        return None
    added = added_history(c.before, c.after)
    if not added:
        return None
    parts = []
    for h in added:
        v = h.get("value")
        shown = ", ".join(v) if isinstance(v, list) else "?" if v is None else str(v)
        start, end = (str(h.get(k) or "?")[:10] for k in ("valid_from", "valid_to"))
        parts.append(f"+ {shown} ({start} – {end})")
    return "; ".join(parts)


def change_line(c: Change) -> str:
    before, after = show_value(c.before), show_value(c.after)
    added = backfilled(c)
    if c.decision == "DELETE":
        text = doc("forgotten")
    elif c.decision == "FORGET":  # some values went: the ones forgotten are not shown again
        text = doc("forgotten_values", now=after)
    elif added is not None:
        text = added
    elif c.before is None:
        text = after
    elif before == after:
        text = f"{after} ({c.after.status if c.after else ''})"
    else:
        text = f"{before} → {after}"
    cause = doc("because_changed", cause=c.cause) if c.cause else ""
    return f"{c.decision:<9} {c.key}  {text}{cause}"


def change_json(c: Change) -> dict[str, Any]:
    return {
        "fact": c.key,
        "decision": c.decision,
        "cause": c.cause,
        "before": c.before.to_mapping() if c.before else None,
        "after": c.after.to_mapping() if c.after else None,
    }


def result_json(result: Any) -> dict[str, Any]:
    """A write's outcome (vault.Result) for --json: decisions, changes and the journal id."""
    return {
        "dry_run": result.dry_run,
        "journal_id": result.entry["id"] if result.entry else None,
        "decisions": [{"fact": st.key, "decision": d} for st, d in result.plan.decisions],
        "changes": [change_json(c) for c in result.plan.changes],
        **({"notes": result.notes} if getattr(result, "notes", None) else {}),
    }
