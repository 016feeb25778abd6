"""`mdmem sync`: find the files that changed since mdmem last wrote them and apply what they mean.

mdmem remembers the SHA-256 of the bytes it last wrote per file (`vault.manifest`). A file whose
bytes differ was edited by hand (or arrived with a git pull); one missing was deleted; one the
manifest does not know is new. What each means is decided by `edits.plan_edits` (pure); this
module finds them, applies the plan as one journal entry with `source: edit`, and keeps
rules.yaml in force only when it validates.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from mdmem.edit import reload
from mdmem.edit.edits import Action, Edit, EditPlan, describe, keep_layout, plan_edits
from mdmem.engine.decide import Plan
from mdmem.errors import MdmemError, RulesError
from mdmem.files import WriteConflict, current, read_text, sha256
from mdmem.model.factfile import Fact
from mdmem.model.graph import Graph
from mdmem.model.rules import Rules
from mdmem.store import scrub
from mdmem.store.lastgood import good_rules, journal_facts
from mdmem.store.manifest import Manifest
from mdmem.store.snapshot import Snapshot
from mdmem.store.snapshot_entry import Entry, decode
from mdmem.store.vault import PASSAGES_FILE, RULES_FILE, ExtraOps, Problem, Vault
from mdmem.store.walk import EMPTY_PROBLEM, empty_written, stat_sig

if TYPE_CHECKING:  # the forget machinery and the passage index: imported when a sync needs them
    from mdmem.store.redaction import Cut, Redaction

ATTEMPTS = 3  # a file saved again while sync planned is planned again


@dataclass
class SyncResult:
    """What one sync found and did (nothing written when dry_run)."""

    actions: list[Action] = field(default_factory=list)
    plan: Plan = field(default_factory=Plan)
    entry: dict[str, Any] | None = None  # the journal entry written, if any
    problems: list[Problem] = field(default_factory=list)  # left for the person to fix
    rules: str = ""  # what happened to rules.yaml: "" (unchanged) | "reloaded" | "refused"
    rules_note: str = ""
    baseline: int | None = None  # files recorded as they are on a first sync
    dry_run: bool = False
    reindexed: list[str] = field(default_factory=list)  # episodes edited by hand, re-read for search
    cuts: list[Cut] = field(default_factory=list)  # what a fact deleted by hand took from the episodes


def result_lines(result: SyncResult) -> list[str]:
    """One readable line per thing sync did or found: file, what changed, what cascaded."""
    lines = []
    if result.baseline is not None:
        lines.append(f"first sync here: took {result.baseline} files as they are (the baseline)")
    if result.rules:
        lines.append(f"{RULES_FILE}: {result.rules}: {result.rules_note}")
    for a in result.actions:
        where = f"{a.rel}:{a.line}" if a.kind == "broken" and a.line else a.rel
        text = a.message.removeprefix(f"line {a.line}: ") if a.kind == "broken" else a.message
        cascaded = a.cascaded()
        if cascaded:
            text += "; cascaded: " + ", ".join(describe(c) for c in cascaded)
        lines.append(f"{where}: {text}")
    for p in result.problems:
        if p.path == RULES_FILE or not any(a.rel == p.path for a in result.actions):
            lines.append(str(p))
    for rel in result.reindexed:
        lines.append(f"{rel}: re-read into the passage index (edited by hand)")
    return lines


class _Moved(Exception):
    """A file changed again between planning and writing."""


def sync(vault: Vault, *, dry_run: bool = False) -> SyncResult:
    """Apply every hand edit since mdmem last wrote the files; see the module docstring."""
    for _ in range(ATTEMPTS):
        try:
            result = _sync_once(vault, dry_run=dry_run)
        except (_Moved, WriteConflict):  # planned again, with the newer save as an edit
            continue
        if not dry_run:
            _reindex_episodes(vault, result)
            if scrub.marked(vault.meta) is not None:  # a deleted fact's words left the episodes
                from mdmem.edit.forget import scrub_search_caches

                with vault.lock:
                    scrub_search_caches(vault)
                    scrub.unmark(vault.meta)
        return result
    raise MdmemError("fact files kept changing while sync ran; run `mdmem sync` again")


def _sync_once(vault: Vault, *, dry_run: bool) -> SyncResult:
    result = SyncResult(dry_run=dry_run)
    with vault.lock:
        vault.recover()
        vault.manifest = Manifest(vault.manifest.path)  # read it again: other writers change it
        snap = Snapshot.open(vault.meta)
        snap.refresh(
            vault.root, lambda: vault.manifest.data, lambda: journal_facts(vault.journal.entries())
        )
        rules = _rules(vault, result)
        manifest = str(stat_sig(vault.manifest.path))  # written atomically: a new inode each time
        if result.rules != "reloaded" and snap.agrees(manifest):
            return result  # no file and no manifest changed since a sync found nothing to do
        written = vault.manifest.data
        if not vault.manifest.path.exists():  # mdmem wrote nothing here (a clone, a generator)
            result.baseline = _baseline(vault, snap, dry_run)
            written = vault.manifest.data
        edits = find_edits(vault, snap, written)
        if not edits and result.rules != "reloaded":  # the usual case: parse nothing
            if not dry_run:
                if result.baseline is not None:
                    vault.manifest.save()
                snap.save(vault.root, force=True)
                if result.baseline is None:
                    snap.agree(manifest)
            return result
        # All a cascade from these edits can reach: the edited entities' facts and those of
        # every entity a learned dependency touches (one edit reads one person's, not 100,000).
        facts = snap.facts_of_entities({e.key.split("/")[0] for e in edits})
        planned = plan_edits(facts, rules, edits, now=vault.now)
        words = _forget_deleted(vault, rules, facts, edits, planned, result)
        result.actions, result.plan = planned.actions, planned.plan
        result.problems += [Problem(e.rel, e.line, e.problem) for e in edits if e.kind == "broken"]
        result.problems += _new_cycle(rules, facts, edits, planned, result.rules == "reloaded")
        if dry_run:
            return result
        _still(vault, edits)
        for rel, digest in planned.adopt.items():
            if digest is None:
                vault.manifest.data.pop(rel, None)
            else:
                vault.manifest.data[rel] = digest
        if planned.plan.changes:
            files = sorted({e.rel for e in edits if e.kind != "broken"})
            source: dict[str, Any] = {"kind": "edit", "files": files}
            cuts, ops = (words.cuts, words.ops) if words is not None else ([], [])
            if cuts:  # which messages lost words (never the words)
                from mdmem.store.forget_apply import redacted_places

                source["redacted"] = redacted_places(cuts)
            rels = [f"facts/{c.key}.md" for c in planned.plan.changes]
            expect = {rel: e.sha if (e := snap.entries.get(rel)) else None for rel in rels}
            theirs: dict[str, str] = {}  # the person's texts patched: for a save from an old buffer
            layout = _in_their_layout(vault, edits, planned.plan, theirs)
            if ops:
                scrub.mark(vault.meta, {})  # lifted once the caches are scrubbed (`sync`)
            result.entry = vault.apply(planned.plan, command="sync", source=source, expect=expect,
                                       extra=lambda entry_id: [*ops, *layout(entry_id)])  # fmt: skip
            reload.save(vault.meta, theirs, vault.manifest.data, reload.load(vault.meta))
        elif planned.adopt or result.baseline is not None:
            vault.manifest.save()
        snap.settle([e.rel for e in edits if e.kind == "deleted"])
        wrote = sorted({f"facts/{c.key}.md" for c in planned.plan.changes})
        if wrote:
            snap.refresh(vault.root, lambda: vault.manifest.data, only=wrote)
        snap.save(
            vault.root, force=True
        )  # the last good states and mdmem's bytes, for the next edit
    return result


def _forget_deleted(vault: Vault, rules: Rules, facts: dict[str, Fact], edits: list[Edit],
                    planned: EditPlan, result: SyncResult) -> Redaction | None:  # fmt: skip
    """A fact file deleted by hand is forgotten like `mdmem forget`: what was derived from it
    goes, doubts quoting it are asked again, and the statements that said it are cut. None
    when no fact file was deleted (and the forget machinery is not imported)."""
    gone = {e.key: e.base for e in edits
            if e.kind == "deleted" and e.base is not None and e.base.status != "deleted"}  # fmt: skip
    if not gone:
        return None
    from mdmem.store.forget_apply import forget_gone

    changes, words = forget_gone(vault.root, rules, facts, gone, now=vault.now)
    mine = {c.key for c in changes}
    planned.plan.changes = [c for c in planned.plan.changes if c.key not in mine] + changes
    for a in planned.actions:
        key = a.rel[len("facts/") : -len(".md")]
        if key in gone:
            a.changes = [c for c in a.changes if c.key not in mine] + changes
            cut = sum(1 for c in words.cuts if c.why == key)
            if cut:
                a.message += f"; {cut} statement{'s' * (cut != 1)} of it cut from the episodes"
    result.cuts = words.cuts
    return words


def _reindex_episodes(vault: Vault, result: SyncResult) -> None:
    """Bring the passage index up to date with episodes edited or deleted by hand, so search
    never quotes words the person took out (a reader would, only at its next refresh)."""
    if not (vault.root / "episodes").is_dir() and not (vault.meta / PASSAGES_FILE).exists():
        return  # nothing was ever said here: no index to create
    from mdmem.read.passages import PassageIndex

    index = PassageIndex(vault.root, vault.meta)
    try:
        index.refresh()
        # Only hand edits are news: episodes ingest wrote are merely caught up with here, and a
        # first sync (the baseline) takes every file as it is.
        if result.baseline is None:
            result.reindexed = [r for r in index.reread if vault.manifest.edited(vault.root, r)]
        result.problems += [Problem(e.path or "", e.line, e.bare_message) for e in index.problems]
    finally:
        index.close()


def _in_their_layout(vault: Vault, edits: list[Edit], plan: Plan, theirs: dict[str, str]) -> ExtraOps:  # fmt: skip
    """The edited files mdmem must change, patched in the person's own layout (after the
    canonical writes of the same transaction, so these bytes are the ones that land).
    Built when `Vault.apply` asks, once it has set every fact's links: the patch must carry
    them, or the file would not hold what the journal records. The person's texts patched
    are added to `theirs`."""

    def ops(_entry_id: str) -> list[tuple[str, str | None]]:
        final = {c.key: c.after for c in plan.changes}
        out: list[tuple[str, str | None]] = []
        for e in edits:
            after = final.get(e.key)
            saved = e.as_saved
            if saved is not None and after is not None and e.kind in ("changed", "new"):
                text = read_text(vault.root / e.rel)
                if text is not None:
                    out.append((e.rel, keep_layout(text, saved, after)))
                    theirs[e.rel] = text
        return out

    return ops


def find_edits(vault: Vault, snap: Snapshot, written: dict[str, str]) -> list[Edit]:
    """Every fact file whose bytes differ from what mdmem last wrote, in path order."""
    edits: list[Edit] = []
    shas = snap.shas()  # the usual case, nothing differs, reads no entry
    ours = [rel for rel in written if rel.startswith("facts/")]
    differs = [rel for rel, sha in shas.items() if written.get(rel) != sha]
    if not differs and all(r in shas for r in ours):
        return edits
    entries = snap.entries
    differ = [(rel, e) for rel in differs if (e := entries.get(rel)) is not None]
    patched = reload.load(vault.meta) if differ else {}
    deleted = sorted(rel for rel in ours if rel not in snap.entries)
    snap.load_rows(vault.root, [rel for rel, _ in differ] + deleted)  # just these are needed
    for rel, entry in differ:
        mine = written.get(rel)
        key = rel[len("facts/") : -len(".md")]
        at = _day(entry)
        if entry.problem is not None:
            line, problem = entry.problem
            edits.append(Edit(rel, key, "broken", at, line=line, problem=problem, sha=entry.sha))
            continue
        assert entry.good is not None
        now = decode(entry.good[1])
        base = entry.parsed(mine) if mine is not None else None
        kind = "new" if mine is None else "changed"
        stale = reload.merged(patched.get(rel), mine, base, now, rel) if base is not None else None
        if stale is not None:  # an editor's old buffer saved over mdmem's patch of it
            edits.append(Edit(rel, now.key, kind, at, base, stale, entry.sha, seen=now))
            continue
        edits.append(Edit(rel, now.key, kind, at, base, now, entry.sha))
    today = vault.now[:10]
    # The manifest records episodes too (ingest writes them): only fact files are edits here.
    emptied = set(empty_written(vault.root, deleted))
    for rel in sorted(emptied):  # emptied, not deleted: reported, never taken for a forget
        key = rel[len("facts/") : -len(".md")]
        edits.append(Edit(rel, key, "broken", today, problem=EMPTY_PROBLEM, sha=sha256(b"")))
    for rel in (r for r in deleted if r not in emptied):
        gone = snap.gone.get(rel)
        base = gone.parsed(written[rel]) if gone is not None else None
        edits.append(Edit(rel, rel[len("facts/") : -len(".md")], "deleted", today, base))
    if any(_ask_journal(e) for e in edits):
        edits = [_with_journal(e, journal_facts(vault.journal.entries())) for e in edits]
    return sorted(edits, key=lambda e: e.rel)


def _ask_journal(e: Edit) -> bool:
    """Whether the journal must tell what mdmem wrote: the cache lost it, or others may have."""
    if e.kind in ("broken", "deleted"):
        return e.base is None and e.kind == "deleted"
    if e.base is None or e.now is None:
        return True
    b, n = e.base, e.now
    # A plain hand edit touches the value, status or body; mdmem's bookkeeping moved too?
    return (b.recorded_at, b.source, b.valid_from, b.history) != (
        n.recorded_at,
        n.source,
        n.valid_from,
        n.history,
    )


def _with_journal(e: Edit, journaled: dict[str, Fact | None]) -> Edit:
    """Fill in what the journal knows: mdmem's last state, and whether the file is exactly it."""
    if e.kind == "broken" or e.rel not in journaled:
        return e
    last = journaled[e.rel]
    if last is not None and e.now is not None:
        last.body = e.now.body  # the journal keeps no bodies: take the person's as unchanged
    base = e.base if e.base is not None else last
    same = last is not None and e.now is not None and last.to_mapping() == e.now.to_mapping()
    return replace(e, base=base, journaled=same)


