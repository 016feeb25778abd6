"""Which language a text is in, and which spelling or phrasing of a pair fits it."""

from __future__ import annotations

from typing import Any

from mdmem.lazy_regex import lazy

_LATIN_WORD = lazy(r"[A-Za-z]{2,}")
_CJK = lazy("[\u3400-\u4dbf\u4e00-\u9fff]")


def has_cjk(text: str) -> bool:
    """True when the text holds a Chinese character (ASCII text answers without the pattern,
    whose character ranges take ~2 ms to compile)."""
    return not text.isascii() and _CJK().search(text) is not None


def detect_lang(text: str) -> str:
    """zh when Chinese carries the question, else en: an English question that names a
    Chinese place ('How long is my ride to 珠江新城?') is answered in English. About two
    Chinese characters make a word; a tie goes to Chinese (我在Lingnan Tech工作吗)."""
    cjk = sum(1 for c in text if "\u3400" <= c <= "\u9fff")
    if not cjk:
        return "en"
    return "zh" if cjk >= 2 * len(_LATIN_WORD().findall(text)) else "en"


def pick_lang(question: dict[str, str], sample: Any, lang: str | None) -> str:
    """The phrasing of `question` in `lang`, else in the language of `sample`, else English."""
    if lang is None:
        lang = "zh" if isinstance(sample, str) and has_cjk(sample) else "en"
    return question.get(lang) or question.get("en") or next(iter(question.values()), "")


def asked(items: list[dict[str, Any]], lang: str | None) -> list[dict[str, Any]]:
    """Pending questions (`Vault.pending()`), each with `ask`: its question in `lang`, else in
    the language the person used (the value's, else that of the value that changed upstream).
    The one shape `pending --json` and the MCP `pending` tool give."""
    for p in items:
        because = p.get("because") or {}
        sample = " ".join(str(x) for x in (p.get("value"), because.get("old"), because.get("new")) if x)
        q = p.get("question")
        p["ask"] = pick_lang(q, sample, lang) if isinstance(q, dict) else str(q or "")
    return items
