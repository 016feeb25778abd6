"""The `upstream` property: wikilinks to the facts a fact depends on, so Obsidian draws the graph.

A fact's links are a function of the fact alone (its key and its learned `depends_on`) and the
rules: the upstream of its attribute in rules.yaml, for its entity, plus what it learned to
depend on. They link to the path whether or not that fact exists yet, so a fact's bytes never
change because another fact appeared or went (no writes to other files; Obsidian shows a fact
not known yet as an unresolved note). The reverse direction is Obsidian's backlinks pane.

`Vault.apply` sets them on every fact it writes; `mdmem sync` rewrites the files whose links
the rules changed, noticed by a digest of the rules' edges kept under `.mdmem/`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path

from mdmem.engine.cascade import Change
from mdmem.engine.decide import Plan
from mdmem.files import atomic_write, read_text
from mdmem.model.factfile import Fact
from mdmem.model.graph import learned_dependencies
from mdmem.model.rules import Rules

LINKS_FILE = "links.digest"  # under .mdmem/: the rules' edges the files were last linked for
DECISION = "LINKS"  # a journal change that only refreshed the links


def upstream(fact: Fact, rules: Rules) -> list[str]:
    """The wikilinks of the facts this fact depends on, sorted; none for a deleted fact."""
    if fact.status == "deleted":
        return []
    keys = {f"{fact.entity}/{d.when}" for d in rules.edges_into(fact.attribute)}
    keys.update(trigger for trigger, _ in learned_dependencies(fact))
    keys.discard(fact.key)
    return [f"[[facts/{k}]]" for k in sorted(keys)]


def linked(plan: Plan, rules: Rules) -> dict[str, Fact | None]:
    """Each fact the plan writes, last state wins, with its links set (in the plan too, so the
    journal records the bytes that land)."""
    final: dict[str, Fact | None] = {}
    for change in plan.changes:
        if change.after is not None:
            change.after.upstream = upstream(change.after, rules)
        final[change.key] = change.after
    return final


def relink(facts: Mapping[str, Fact], rules: Rules, skip: set[str]) -> list[Change]:
    """A LINKS change for every fact (not in skip) whose links differ from what rules give."""
    out = []
    for key in sorted(set(facts) - skip):
        fact = facts[key]
        want = upstream(fact, rules)
        if fact.upstream != want:
            out.append(Change(key, DECISION, fact, fact.evolve(upstream=want)))
    return out


def digest(rules: Rules) -> str:
    """What of the rules the links depend on: the (when, then) edges."""
    edges = sorted({f"{d.when}\t{d.then}" for d in rules.dependencies})
    return hashlib.sha256("\n".join(edges).encode()).hexdigest()[:16]


def stale(meta: Path, rules: Rules) -> bool:
    """Whether the files were last linked for other rules (or never: a vault made before links)."""
    return (read_text(meta / LINKS_FILE) or "").strip() != digest(rules)


def record(meta: Path, rules: Rules) -> None:
    """Remember that every fact file is linked for these rules."""
    atomic_write(meta / LINKS_FILE, digest(rules) + "\n")
