"""`mdmem mcp`'s start-up: the stdio road skips typer, the SDK's models build on first use, and
the tools that write load their machinery when called."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mdmem.commands.fast import parse_mcp
from tests.conftest import ROOT
from tests.server.client import NOW

# Serves the vault in sys.argv[1] until stdin ends (after one initialize), then reports.
SERVE = """\
import atexit, sys
def report():
    import pydantic
    mcp_types = sys.modules.get("mcp_types")
    print(sorted(m for m in sys.modules if m in ("typer", "litellm") or m.startswith("mdmem.commands.")),
          mcp_types is not None and not mcp_types.CallToolRequest.__pydantic_complete__,
          "defer_build" in pydantic.BaseModel.model_config,
          sorted(m for m in sys.modules if m == "regex" or m.startswith(("mdmem.extract.", "mdmem.edit."))),
          file=sys.stderr)
atexit.register(report)
from mdmem.commands import main
main(["mcp", "--vault", sys.argv[1]])
"""


@pytest.mark.parametrize(
    ("args", "want"),
    [
        ([], {"vault": None, "wait": 10.0}),
        (["--vault", "v", "--wait", "2.5"], {"vault": "v", "wait": 2.5}),
        (["--vault=v", "--wait=0"], {"vault": "v", "wait": 0.0}),
        (["--http", "0"], None),  # HTTP, --host, --help, a bad or missing value: typer's job
        (["--vault", "v", "--host", "0.0.0.0"], None),
        (["--help"], None),
        (["--wait", "soon"], None),
        (["--vault"], None),
        (["extra"], None),
    ],
)
def test_parse_mcp_takes_only_the_plain_stdio_form(args: list[str], want: dict | None) -> None:
    assert parse_mcp(args) == want


def test_parse_mcp_reads_the_vault_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MDMEM_VAULT", "/somewhere")
    assert parse_mcp([]) == {"vault": "/somewhere", "wait": 10.0}


INITIALIZE = ('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
              '"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}\n')


def run(code: str, *args: str, given: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MDMEM_NOW": NOW}
    return subprocess.run([sys.executable, "-c", code, *args], env=env, input=given,
                          capture_output=True, text=True, timeout=120)  # fmt: skip


def test_stdio_server_starts_without_typer_and_defers_the_protocol_models(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "sample_vault", tmp_path / "v")
    # no replies kept in this vault yet: server/lean.py hands the initialize to the SDK
    out = run(SERVE, str(tmp_path / "v"), given=INITIALIZE)
    assert out.returncode == 0, out.stderr
    assert '"id":1,"result":{"capabilities"' in out.stdout
    # no typer nor command module (the SDK brings click and rich itself), no litellm; the SDK's
    # models not built yet; pydantic's default configuration as it was; neither the forget
    # machinery nor the extractor (~50 ms of imports, for the tools that write)
    assert out.stderr.strip().splitlines()[-1] == "['mdmem.commands.fast'] True False []"


def test_a_missing_vault_is_the_same_error_on_the_fast_road(tmp_path: Path) -> None:
    code = "import sys; from mdmem.commands import main; main(['mcp', '--vault', sys.argv[1]])"
    out = run(code, str(tmp_path / "nowhere"))
    assert out.returncode == 1
    assert out.stderr.startswith("Error: ") and "no rules.yaml" in out.stderr
    assert "Traceback" not in out.stderr
