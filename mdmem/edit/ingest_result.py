"""What ingesting one source did, and the one-line summary of several."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from mdmem.engine import describe
from mdmem.engine.cascade import Change
from mdmem.engine.decide import Plan
from mdmem.engine.describe import change_json


@dataclass(frozen=True)
class Row:
    """One fact a source changed, in its final state: what the table shows, the summary counts
    and the commit message lists. A fact stated and then cascaded into in one batch is one row."""

    decision: str  # ADD for a fact new to the vault, whatever the batch did to it after
    key: str
    change: str  # 'Guangzhou → Shanghai', 'Haizhu (uncertain)', 'forgotten'
    causes: list[str]  # the facts whose change cascaded here, after it was last stated
    said_at: list[str]  # the messages it was stated in ('L3'), when it was stated
    status: str  # its status after the batch ('deleted' when it is gone)

    @property
    def cascaded(self) -> bool:
        return bool(self.causes)


@dataclass
class IngestResult:
    """What ingesting one source did (or, on a dry run, would do)."""

    source: str
    sha256: str | None = None
    plan: Plan = field(default_factory=Plan)
    entry: dict[str, Any] | None = None
    skipped: bool = False  # already ingested: nothing was done
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # the notes a person must see (unread text)
    messages: int = 0
    dry_run: bool = False
    previous: dict[str, Any] | None = None  # the journal entry that ingested it before
    commit: str | None = None  # the git commit holding it (--commit)
    episodes: list[str] = field(default_factory=list)  # episode files written (or, dry, to write)
    forgot: Any = None  # store.forget_apply.Forgot: what a request in it had forgotten first
    asked: Plan | None = None  # what its requests to forget decided (their own journal entry)
    title: str | None = None  # an export's conversation: its title
    file: str | None = None  # … and the export it is a conversation of

    @property
    def failed(self) -> bool:
        return bool(self.errors) and not self.plan.decisions and not self.skipped

    def counts(self) -> Counter[str]:
        """Decisions and cascade outcomes: ADD, UPDATE, NOOP, …, DERIVE, UNCERTAIN, EXPIRE."""
        c: Counter[str] = Counter(d for _, d in self.plan.decisions)
        c.update(ch.decision for ch in self.plan.changes if ch.cause)
        return c

    def cascaded(self) -> Counter[str]:
        """The facts a cascade left changed, one each by its last change (`counts` has every
        change: a fact doubted twice in a batch counts twice there)."""
        final = {ch.key: ch for ch in self.plan.changes}
        return Counter(ch.decision for ch in final.values() if ch.cause)

    def rows(self) -> list[Row]:
        """One row per fact changed, in the order first changed."""
        said: dict[str, list[str]] = {}
        for st, decision in self.plan.decisions:
            where = st.source.rpartition("#")[2] if "#" in st.source else ""
            lines = said.setdefault(st.key, [])
            if decision != "NOOP" and where and where not in lines:
                lines.append(where)
        by_key: dict[str, list[Change]] = {}
        for c in self.plan.changes:
            by_key.setdefault(c.key, []).append(c)
        out = []
        for key, changes in by_key.items():
            last = changes[-1]
            # A cause counts only after the fact was last stated: a statement overrides its doubt.
            direct = max((n for n, c in enumerate(changes) if c.cause is None), default=-1)
            causes = list(dict.fromkeys(c.cause for c in changes[direct + 1 :] if c.cause))
            decision = "ADD" if changes[0].before is None and last.after is not None else last.decision
            status = last.after.status if last.after else "deleted"
            out.append(Row(decision, key, _change_text(changes), causes,
                           said.get(key, []) if direct >= 0 else [], status))  # fmt: skip
        return out

    def compact_json(self) -> dict[str, Any]:
        return compact(self)

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.source, "title": self.title, "sha256": self.sha256, "skipped": self.skipped,
            "dry_run": self.dry_run, "journal_id": self.entry["id"] if self.entry else None,
            "previous_id": self.previous.get("id") if self.previous else None,
            "messages": self.messages, "counts": dict(sorted(self.counts().items())),
            "decisions": [{"fact": st.key, "decision": d, "source": st.source} for st, d in self.plan.decisions],
            "changes": [change_json(c) for c in self.plan.changes],
            "errors": self.errors, "warnings": self.warnings, "notes": self.notes, "commit": self.commit,
            "episodes": self.episodes,
        }  # fmt: skip


def compact(r: IngestResult) -> dict[str, Any]:
    """What an agent needs back from `remember`: the statements and their decisions, each fact
    changed as one line, and the journal id `undo` takes; not every cascade step's full
    before and after (`to_json` has those)."""
    out: dict[str, Any] = {
        "journal_id": r.entry["id"] if r.entry else None, "skipped": r.skipped,
        "previous_id": r.previous.get("id") if r.previous else None, "messages": r.messages,
        "decisions": [{"fact": st.key, "decision": d, "source": st.source} for st, d in r.plan.decisions],
        "changes": [{"fact": row.key, "decision": row.decision, "change": row.change,
                     **({"because": row.causes} if row.causes else {})} for row in r.rows()],
        "counts": dict(sorted(r.counts().items())),
    }  # fmt: skip
    for key in ("errors", "warnings"):
        if getattr(r, key):
            out[key] = getattr(r, key)
    if r.dry_run:
        out["dry_run"] = True
    return out


def _change_text(changes: list[Change]) -> str:
    """From the fact before the batch to the fact after it."""
    first, last = changes[0], changes[-1]
    if last.decision == "DELETE":
        return "forgotten"
    if all(c.decision == "BACKFILL" for c in changes):
        added = [t for c in changes if (t := describe.backfilled(c))]
        if added:  # the earlier values it added, not the unchanged current one
            return "; ".join(added)
    before, after = describe.show_value(first.before), describe.show_value(last.after)
    if first.before is None or before == after:
        status = last.after.status if last.after else ""
        return after + (f" ({status})" if status and status != "active" else "")
    return f"{before} → {after}"


def summary(results: list[IngestResult]) -> str:
    """'3 sources (1 skipped, 1 failed): ADD 4, UPDATE 1, NOOP 2; cascades: DERIVE 1, UNCERTAIN 2'.

    The counts are the tables' rows: each fact changed once, by its final decision, under
    "cascades" when a cascade changed it last; NOOP counts statements already known."""
    c: Counter[str] = Counter()
    cascades: Counter[str] = Counter()
    for r in results:
        for row in r.rows():
            (cascades if row.cascaded else c)[row.decision] += 1
        c["NOOP"] += sum(d == "NOOP" for _, d in r.plan.decisions)
    skipped = sum(r.skipped for r in results)
    failed = sum(bool(r.errors) for r in results)
    head = f"{len(results)} source{'s' * (len(results) != 1)}"
    extra = ", ".join(x for x in (f"{skipped} skipped" * bool(skipped), f"{failed} with errors" * bool(failed)) if x)  # fmt: skip
    order = ["ADD", "UPDATE", "CONFIRM", "BACKFILL", "EXPIRE", "DELETE", "NOOP"]
    parts = ", ".join(f"{k} {c[k]}" for k in order if c[k]) or (
        "nothing new" if results and skipped == len(results) else "no statements"
    )
    casc = ", ".join(f"{k} {v}" for k, v in sorted(cascades.items()))
    return f"{head}{f' ({extra})' if extra else ''}: {parts}{f'; cascades: {casc}' if casc else ''}"
