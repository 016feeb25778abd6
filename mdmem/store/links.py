"""The `upstream` property: wikilinks to the facts a fact depends on, so Obsidian draws the graph.

A fact's links are a function of the fact alone (its key and its learned `depends_on`) and the
rules: the upstream of its attribute in rules.yaml, for its entity, plus what it learned to
depend on. They link to the path whether or not that fact exists yet, so a fact's bytes never
change because another fact appeared or went (no writes to other files; Obsidian shows a fact
not known yet as an unresolved note). The reverse direction is Obsidian's backlinks pane.

`Vault.apply` sets them on every fact it writes, and only then: links are derived, so a file
is never rewritten for them alone (a rules change, a vault written before links existed, files
another program wrote). A file gets its new links the next time mdmem writes it for another
reason; until then Obsidian draws the links it has.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mdmem.model.factfile import Fact
from mdmem.model.rules import Rules, learned_dependencies

if TYPE_CHECKING:  # the planner: for writes, not a read's start-up
    from mdmem.engine.decide import Plan

# A journal change that only refreshed the links: earlier versions relinked files after a rules
# change, and their journals hold such changes (`mdmem log` still shows them).
DECISION = "LINKS"


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
