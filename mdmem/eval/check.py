"""Scoring one answer against a probe's expectations (docs/eval.md): matching form, needles."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from mdmem.eval.scenario import Needle, Probe
from mdmem.lang.phrases import REMOVED_WORDS, UNCERTAIN_WORDS


def normalize(text: str, *, fold: bool = True) -> str:
    """Matching form: NFKC (full/half width), runs of whitespace as one space, case-folded."""
    text = " ".join(unicodedata.normalize("NFKC", text).split())
    return text.casefold() if fold else text


def wording() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The phrases that mean 'uncertain/unknown' and 'removed': the phrasebooks' own, so the
    answers and the evaluator agree."""
    return UNCERTAIN_WORDS, REMOVED_WORDS


def locate(text: str, needle: str, start: int = 0) -> int:
    """Index of needle in text from start, or -1. A needle that begins or ends with a digit
    must not run on into more digits there, so '20' is not found inside '2025-08-15'."""
    at = text.find(needle, start)
    while at >= 0:
        before = text[at - 1] if at > 0 else ""
        after = text[at + len(needle) : at + len(needle) + 1]
        if not (needle[:1].isdigit() and before.isdigit()) and not (
            needle[-1:].isdigit() and after.isdigit()
        ):
            return at
        at = text.find(needle, at + 1)
    return -1


def says_any(answer: str, phrases: Iterable[str]) -> bool:
    text = normalize(answer)
    return any(normalize(p) in text for p in phrases)


def check(answer: str, probe: Probe, words: tuple[tuple[str, ...], tuple[str, ...]] | None = None) -> list[str]:  # fmt: skip
    """Why an answer fails a probe's own expectations (empty: it passes); the gate is apart."""
    uncertain_words, removed_words = words or wording()
    exp = probe.expect
    # `exact` wants the stored text verbatim: only whitespace and width are forgiven, not case.
    fold = probe.type != "exact"
    text = normalize(answer, fold=fold)

    def find(needle: Needle, start: int = 0) -> tuple[int, int]:
        """Where the first-placed alternative of needle is in the answer: (start, end) or (-1, -1)."""
        spots = []
        for alt in (needle,) if isinstance(needle, str) else needle:
            n = normalize(alt, fold=fold)
            at = locate(text, n, start)
            if at >= 0:
                spots.append((at, at + len(n)))
        return min(spots) if spots else (-1, -1)

    why = []
    for s in exp.contains:
        if find(s)[0] < 0:
            why.append(f"missing {show(s)}")
    for s in exp.absent:
        if locate(normalize(answer), normalize(s)) >= 0:
            why.append(f"should not say {s!r}")
    pos = 0
    for s in exp.order:
        at, end = find(s, pos)
        if at < 0:
            where = "missing" if find(s)[0] < 0 else "out of order:"
            why.append(f"{where} {show(s)} (expected order: {' → '.join(map(show, exp.order))})")
            break
        pos = end
    if exp.uncertain is not None and says_any(answer, uncertain_words) != exp.uncertain:
        why.append(
            "does not say it is uncertain/unknown" if exp.uncertain else "says uncertain/unknown"
        )
    if exp.removed is not None and says_any(answer, removed_words) != exp.removed:
        why.append("does not say it was removed" if exp.removed else "says it was removed")
    return why


def show(needle: Needle) -> str:
    return repr(needle) if isinstance(needle, str) else " or ".join(map(repr, needle))
