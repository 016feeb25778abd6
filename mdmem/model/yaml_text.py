"""The YAML mdmem reads and writes: a tolerant loader (every plain scalar but null stays text)
and a strict, stable dumper (insertion order, UTF-8, no folding, no anchors)."""

from __future__ import annotations

import re
from typing import Any

import yaml

from mdmem.errors import FactFileError
from mdmem.model.limits import MAX_DEPTH
from mdmem.model.yaml_nodes import duplicate_key, first_anchor

SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when present: ~10x faster


class Loader(SafeLoader):  # type: ignore[misc,valid-type]
    """Safe YAML where every plain scalar but null stays text: `value: 20` and
    `valid_from: 2026-02-10` typed by hand are the strings a person meant."""


Loader.yaml_implicit_resolvers = {
    ch: [(tag, rx) for tag, rx in resolvers if tag == "tag:yaml.org,2002:null"]
    for ch, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def _as_written(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> str:
    return str(node.value)


def _set_as_mapping(loader: yaml.SafeLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    return {loader.construct_object(k): None for k, _ in node.value}


def _pairs_as_list(loader: yaml.SafeLoader, node: yaml.SequenceNode) -> list[Any]:
    return [loader.construct_object(item, deep=True) for item in node.value]


# A tag typed by hand (`seen: !!timestamp 2026-01-01`, `!!binary …`) would make a date or bytes
# that JSON (the journal, the caches) cannot hold: keep the text as the person wrote it.
for _tag in ("timestamp", "binary", "int", "float", "bool"):
    Loader.add_constructor(f"tag:yaml.org,2002:{_tag}", _as_written)
Loader.add_constructor("tag:yaml.org,2002:set", _set_as_mapping)
for _tag in ("omap", "pairs"):
    Loader.add_constructor(f"tag:yaml.org,2002:{_tag}", _pairs_as_list)


class _Dumper(yaml.SafeDumper):
    def ignore_aliases(self, data: Any) -> bool:  # never write &id001 anchors
        return True


def _str_representer(dumper: yaml.SafeDumper, data: str) -> yaml.ScalarNode:
    if any(c in data for c in "\x85\u2028\u2029"):
        style: str | None = '"'  # YAML reads these as line breaks unless escaped
    else:
        style = (
            "|" if "\n" in data else None
        )  # the emitter falls back to quotes when | can't hold it
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


_Dumper.add_representer(str, _str_representer)


def dump_yaml(data: Any) -> str:
    """Canonical YAML: insertion order, UTF-8 text, no folding, no anchors."""
    return yaml.dump(
        data, Dumper=_Dumper, sort_keys=False, allow_unicode=True,
        default_flow_style=False, width=1 << 30,
    )  # fmt: skip


def load_yaml(text: str) -> Any:
    """Load YAML with the tolerant loader used for fact files."""
    return yaml.load(text, Loader=Loader)  # noqa: S506 - a SafeLoader subclass


_QUOTED_START = re.compile(r"""^\s*(?:-\s+)?[^\s#:'"][^:]*:\s+(['"])""")


def error_at(e: yaml.YAMLError, text: str, first_line: int = 1) -> tuple[int | None, str]:
    """Where a YAML error is, as a line of the file (`first_line`: the file line of the text's
    first), and what went wrong.

    The line is the one YAML stopped on, except for a bracket or quote left open, whose
    opening line is the one to fix. A mapping the parser could not go on with usually
    follows a quote closed lines later by another value's quote: that opening is named."""
    context_mark = getattr(e, "context_mark", None)
    problem_mark = getattr(e, "problem_mark", None)
    context = getattr(e, "context", None) or ""
    problem = getattr(e, "problem", None) or str(e)
    opened = "flow" in context or "quoted scalar" in context
    mark = context_mark if opened and context_mark is not None else problem_mark or context_mark
    line = mark.line + first_line if mark is not None else None
    what = f"{problem} {context}".strip()
    if not opened and line is not None:
        lines = text.split("\n")
        for n in range(min(line - first_line, len(lines) - 1), -1, -1):
            m = _QUOTED_START.match(lines[n])
            quote = m.group(1) if m else None
            if quote and lines[n].rstrip().count(quote) % 2 == 1:
                what += f"; the quote opened on line {n + first_line} is not closed"
                break
    return line, what


def load_frontmatter(fm: str, path: str) -> tuple[Any, yaml.Node | None]:
    """A fact file's frontmatter text as data, with its root node (for the keys' lines);
    FactFileError naming the line for an anchor, a key written twice, too deep a nesting or
    invalid YAML."""
    anchor = first_anchor(fm, SafeLoader)
    if anchor is not None:  # an alias can stand for a billion nodes: none in a fact file
        raise FactFileError(
            "YAML anchors and aliases (&name, *name) are not allowed in a fact file;"
            " write the value out (quote it if it starts with & or *)",
            path=path,
            line=anchor,
        )
    try:
        loader = Loader(fm)
        try:
            node = loader.get_single_node()
            twice = duplicate_key(node)
            if twice is not None:
                raise FactFileError(
                    f"field {twice[1]!r} is written twice; keep one", path=path, line=twice[0]
                )
            data = loader.construct_document(node) if node is not None else None
        finally:
            loader.dispose()
    except RecursionError:  # nested past what the scan above looks for (flow over many lines)
        raise FactFileError(f"nests too deeply to read; a fact file nests at most {MAX_DEPTH}: flatten it", path=path) from None  # fmt: skip
    except yaml.YAMLError as e:
        line, problem = error_at(e, fm)  # fm starts with the newline after the first ---
        raise FactFileError(
            f"invalid YAML ({problem}); fix the syntax or quote the value", path=path, line=line
        ) from None
    return data, node
