"""The server tests' vault: a copy of the bundled sample_vault/, as a path (the server opens it)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import ROOT


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    dest = tmp_path / "sample"
    shutil.copytree(ROOT / "sample_vault", dest)
    return dest
