"""Model answers kept on disk, keyed by the model and the exact request, so a re-run or an eval
replay costs no call and gives the same bytes (`--no-cache` turns it off).

Only answers that parsed as JSON are kept: a malformed answer or a failed call is asked again.
The cache lives in the vault's `.mdmem/llm-cache/` (rebuildable, ignored by git) or, for
`mdmem eval`, in the user's cache folder.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from mdmem.files import atomic_write, read_text, sha256

VAULT_CACHE = "llm-cache"  # under the vault's .mdmem/


def request_key(model: str, request: dict[str, Any]) -> str:
    """The cache key of one request: a hash of the model and everything sent."""
    return sha256(json.dumps({"model": model, **request}, sort_keys=True, ensure_ascii=False))


class AnswerCache:
    """Answers by request key, one small JSON file each."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> str | None:
        """The kept answer text, or None (absent or unreadable: then it is asked again)."""
        text = read_text(self._path(key))
        if text is None:
            return None
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            return None
        answer = data.get("answer") if isinstance(data, dict) else None
        return answer if isinstance(answer, str) else None

    def put(self, key: str, model: str, answer: str) -> None:
        """Keep an answer (not fsynced: a lost cache entry only costs a call)."""
        data = json.dumps({"model": model, "answer": answer}, ensure_ascii=False)
        atomic_write(self._path(key), data + "\n", durable=False)


def user_cache_dir() -> Path:
    """Where `mdmem eval` keeps model answers: $XDG_CACHE_HOME/mdmem/llm (~/.cache/mdmem/llm)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "mdmem" / "llm"
