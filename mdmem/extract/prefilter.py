"""Cheap literal tests that let the extractor skip a regex that cannot match a sentence.

For each pattern we compute a set of lower-cased strings of which every match must contain
at least one ("moved"/"relocated" for the home-city patterns). Checking `in` on a sentence
costs nanoseconds; running a pack's hundred-odd patterns on every sentence of a long chat
costs seconds. A pattern we cannot analyse simply runs every time.

Patterns are paid for once: a rule pack's patterns are given as `Source`s, compiled only for
a message whose text passes their literal tests (by the engine that runs them, guard.timed),
and the literal tests themselves, which take parsing every pattern, are kept across processes
(`known_needles` / `prime`, stored beside the rules cache by store/rules_cache.py; those of
mdmem's own packs ship with them, `prime_shipped`). mdmem's own expressions that are slow to
search (the forget and verbatim requests) ask `may_match` / `AnyOf` first. Every test reads a
text as `lowered()` gives it, folded as `re.IGNORECASE` compares letters.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from typing import Any, Generic, TypeVar

try:  # the regex parser moved in 3.11; its output format is stable in practice
    from re import _constants as _c  # type: ignore[attr-defined]
    from re import _parser as _p  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - an interpreter without it just loses the speed-up
    _p = _c = None

_Alts = frozenset[str]
T = TypeVar("T")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")


_CACHE: dict[tuple[str, int], tuple[_Alts, ...]] = {}


def _folds() -> dict[int, str]:
    """Characters `re.IGNORECASE` takes for another that lower-casing keeps apart ("ſ" for "s",
    "ı" for "i"): each made the first of its group, in needles and texts alike."""
    try:
        from re._casefix import _EXTRA_CASES  # type: ignore[import-not-found]
    except ImportError:  # pragma: no cover - an older `re`: these few characters go unfolded
        return {}
    return {c: chr(min(c, *alts)) for c, alts in _EXTRA_CASES.items() if c != min(c, *alts)}


_FOLD = _folds()


def lowered(text: str) -> str:
    """The text as the literal tests read it: lower-cased, with the case-insensitive
    equivalents `re` knows made one ("İ" lower-cases to "i" and a combining dot)."""
    low = text.lower()
    return low if low.isascii() else low.replace("i\u0307", "i").translate(_FOLD)


class Source:
    """A pattern's text and flags, compiled by `re` only when something asks it more than
    those: the rule finder runs it through guard.timed (the `regex` engine, compiled there),
    and only for a message whose text passes its literal tests."""

    __slots__ = ("pattern", "flags", "_rx")

    def __init__(self, pattern: str, flags: int = re.UNICODE) -> None:
        self.pattern, self.flags = pattern, flags
        self._rx: re.Pattern[str] | None = None

    def __getattr__(self, name: str) -> Any:  # groupindex, search, …: compiled now, once
        if name.startswith("_"):
            raise AttributeError(name)
        if self._rx is None:
            self._rx = re.compile(self.pattern, self.flags)
        return getattr(self._rx, name)


Pattern = re.Pattern[str] | Source


def required(pattern: Pattern) -> tuple[_Alts, ...]:
    """Sets of strings (lower-cased): each match contains one string of every set."""
    key = (pattern.pattern, pattern.flags)
    if key not in _CACHE:  # parsing a pack's patterns takes a noticeable fraction of a second
        shipped = _SHIPPED.get(digest(pattern.pattern)) if _SHIPPED and pattern.flags == re.UNICODE else None
        _CACHE[key] = shipped if shipped is not None else _required(pattern)
    return _CACHE[key]


# The literal tests of mdmem's own packs' patterns, shipped with them (`prime_shipped`), by digest.
_SHIPPED: dict[str, tuple[_Alts, ...]] = {}


def digest(source: str) -> str:
    """A `Source` pattern's key among the shipped tests: 24 hex digits of its SHA-256."""
    return hashlib.sha256(source.encode()).hexdigest()[:24]


