"""One change in the journal, stored compactly: what changed, enough to undo it.

A record is `{fact, decision, cause?, was, now, history_add?, sha?}`:
- `was`/`now`: the frontmatter fields that differ between before and after (None: absent),
  plus `value` and `status` always, so that a reader sees what the fact said without replaying;
  `body` too when the body changed (a forget drops it; its undo brings it back);
- `history_add`: entries appended to the history (the usual case: a value archived); a history
  rewritten in place (a backfill, a correction) is stored whole in `was`/`now` instead;
- `was: null`: the fact is new, `now` holds its whole frontmatter; `now: null`: its file was
  removed, `was` holds the whole frontmatter and body;
- `sha`: a digest of the frontmatter written, so undo can tell the file is still as left.
Entity and attribute are in `fact`, never repeated.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from mdmem.files import sha256
from mdmem.model.factfile import FIELDS, Fact

if TYPE_CHECKING:  # a type only: a read that writes no journal entry needs no cascade
    from mdmem.engine.cascade import Change

ALWAYS = ("value", "status")  # kept on both sides even when unchanged: a record reads alone
_KEY_FIELDS = ("entity", "attribute")


# One encoder, made once: json.dumps with options builds a new one every call.
_SORTED = json.JSONEncoder(ensure_ascii=False, sort_keys=True)


def digest(mapping: dict[str, Any] | None) -> str | None:
    """A short digest of a frontmatter mapping, independent of key order."""
    if mapping is None:
        return None
    return sha256(_SORTED.encode(mapping))[:12]


def fact_digest(fact: Fact | None) -> str | None:
    """The digest of a fact's frontmatter (its body is the person's and is not compared)."""
    return digest(fact.to_mapping()) if fact is not None else None


def _bare(fact: Fact | dict[str, Any]) -> dict[str, Any]:
    m = fact.to_mapping() if isinstance(fact, Fact) else dict(fact)
    for k in _KEY_FIELDS:
        m.pop(k, None)
    return m


def change_record(c: Change) -> dict[str, Any]:
    """The compact journal record of one planned change."""
    rec: dict[str, Any] = {"fact": c.key, "decision": c.decision}
    if c.cause:
        rec["cause"] = c.cause
    written = c.after.to_mapping() if c.after is not None else None
    if c.before is None or c.after is None or written is None:
        was = _bare(c.before) if c.before is not None else None
        if was is not None and c.before is not None and c.before.body.strip():
            was["body"] = c.before.body
        rec["was"], rec["now"] = was, _bare(written) if written is not None else None
    else:
        before, after = _bare(c.before), _bare(written)
        old_h, new_h = before.pop("history", []), after.pop("history", [])
        was, now = {}, {}
        for k in (*after, *(k for k in before if k not in after)):
            if before.get(k) != after.get(k) or (k in ALWAYS and after.get(k) is not None):
                was[k], now[k] = before.get(k), after.get(k)
        if c.before.body != c.after.body:
            was["body"], now["body"] = c.before.body, c.after.body
        if new_h[: len(old_h)] == old_h:
            if len(new_h) > len(old_h):
                rec["history_add"] = new_h[len(old_h) :]
        else:
            was["history"], now["history"] = old_h, new_h
        rec["was"], rec["now"] = was, now
    if written is not None:
        rec["sha"] = digest(written)
    return rec


def is_compact(change: Any) -> bool:
    """Whether a journal change is in this format (else: full `before`/`after` mappings)."""
    return isinstance(change, dict) and ("was" in change or "now" in change)


def canonical(mapping: dict[str, Any]) -> dict[str, Any]:
    """Frontmatter fields in the fact file's order, extras after in name order, empties out."""
    keep = {k: v for k, v in mapping.items() if v is not None and v != [] and v != {}}
    known = {k: keep[k] for k in FIELDS if k in keep}
    return {**known, **{k: keep[k] for k in sorted(keep, key=str) if k not in FIELDS}}


def _apply(base: dict[str, Any], side: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for k, v in side.items():
        if k == "body":
            continue
        if v is None:
            out.pop(k, None)
        else:
            out[k] = v
    return out


def _keyed(key: str, mapping: dict[str, Any]) -> dict[str, Any]:
    entity, _, attribute = key.partition("/")
    return canonical({"entity": entity, "attribute": attribute, **mapping})


def forward(before: dict[str, Any] | None, rec: dict[str, Any]) -> dict[str, Any] | None:
    """The frontmatter after a compact change, given the one before (None: unknown or absent).

    With no known before (a file made by hand, then changed by mdmem) the result holds only
    the fields the record names."""
    key, now, was = str(rec["fact"]), rec.get("now"), rec.get("was")
    if not isinstance(now, dict):
        return None
    if was is None:
        return _keyed(key, {k: v for k, v in now.items() if k != "body"})
    out = _apply(before or {}, now)
    if "history" not in now:
        out["history"] = [*(out.get("history") or []), *(rec.get("history_add") or [])]
    return _keyed(key, out)


def backward(after: dict[str, Any] | None, rec: dict[str, Any]) -> dict[str, Any] | None:
    """The frontmatter before a compact change, given the one after it (for undo)."""
    key, now, was = str(rec["fact"]), rec.get("now"), rec.get("was")
    if not isinstance(was, dict):
        return None
    if not isinstance(now, dict):
        return _keyed(key, {k: v for k, v in was.items() if k != "body"})
    out = _apply(after or {}, was)
    if "history" not in was:
        added = len(rec.get("history_add") or [])
        history = list(out.get("history") or [])
        out["history"] = history[: len(history) - added]
    return _keyed(key, out)


def body_before(rec: dict[str, Any]) -> str | None:
    """The body before a compact change when the record kept it (it changed), else None."""
    was = rec.get("was")
    return was.get("body") if isinstance(was, dict) and isinstance(was.get("body"), str) else None


def _tombstone(key: str) -> dict[str, Any]:
    entity, _, attribute = key.partition("/")
    return {"entity": entity, "attribute": attribute, "status": "deleted"}


def expanded(entries: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Entries with full `before`/`after` mappings on every change, old format or compact.

    The compact records are replayed from the start of the journal; a purged record reads as
    `{entity, attribute, purged: true}` on both sides, as the old format did."""
    state: dict[str, dict[str, Any] | None] = {}
    for entry in entries:
        changes = entry.get("changes")
        if not isinstance(changes, list):
            yield entry
            continue
        out = []
        for c in changes:
            if not isinstance(c, dict) or not isinstance(c.get("fact"), str):
                out.append(c)
                continue
            key = c["fact"]
            if c.get("purged") and not ("before" in c or "after" in c):
                marker = {**_tombstone(key), "purged": True}
                marker.pop("status")
                out.append({**c, "before": marker if state.get(key) else None, "after": marker})
                state[key] = _tombstone(key)
                continue
            if is_compact(c):
                before = state.get(key)
                after = forward(before, c)
                out.append({**c, "before": before, "after": after})
            else:
                after = c.get("after")
                if isinstance(after, dict) and after.get("purged"):
                    after = _tombstone(key)
                out.append(c)
            state[key] = after if isinstance(after, dict) else None
        yield {**entry, "changes": out}
