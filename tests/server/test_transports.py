"""`mdmem mcp` as a command: --help, a missing vault, streamable HTTP, and what it imports."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import anyio
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from typer.testing import CliRunner

from mdmem.cli import app
from tests.conftest import ROOT
from tests.server.client import NOW, mdmem_command

runner = CliRunner()


def test_help_names_the_transports_and_tools() -> None:
    out = runner.invoke(app, ["mcp", "--help"], env={"COLUMNS": "200"})
    assert out.exit_code == 0
    for word in ("--vault", "--http", "--host", "--wait", "remember", "vault busy"):
        assert word in out.stdout


def test_missing_vault_is_an_error_before_serving(tmp_path: Path) -> None:
    out = runner.invoke(app, ["mcp", "--vault", str(tmp_path / "nowhere")])
    assert out.exit_code == 1
    assert "no rules.yaml" in out.stderr


def test_cli_import_stays_cheap_and_tools_never_load_litellm(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "sample_vault", tmp_path / "v")
    code = (
        "import sys, mdmem.cli\n"
        "assert 'mcp' not in sys.modules and 'mdmem.server.app' not in sys.modules\n"
        "from mdmem.server.app import build_server\n"
        "from mdmem.server.tools import Memory\n"
        "build_server(sys.argv[1])\n"
        "m = Memory(sys.argv[1])\n"
        "m.ask('Where do I live?'); m.context(query='work'); m.remember(text='I moved to Rome.')\n"
        "m.timeline(); m.log(); m.pending(); m.show()\n"
        "print('litellm' in sys.modules)\n"
    )
    env = {**os.environ, "MDMEM_NOW": NOW}
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "v")], env=env,
                         capture_output=True, text=True, timeout=60)  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def test_streamable_http_on_a_free_local_port(tmp_path: Path) -> None:
    vault = tmp_path / "v"
    shutil.copytree(ROOT / "sample_vault", vault)
    command, prefix = mdmem_command()
    env = {**os.environ, "MDMEM_NOW": NOW, "NO_PROXY": "127.0.0.1", "no_proxy": "127.0.0.1"}
    proc = subprocess.Popen([command, *prefix, "mcp", "--vault", str(vault), "--http", "0"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, env=env)  # fmt: skip
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()  # said once the socket listens
        found = re.search(r"at (http://127\.0\.0\.1:(\d+)/mcp)", line)
        assert found, line
        url = found.group(1)

        async def body() -> None:
            with anyio.fail_after(60):
                async with (
                    streamable_http_client(url) as (read, write),
                    ClientSession(read, write) as session,
                ):
                    await session.initialize()
                    tools = (await session.list_tools()).tools
                    assert "ask" in {t.name for t in tools}
                    result = await session.call_tool("ask", {"question": "Where do I live?"})
                    assert not result.is_error
                    assert "Shanghai" in result.content[0].text  # type: ignore[union-attr]

        anyio.run(body)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
