"""Importing the MCP SDK for a server: its protocol models build their validators on first use.

Importing `mcp.server.mcpserver` is most of `mdmem mcp`'s start-up (BENCHMARKS.md), and most of
that is pydantic building the validators of ~560 protocol models, of which a session uses a
few dozen. While the SDK loads, pydantic's `defer_build` is the default, so each model builds
its validator when first used; models defined afterwards (the tools' arguments, anything else)
are built as usual. `BaseModel.model_config` is pydantic's public default configuration; the
key is removed again once the SDK is in. When the SDK is already imported in this process (a
test's client, an embedding app), it is left as it is.
"""

from __future__ import annotations

import importlib
import sys


def load() -> None:
    """Import the SDK's server (see the module docstring); the names come from the usual modules."""
    if "mcp.server.mcpserver" in sys.modules:
        return
    from pydantic import BaseModel

    config = BaseModel.model_config
    had = "defer_build" in config
    config.setdefault("defer_build", True)
    try:
        importlib.import_module("mcp.server.mcpserver")
    finally:
        if not had:
            config.pop("defer_build", None)
