"""`.mdmem/journal.jsonl`: one line per applied batch, append-only (purge is the one exception).

Each change stores what changed, enough to undo it (docs/decisions.md#the-journal):
`was`/`now` hold the fields that differ (value and status always), `history_add` the entries
appended to the history, `sha` a digest of the frontmatter written. A new fact has `was: null`
and its whole frontmatter in `now`; a removed file the reverse. Entries written before this
format hold full `before`/`after` mappings; `Journal.entries()` gives both kinds with full
`before`/`after` rebuilt by replaying the journal, `Journal.records()` the lines as stored.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mdmem.boundary import open_fd
from mdmem.files import atomic_write, sha256
from mdmem.store.episodes import longest_first, replace_phrases
from mdmem.store.journal_change import change_record, expanded

if TYPE_CHECKING:  # a type only: a read that writes no journal entry needs no cascade
    from mdmem.engine.cascade import Change

_LINE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))  # made once, not per call


def dumps(entry: dict[str, Any]) -> str:
    # Keys in the order they were built (deterministic): a mapping restored by undo keeps the
    # order mdmem wrote it in (`uncertain_because` is not re-sorted).
    return _LINE.encode(entry)


def make_entry(
    changes: list[Change], *, now: str, source: dict[str, Any], command: str
) -> dict[str, Any]:
    """A journal entry; its id is a hash of its content, so equal inputs give equal ids."""
    body = {
        "time": now,
        "command": command,
        "source": source,
        "changes": [change_record(c) for c in changes],
    }
    return {"id": sha256(dumps(body))[:12], **body}


def live_entries(entries: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The entries in order, less those undone (an undo that was itself undone does not count)."""
    entries = list(entries)
    undoers: dict[str, list[str]] = {}
    for e in entries:
        src = e.get("source") or {}
        if isinstance(src, dict) and src.get("kind") == "undo" and src.get("undoes"):
            undoers.setdefault(str(src["undoes"]), []).append(str(e.get("id")))
    memo: dict[str, bool] = {}

    def live(entry_id: str, depth: int = 0) -> bool:
        if entry_id not in memo:
            memo[entry_id] = depth > 50 or not any(live(u, depth + 1) for u in undoers.get(entry_id, []))  # fmt: skip
        return memo[entry_id]

    return [e for e in entries if live(str(e.get("id")))]


