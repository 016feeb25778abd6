"""The package's rooms: imports go only downward, no cycles, no module too long to read."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "mdmem"

# Lowest first. A module may import from its own layer and the layers below it, never above.
LAYERS = [
    {"errors", "files", "llm", "temps", "boundary", "lazy_regex", "regex_cache"},
    {"lang"},
    {"model"},
    {"engine"},
    {"extract"},
    {"store"},
    {"read"},
    {"edit"},
    {"batch"},
    {"eval"},
    {"server"},
    {"commands"},
    {"cli", "__init__", "__main__"},
]
MAX_LINES = 400


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).with_suffix("")
        parts = [p for p in rel.parts if p != "__init__"] or ["__init__"]
        out[".".join(parts)] = path
    return out


def _imports(path: Path, name: str) -> set[str]:
    """Every mdmem module this file imports, at the top or inside a function."""
    found = set()
    modules = _modules()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.level:
                raise AssertionError(f"{path}: relative import; use `from mdmem.… import`")
            if node.module == "mdmem" or node.module.startswith("mdmem."):
                base = node.module.removeprefix("mdmem").lstrip(".")
                for alias in node.names:
                    sub = f"{base}.{alias.name}" if base else alias.name
                    found.add(sub if sub in modules else base)
        elif isinstance(node, ast.Import):
            found |= {a.name.removeprefix("mdmem.") for a in node.names if a.name.startswith("mdmem.")}
    return {m for m in found if m in modules and m != name}


def _layer(module: str) -> int:
    top = module.split(".")[0]
    return next(i for i, names in enumerate(LAYERS) if top in names)


GRAPH = {name: _imports(path, name) for name, path in _modules().items()}


@pytest.mark.parametrize("module", sorted(GRAPH))
def test_imports_only_go_down(module: str) -> None:
    up = sorted(m for m in GRAPH[module] if _layer(m) > _layer(module))
    assert not up, f"mdmem.{module} imports from a higher layer: {up}"


def test_no_import_cycles() -> None:
    state: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(GRAPH[node]):
            if state.get(nxt) == 1:
                cycle = path[path.index(nxt) :] + [nxt]
                raise AssertionError("import cycle: " + " → ".join(cycle))
            if nxt not in state:
                visit(nxt, [*path, nxt])
        state[node] = 2

    for start in sorted(GRAPH):
        if start not in state:
            visit(start, [start])


def test_library_never_imports_the_cli_renderer() -> None:
    for module, deps in GRAPH.items():
        if _layer(module) < _layer("commands"):
            assert not any(d.startswith("commands") for d in deps), module


@pytest.mark.parametrize("module", sorted(GRAPH))
def test_modules_stay_small(module: str) -> None:
    lines = len(_modules()[module].read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"mdmem.{module} has {lines} lines; split it by what it holds"