def prime_shipped(needles: dict[str, list[list[str]]]) -> None:
    """Take the literal tests shipped with mdmem's own packs (keyed by `digest`)."""
    for key, alts in needles.items():
        _SHIPPED.setdefault(key, tuple(frozenset(a) for a in alts))


def known_needles(sources: Iterable[str]) -> dict[str, list[list[str]]]:
    """The literal tests of those of these `Source` patterns worked out so far (here or by
    `prime`), JSON-ready, for the next process."""
    out = {}
    for src in sources:
        found = _CACHE.get((src, re.UNICODE))
        if found is not None:
            out[src] = [sorted(alts) for alts in found]
    return out


def prime(needles: dict[str, list[list[str]]]) -> None:
    """Take the literal tests another process worked out (`known_needles`) for these sources."""
    for src, alts in needles.items():
        key = (src, re.UNICODE)
        if key not in _CACHE:
            _CACHE[key] = tuple(frozenset(a) for a in alts)


def _required(pattern: Pattern) -> tuple[_Alts, ...]:
    if _p is None:
        return ()
    try:
        parsed = _p.parse(pattern.pattern, pattern.flags)
    except Exception:  # noqa: BLE001 - any parser quirk only costs the optimisation
        return ()
    found = [o for o in _options(list(parsed)) if o and all(_selective(s) for s in o)]
    # The most selective first (long needles, few of them); two tests are plenty. Ties go by
    # the needles themselves, so that every process (and the packs' shipped tests) agree.
    return tuple(sorted(set(found), key=lambda alts: (_score(alts), sorted(alts)), reverse=True)[:2])


def _selective(needle: str) -> bool:
    # One Latin letter is everywhere; one CJK character ("我") is rare in English chat.
    return len(needle) >= 2 or not needle.isascii()


def _score(alts: _Alts) -> tuple[int, int]:
    return (min(len(s) for s in alts), -len(alts))


def _best(options: Iterable[_Alts | None]) -> _Alts | None:
    usable = [o for o in options if o]
    return max(usable, key=_score) if usable else None


def _seq(items: list[tuple[Any, Any]]) -> _Alts | None:
    return _best(_options(items))


def _options(items: list[tuple[Any, Any]]) -> list[_Alts | None]:
    """For each part of a sequence, what it requires (every part is required)."""
    options: list[_Alts | None] = []
    run: list[str] = []
    for op, av in items:
        if op is _c.LITERAL:
            run.append(lowered(chr(av)))
            continue
        if run:
            options.append(frozenset(["".join(run)]))
            run = []
        options.append(_item(op, av))
    if run:
        options.append(frozenset(["".join(run)]))
    return options


def _item(op: Any, av: Any) -> _Alts | None:
    if op is _c.SUBPATTERN:
        return _seq(list(av[-1]))
    if op is _c.BRANCH:
        branches = [_seq(list(b)) for b in av[1]]
        if any(b is None for b in branches):
            return None  # one branch can match without any literal
        return frozenset(n for b in branches if b for n in b)
    if op in (_c.MAX_REPEAT, _c.MIN_REPEAT, getattr(_c, "POSSESSIVE_REPEAT", None)):
        lo, _hi, sub = av
        return _seq(list(sub)) if lo >= 1 else None
    if op is getattr(_c, "ATOMIC_GROUP", None):
        return _seq(list(av))
    return None  # classes, anchors, look-arounds, back-references: no literal to rely on


_GUARDS: dict[tuple[str, int], Guarded] = {}


def may_match(rx: Pattern, low: str) -> bool:
    """False only when `rx` certainly cannot match the text whose `lowered()` form is `low`;
    its literal tests are worked out the first time they are asked, kept for the process."""
    key = (rx.pattern, rx.flags)
    g = _GUARDS.get(key)
    if g is None:
        g = _GUARDS[key] = Guarded(rx)
    return g.may_match(low)


