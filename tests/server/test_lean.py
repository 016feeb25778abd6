"""`mdmem mcp`'s lean road (server/lean.py): the same bytes on the wire as the SDK's, the SDK
taking over for what the lean road does not answer, and no SDK, pydantic or anyio imported
for a session of `initialize`, `tools/list` and `ask`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pydantic_core
import pytest

from mdmem.server import lean, wire
from tests.server.client import NOW

SERVE = "import sys\nfrom mdmem.commands import main\nmain(['mcp', '--vault', sys.argv[1]])\n"
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}  # fmt: skip
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def ask(msg_id: int | str, **arguments: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": msg_id, "method": "tools/call", "params": {"name": "ask", "arguments": arguments}}  # fmt: skip


# A session as a client speaks it: each request waits for its reply before the next is sent.
SESSION = [
    INIT, INITIALIZED,
    ask(2, question="Where do I live?"),
    ask("three", question="我住在哪里？", evidence=0),
    ask(4, question="Where did I live in 2025?", as_of="2025-12-01", entity="user"),
    {"jsonrpc": "2.0", "id": 5, "method": "tools/list"},
    ask(55, question="Where do I live?", as_of="2026-02-30"),  # the library refuses the day: the SDK's error
    ask(6, question="Where do I live?", evidence=11),  # refused by the SDK's validation
    ask(7, question="Where do I live?", as_of="null"),  # the SDK reads the JSON in it: None
    {"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": "pending", "arguments": {}}},
    ask(9, question="Where do I work?"),  # after the hand-over: the SDK's
    {"jsonrpc": "2.0", "id": 10, "method": "ping"},
]  # fmt: skip


def converse(vault: Path, messages: list[dict[str, Any]]) -> list[str]:
    """The lines `mdmem mcp` writes for these messages, sent one reply at a time."""
    env = {**os.environ, "MDMEM_NOW": NOW}
    proc = subprocess.Popen([sys.executable, "-c", SERVE, str(vault)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    out = []
    try:
        for msg in messages:
            proc.stdin.write(json.dumps(msg, ensure_ascii=False).encode() + b"\n")
            proc.stdin.flush()
            if "id" in msg:
                out.append(proc.stdout.readline().decode())
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
    return out


def test_the_lean_road_writes_what_the_sdk_writes(vault: Path) -> None:
    cache = vault / lean.CACHE
    cache.unlink(missing_ok=True)
    by_sdk = converse(vault, SESSION)  # no replies kept yet: the SDK answers from initialize on
    kept = json.loads(cache.read_text(encoding="utf-8"))
    assert {m for r in kept["replies"].values() for m in r} == {"initialize", "tools/list"}
    lean_first = converse(vault, SESSION)  # lean up to the refused day, then the SDK
    assert lean_first == by_sdk
    replies = [json.loads(line) for line in by_sdk]
    assert [r["id"] for r in replies] == [1, 2, "three", 4, 5, 55, 6, 7, 8, 9, 10]
    assert "Shanghai" in replies[1]["result"]["structuredContent"]["answer"]
    assert replies[5]["result"]["isError"] is True and "is not a day" in replies[5]["result"]["content"][0]["text"]
    assert replies[6]["result"]["isError"] is True  # evidence 11: the SDK's own message


def test_a_lean_session_imports_neither_the_sdk_nor_pydantic(vault: Path) -> None:
    converse(vault, [INIT, INITIALIZED, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}])  # keeps the replies
    code = (
        "import atexit, sys\n"
        "atexit.register(lambda: print(sorted(m for m in ('mcp', 'mcp_types', 'pydantic', 'pydantic_core', 'anyio', 'typer')"
        " if m in sys.modules), file=sys.stderr))\n" + SERVE
    )
    lines = b"".join(json.dumps(m).encode() + b"\n" for m in
                     [INIT, INITIALIZED, ask(2, question="Where do I live?"), {"jsonrpc": "2.0", "id": 3, "method": "tools/list"}])  # fmt: skip
    out = subprocess.run([sys.executable, "-c", code, str(vault)], input=lines, capture_output=True,
                         env={**os.environ, "MDMEM_NOW": NOW}, timeout=60)  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert [json.loads(line)["id"] for line in out.stdout.splitlines()] == [1, 2, 3]
    assert out.stderr.decode().strip().splitlines()[-1] == "[]"


def test_replies_kept_for_other_code_are_not_used(vault: Path) -> None:
    replies = lean.Replies(vault)
    if replies.key is None:
        pytest.skip("the SDK's dist-info is not on sys.path")
    replies.put("{}", "initialize", '{"a":1}')
    assert lean.Replies(vault).get("{}", "initialize") == '{"a":1}'
    data = json.loads((vault / lean.CACHE).read_text(encoding="utf-8"))
    data["key"] = "other"
    (vault / lean.CACHE).write_text(json.dumps(data), encoding="utf-8")
    assert lean.Replies(vault).get("{}", "initialize") is None


@pytest.mark.parametrize(
    "value",
    [
        {"a": [1, 2.5, 0.0, -0.0, 0.9, 1e-4, 123456.789, True, None, "x"]},
        {"问": "我住在上海。", "q": 'say "hi"\n\ttab \\ back', "e": [], "d": {}},
        {"odd": "bell\x07 and nul\x00", "tiny": 1e-7, "huge": 1e300, "nan": float("nan")},
        {"nested": [{"a": [{"b": [1, {"c": "ü"}]}]}], "n": 10**20},
        {"surrogate": "\ud800"},
    ],
)
def test_the_result_bytes_are_pydantics(value: dict[str, Any]) -> None:
    try:
        want = pydantic_core.to_json(value, fallback=str, indent=2).decode()
    except pydantic_core.PydanticSerializationError:
        pytest.skip("pydantic cannot write it either")
    assert wire.dumps(value, pretty=True) == want
    assert wire.dumps(value) == pydantic_core.to_json(value, fallback=str).decode()


@pytest.mark.parametrize(
    ("args", "plain"),
    [
        ({"question": "Where?"}, True),
        ({"question": "Where?", "as_of": "2026-01-01", "entity": "user", "evidence": 0}, True),
        ({"question": ""}, False),
        ({"question": "x" * 2001}, False),
        ({"question": "Where?", "evidence": 11}, False),
        ({"question": "Where?", "evidence": True}, False),
        ({"question": "Where?", "evidence": "3"}, False),
        ({"question": "Where?", "as_of": "null"}, False),
        ({"question": "Where?", "entity": "[1]"}, False),
        ({"question": "Where?", "entity": "x" * 65}, False),
        ({"question": "Where?", "other": 1}, False),
        (["Where?"], False),
    ],
)
def test_only_arguments_the_sdk_passes_as_they_are_stay_lean(args: object, plain: bool) -> None:
    assert lean._plain_ask(args) is plain
