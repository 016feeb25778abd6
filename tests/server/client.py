"""Talking to a real `mdmem mcp` process through the SDK's own stdio client."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

NOW = "2026-03-01T12:00:00Z"
STARTUP = 30.0  # seconds a test waits for the server on a loaded machine, at most


def mdmem_command() -> tuple[str, list[str]]:
    """The installed console script, else the same entry point through this interpreter."""
    script = Path(sys.executable).with_name("mdmem")
    if script.is_file():
        return str(script), []
    return sys.executable, ["-c", "from mdmem.cli import main; main()"]


@asynccontextmanager
async def connect(vault: Path, *args: str) -> AsyncIterator[ClientSession]:
    """An initialised client session with `mdmem mcp --vault VAULT ARGS…` as a subprocess."""
    command, prefix = mdmem_command()
    params = StdioServerParameters(
        command=command,
        args=[*prefix, "mcp", "--vault", str(vault), *args],
        env={"MDMEM_NOW": NOW},
    )
    # The server's stderr goes beside the vault, to read when a test fails.
    with (vault.parent / "mcp-stderr.log").open("a", encoding="utf-8") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write, read_timeout_seconds=STARTUP) as session,
        ):
            await session.initialize()
            yield session


async def call(session: ClientSession, tool: str, **arguments: Any) -> dict[str, Any]:
    """A tool's JSON result; fails the test on a tool error."""
    result = await session.call_tool(tool, arguments)
    text = result.content[0].text if result.content else ""  # type: ignore[union-attr]
    assert not result.is_error, f"{tool} failed: {text}"
    return json.loads(text)


async def error(session: ClientSession, tool: str, **arguments: Any) -> str:
    """A tool error's message; fails the test if the call succeeded."""
    result = await session.call_tool(tool, arguments)
    assert result.is_error, f"{tool} should have failed: {result.content}"
    return result.content[0].text  # type: ignore[union-attr]


class LockHolder:
    """Another process holding the vault lock, as a cron ingest would, until released."""

    def __init__(self, vault: Path) -> None:
        code = (
            "import pathlib, sys\n"
            "from mdmem.store.lock import VaultLock\n"
            "with VaultLock(pathlib.Path(sys.argv[1]), 0):\n"
            "    print('locked', flush=True)\n"
            "    sys.stdin.read()\n"
        )
        self.proc = subprocess.Popen(
            [sys.executable, "-c", code, str(vault / ".mdmem" / "lock")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        assert self.proc.stdout.readline().strip() == "locked"

    def release(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            self.proc.wait(timeout=10)
