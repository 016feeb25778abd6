"""What ingesting one source did, and the one-line summary of several."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from mdmem.engine.decide import Plan
from mdmem.engine.describe import change_json


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

    @property
    def failed(self) -> bool:
        return bool(self.errors) and not self.plan.decisions and not self.skipped

    def counts(self) -> Counter[str]:
        """Decisions and cascade outcomes: ADD, UPDATE, NOOP, …, DERIVE, UNCERTAIN, EXPIRE."""
        c: Counter[str] = Counter(d for _, d in self.plan.decisions)
        c.update(ch.decision for ch in self.plan.changes if ch.cause)
        return c

    def cascaded(self) -> Counter[str]:
        """The facts a cascade left changed, one each by its last change, as the table shows
        them (`counts` has every change: a fact doubted twice in a batch counts twice there)."""
        final = {ch.key: ch for ch in self.plan.changes}
        return Counter(ch.decision for ch in final.values() if ch.cause)

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.source, "sha256": self.sha256, "skipped": self.skipped,
            "dry_run": self.dry_run, "journal_id": self.entry["id"] if self.entry else None,
            "previous_id": self.previous.get("id") if self.previous else None,
            "messages": self.messages, "counts": dict(sorted(self.counts().items())),
            "decisions": [{"fact": st.key, "decision": d, "source": st.source} for st, d in self.plan.decisions],
            "changes": [change_json(c) for c in self.plan.changes],
            "errors": self.errors, "warnings": self.warnings, "notes": self.notes, "commit": self.commit,
            "episodes": self.episodes,
        }  # fmt: skip


def summary(results: list[IngestResult]) -> str:
    """'3 sources (1 skipped, 1 failed): ADD 4, UPDATE 1, NOOP 2; cascades: DERIVE 1, UNCERTAIN 2'."""
    c: Counter[str] = Counter()
    cascades: Counter[str] = Counter()
    for r in results:
        c.update(d for _, d in r.plan.decisions)
        cascades.update(r.cascaded())
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
