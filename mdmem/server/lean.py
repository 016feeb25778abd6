"""`mdmem mcp` over stdio, answering a session's common first requests before the SDK loads.

An agent client starts the server for every session, and importing the MCP SDK (pydantic,
anyio, the protocol's ~560 models) is most of a second: more than the session's first answer
costs. So this loop reads the JSON-RPC lines itself and answers what it knows exactly:

- `initialize` and `tools/list`, with the SDK's own replies to the same request, kept in the
  vault's cache (`.mdmem/mcp-replies.json`) from an earlier session that the SDK answered, and
  valid only for the same mdmem server code and the same SDK and pydantic versions;
- `tools/call` of `ask` with arguments the SDK's validation would take as they are, answered by
  the same code as tools.py's `Memory.ask`, in the bytes the SDK would write;
- `notifications/initialized`.

Anything else (another tool, a resource, a prompt, ping, a reply not in the cache, arguments to
check, an error) hands the session to the SDK: it is imported, the session's `initialize` (and
`initialized`) is replayed to it, its reply dropped since the client has it, and from the
message at hand on the SDK serves every line, as `server.run("stdio")` would. While serving,
fd 0 reads the null device and fd 1 writes to stderr, so nothing stray reaches the wire (as the
SDK's own stdio transport does).
"""

from __future__ import annotations

import gc
import hashlib
import json
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, BinaryIO

from mdmem.server.base import MemoryBase

CACHE = Path(".mdmem") / "mcp-replies.json"
_DISTS = ("mcp", "mcp_types", "pydantic", "pydantic_core")  # what the SDK's replies depend on
_ASK_ARGS = {"question", "as_of", "entity", "evidence"}


def code_key() -> str | None:
    """What the cached replies hold for: this server's sources and the installed versions of
    the SDK and pydantic (from their dist-info folders; None when one is not found)."""
    from mdmem import __version__

    digest = hashlib.sha256(__version__.encode())
    here = Path(__file__).parent
    for path in sorted(here.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    found: dict[str, str] = {}
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for name in names:
            dist, _, rest = name.partition("-")
            if dist in _DISTS and dist not in found and rest.endswith(".dist-info"):
                found[dist] = rest.removesuffix(".dist-info")
        if len(found) == len(_DISTS):
            break
    if len(found) != len(_DISTS):
        return None
    digest.update(json.dumps(found, sort_keys=True).encode())
    return digest.hexdigest()


class Replies:
    """The SDK's replies to `initialize` and `tools/list`, by the initialize request's params."""

    def __init__(self, root: Path) -> None:
        self.path = root / CACHE
        self.key = code_key()
        self.entries: dict[str, dict[str, str]] = {}
        if self.key is None:
            return
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return
        if isinstance(data, dict) and data.get("key") == self.key and isinstance(data.get("replies"), dict):
            self.entries = data["replies"]

    def get(self, params: str, method: str) -> str | None:
        found = self.entries.get(params, {}).get(method)
        return found if isinstance(found, str) else None

    def put(self, params: str, method: str, result: str) -> None:
        """Keep the reply's result (its JSON text as the SDK wrote it); written at once."""
        if self.key is None or self.get(params, method) == result:
            return
        self.entries.setdefault(params, {})[method] = result
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        try:
            tmp.write_text(json.dumps({"key": self.key, "replies": self.entries}, ensure_ascii=False,
                                      sort_keys=True), encoding="utf-8")  # fmt: skip
            os.replace(tmp, self.path)
        except OSError:  # a read-only vault: the next session asks the SDK again
            tmp.unlink(missing_ok=True)


def params_key(params: object) -> str:
    """The initialize params the SDK's replies may depend on (who the client is does not)."""
    kept = {k: v for k, v in params.items() if k != "clientInfo"} if isinstance(params, dict) else params
    return json.dumps(kept, sort_keys=True, ensure_ascii=False)


def reply(msg_id: Any, result: str) -> str:
    """A JSON-RPC result line as the SDK writes it (compact, `jsonrpc` and `id` first)."""
    return f'{{"jsonrpc":"2.0","id":{json.dumps(msg_id, ensure_ascii=False)},"result":{result}}}'


class Wire:
    """The JSON-RPC lines in and out: private copies of fds 0 and 1, which are diverted."""

    def __init__(self) -> None:
        import fcntl

        self.fds = (fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3), fcntl.fcntl(1, fcntl.F_DUPFD_CLOEXEC, 3))
        self.inp: BinaryIO = os.fdopen(self.fds[0], "rb")
        self.out: BinaryIO = os.fdopen(self.fds[1], "wb")
        sys.stdout.flush()
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        os.dup2(2, 1)

    def readline(self) -> bytes:
        return self.inp.readline()

    def write(self, line: str) -> None:
        self.out.write(line.encode("utf-8") + b"\n")
        self.out.flush()

    def close(self) -> None:
        """fds 0 and 1 back on the wire."""
        sys.stdout.flush()
        os.dup2(self.fds[0], 0)
        os.dup2(self.fds[1], 1)
        self.inp.close()
        self.out.close()