class AnyOf:
    """Several patterns' literal tests, with one search first (of each pattern's most
    selective set): False only when none of them can match. Worked out when first asked."""

    __slots__ = ("patterns", "_test")

    def __init__(self, *patterns: Pattern) -> None:
        self.patterns = patterns
        self._test: _AnyOf | None = None

    def may_match(self, low: str) -> bool:
        """False only when no pattern can match the text whose `lowered()` form is `low`."""
        if self._test is None:
            sets = [required(rx) for rx in self.patterns]
            if not all(sets):
                return True  # a pattern without literal tests may match anything
            self._test = _AnyOf(frozenset(n for alts in sets for n in max(alts, key=_score)))
        return self._test.search(low) is not None and any(may_match(rx, low) for rx in self.patterns)


class Guarded:
    """A compiled pattern and literal tests a sentence must pass before it is searched."""

    __slots__ = ("rx", "needles", "_tests")

    def __init__(self, rx: Pattern) -> None:
        self.rx = rx
        self.needles = required(rx)
        # Few needles: `in` is fastest. Many (a list of sixty cities): one alternation, whose
        # compiled first-character set lets the regex engine skip most positions.
        tests = [tuple(alts) if len(alts) <= 4 else _AnyOf(alts) for alts in self.needles]
        self._tests = tuple(sorted(tests, key=lambda t: not isinstance(t, tuple)))  # the `in` tests first

    def may_match(self, lowered: str) -> bool:
        """False only when the pattern certainly cannot match (`lowered`: the text's `lowered()`)."""
        for test in self._tests:
            if isinstance(test, tuple):
                for n in test:  # (a loop, not any(): this runs for every candidate of every sentence)
                    if n in lowered:
                        break
                else:
                    return False
            elif test.search(lowered) is None:
                return False
        return True


class _AnyOf:
    """A search for any of many needles, compiled the first time a text asks it."""

    __slots__ = ("alts", "rx")

    def __init__(self, alts: _Alts) -> None:
        self.alts = alts
        self.rx: re.Pattern[str] | None = None

    def search(self, text: str) -> re.Match[str] | None:
        if self.rx is None:
            self.rx = _alternation(self.alts)
        return self.rx.search(text)


def _alternation(alts: _Alts) -> re.Pattern[str]:
    return re.compile("|".join(re.escape(a) for a in sorted(alts, key=lambda a: (-len(a), a))))


def guard(rx: Pattern) -> Guarded:
    """Wrap a compiled pattern with its literal prefilter."""
    return Guarded(rx)


class PatternSet(Generic[T]):
    """Many guarded patterns; `candidates` finds the few a text could match in one pass."""

    def __init__(self, items: Iterable[tuple[T, Pattern]]) -> None:
        self.items = [(tag, guard(rx)) for tag, rx in items]
        self._always: list[int] = []
        by_needle: dict[str, list[int]] = {}
        for i, (_, g) in enumerate(self.items):
            if not g.needles:
                self._always.append(i)
                continue
            # Index each pattern under its rarest needle set (long needles, few of them).
            key = min(g.needles, key=lambda alts: sum(0.5 ** len(n) for n in alts))
            for needle in key:
                by_needle.setdefault(needle, []).append(i)
        self._by_needle = by_needle
        cjk = {n for n in by_needle if _CJK.search(n)}
        self._plain = sorted(set(by_needle) - cjk)
        self._cjk = sorted(cjk)

    def candidates(self, lowered: str) -> list[tuple[T, Guarded]]:
        """Patterns that may match somewhere in `lowered` (a text's `lowered()`), in their order."""
        hit = set(self._always)
        needles = self._plain + self._cjk if _CJK.search(lowered) else self._plain
        for needle in [n for n in needles if n in lowered]:  # (a comprehension: twice as fast)
            hit.update(self._by_needle[needle])
        items = self.items
        return [items[i] for i in sorted(hit) if items[i][1].may_match(lowered)]  # every needle set
