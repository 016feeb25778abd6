"""Golden vault trees: transcripts in tests/data/golden/<case>/transcripts → expected/ byte for byte.

Regenerate after an intended change with `MDMEM_UPDATE_GOLDEN=1 .venv/bin/pytest tests/edit/test_golden.py`
and review the diff of tests/data/golden/ like any other code change.
"""

from __future__ import annotations

import difflib
import os
import shutil
from pathlib import Path

import pytest
import yaml

from mdmem.edit.ingest import ingest_paths
from tests.conftest import make_vault

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden"
CASES = sorted(p for p in GOLDEN.iterdir() if (p / "case.yaml").is_file())


def tree(root: Path) -> dict[str, bytes]:
    """Every file under root, by posix path relative to root."""
    if not root.is_dir():
        return {}
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def _diff(expected: dict[str, bytes], actual: dict[str, bytes]) -> str:
    out = []
    for name in sorted(set(expected) | set(actual)):
        a = expected.get(name, b"").decode("utf-8", "replace").splitlines(keepends=True)
        b = actual.get(name, b"").decode("utf-8", "replace").splitlines(keepends=True)
        out += difflib.unified_diff(a, b, f"expected/{name}", f"actual/{name}")
    return "".join(out)


def _ingest(case: Path, tmp_path: Path, upto: str | None = None) -> Path:
    spec = yaml.safe_load((case / "case.yaml").read_text(encoding="utf-8"))
    vault = make_vault(tmp_path / "vault", spec["rules"])
    dest = vault.root / "transcripts"
    shutil.copytree(case / "transcripts", dest)
    if upto is not None:
        for p in dest.iterdir():
            if p.name > upto:
                p.unlink()
    results = ingest_paths(vault, [dest])
    assert [e for r in results for e in r.errors] == []
    return vault.root


@pytest.mark.parametrize("layer", ["facts", "episodes"])
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_golden_vault_tree(case: Path, layer: str, tmp_path: Path) -> None:
    root = _ingest(case, tmp_path)
    actual = tree(root / layer)
    expected_dir = case / "expected" / layer
    if os.environ.get("MDMEM_UPDATE_GOLDEN"):
        shutil.rmtree(expected_dir, ignore_errors=True)
        shutil.copytree(root / layer, expected_dir)
    expected = tree(expected_dir)
    assert expected, f"no golden tree for {case.name}; run with MDMEM_UPDATE_GOLDEN=1"
    assert actual == expected, _diff(expected, actual)


def test_hedged_transcript_changes_nothing(tmp_path: Path) -> None:
    case = GOLDEN / "hedged"
    before = tree(_ingest(case, tmp_path / "a", upto="01-plain.md") / "facts")
    after = tree(_ingest(case, tmp_path / "b") / "facts")
    assert before and after == before


def test_golden_ingest_is_idempotent(tmp_path: Path) -> None:
    root = _ingest(GOLDEN / "software_team", tmp_path)
    first = tree(root / "facts")
    from mdmem import Vault

    again = ingest_paths(Vault(root), [root / "transcripts"])
    assert all(r.skipped for r in again)
    assert tree(root / "facts") == first