def serve(root: Path | str, *, wait: float = 10.0) -> None:
    """Serve the vault over stdio until the client goes away."""
    try:
        wire = Wire()
    except (ImportError, OSError, ValueError, AttributeError):  # no fcntl, no real stdin/stdout: the SDK's road
        from mdmem.server.app import serve as sdk_serve

        sdk_serve(root, wait=wait)
        return
    try:
        Session(Path(root), wait, wire).run()
    finally:
        wire.close()


class Session:
    """One client's session on the lean road, until EOF or the hand-over to the SDK."""

    def __init__(self, root: Path, wait: float, wire: Wire) -> None:
        self.root, self.wait, self.wire = root, wait, wire
        self.memory = MemoryBase(root, wait)
        self.replies = Replies(root)
        self.replay: list[bytes] = []  # what the SDK must see again at a hand-over
        self.init_id: Any = None  # the answered initialize's id
        self.params = ""  # its params_key

    def run(self) -> None:
        # No collection while the first answer imports what it needs (a tenth of the start's
        # CPU); then those modules are frozen out of every later collection, and it runs again.
        gc.disable()
        try:
            while line := self.wire.readline():
                answer = self.answer(line)
                if answer is None:
                    self.hand_over(line)
                    return
                if answer:
                    self.wire.write(answer)
        finally:
            self.collect()

    @staticmethod
    def collect() -> None:
        """The collector back on, the modules imported so far frozen out of its passes."""
        if not gc.isenabled():
            gc.freeze()
            gc.enable()

    def answer(self, line: bytes) -> str | None:
        """The reply line to write ('' for none), or None: the SDK's to answer."""
        try:
            msg = json.loads(line)
        except ValueError:
            return None
        if not isinstance(msg, dict) or msg.get("jsonrpc") != "2.0":
            return None
        method, msg_id, params = msg.get("method"), msg.get("id"), msg.get("params")
        if self.init_id is None:  # nothing but initialize comes first
            if method != "initialize" or not _is_id(msg_id) or set(msg) - {"jsonrpc", "id", "method", "params"}:
                return None
            self.params = params_key(params)
            cached = self.replies.get(self.params, "initialize")
            if cached is None:
                return None
            self.init_id = msg_id
            self.replay.append(line)
            return reply(msg_id, cached)
        if method == "notifications/initialized" and "id" not in msg:
            self.replay.append(line)
            return ""
        if not _is_id(msg_id) or msg_id == self.init_id:
            return None
        if method == "tools/list" and params in (None, {}):
            cached = self.replies.get(self.params, "tools/list")
            return None if cached is None else reply(msg_id, cached)
        if method == "tools/call" and isinstance(params, dict):
            return self.ask(msg_id, params)
        return None

    def ask(self, msg_id: Any, params: dict[str, Any]) -> str | None:
        """The `ask` tool's reply, when its arguments need no validation beyond what is checked
        here; None for anything else (another tool, a refused argument, an error)."""
        args = params.get("arguments")
        if set(params) - {"name", "arguments"} or params.get("name") != "ask" or not _plain_ask(args):
            return None
        assert isinstance(args, dict)
        notes: list[str] = []
        try:
            with self.memory.noting(notes):
                result = self.memory.answer(args["question"], args.get("as_of"), args.get("entity"),
                                            args.get("evidence", 3))  # fmt: skip
        except Exception:  # an MdmemError, or a bug: the SDK says it in its words, and serves on
            return None  # (the call only reads: asked again, it fails again)
        if notes:
            result = {"notes": notes, **result}
        from mdmem.server.wire import tool_result

        self.collect()  # what answering needs is imported now
        return reply(msg_id, tool_result(result))

    def hand_over(self, line: bytes) -> None:
        """From this line on the SDK serves the session (see the module docstring)."""
        import anyio

        self.collect()

        from mdmem.server import app

        server = app.build_server(self.root, wait=self.wait, about=self.memory.last_about)
        relay = Relay(self, [*self.replay, line])
        anyio.run(app.serve_streams, server, relay, relay)


