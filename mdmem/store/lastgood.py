"""The last good state of rules.yaml (a copy under .mdmem/), and of fact files per the journal."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mdmem.errors import MdmemError, RulesError
from mdmem.files import atomic_write, read_text
from mdmem.model.factfile import Fact, from_mapping
from mdmem.model.rules import Rules
from mdmem.store.rules_cache import parse_cached

GOOD_RULES_FILE = "rules.good.yaml"


@dataclass(frozen=True)
class RulesState:
    """The rules in force: rules.yaml when it validates, else the last copy that did."""

    rules: Rules
    error: RulesError | None = None  # rules.yaml does not validate: `rules` are the last good ones
    previous: Rules | None = None  # rules.yaml changed since the last good copy: the old rules


def good_rules(root: Path, meta: Path) -> RulesState:
    """Validate rules.yaml; keep a copy when it is good, fall back to that copy when it is not."""
    good_path = meta / GOOD_RULES_FILE
    kept = read_text(good_path)
    try:
        try:
            text = read_text(root / "rules.yaml")  # through the boundary: a link out is refused
            if text is None:
                raise RulesError("not found; restore it or create one with `mdmem init`", path="rules.yaml")  # fmt: skip
        except UnicodeDecodeError as e:  # saved in another encoding: the last good copy holds
            raise RulesError(
                f"is not UTF-8 text ({e.reason} at byte {e.start}); save it as UTF-8",
                path="rules.yaml",
            ) from None
        except OSError as e:
            raise RulesError(f"cannot be read: {e}", path="rules.yaml") from None
        # Unchanged since it last validated: its regexes need not be compiled until used,
        # and with the cache it need not be parsed at all.
        rules = parse_cached(meta, text, "rules.yaml", lazy=kept == text)
    except RulesError as error:
        if kept is None:
            raise
        from mdmem.model.rules_yaml import parse_rules

        try:
            return RulesState(parse_rules(kept, str(good_path)), error)
        except RulesError:
            raise error from None
    previous = None
    if kept != text:
        from mdmem.model.rules_yaml import parse_rules

        if kept is not None:
            with contextlib.suppress(RulesError):
                previous = parse_rules(kept, str(good_path))
        with contextlib.suppress(OSError):  # a read-only vault still reads
            atomic_write(good_path, text)
    return RulesState(rules, None, previous)


def journal_facts(entries: Iterable[Mapping[str, Any]]) -> dict[str, Fact | None]:
    """What the journal says mdmem last wrote, per fact file path (None: removed); bodies empty."""
    last: dict[str, Any] = {}
    for entry in entries:
        for change in entry.get("changes") or ():
            if isinstance(change, dict) and isinstance(change.get("fact"), str):
                last[f"facts/{change['fact']}.md"] = change.get("after")
    out: dict[str, Fact | None] = {}
    for rel, after in last.items():
        if not isinstance(after, dict):
            out[rel] = None
            continue
        if after.get("purged"):  # scrubbed by `forget --purge`: only the tombstone is known
            after = {
                "entity": after["entity"],
                "attribute": after["attribute"],
                "status": "deleted",
            }
        try:
            out[rel] = from_mapping(after, path=rel)
        except MdmemError:
            continue
    return out
