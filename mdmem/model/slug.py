"""Entity and attribute slugs, and the only way a slug becomes a path inside the vault."""

from __future__ import annotations

import functools
import re
import unicodedata
from pathlib import Path

from mdmem.errors import SlugError

MAX_SLUG = 64
_SLUG_RE = re.compile(r"[\w-]+")  # \w is Unicode-aware: letters (incl. CJK), digits, _
# Names Windows will not open as files, whatever follows them (a vault is also a git repository
# someone may clone there): con.md is the console, not a fact.
RESERVED = frozenset(
    ["con", "prn", "aux", "nul"] + [f"{d}{i}" for d in ("com", "lpt") for i in "123456789¹²³"]
)


def check_slug(name: str, kind: str = "attribute") -> str:
    """Return the NFKC-normalised slug or raise SlugError saying why it is refused.
    NFKC, so that look-alikes are one name: full-width ａｂ is ab, ﬁ is fi."""
    if not isinstance(name, str):
        raise SlugError(f"{kind} must be text, got {type(name).__name__}")
    return _checked(name, kind)  # a vault's names repeat: each is checked once a process


@functools.lru_cache(maxsize=8192)  # refusals raise, and are never cached
def _checked(name: str, kind: str) -> str:
    slug = unicodedata.normalize("NFKC", name)
    if "\x00" in slug:
        raise SlugError(f"{kind} {slug!r} contains a NUL byte")
    if not slug:
        raise SlugError(f"{kind} is empty")
    if slug != slug.lower():
        raise SlugError(f"{kind} {slug!r} must be lower-case: use {slug.lower()!r}")
    if slug[0] in ".-":
        raise SlugError(f"{kind} {slug!r} must not start with '{slug[0]}'")
    if len(slug) > MAX_SLUG:
        raise SlugError(f"{kind} {slug[:20]!r}… is {len(slug)} characters; the limit is {MAX_SLUG}")
    if not _SLUG_RE.fullmatch(slug):
        bad = next(c for c in slug if not _SLUG_RE.fullmatch(c))
        raise SlugError(
            f"{kind} {slug!r} contains {bad!r}: use letters, digits, '_' and '-' only"
            f" (try {slugify(slug)!r})"
        )
    if slug in RESERVED:
        raise SlugError(
            f"{kind} {slug!r} is a device name on Windows, where no file can have it;"
            f" use another (e.g. {slug + '_'!r})"
        )
    return slug


def slugify(text: str) -> str:
    """Turn free text ('Team Lead', '社保 城市') into a slug, or '' when nothing is left."""
    text = unicodedata.normalize("NFKC", text).lower().strip()
    text = re.sub(r"[^\w-]+", "_", text)
    text = re.sub(r"_+", "_", text).strip("_-.")
    text = text[:MAX_SLUG].rstrip("_-")
    return text + "_" if text in RESERVED else text


VERBATIM_SLOT = "note"  # where a verbatim request with no slot of its own is kept: note, note_2, …


def is_fact_name(name: str) -> bool:
    """A file name that can hold a fact. Editors' swap, backup and temporary files either
    start with a dot (.home_city.md.swp) or do not end in .md (home_city.md~), so this is all."""
    return name.endswith(".md") and not name.startswith(".")


def fact_key(entity: str, attribute: str) -> str:
    """The 'entity/attribute' name used in journals, rules and messages."""
    return f"{entity}/{attribute}"


def split_key(key: str, default_entity: str = "user") -> tuple[str, str]:
    """Split 'entity/attribute' (or a bare 'attribute') into checked slugs."""
    if "/" in key:
        entity, _, attribute = key.partition("/")
        if "/" in attribute:
            raise SlugError(f"{key!r} has more than one '/': expected entity/attribute")
        return check_slug(entity, "entity"), check_slug(attribute)
    return check_slug(default_entity, "entity"), check_slug(key)


def fact_path(root: Path, entity: str, attribute: str) -> Path:
    """Path of the fact file for (entity, attribute), its slugs checked. Whether it stays
    inside the vault (no link out on the way) is checked as it is opened: `mdmem.boundary`."""
    return root / "facts" / check_slug(entity, "entity") / (check_slug(attribute) + ".md")
