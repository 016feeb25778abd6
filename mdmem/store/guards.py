"""Refusals a write checks before it starts: broken files, long values, dependency cycles.
(Links out of the vault are refused where each path is opened: `mdmem.boundary`.)"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from mdmem.engine.statement import Statement
from mdmem.errors import RefusedError
from mdmem.model.factfile import Fact
from mdmem.model.limits import MAX_HISTORY, fact_text_problem, value_problem
from mdmem.model.rules import Rules
from mdmem.store.snapshot import Snapshot
from mdmem.store.txn import TXN_FILE, pending

if TYPE_CHECKING:  # the planner: for writes, not a read's start-up
    from mdmem.engine.decide import Plan


@dataclass(frozen=True)
class Problem:
    path: str
    line: int | None
    message: str
    level: str = "error"  # or "warning": told, but not a reason for `check` to fail

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {'warning: ' if self.level == 'warning' else ''}{self.message}"


def refuse_broken(plan: Plan, problems: Iterable[Problem]) -> None:
    """Refuse a plan that would change a fact file that does not parse: a person must fix it."""
    broken = {p.path: p for p in problems}
    for change in plan.changes:
        rel = f"facts/{change.key}.md"
        if rel in broken:
            raise RefusedError(
                f"{broken[rel]}\n{rel} must be fixed by hand before mdmem can change it"
                " (run `mdmem check`)"
            )


def refuse_cycle(rules: Rules, facts: dict[str, Fact], plan: Plan) -> None:
    """A learned dependency must not close a loop in the graph."""
    from mdmem.model.graph import Graph  # a write's check: a read builds no graph

    state = dict(facts)
    for change in plan.changes:
        if change.after is not None:
            state[change.key] = change.after
    cycle = Graph(rules, state).cycle()
    if cycle and not Graph(rules, facts).cycle():
        raise RefusedError(f"this would make a dependency cycle {' → '.join(cycle)}; not applied")


def refuse_long(st: Statement) -> None:
    """Refuse a value over MAX_VALUE characters, before any work is done on it (a value is a
    short thing: a city, a date, a name; long text belongs in the file's body)."""
    if (too := value_problem(st.value)) is not None:
        raise RefusedError(f"the value for {st.key} {too} of facts/{st.key}.md")


def refuse_too_large(facts: dict[str, Fact | None], texts: Iterable[tuple[str, str | None]]) -> None:
    """Refuse to write a fact file mdmem could not read back: past a limit of `model.limits`."""
    for key, fact in facts.items():
        if fact is not None and len(fact.history) > MAX_HISTORY:
            raise RefusedError(
                f"facts/{key}.md would keep {len(fact.history):,} history entries; a fact keeps at"
                f" most {MAX_HISTORY:,}: remove the oldest by hand (the journal keeps them:"
                " `mdmem log`), then run this again"
            )
    for rel, text in texts:
        if text is not None and (too := fact_text_problem(text)) is not None:
            raise RefusedError(f"{rel} would be written past a limit: it {too[1]}")


def unfinished_problems(meta: Path, recovered: list[str]) -> list[Problem]:
    """`check`'s word on transactions: those it just finished or rolled back, and one left."""
    out = [
        Problem(f".mdmem/{TXN_FILE}", None, f"found an unfinished change: {n}") for n in recovered
    ]
    left = pending(meta)
    if left is not None:
        out.append(Problem(
            f".mdmem/{TXN_FILE}", None,
            f"change {left.get('id')} ({left.get('command')}) is unfinished: another mdmem is"
            " still writing, or it crashed and this process may not write here; run"
            " `mdmem sync` with write access to finish or roll it back",
        ))  # fmt: skip
    return out


def shas_of(snap: Snapshot, rels: list[str]) -> dict[str, str | None]:
    """The SHA-256 the snapshot holds for each file (None: no such file when it looked)."""
    out: dict[str, str | None] = {}
    for rel in rels:
        e = snap.entries.get(rel)
        out[rel] = e.sha if e is not None else None
    return out
