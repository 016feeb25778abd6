"""The MCP tools that correct memory and search what was said: `fix`, `undo`, `search`.

Kept beside tools.py's `Memory` (which they are part of, as a base class): an agent that was
told a value is wrong corrects it with `fix`, reverses a write it made with `undo`, and finds
the person's own words with `search` when no fact holds them.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from mdmem.engine import describe
from mdmem.model.slug import split_key
from mdmem.server.args import DryRunArg, FactArg
from mdmem.store.vault import Vault


class Corrections:
    """`fix`, `undo` and `search`; `vault()` is the vault as it is on disk now."""

    def vault(self) -> Vault:  # pragma: no cover - Memory's
        raise NotImplementedError

    def fix(
        self,
        fact: FactArg,
        value: Annotated[
            str | list[str],
            Field(description="The right value; a list for a many-valued fact."),
        ],
        dry_run: DryRunArg = False,
    ) -> dict[str, Any]:
        """Correct a value that was wrong all along (misheard, mistyped): it is replaced as if it had never been said, history rewritten, dependents re-derived; undoable. For a value that changed (the person moved), use `remember` or `set`."""
        entity, attribute = split_key(fact)
        result = self.vault().correct(attribute, value, entity=entity, dry_run=dry_run)
        return describe.result_json(result)

    def undo(
        self,
        entry: Annotated[
            str,
            Field(description="The journal entry id (from `log`, or a write's journal_id); a unique start of at least 4 characters.", min_length=4, max_length=64),  # fmt: skip
        ],
        dry_run: DryRunArg = False,
    ) -> dict[str, Any]:
        """Reverse one journal entry (a write that was a mistake), if nothing it touched has changed since. The undo is itself an entry, so it can be undone."""
        from mdmem.edit.undo import undo

        result = undo(self.vault(), entry, dry_run=dry_run)
        undoes = ((result.entry or {}).get("source") or {}).get("undoes")
        return {**describe.result_json(result), "undoes": undoes}

    def search(
        self,
        query: Annotated[
            str,
            Field(description="Words to find in what the people said (English or Chinese); a name in it ranks that speaker's words first, a month or year the words said then.", min_length=1, max_length=2000),  # fmt: skip
        ],
        limit: Annotated[int, Field(description="At most this many passages.", ge=1, le=50)] = 5,
    ) -> dict[str, Any]:
        """Search the person's own words, kept verbatim in episodes: each passage with its date, speaker, text and an Obsidian link to the message. For what no fact holds (an event, an opinion, a pasted detail); `ask` answers from the facts first."""
        from mdmem.read.said import recall

        found = recall(self.vault(), query, limit=limit)
        return {"query": query, "passages": [{**p.to_json(), "link": p.link} for p in found]}
