"""Checks on composed YAML before it is constructed: duplicate keys, anchors and aliases, and
how far aliases expand (a few hundred bytes of `&a [*b, *b, …]` can stand for a billion nodes)."""

from __future__ import annotations

from typing import Any

import yaml

from mdmem.errors import RulesError

Node = yaml.Node
# The packs share lists through anchors (`values: &cities`, `*cities`); what aliases add beyond
# the nodes written is bounded, so a few hundred bytes cannot stand for a billion nodes.
MAX_ALIAS_NODES = 100_000
RECURSIVE = 1 << 62  # what `expansion` says of an alias that contains itself


def _children(node: Node) -> list[Node]:
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def duplicate_key(root: Node | None) -> tuple[int, str] | None:
    """The line and text of the first key written twice in one mapping, or None."""
    if root is None:
        return None
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            keys: set[str] = set()
            for key, _ in node.value:
                if not isinstance(key, yaml.ScalarNode) or key.tag == "tag:yaml.org,2002:merge":
                    continue
                if key.value in keys:
                    return key.start_mark.line + 1, key.value
                keys.add(key.value)
        stack.extend(_children(node))
    return None


def first_anchor(text: str, loader: Any) -> int | None:
    """The line of the first anchor (&name) or alias (*name) in text, or None.
    Cheap for the usual text: only one that holds '&' or '*' is parsed for events."""
    if "&" not in text and "*" not in text:
        return None
    try:
        for event in yaml.parse(text, Loader=loader):
            if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
                mark = event.start_mark
                return int(mark.line) + 1 if mark is not None else 1
    except yaml.YAMLError:
        return None  # the loader reports the syntax error with its line
    return None


def expansion(root: Node | None) -> tuple[int, int | None]:
    """How many nodes aliases add beyond those written, and the line of the anchor whose
    repetition adds the most. Counted over the node graph, so a bomb costs nothing to measure."""
    if root is None:
        return 0, None
    size: dict[int, int] = {}
    refs: dict[int, int] = {}
    nodes: dict[int, Node] = {}
    order: list[Node] = []
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:  # post-order without recursion: a deep document must not overflow the stack
        node, done = stack.pop()
        key = id(node)
        if done:
            sizes = [size.get(id(c)) for c in _children(node)]
            if None in sizes:  # an alias to a node still being read: a loop, endless
                return RECURSIVE, node.start_mark.line + 1
            size[key] = 1 + sum(s for s in sizes if s is not None)
            order.append(node)
            continue
        refs[key] = refs.get(key, 0) + 1
        if key in nodes:
            continue
        nodes[key] = node
        stack.append((node, True))
        stack.extend((c, False) for c in _children(node))
    extra = size[id(root)] - len(nodes)
    worst = max(order, key=lambda n: (refs[id(n)] - 1) * size[id(n)])
    line = worst.start_mark.line + 1 if refs[id(worst)] > 1 else None
    return extra, line


def check_rules_nodes(node: yaml.Node | None, path: str) -> None:
    """Refuse a key written twice, and aliases that expand past MAX_ALIAS_NODES."""
    twice = duplicate_key(node)
    if twice is not None:
        raise RulesError(
            f"key {twice[1]!r} is written twice here; keep one", path=path, line=twice[0]
        )
    extra, line = expansion(node)
    if extra > MAX_ALIAS_NODES:
        raise RulesError(
            f"the alias of this anchor is repeated until it stands for more than"
            f" {MAX_ALIAS_NODES:,} nodes; write the lists out or share fewer of them",
            path=path,
            line=line,
        )
