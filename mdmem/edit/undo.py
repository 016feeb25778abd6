"""`mdmem undo ID`: reverse one journal entry, when nothing it touched has changed since."""

from __future__ import annotations

import json
from typing import Any

from mdmem.engine.cascade import Change
from mdmem.engine.decide import Plan
from mdmem.errors import RefusedError
from mdmem.model.factfile import Fact, from_mapping
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


def plan_undo(vault: Vault, entry: dict[str, Any], facts: dict[str, Fact]) -> Plan:
    """The changes that put every fact the entry touched back as it was before (pure)."""
    first_before: dict[str, Any] = {}
    last_after: dict[str, Any] = {}
    for ch in entry.get("changes") or []:
        key = ch["fact"]
        first_before.setdefault(key, ch.get("before"))
        last_after[key] = ch.get("after")
    if not last_after:
        raise RefusedError(f"journal entry {entry['id']} changed nothing; there is nothing to undo")
    purged = sorted(
        k for k in last_after
        if any(isinstance(m, dict) and m.get("purged") for m in (first_before[k], last_after[k]))
    )  # fmt: skip
    if purged:
        raise RefusedError(
            f"journal entry {entry['id']} cannot be undone: the values of {', '.join(purged)}"
            " were purged from the journal at the person's request"
        )
    changed = []
    for key in sorted(last_after):
        now = facts.get(key)
        now_map = _normal(now.to_mapping()) if now is not None else None
        if now_map != _normal(last_after[key]):
            changed.append(key)
    if changed:
        raise RefusedError(
            f"journal entry {entry['id']} cannot be undone: "
            f"{', '.join(changed)} changed since (by a later entry or a hand edit);"
            " undo the later entries first, or change these facts with `mdmem set`/`forget`"
        )
    plan = Plan()
    for key in sorted(last_after):
        current = facts.get(key)
        before = first_before[key]
        restored = None
        if before is not None:
            # The journal keeps frontmatter only: the body stays as it is now, and a file that
            # comes back from nothing says where it came from.
            body = current.body if current else f"Restored by `mdmem undo {entry['id']}`."
            restored = from_mapping(before, body=body, path=f"facts/{key}.md")
        plan.changes.append(Change(key, "UNDO", current, restored, None))
    return plan


def undo(vault: Vault, entry_id: str, *, dry_run: bool = False) -> Result:
    """Reverse one journal entry as a new, journaled change (so an undo can itself be undone)."""
    with vault.lock:
        vault.recover()
        entry = find_entry(vault, entry_id)
        facts, _problems = vault.scan(refresh=True)
        plan = plan_undo(vault, entry, facts)
        if dry_run:
            return Result(plan, None, True)
        source = {"kind": "undo", "undoes": entry["id"]}
        return Result(plan, vault.apply(plan, command="undo", source=source))
