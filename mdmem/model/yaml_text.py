"""The YAML mdmem reads and writes: a tolerant loader (every plain scalar but null stays text)
and a strict, stable dumper (insertion order, UTF-8, no folding, no anchors)."""

from __future__ import annotations

from typing import Any

import yaml

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
