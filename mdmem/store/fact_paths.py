"""Where a transaction's fact files go: each key's vault-relative path, its slugs checked.

Whether a path stays inside the vault is checked where the file is opened (`mdmem.boundary`),
not by looking first: a look and an open are two moments, an open is one.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from mdmem.model.slug import check_slug


def fact_rels(root: Path, keys: Iterable[str]) -> dict[str, str]:
    """Each 'entity/attribute' key's vault-relative fact file (SlugError for a bad slug)."""
    out: dict[str, str] = {}
    for key in keys:
        entity, _, attribute = key.partition("/")
        out[key] = f"facts/{check_slug(entity, 'entity')}/{check_slug(attribute)}.md"
    return out