def _is_id(value: object) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _plain_ask(args: object) -> bool:
    """True for `ask` arguments the SDK's validation (tools.py's annotations, pydantic's lax
    mode after its JSON pre-parse) would pass through unchanged."""
    if not isinstance(args, dict) or set(args) - _ASK_ARGS:
        return False
    question = args.get("question")
    if not isinstance(question, str) or not 1 <= len(question) <= 2000:
        return False
    for name, most in (("as_of", 10), ("entity", 64)):
        value = args.get(name)
        if value is None:
            continue
        if not isinstance(value, str) or len(value) > most:
            return False
        try:  # the SDK reads a string that is JSON (null, a list) as that JSON first
            parsed = json.loads(value)
        except (ValueError, RecursionError):
            continue
        if not isinstance(parsed, str | int | float):
            return False
    evidence = args.get("evidence", 3)
    return type(evidence) is int and 0 <= evidence <= 10


class Relay:
    """The SDK's stdin and stdout at a hand-over: it reads the lines replayed, then the wire's
    (on a worker thread); what it writes goes to the wire, but for its reply to a replayed
    initialize; its replies to `initialize` and `tools/list` are kept for the next session."""

    def __init__(self, session: Session, first: list[bytes]) -> None:
        self.session = session
        self.first = first
        self.drop = session.init_id  # the client has this reply already
        self.asked: dict[str, str] = {}  # a request's id (as JSON) → the method whose reply is kept

    async def __aiter__(self) -> AsyncIterator[str]:
        import anyio.to_thread

        for line in self.first:
            self.saw(line)
            yield line.decode("utf-8", errors="replace")
        while line := await anyio.to_thread.run_sync(self.session.wire.readline):
            self.saw(line)
            yield line.decode("utf-8", errors="replace")

    def saw(self, line: bytes) -> None:
        s = self.session
        try:
            msg = json.loads(line)
        except ValueError:
            return
        if not isinstance(msg, dict) or not _is_id(msg.get("id")):
            return
        if msg.get("method") == "initialize" and s.init_id is None:
            s.params = params_key(msg.get("params"))
            self.asked[json.dumps(msg["id"], ensure_ascii=False)] = "initialize"
        elif msg.get("method") == "tools/list" and msg.get("params") in (None, {}) and s.params:
            self.asked[json.dumps(msg["id"], ensure_ascii=False)] = "tools/list"

    async def write(self, text: str) -> None:
        line = text.removesuffix("\n")
        if self.drop is not None and line.startswith(f'{{"jsonrpc":"2.0","id":{json.dumps(self.drop, ensure_ascii=False)},'):
            self.drop = None
            return
        for msg_id, method in list(self.asked.items()):
            head = f'{{"jsonrpc":"2.0","id":{msg_id},"result":'
            if line.startswith(head) and line.endswith("}"):
                self.session.replies.put(self.session.params, method, line[len(head):-1])
                del self.asked[msg_id]
                break
        self.session.wire.write(line)

    async def flush(self) -> None:
        pass  # Wire.write flushes each line
