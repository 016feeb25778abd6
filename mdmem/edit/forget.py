"""Forgetting, with the search caches scrubbed at once.

`Vault.forget` and `Vault.forget_text` tombstone facts and redact the episodes; the search
caches under `.mdmem/` would drop the words at their next refresh. Here that refresh happens
straight away, so a forgotten word is in no file of the vault the moment the command returns.
"""

from __future__ import annotations

from mdmem.read.index import Index
from mdmem.read.passages import PassageIndex
from mdmem.store.vault import Result, Vault


def scrub_search_caches(vault: Vault) -> None:
    """Bring both search caches up to date now (each merges away deleted words)."""
    with Index(vault.root) as index:
        index.refresh()
    passages = PassageIndex(vault.root, vault.meta)
    try:
        passages.refresh()
    finally:
        passages.close()


def forget(vault: Vault, attribute: str, *, entity: str = "user", purge: bool = False,
           dry_run: bool = False) -> Result:  # fmt: skip
    """`mdmem forget ATTRIBUTE`: the fact, its words in the episodes, and the caches."""
    result = vault.forget(attribute, entity=entity, purge=purge, dry_run=dry_run)
    if not dry_run:
        scrub_search_caches(vault)
    return result


def forget_text(vault: Vault, phrase: str, *, purge: bool = False, dry_run: bool = False) -> Result:
    """`mdmem forget --text PHRASE`: the words everywhere, and the caches."""
    result = vault.forget_text(phrase, purge=purge, dry_run=dry_run)
    if not dry_run:
        scrub_search_caches(vault)
    return result
