"""The story vault built through the CLI, as a person would: what the fast paths are compared on."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from mdmem.commands import load
from tests.conftest import STORY, STORY_RULES


@pytest.fixture
def story_vault(tmp_path: Path) -> Path:
    app, vault = load(), tmp_path / "v"
    runner = CliRunner()
    assert runner.invoke(app, ["init", str(vault), "--rules", str(STORY_RULES)]).exit_code == 0
    for attr, value in STORY:
        args = ["set", attr, value, "--date", "2025-08-15", "--vault", str(vault)]
        assert runner.invoke(app, args).exit_code == 0
    return vault
