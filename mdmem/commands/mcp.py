"""mcp: serve the vault to AI agents over the Model Context Protocol."""

from __future__ import annotations

from typing import Annotated

import typer

from mdmem.commands.app import VaultOpt, WaitOpt, command, open_vault


@command()
def mcp(
    vault: VaultOpt = None,
    http: Annotated[
        int | None,
        typer.Option(
            "--http",
            min=0,
            max=65535,
            metavar="PORT",
            help="Serve streamable HTTP on this port (0: any free one) instead of stdio.",
        ),
    ] = None,
    host: Annotated[
        str,
        typer.Option(
            "--host", help="Address to bind with --http (no authentication: keep it local)."
        ),
    ] = "127.0.0.1",
    wait: WaitOpt = 10.0,
) -> None:
    """Serve the vault to AI agents (Claude, Cursor, …) over MCP: stdio by default.

    Tools: remember, ask, context, pending, confirm, set, forget, timeline, show, log.
    A write during another writer's lock waits up to --wait seconds, then answers "vault busy".
    """
    v = open_vault(vault, wait)  # a missing vault is an error now, not at the first tool call
    from mdmem.server.app import serve  # the MCP SDK loads only for this command

    if http is not None and host not in ("127.0.0.1", "localhost", "::1"):
        typer.echo(f"Warning: serving on {host} without authentication; anyone who can reach it can read and change the memory.", err=True)  # fmt: skip
    serve(v.root, wait=wait, http=http, host=host)
