"""Cycles in a directed graph of fact keys or attribute names (rules validation, the vault graph)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable


def find_cycle(edges: Iterable[tuple[str, str]]) -> list[str] | None:
    """A cycle as [a, b, …, a] if the directed graph has one, else None (deterministic)."""
    succ: dict[str, list[str]] = defaultdict(list)
    for a, b in edges:
        succ[a].append(b)
    state: dict[str, int] = {}  # 1 on the stack, 2 done
    for start in sorted(succ):
        if start in state:
            continue
        stack = [(start, iter(sorted(succ[start])))]
        path = [start]
        state[start] = 1
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                stack.pop()
                path.pop()
                state[node] = 2
            elif state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            elif nxt not in state:
                state[nxt] = 1
                path.append(nxt)
                stack.append((nxt, iter(sorted(succ[nxt]))))
    return None