def _day(entry: Entry) -> str:
    """The local date a file was saved: when the person made the edit."""
    return datetime.fromtimestamp(entry.sig[0] / 1e9).date().isoformat()


def _baseline(vault: Vault, snap: Snapshot, dry_run: bool) -> int:
    """mdmem wrote nothing here (a fresh clone, files a generator or a person made): take the
    files that parse as they are, without acting on them or rewriting one."""
    good = snap.good_shas()
    if not dry_run:
        vault.manifest.data.update(good)
    return len(good)


def _rules(vault: Vault, result: SyncResult) -> Rules:
    """rules.yaml if it validates (a change applies from now on), else the last good rules."""
    try:
        state = good_rules(vault.root, vault.meta)
    except RulesError as e:  # broken, and never good before: nothing to fall back on
        raise MdmemError(f"{e}; fix it before syncing") from None
    if state.error is not None:
        result.rules = "refused"
        result.rules_note = "keeping the last good rules until it is fixed"
        result.problems.append(Problem(RULES_FILE, state.error.line, state.error.bare_message))
        return state.rules
    if state.previous is None:
        return state.rules
    result.rules = "reloaded"
    result.rules_note = _rules_diff(state.previous, state.rules)
    return state.rules


def _rules_diff(old: Rules, new: Rules) -> str:
    def edges(r: Rules) -> set[str]:
        return {f"{d.when} → {d.then} ({d.action})" for d in r.dependencies}

    added, removed = sorted(edges(new) - edges(old)), sorted(edges(old) - edges(new))
    parts = [f"+{e}" for e in added] + [f"-{e}" for e in removed]
    attrs = len(new.attributes) - len(old.attributes)
    if attrs:
        parts.append(f"{attrs:+d} attributes")
    changes = "; ".join(parts) or "no dependency changed"
    return f"valid; applies from now on ({changes})"


def _new_cycle(
    rules: Rules, facts: dict[str, Fact], edits: list[Edit], planned: EditPlan, reloaded: bool
) -> list[Problem]:
    """A loop closed by a depends_on edited by hand, or by new rules with a learned one."""
    learned = any(
        e.now is not None and e.now.depends_on != (e.base.depends_on if e.base else [])
        for e in edits
    )
    if not (learned or reloaded):
        return []
    state = dict(facts)
    for c in planned.plan.changes:
        if c.after is not None:
            state[c.key] = c.after
    cycle = Graph(rules, state).cycle()
    if not cycle:
        return []
    culprit = next((k for k in cycle if state.get(k) and state[k].depends_on), cycle[0])
    return [
        Problem(
            f"facts/{culprit}.md",
            None,
            f"dependency cycle {' → '.join(cycle)}; remove one 'depends_on' entry",
        )
    ]


def _still(vault: Vault, edits: list[Edit]) -> None:
    """Refuse to write over a save the person made while sync was planning."""
    for e in edits:
        data = current(vault.root / e.rel)
        now = sha256(data) if data is not None else None
        if now != e.sha:
            raise _Moved(e.rel)
