"""The package face: what the README's library example imports works, and stays cheap."""

from __future__ import annotations

import subprocess
import sys


def test_public_names_resolve(sample_vault) -> None:
    import mdmem
    from mdmem import Vault, ask, ingest

    assert sorted(mdmem.__all__) == sorted(mdmem._EXPORTS)
    for name in mdmem.__all__:
        assert getattr(mdmem, name) is not None
    vault = Vault(sample_vault.root)
    result = ingest(vault, "User: I moved to Hangzhou.", date="2026-06-01")
    assert result.errors == [] and result.entry is not None
    assert "Hangzhou" in ask(vault, "Which city do I live in?").text


def test_importing_the_package_loads_nothing_heavy() -> None:
    code = "import sys, mdmem; print(sorted(m for m in sys.modules if m.startswith('mdmem')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['mdmem']"
