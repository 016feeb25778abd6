"""`mdmem undo ID`: reverse one journal entry, when nothing it touched has changed since."""

from __future__ import annotations

import json
from typing import Any

from mdmem.engine.cascade import Change
from mdmem.engine.decide import Plan
from mdmem.errors import RefusedError
from mdmem.model.factfile import Fact, from_mapping
from mdmem.store.journal import live_entries
from mdmem.store.journal_change import backward, body_before, fact_digest, is_compact
from mdmem.store.vault import Result, Vault


def find_entry(vault: Vault, entry_id: str) -> dict[str, Any]:
    """The journal entry with this id (or a unique prefix of at least 4 characters)."""
    entry_id = entry_id.strip()
    matches = [e for e in vault.journal.entries() if str(e.get("id", "")).startswith(entry_id)]
    exact = [e for e in matches if e.get("id") == entry_id]
    if exact:
        return exact[0]
    if len(matches) > 1:
        listed = "".join(f"\n  {_entry_line(e)}" for e in reversed(matches))
        raise RefusedError(
            f"ambiguous: {len(matches)} entries start with {entry_id!r}; give more of the id:{listed}"
        )
    if len(entry_id) < 4 or not matches:
        short = " (give at least 4 characters of the id)" if matches else ""
        raise RefusedError(f"no journal entry {entry_id!r}{short}; `mdmem log` lists the ids")
    return matches[0]


def _entry_line(e: dict[str, Any]) -> str:
    """'3f2a9c1b0d4e  2026-02-10T12:00:00Z  ingest transcripts/a.md' (newest first in lists)."""
    src = e.get("source")
    src = src if isinstance(src, dict) else {}
    what = src.get("path") or src.get("undoes") or ""
    return f"{e.get('id')}  {e.get('time', '')}  {e.get('command', '')} {what}".rstrip()


def _normal(mapping: Any) -> Any:
    return json.loads(json.dumps(mapping, ensure_ascii=False, sort_keys=True))


# The order mdmem writes these mappings in; entries of the old journal format stored them with
# keys sorted, and a restored file must not come back re-sorted.
_NESTED_ORDER = {
    "uncertain_because": ("fact", "change", "old", "new", "changed_at", "origin", "question"),
    "derived_from": ("fact", "valid_from"),
}


def _in_order(mapping: dict[str, Any]) -> dict[str, Any]:
    out = dict(mapping)
    for name, order in _NESTED_ORDER.items():
        m = out.get(name)
        if isinstance(m, dict):
            ahead = {k: m[k] for k in order if k in m}
            out[name] = {**ahead, **{k: m[k] for k in m if k not in ahead}}
    return out


def _restore(
    key: str, changes: list[dict[str, Any]], current: Fact | None
) -> tuple[bool, dict[str, Any] | None, str | None]:
    """(still as the entry left it, the frontmatter before the entry, the body before it)."""
    if all(is_compact(c) for c in changes):
        if fact_digest(current) != changes[-1].get("sha"):
            return False, None, None
        mapping = current.to_mapping() if current is not None else None
        body = current.body if current is not None else None
        for rec in reversed(changes):
            mapping = backward(mapping, rec)
            kept = body_before(rec)
            body = kept if kept is not None else body
        return True, mapping, body
    now_map = _normal(current.to_mapping()) if current is not None else None
    if now_map != _normal(changes[-1].get("after")):
        return False, None, None
    before = changes[0].get("before")
    return True, before if isinstance(before, dict) else None, current.body if current else None


def plan_undo(vault: Vault, entry: dict[str, Any], facts: dict[str, Fact]) -> Plan:
    """The changes that put every fact the entry touched back as it was before (pure)."""
    by_key: dict[str, list[dict[str, Any]]] = {}
    for ch in entry.get("changes") or []:
        by_key.setdefault(ch["fact"], []).append(ch)
    if not by_key:
        lost = lost_words(entry)
        why = f"changed no fact; {lost}" if lost else "changed nothing; there is nothing to undo"
        raise RefusedError(f"journal entry {entry['id']} {why}")
    purged = sorted(
        k for k, chs in by_key.items()
        if any(c.get("purged") or any(isinstance(c.get(side), dict) and c[side].get("purged")
                                      for side in ("before", "after")) for c in chs)
    )  # fmt: skip
    if purged:
        raise RefusedError(
            f"journal entry {entry['id']} cannot be undone: the values of {', '.join(purged)}"
            " were purged from the journal at the person's request"
        )
    restored_of: dict[str, tuple[dict[str, Any] | None, str | None]] = {}
    changed = []
    for key in sorted(by_key):
        same, before, body = _restore(key, by_key[key], facts.get(key))
        if not same:
            changed.append(key)
        restored_of[key] = (before, body)
    if changed:
        raise RefusedError(
            f"journal entry {entry['id']} cannot be undone: "
            f"{', '.join(changed)} changed since (by a later entry or a hand edit);"
            " undo the later entries first, or change these facts with `mdmem set`/`forget`"
        )
    plan = Plan()
    for key in sorted(by_key):
        current = facts.get(key)
        before, body = restored_of[key]
        restored = None
        if before is not None:
            # The journal keeps a body only when the entry changed it: otherwise the body stays
            # as it is now, and a file that comes back from nothing says where it came from.
            if not body:
                body = f"Restored by `mdmem undo {entry['id']}`."
            restored = from_mapping(_in_order(before), body=body, path=f"facts/{key}.md")
        plan.changes.append(Change(key, "UNDO", current, restored, None))
    return plan


def lost_words(entry: dict[str, Any]) -> str | None:
    """What an undo cannot give back: the words a forget cut from the episodes (mdmem keeps
    no copy of them, by design), or None."""
    src = entry.get("source")
    cut = src.get("redacted") if isinstance(src, dict) else None
    if not isinstance(cut, list) or not cut:
        return None
    spans = sum(int(c.get("spans", 1)) for c in cut if isinstance(c, dict))
    files = len({c.get("episode") for c in cut if isinstance(c, dict)})
    return (
        f"the words this forget cut from the episodes ({spans} span{'s' * (spans != 1)} in {files}"
        f" file{'s' * (files != 1)}) cannot come back: mdmem kept no copy of them; only the facts"
        " are restored"
    )


def undo(vault: Vault, entry_id: str, *, dry_run: bool = False) -> Result:
    """Reverse one journal entry as a new, journaled change (so an undo can itself be undone)."""
    with vault.lock:
        vault.recover()
        entry = find_entry(vault, entry_id)
        undone_by = [e for e in live_entries(vault.journal.records())
                     if (e.get("source") or {}).get("kind") == "undo"
                     and (e.get("source") or {}).get("undoes") == entry["id"]]  # fmt: skip
        if undone_by:
            by = undone_by[-1]["id"]
            raise RefusedError(
                f"journal entry {entry['id']} is already undone (by {by}); "
                f"`mdmem undo {by}` puts it back"
            )
        facts, _problems = vault.scan(refresh=True)
        plan = plan_undo(vault, entry, facts)
        if dry_run:
            return Result(plan, None, True)
        source = {"kind": "undo", "undoes": entry["id"]}
        return Result(plan, vault.apply(plan, command="undo", source=source))
