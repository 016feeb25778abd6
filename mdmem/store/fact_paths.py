"""Where a transaction's fact files go, each checked to stay inside the vault at one lstat a file."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from mdmem.model.slug import check_slug, fact_path


def fact_rels(root: Path, keys: Iterable[str]) -> dict[str, str]:
    """Each 'entity/attribute' key's vault-relative fact file, refused (SlugError) where
    `fact_path` refuses it. `root` must be resolved. Each entity folder is resolved once; a
    folder that is a symlink, or a file that is one, gets `fact_path`'s full check."""
    out: dict[str, str] = {}
    plain: dict[str, bool] = {}  # entity -> its folder has no symlink on the way
    base = os.fspath(root)
    for key in keys:
        entity, _, attribute = key.partition("/")
        entity, attribute = check_slug(entity, "entity"), check_slug(attribute)
        rel = f"facts/{entity}/{attribute}.md"
        if entity not in plain:
            folder = root / "facts" / entity
            plain[entity] = folder.resolve() == folder
        if not plain[entity] or os.path.islink(os.path.join(base, rel)):
            fact_path(root, entity, attribute)  # raises when it leads outside
        out[key] = rel
    return out
