"""Shared fixtures: every test works in its own tmp vault, with the clock pinned."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from mdmem import Vault

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
STORY_RULES = DATA / "story_rules.yaml"
LOCOMO = ROOT.parent / "shared" / "corpora" / "locomo" / "locomo10.json"
# The only LoCoMo conversations tests read; the corpus's others are kept for independent checks.
LOCOMO_DEV = ("conv-30", "conv-41", "conv-42", "conv-43", "conv-48", "conv-49", "conv-50")
# The person before the move, as (attribute, value) statements for the story rules.
STORY = [
    ("home_city", "广州"),
    ("employer", "岭南科技"),
    ("social_insurance_city", "广州"),
    ("home_address", "海珠区"),
    ("commute_mode", "骑车"),
    ("commute_minutes", "20"),
    ("birthday", "03-14"),
]


@pytest.fixture(autouse=True)
def _isolate(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No test sees the developer's vault or clock."""
    monkeypatch.delenv("MDMEM_VAULT", raising=False)
    monkeypatch.setenv("MDMEM_NOW", "2026-03-01T12:00:00Z")
    monkeypatch.chdir(tmp_path)


def make_vault(path: Path, rules: Path | str = STORY_RULES, now: str | None = None) -> Vault:
    """A fresh vault at path with the given rules file or pack name."""
    return Vault.create(path, str(rules), now=now)


@pytest.fixture
def story_vault(tmp_path: Path) -> Vault:
    """An empty vault with the small Guangzhou → Shanghai rules of tests/data."""
    return make_vault(tmp_path / "vault")


@pytest.fixture
def sample_vault(tmp_path: Path) -> Vault:
    """A copy of the bundled sample_vault/ (after the move)."""
    dest = tmp_path / "sample"
    shutil.copytree(ROOT / "sample_vault", dest)
    return Vault(dest)
