"""Carrying out a forget: the facts, the statements that said them, the journal, one transaction.

`Vault.forget`, `Vault.forget_text` and `mdmem forget --all` come here. Under the lock: plan
(`store.forgetting`), find the cuts (`store.redaction`), and with the marker of `store.scrub`
down, write every fact and episode in one transaction; then purge the journal (`--purge`) and
the model's kept answers. The search caches are the caller's (`edit.forget` scrubs them and
lifts the marker); a caller that does not leaves the marker, and the next command rebuilds them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from mdmem.engine.cascade import Change
from mdmem.engine.decide import Plan
from mdmem.model.factfile import Fact, render
from mdmem.model.rules import Rules
from mdmem.store.cachedb import paused_gc
from mdmem.store.episodes import redact_text
from mdmem.store.forgetting import plan_forget
from mdmem.store.guards import Problem, refuse_broken
from mdmem.store.journal import Journal
from mdmem.store.lock import VaultLock
from mdmem.store.redaction import Cut, Cutter, Redaction
from mdmem.store.scrub import mark, marked, scrub_model_cache, unmark
from mdmem.store.statements import Reader


class _Vault(Protocol):  # what of `store.vault.Vault` a forget uses (that module imports this one)
    root: Path
    meta: Path
    lock: VaultLock
    journal: Journal

    @property
    def now(self) -> str: ...
    @property
    def rules(self) -> Rules: ...
    def recover(self) -> str | None: ...
    def scan(self, refresh: bool = False) -> tuple[dict[str, Fact], list[Problem]]: ...
    def apply(self, plan: Plan, *, command: str, source: dict[str, Any], extra: Any = None,
              expect: dict[str, str | None] | None = None) -> dict[str, Any]: ...  # fmt: skip


@dataclass
class Forgot:
    """What a forget did (or, with dry_run, would do): a `store.vault.Result` and its cuts."""

    plan: Plan
    entry: dict[str, Any] | None
    dry_run: bool = False
    cuts: list[Cut] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)  # fact bodies redacted (`--text`)
    purged: int = 0  # journal records purged


def forget_facts(vault: _Vault, wanted: Mapping[str, Iterable[str] | None], *,
                 phrases: Iterable[str] = (), purge: bool = False, dry_run: bool = False,
                 wipe: bool = False, cuts: Mapping[tuple[str, str], list[str]] | None = None,
                 source: dict[str, Any] | None = None, asked_at: Mapping[str, str] | None = None) -> Forgot:  # fmt: skip
    """Forget `wanted` (key → values, or None for the whole fact) and, with `phrases`, those
    words everywhere; `wipe` (`forget --all`) takes every message of every episode too, and
    `cuts` ((episode, anchor) → words) what a request in a chat pointed at, and `asked_at`
    where each fact was asked to be forgotten (a transcript line; `cli` by default)."""
    phrases = [p for p in phrases if p.strip()]
    with vault.lock, paused_gc():
        vault.recover()
        facts, problems = vault.scan(refresh=True)
        fp = plan_forget(facts, vault.rules, wanted, now=vault.now, source=asked_at or "cli")
        refuse_broken(fp.plan, problems)
        after = dict(facts)
        for c in fp.plan.changes:
            if c.after is not None:
                after[c.key] = c.after
        reader = Reader(vault.rules, {f.attribute for f in facts.values()})
        red = Cutter(vault.root, reader, fp.targets, after, phrases, wipe=wipe, cuts=cuts).run()
        bodies = _bodies(vault.root, after, phrases, {c.key for c in fp.plan.changes})
        out = Forgot(fp.plan, None, dry_run, red.cuts, red.notes, [rel for rel, _ in bodies])
        if dry_run or not (fp.plan.changes or red.ops or bodies):
            return out
        if phrases:  # a fact that keeps some values keeps its body, less the words
            fp.plan.changes = [_unsaid(c, phrases) for c in fp.plan.changes]
        outer = marked(vault.meta) is not None  # a caller that scrubs the caches lifts it
        mark(vault.meta, fp.purge if purge else {})
        ops: list[tuple[str, str | None]] = [*red.ops, *bodies]
        out.entry = vault.apply(fp.plan, command="forget", source=_source(red, phrases, source),
                                extra=lambda _id: ops)  # fmt: skip
        if purge:
            out.purged = vault.journal.purge(fp.purge)
            if phrases:
                out.purged += vault.journal.redact(phrases)
        scrub_model_cache(vault.meta, [*fp.values, *phrases])
        if not outer:  # the search caches drop the words at their next refresh
            unmark(vault.meta)
        return out


def _unsaid(c: Change, phrases: list[str]) -> Change:
    if c.after is None or c.after.status == "deleted" or not c.after.body:
        return c
    return replace(c, after=c.after.evolve(body=redact_text(c.after.body, phrases)))


def _bodies(root: Path, facts: Mapping[str, Fact], phrases: list[str], changed: set[str]) -> list[tuple[str, str | None]]:  # fmt: skip
    """Fact bodies (the person's notes) that hold the phrases, redacted (`forget --text`)."""
    out: list[tuple[str, str | None]] = []
    for key, f in sorted(facts.items()):
        if not phrases or f.status == "deleted" or key in changed:
            continue
        if any(p.casefold() in f.body.casefold() for p in phrases):
            out.append((f"facts/{key}.md", render(f.evolve(body=redact_text(f.body, phrases)))))
    return out


def _source(red: Redaction, phrases: list[str], given: dict[str, Any] | None) -> dict[str, Any]:
    """The journal's record of a forget: which messages lost words (never the words)."""
    source: dict[str, Any] = dict(given or {"kind": "forget-text" if phrases else "forget"})
    if red.cuts:
        source["redacted"] = redacted_places(red.cuts)
    return source


def redacted_places(cuts: list[Cut]) -> list[dict[str, Any]]:
    """[{episode, anchor, spans}] for a journal entry: where words were cut, not what words."""
    where: dict[tuple[str, str], int] = {}
    for c in cuts:
        where[(c.episode, c.anchor)] = where.get((c.episode, c.anchor), 0) + 1
    return [{"episode": e, "anchor": a, "spans": n} for (e, a), n in sorted(where.items())]


def forget_gone(root: Path, rules: Rules, facts: Mapping[str, Fact], gone: Mapping[str, Fact], *,
                now: str) -> tuple[list[Change], Redaction]:  # fmt: skip
    """Fact files a person deleted by hand (`gone`: what each held): what else goes with
    them, as with `forget` (what was derived from them, doubts quoting them), and the cuts of
    the statements that said them. The files themselves stay deleted: no change for them."""
    state = {**facts, **gone}
    fp = plan_forget(state, rules, dict.fromkeys(gone), now=now, source="edit")
    changes = [c for c in fp.plan.changes if c.key not in gone]
    after = dict(facts)
    for c in changes:
        if c.after is not None:
            after[c.key] = c.after
    reader = Reader(rules, {f.attribute for f in state.values()})
    return changes, Cutter(root, reader, fp.targets, after).run()
