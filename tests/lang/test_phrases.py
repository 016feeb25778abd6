"""The phrasebooks: the same keys and placeholders in every language, and every phrase in use."""

from __future__ import annotations

import ast
import string
from pathlib import Path

import pytest

from mdmem.errors import MdmemError
from mdmem.lang import en, zh
from mdmem.lang.documents import DOCUMENTS
from mdmem.lang.phrases import CATALOGUES, FORMS, LANGS, doc, phrase

PACKAGE = Path(__file__).resolve().parents[2] / "mdmem"
CATALOGUE_FILES = {PACKAGE / "lang" / n for n in ("en.py", "zh.py", "documents.py")}


def fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


def slots(template: str) -> set[str]:
    """The placeholders, each form counted as the slot it is a form of (whose_lower → whose)."""
    return {FORMS.get(f, f) for f in fields(template)} - {""}


def _code() -> list[tuple[Path, ast.AST]]:
    return [
        (p, ast.parse(p.read_text(encoding="utf-8")))
        for p in sorted(PACKAGE.rglob("*.py"))
        if p not in CATALOGUE_FILES
    ]


def _literals() -> set[str]:
    return {
        node.value
        for _, tree in _code()
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    }


def test_the_languages_have_the_same_keys() -> None:
    assert LANGS == ("en", "zh")
    assert list(en.PHRASES) == list(zh.PHRASES)  # same keys, in the same order to read side by side


@pytest.mark.parametrize("key", sorted(en.PHRASES))
def test_each_phrase_has_the_same_placeholders_in_every_language(key: str) -> None:
    for lang in LANGS:
        for name in fields(CATALOGUES[lang][key]):
            assert name and name.isidentifier(), f"{lang}:{key}: use named placeholders"
    assert slots(zh.PHRASES[key]) == slots(en.PHRASES[key]), key


def test_forms_name_only_placeholders_the_phrasebooks_use() -> None:
    used = set().union(*(fields(t) for c in CATALOGUES.values() for t in c.values()))
    assert set(FORMS) <= used


def test_every_phrase_is_said_somewhere() -> None:
    """A key no module names is a dead phrase: delete it, or use it."""
    literals = _literals()
    dead = sorted(k for k in [*en.PHRASES, *DOCUMENTS] if k not in literals)
    assert dead == []


def test_every_phrase_asked_for_exists() -> None:
    """phrase('x', …) and doc('x', …) with a literal key name a key of the catalogue."""
    missing = []
    for path, tree in _code():
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
                continue
            table = {"phrase": en.PHRASES, "doc": DOCUMENTS}.get(node.func.id)
            first = node.args[0] if node.args else None
            if table is None or not isinstance(first, ast.Constant):
                continue
            if first.value not in table:
                missing.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {first.value!r}")
    assert missing == []


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_doubt_and_removal_say_the_words_the_evaluator_looks_for(lang: str) -> None:
    book = {"en": en, "zh": zh}[lang]
    for key in ("uncertain", "unknown", "expired", "as_of_gap", "now_uncertain", "now_unknown"):
        assert any(w in phrase_text(lang, key) for w in book.UNCERTAIN_WORDS), (lang, key)
    assert any(w in phrase_text(lang, "deleted") for w in book.REMOVED_WORDS)
    assert any(w in phrase_text(lang, "nothing") for w in book.UNCERTAIN_WORDS)


def phrase_text(lang: str, key: str) -> str:
    return CATALOGUES[lang][key].casefold()


def test_phrase_fills_in_the_language_asked_for() -> None:
    assert phrase("since", "en", date="2026-01-02") == " (since 2026-01-02)"
    assert phrase("since", "zh", date="2026-01-02") == "（2026-01-02起）"
    assert doc("context_title", date="2026-03-01") == "# Memory (as of 2026-03-01)"


def test_an_unknown_language_names_the_fix() -> None:
    with pytest.raises(MdmemError, match=r"mdmem/lang/fr\.py"):
        phrase("yes", "fr")
