"""How one fact is stored in the search index: its record and its token columns."""

from __future__ import annotations

import functools
import hashlib
import json
from typing import Any

from mdmem.lang.tokens import tokens
from mdmem.model.factfile import Fact
from mdmem.store.snapshot_entry import decode, encode, row_text


def fact_tokens(fact: Fact) -> dict[str, str]:
    """The four token columns of a fact, space-separated (the FTS tokenizer splits on spaces)."""
    hist = " ".join(_text(h.get("value")) for h in fact.history)
    return {
        "name": _joined(fact.attribute),
        "value": " ".join(tokens(_text(fact.value))),
        "body": _joined(fact.body) if len(fact.body) <= 200 else " ".join(tokens(fact.body)),
        "history": " ".join(tokens(hist)) if hist else "",
    }


def fact_columns(fact: Fact) -> tuple[str, str, str, str, str]:
    """A fact's FTS row: name, value, body, history (`fact_tokens`) and owner."""
    cols = fact_tokens(fact)
    return cols["name"], cols["value"], cols["body"], cols["history"], owner_token(fact.entity)


@functools.lru_cache(maxsize=4096)
def _joined(text: str) -> str:
    """The tokens of short text that repeats across a vault (attribute names, bodies such as
    'Said.'), each worked out once a process."""
    return " ".join(tokens(text))


@functools.lru_cache(maxsize=4096)
def owner_token(entity: str) -> str:
    """The entity as one ASCII token for the FTS `owner` column (slugs may hold CJK or '-')."""
    return "e" + hashlib.blake2b(entity.encode("utf-8"), digest_size=8).hexdigest()


def _text(value: Any) -> str:
    if isinstance(value, list):
        return " ".join(str(v) for v in value)
    return "" if value is None else str(value)


def fact_record(fact: Fact) -> str:
    """The stored form of a fact: every field as JSON, as the snapshot stores it
    (store/snapshot_entry.py), so a row is read back without validating it again. A value
    JSON cannot keep (a tag typed by hand) is kept as its text."""
    row = encode(fact)
    return row_text(row) or json.dumps(row, ensure_ascii=False, separators=(",", ":"), default=str)


def load_record(data: str, path: str) -> Fact:
    """A fact from its stored record (only ever made from a parsed fact)."""
    return decode(json.loads(data))


def vanished(old_data: str, old_path: str, new: Fact) -> bool:
    """True when a token the old row held (value, history, body) is not in the new row."""
    old = fact_tokens(load_record(old_data, old_path))
    now = fact_tokens(new)
    before = {t for c in ("value", "history", "body") for t in old[c].split()}
    after = {t for c in ("value", "history", "body") for t in now[c].split()}
    return not before <= after