class Journal:
    def __init__(self, path: Path) -> None:
        self.path = path

    def entries(self) -> Iterator[dict[str, Any]]:
        """Every complete entry, each change with full `before`/`after` mappings (replayed)."""
        return expanded(self.records())

    def records(self) -> Iterator[dict[str, Any]]:
        """Every complete entry as stored; a torn last line (a crash mid-append) is skipped."""
        try:
            fd = open_fd(self.path, os.O_RDONLY)
        except FileNotFoundError:
            return
        with open(fd, encoding="utf-8") as f:
            for line in f:
                if not line.strip():
                    continue
                try:
                    yield json.loads(line)
                except ValueError:
                    continue

    def find(self, entry_id: str) -> dict[str, Any] | None:
        return next((e for e in self.records() if e.get("id") == entry_id), None)

    def find_source(self, digest: str) -> dict[str, Any] | None:
        for e in self.records():
            src = e.get("source") or {}
            if isinstance(src, dict) and src.get("sha256") == digest:
                return e
        return None

    def append(self, entry: dict[str, Any]) -> None:
        self._repair_tail()
        fd = open_fd(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
        with open(fd, "a", encoding="utf-8") as f:
            f.write(dumps(entry) + "\n")
            f.flush()
            os.fsync(f.fileno())

    def _repair_tail(self) -> None:
        """Drop a torn last line left by a crash, so the next entry starts on its own line.
        Only the last byte is read in the usual case: a journal grows with every write."""
        try:
            with open(open_fd(self.path, os.O_RDONLY), "rb") as f:
                if f.seek(0, os.SEEK_END) == 0:
                    return
                f.seek(-1, os.SEEK_END)
                if f.read(1) == b"\n":
                    return
                f.seek(0)
                data = f.read()
        except FileNotFoundError:
            return
        atomic_write(self.path, data[: data.rfind(b"\n") + 1])

    def purge(self, purge: Mapping[str, str]) -> int:
        """Strip forgotten facts from the journal, and nothing else (`forget --purge`):
        `purge[key]` is "all" (the fact's own records lose every value) or "derived" (its
        own records lose the values a rule derived that it holds no more). Another fact's
        record keeps its own values; only what it says about a purged fact (a doubt quoting
        its values) is cut. Returns how many records changed."""
        whole = {k for k, how in purge.items() if how == "all"}
        derived = {k: _gone_derived(self.records(), k) for k, how in purge.items() if how == "derived"}
        words = {k: longest_first(v) for k, v in derived.items() if v}
        if not whole and not words:
            return 0
        return self._rewrite(lambda entry: _purge(entry, whole, words))

    def redact(self, phrases: Iterable[str]) -> int:
        """Replace every mention of the phrases (any case) in the journal by '[forgotten]'."""
        wanted = longest_first(phrases)
        if not wanted:
            return 0
        return self._rewrite(lambda entry: _redact(entry, wanted))

    def _rewrite(self, change: Callable[[dict[str, Any]], Any]) -> int:
        """Rewrite every record as stored (not replayed) through change; how many changed."""
        lines, changed = [], 0
        for entry in self.records():
            new = change(entry)
            changed += new != entry
            lines.append(dumps(new))
        if changed:
            atomic_write(self.path, "".join(line + "\n" for line in lines))
        return changed


def _redact(value: Any, phrases: list[str]) -> Any:
    if isinstance(value, str):
        return replace_phrases(value, phrases)
    if isinstance(value, list):
        return [_redact(v, phrases) for v in value]
    if isinstance(value, dict):
        return {k: _redact(v, phrases) for k, v in value.items()}
    return value


def _purge(entry: dict[str, Any], whole: set[str], words: Mapping[str, list[str]]) -> dict[str, Any]:
    out = json.loads(json.dumps(entry))
    for change in out.get("changes", []):
        if not isinstance(change, dict):
            continue
        key = str(change.get("fact"))
        if key in whole:
            _scrub_own(change, key)
            continue
        if key in words:
            for side in ("was", "now", "before", "after", "history_add"):
                if side in change:
                    change[side] = _redact(change[side], words[key])
            continue
        for side in ("before", "after", "was", "now"):
            m = change.get(side)
            why = m.get("uncertain_because") if isinstance(m, dict) else None
            if not isinstance(m, dict) or not isinstance(why, dict):
                continue
            about = {str(why.get("fact")), str(why.get("origin"))}
            if about & whole or any(_redact(why, words[k]) != why for k in about & set(words)):
                m["uncertain_because"] = {"fact": why.get("fact"), "change": "purged"}
    return out


def _scrub_own(change: dict[str, Any], key: str) -> None:
    """A purged fact's own record: no value, no history, nothing to undo from."""
    entity, _, attribute = key.partition("/")
    if "was" in change or "now" in change or "history_add" in change:
        for field in ("was", "now", "history_add", "sha"):
            change.pop(field, None)
        change["purged"] = True
        return
    for side in ("before", "after"):
        if isinstance(change.get(side), dict):
            change[side] = {"entity": entity, "attribute": attribute, "purged": True}


def _gone_derived(records: Iterable[dict[str, Any]], key: str) -> list[str]:
    """The values a rule derived for `key` that its last recorded state holds no more."""
    derived: set[str] = set()
    last: dict[str, Any] | None = None
    for entry in expanded(records):
        for change in entry.get("changes") or []:
            if not isinstance(change, dict) or change.get("fact") != key:
                continue
            after = change.get("after")
            last = after if isinstance(after, dict) else None
            for m in [after, *(after.get("history") or [] if isinstance(after, dict) else [])]:
                if isinstance(m, dict) and str(m.get("source") or "").startswith("rule:"):
                    derived.update(_texts(m.get("value")))
    held: set[str] = set()
    if last is not None:
        held.update(_texts(last.get("value")))
        for h in last.get("history") or []:
            if isinstance(h, dict):
                held.update(_texts(h.get("value")))
    return sorted(derived - held)


def _texts(value: Any) -> list[str]:
    items = value if isinstance(value, list) else [value]
    return [str(v) for v in items if isinstance(v, str) and v.strip()]


def recent_entries(
    journal: Journal, *, limit: int | None = None, fact: str | None = None
) -> list[dict[str, Any]]:
    """Journal entries newest first, each change cut to its fact, decision, cause and the value
    and status before and after; with `fact`, only the entries touching it, and of each only
    that fact's changes (`mdmem log ATTRIBUTE` prints that attribute's rows)."""
    out: list[dict[str, Any]] = []
    for entry in journal.entries():
        changes = [c for c in entry.get("changes") or [] if isinstance(c, dict)]
        if fact is not None:
            changes = [c for c in changes if c.get("fact") == fact]
            if not changes:
                continue
        out.append(
            {
                "id": entry.get("id"),
                "time": entry.get("time"),
                "command": entry.get("command"),
                "source": entry.get("source"),
                "changes": [_change_summary(c) for c in changes],
            }
        )
    out.reverse()
    return out if limit is None else out[: max(limit, 0)]


def _change_summary(change: dict[str, Any]) -> dict[str, Any]:
    before, after = change.get("before"), change.get("after")
    before = before if isinstance(before, dict) else {}
    after = after if isinstance(after, dict) else {}
    summary = {
        "fact": change.get("fact"),
        "decision": change.get("decision"),
        "cause": change.get("cause"),
        "before": before.get("value"),
        "after": after.get("value"),
        "status": after.get("status"),
    }
    if change.get("decision") == "LINKS":  # only the links moved: say which they are now
        summary["upstream"] = after.get("upstream") or []
    return summary
