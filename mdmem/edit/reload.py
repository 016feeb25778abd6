"""A file saved from an editor's buffer older than mdmem's last write to it.

The person saves a fact file in vim; `mdmem watch` applies the edit and must change the file
(the old value goes to history). vim's buffer still holds the file as the person saved it, so
their next `:w` (after "The file has been changed since reading it", answered yes) writes that
older text back: mdmem's history entry is gone from the file, and `sync` would take the loss
as an edit. To tell that save from a real one, `sync` remembers, for each hand-edited file it
patched, the person's text it patched (`theirs`) and the digest of what it wrote (`ours`). A
later save whose file shows none of mdmem's changes is a save from the old buffer: it is merged
field by field, the person's newer edits over mdmem's write, and nothing is lost either way.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mdmem.errors import MdmemError
from mdmem.files import atomic_write
from mdmem.model.factfile import Fact, file_mapping, from_mapping, parse

RECORD = "patched.json"  # under .mdmem/: a cache, rebuilt by the next patch; safe to delete


def load(meta: Path) -> dict[str, dict[str, str]]:
    """rel → {theirs: the person's text mdmem patched, ours: the SHA-256 of what it wrote}."""
    try:
        data = json.loads((meta / RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, dict)} if isinstance(data, dict) else {}


def save(meta: Path, patched: dict[str, str], written: dict[str, str], old: dict[str, dict[str, str]]) -> None:  # fmt: skip
    """Remember the texts just patched (rel → the person's text), and forget the records whose
    file mdmem has since written again (the manifest no longer holds their `ours`)."""
    keep = {rel: r for rel, r in old.items() if written.get(rel) == r.get("ours")}
    for rel, theirs in patched.items():
        if rel in written:
            keep[rel] = {"theirs": theirs, "ours": written[rel]}
    if keep != old:
        atomic_write(meta / RECORD, json.dumps(keep, ensure_ascii=False, sort_keys=True, indent=1) + "\n")  # fmt: skip


def merged(record: dict[str, str] | None, mine: str | None, ours: Fact, now: Fact, rel: str) -> Fact | None:  # fmt: skip
    """`now` (the file as saved) with mdmem's last write (`ours`) put back under the person's
    newer edits, when `now` was saved from the buffer mdmem patched; else None (a real edit)."""
    if record is None or mine is None or record.get("ours") != mine or not isinstance(record.get("theirs"), str):  # fmt: skip
        return None
    try:
        theirs = parse(record["theirs"], rel, expect=(now.entity, now.attribute))
    except MdmemError:
        return None
    a, b, c = file_mapping(theirs), file_mapping(ours), file_mapping(now)
    moved = [k for k in dict.fromkeys([*a, *b]) if a.get(k) != b.get(k)]
    if not moved or any(c.get(k) != a.get(k) for k in moved):
        return None  # the file shows mdmem's write: the editor had reloaded it
    out: dict[str, Any] = {}
    for k in dict.fromkeys([*c, *b]):
        v = b.get(k) if c.get(k) == a.get(k) else c.get(k)  # the person's newer edit wins
        if v is not None:
            out[k] = v
    try:
        return from_mapping(out, body=now.body if now.body != theirs.body else ours.body, path=rel)
    except MdmemError:
        return None
