"""A tool's result in the bytes the MCP SDK writes for it, without importing pydantic.

The SDK (its `func_metadata.convert_result`) gives a dict result twice: as text, pydantic's
JSON of it with an indent of 2, and as `structuredContent`; the whole reply is then written as
pydantic writes JSON (compact, non-ASCII as it is). For plain JSON values (str keys, strings,
ints, bools, None, lists, dicts, and floats that both write alike) the standard library writes
the same bytes; anything else is left to pydantic_core itself, imported only then.
tests/server/test_lean.py compares the two on answers of every kind.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

_COMPACT = {"ensure_ascii": False, "separators": (",", ":")}
_PRETTY = {"ensure_ascii": False, "indent": 2}


def plain(value: object, depth: int = 0) -> bool:
    """True when json.dumps writes value exactly as pydantic_core.to_json does."""
    if depth > 100:
        return False
    if value is None or isinstance(value, bool | int):
        return type(value) in (bool, int, type(None))  # no int or str subclass with its own repr
    if type(value) is str:
        return _plain_str(value)  # type: ignore[arg-type]
    if type(value) is float:
        # the same digits without an exponent: Python's repr and ryu's agree in this range
        return value == 0.0 or (math.isfinite(value) and 1e-4 <= abs(value) < 1e15)  # type: ignore[arg-type]
    if type(value) is list:
        return all(plain(v, depth + 1) for v in value)  # type: ignore[attr-defined]
    if type(value) is dict:
        return all(type(k) is str and _plain_str(k) and plain(v, depth + 1) for k, v in value.items())  # type: ignore[attr-defined]
    return False


_ODD = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff]")


def _plain_str(text: str) -> bool:
    """No control character but \n, \r, \t, and no lone surrogate (escaped each its own way)."""
    return _ODD.search(text) is None


def dumps(value: Any, pretty: bool = False) -> str:
    """value as JSON in pydantic_core's bytes (indent 2 when pretty, else compact)."""
    if plain(value):
        return json.dumps(value, **(_PRETTY if pretty else _COMPACT))  # type: ignore[arg-type]
    import pydantic_core

    return pydantic_core.to_json(value, fallback=str, indent=2 if pretty else None).decode()


def tool_result(result: dict[str, Any]) -> str:
    """The `result` of a tools/call reply for a tool that returned this dict."""
    text = dumps(result, pretty=True)
    return (f'{{"content":[{{"text":{dumps(text)},"type":"text"}}],"isError":false,'
            f'"structuredContent":{dumps(result)}}}')  # fmt: skip
