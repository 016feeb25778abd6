"""The dependency graph of a vault: rules' edges for every entity plus edges learned in facts."""

from __future__ import annotations

import heapq
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from mdmem.model.dag import find_cycle
from mdmem.model.factfile import Fact
from mdmem.model.rules import Dependency, Rules, learned_dependencies


@dataclass(frozen=True)
class Edge:
    trigger: str  # fact key, 'user/home_city'
    dependent: str  # fact key, 'user/employer'
    dep: Dependency


class Graph:
    """Edges between existing facts; one edge per (trigger, dependent), the most specific."""

    def __init__(self, rules: Rules, facts: Mapping[str, Fact]) -> None:
        self.rules = rules
        self.facts = facts
        chosen: dict[tuple[str, str], Dependency] = {}

        def offer(trigger: str, dependent: str, dep: Dependency) -> None:
            old = chosen.get((trigger, dependent))
            # A learned edge speaks for this very fact; one that names a value beats one that doesn't.
            if old is None or (dep.specific, dep.learned) > (old.specific, old.learned):
                chosen[(trigger, dependent)] = dep

        for key in sorted(facts):
            fact = facts[key]
            for d in rules.edges_into(fact.attribute):
                offer(f"{fact.entity}/{d.when}", key, d)
            for trigger, d in learned_dependencies(fact):
                offer(trigger, key, d)
        self._succ: dict[str, list[Edge]] = defaultdict(list)
        self._pred: dict[str, list[Edge]] = defaultdict(list)
        for (trigger, dependent), d in sorted(chosen.items()):
            edge = Edge(trigger, dependent, d)
            self._succ[trigger].append(edge)
            self._pred[dependent].append(edge)

    def dependents(self, key: str) -> list[Edge]:
        return self._succ.get(key, [])

    def edges(self) -> list[Edge]:
        return [e for k in sorted(self._succ) for e in self._succ[k]]

    def cycle(self) -> list[str] | None:
        return find_cycle((e.trigger, e.dependent) for e in self.edges())

    def downstream_order(self, starts: Iterable[str]) -> list[str]:
        """Every fact reachable from starts (excluded), in topological order, ties by name."""
        reach: set[str] = set()
        todo = list(starts)
        while todo:
            for e in self.dependents(todo.pop()):
                if e.dependent not in reach:
                    reach.add(e.dependent)
                    todo.append(e.dependent)
        indeg = {k: 0 for k in reach}
        for k in list(reach) + list(starts):
            for e in self.dependents(k):
                if e.dependent in reach and k in reach:
                    indeg[e.dependent] += 1
        heap = [k for k, n in indeg.items() if n == 0]
        heapq.heapify(heap)
        order = []
        while heap:
            k = heapq.heappop(heap)
            order.append(k)
            for e in self.dependents(k):
                if e.dependent in indeg:
                    indeg[e.dependent] -= 1
                    if indeg[e.dependent] == 0:
                        heapq.heappush(heap, e.dependent)
        return order

    def parents(self, key: str) -> list[Edge]:
        return self._pred.get(key, [])
