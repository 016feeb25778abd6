"""Shared fixtures: every test works in its own tmp vault, with the clock pinned."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from mdmem import Vault

# The suite compiles invented patterns by the thousand: none of them is kept in the package's
# regex cache (tests/test_regex_cache.py gives the cache a folder of its own).
os.environ.setdefault("MDMEM_RE_CACHE", "0")

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


# A pack's tables, and what mdmem works out of them (rules.needles.json: its patterns' literal
# words): they name attributes and words of every language, never what a person said.
RULES_FILES = ("rules.yaml", ".mdmem/rules.good.yaml", ".mdmem/rules.cache.json", ".mdmem/rules.needles.json")


def holds(text: str, words: str) -> bool:
    """Words as words, any case: a number not inside a longer number (a cache's file signature
    holds nanosecond times, which hold every four digits sooner or later), Latin text not inside
    a longer word."""
    pattern = re.escape(words)
    if words[:1].isascii() and words[:1].isalnum():
        pattern = r"(?<![0-9A-Za-z])" + pattern
    if words[-1:].isascii() and words[-1:].isalnum():
        pattern += r"(?![0-9A-Za-z])"
    return re.search(pattern, text, re.I) is not None


def files_holding(root: Path, words: str) -> list[str]:
    """Every file of the vault whose text holds the words (`holds`), but the pack's tables."""
    return [
        rel for p in sorted(root.rglob("*")) if p.is_file()
        and (rel := p.relative_to(root).as_posix()) not in RULES_FILES
        and holds(p.read_bytes().decode("utf-8", "replace"), words)
    ]  # fmt: skip
