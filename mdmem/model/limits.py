"""How large what mdmem reads and writes may be.

Past each limit the file is refused with a message naming it, the limit and the fix, instead
of minutes of work or a traceback; under them every step is linear (RELIABILITY.md, "Limits",
has what was measured). The checks on a fact file's text are cheap scans done before any YAML
is read, so a 10 MB value or 50,000 fields cost a scan, not a parse.
"""

from __future__ import annotations

import re

from mdmem.lazy_regex import lazy

MAX_FACT_CHARS = 1_000_000  # a fact file (5,000 history entries of mdmem's own are ~0.8 MB)
MAX_FIELDS = 100  # top-level fields in a fact file's frontmatter (mdmem's own are 16)
MAX_DEPTH = 20  # levels of nesting in a fact file's frontmatter (mdmem writes at most 4)
MAX_VALUE = 10_000  # characters in a value; a list: in all its items
MAX_HISTORY = 5_000  # history entries of one fact (the journal keeps every change anyway)
MAX_RULES_CHARS = 500_000  # rules.yaml (the largest pack mdmem ships is 134 KB; YAML reads ~4 s a MB)
MAX_VOCAB = 5_000  # words in all the vocab lists of rules.yaml together (the packs: 489 at most)
MAX_PATTERN_CHARS = 400_000  # all of rules.yaml's patterns, word lists put in (personal: 134,433)
MAX_SPEAKERS = 1_000  # people speaking in one transcript (each may become an entity)


def fact_text_problem(text: str) -> tuple[int | None, str] | None:
    """(line, why) when a fact file's text is past a limit, else None. Reads no YAML: the usual
    file passes a few scans in C (a field count, the deepest indentation, bracket runs)."""
    if len(text) > MAX_FACT_CHARS:
        return None, (
            f"is {len(text):,} characters; a fact file holds at most {MAX_FACT_CHARS:,}: keep"
            " the value short, move long text to a note or an episode, and old history out"
            " (the journal keeps it: `mdmem log`)"
        )
    end = text.find("\n---", 3)
    head = text[: end if end >= 0 else len(text)]
    if head.count("\n") > MAX_FIELDS and len(_FIELD().findall(head)) > MAX_FIELDS:
        return _line(head, _FIELD(), MAX_FIELDS), (
            f"has more than {MAX_FIELDS} fields; a fact file holds at most {MAX_FIELDS}"
            " (mdmem's own are 16): remove the extra fields, or keep that text in the body"
        )
    if head.count("\n-") > MAX_HISTORY + MAX_FIELDS and len(_ITEM().findall(head)) > MAX_HISTORY + MAX_FIELDS:
        return _line(head, _ITEM(), MAX_HISTORY + MAX_FIELDS), (
            f"has more than {MAX_HISTORY + MAX_FIELDS:,} list entries; a fact keeps at most"
            f" {MAX_HISTORY:,} history entries and a value of {MAX_VALUE:,} characters: remove the"
            " oldest history (the journal keeps it: `mdmem log`), or shorten the list"
        )
    found = _DEEP_FLOW().search(head) or _DEEP_DASHES().search(head)
    at = head.count("\n", 0, found.start()) + 1 if found is not None else None
    if at is None and _DEEP_INDENT().search(head):
        at = _deepest_block(head)
    if at is not None:
        return at, (
            f"nests more than {MAX_DEPTH} levels deep; a fact file nests at most {MAX_DEPTH}"
            " (mdmem's own, 4): flatten it"
        )
    return None


_FIELD = lazy(r"^[^\s#\-\]}]", re.M)  # a line at the margin: a field of the frontmatter
_ITEM = lazy(r"^- ", re.M)  # an entry of a list at the margin (history, a value's items)
_DEEP_FLOW = lazy(rf"[\[{{](?:[^\]}}'\"\n]*[\[{{]){{{MAX_DEPTH}}}")  # brackets opened, none closed
_DEEP_DASHES = lazy(rf"^ *(?:- +){{{MAX_DEPTH + 1}}}", re.M)  # "- - - - …": a list in a list …
_DEEP_INDENT = lazy(rf"^ {{{MAX_DEPTH + 1},}}\S", re.M)  # deep enough to look closer


def _line(head: str, rx: re.Pattern[str], n: int) -> int:
    """The line of the (n+1)-th match of rx in the frontmatter."""
    for i, m in enumerate(rx.finditer(head)):
        if i == n:
            return head.count("\n", 0, m.start()) + 1
    return 1


def _deepest_block(head: str) -> int | None:
    """The line where block nesting (by indentation) first passes MAX_DEPTH, or None."""
    indents: list[int] = []  # the indentation of each open block, outermost first
    for n, line in enumerate(head.split("\n"), start=1):
        stripped = line.lstrip(" ")
        if not stripped or stripped.startswith("#"):
            continue
        indent = len(line) - len(stripped)
        while indents and indents[-1] >= indent:
            indents.pop()
        indents.append(indent)
        if len(indents) > MAX_DEPTH:
            return n
    return None


def value_problem(value: object) -> str | None:
    """Why a value is past MAX_VALUE, or None."""
    items = [value] if isinstance(value, str) else value if isinstance(value, list) else []
    size = sum(len(v) for v in items if isinstance(v, str))
    if size <= MAX_VALUE:
        return None
    return (
        f"is {size:,} characters; the limit is {MAX_VALUE:,}: keep the value short and put"
        " long text in the body"
    )
