"""`mdmem ingest --reprocess`: what re-reading a source already ingested may still apply.

A source is re-read whole (say a better extractor, or `--llm`, came later), but its messages
were applied before: what they stated is either known, or was changed or forgotten since, and
the person's later word wins. So from an applied message only what the vault never had is kept:
a fact it has no file for, or an earlier value a fact's history lacks (BACKFILL). A fact that was
ever forgotten (or any of whose values was) is never brought back, not even as history; a request (forget, keep, reject) is
not made twice; a statement already known (NOOP) is dropped rather than counted again. Messages
not applied yet (the file grew) go through as in any ingest.
"""

from __future__ import annotations

from collections.abc import Mapping

from mdmem.edit.new_messages import NewMessages, statement_line
from mdmem.engine.decide import Statement, decide
from mdmem.model.factfile import Fact
from mdmem.store.journal import live_entries
from mdmem.store.vault import Vault


def only_new(
    statements: list[Statement], step: NewMessages, facts: Mapping[str, Fact], vault: Vault
) -> list[Statement]:
    """The statements of a re-read source worth applying, in order."""
    fresh = {step.messages[pos - 1].line for pos in step.new}
    forgotten = forgotten_keys(vault, facts)
    state = dict(facts)
    out: list[Statement] = []
    for st in statements:
        said_now = statement_line(st) in fresh
        if not said_now and (st.kind != "assert" or st.key in forgotten):
            continue
        before = state.get(st.key)
        decision, after = decide(before, st, vault.rules, vault.now)
        if not said_now and not (st.key not in facts or decision == "BACKFILL"):
            continue  # the vault knew this fact already; what was said later stands
        if not said_now and st.key in facts and _known_value(facts[st.key], st, vault):
            continue  # a value it has had already is no earlier value it lacks
        if not said_now and (after is None or after == before):
            continue  # nothing new (NOOP)
        out.append(st)
        if after is not None:
            state[st.key] = after
    return out


def _known_value(fact: Fact, st: Statement, vault: Vault) -> bool:
    values = [fact.value, *(h.get("value") for h in fact.history)]
    return any(v is not None and vault.rules.same_value(st.attribute, v, st.value) for v in values)


def forgotten_keys(vault: Vault, facts: Mapping[str, Fact]) -> set[str]:
    """Facts that are tombstones now, or were forgotten at any time (the journal says so)."""
    keys = {k for k, f in facts.items() if f.status == "deleted"}
    for e in live_entries(vault.journal.records()):
        for ch in e.get("changes") or []:
            # FORGET: some of its values were forgotten; none comes back from an old line either
            if isinstance(ch, dict) and ch.get("decision") in ("DELETE", "FORGET") and ch.get("fact"):
                keys.add(str(ch["fact"]))
    return keys
