"""Forgetting, with every cache scrubbed before the command returns.

`Vault.forget`, `Vault.forget_text` and `forget_all` tombstone facts and cut the statements
that said them (`store.forget_apply`); here both search caches are brought up to date straight
away under the same lock (deleted words are merged out of the full-text segments, freed pages
zeroed), a cache's stale SQLite journal is deleted with it, and the forget's marker is lifted:
a forgotten word is in no file of the vault the moment the command returns, and a kill before
that leaves the marker, so the next command deletes the caches and rebuilds them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from mdmem.errors import RefusedError
from mdmem.read.index import Index
from mdmem.read.passages import PassageIndex
from mdmem.store import scrub
from mdmem.store.cachedb import discard
from mdmem.store.forget_apply import Forgot, forget_facts
from mdmem.store.vault import Vault


def scrub_search_caches(vault: Vault) -> None:
    """Bring both search caches up to date now (each merges away deleted words); a cache
    beside which a kill left a journal or log (old pages) is deleted instead, and rebuilt."""
    for side in scrub.stale_side_files(vault.meta):
        discard(side.with_name(side.name.rsplit("-", 1)[0]))
        side.unlink(missing_ok=True)
    with Index(vault.root) as index:
        index.refresh()
    passages = PassageIndex(vault.root, vault.meta)
    try:
        passages.refresh()
    finally:
        passages.close()


@contextmanager
def scrubbing(vault: Vault) -> Iterator[None]:
    """Hold the lock through a forget and its scrub: the marker is down from before the forget
    writes until both search caches are scrubbed (a kill in between: the next command drops
    them)."""
    with vault.lock:
        vault.recover()  # a kill's marker first
        scrub.mark(vault.meta, {})
        try:
            yield
        finally:
            scrub_search_caches(vault)
            scrub.unmark(vault.meta)


def _run(vault: Vault, act: Callable[[], Forgot], dry_run: bool) -> Forgot:
    if dry_run:
        return act()
    with scrubbing(vault):
        return act()


def forget(vault: Vault, attribute: str, *, entity: str = "user", purge: bool = False,
           dry_run: bool = False) -> Forgot:  # fmt: skip
    """`mdmem forget ATTRIBUTE`: the fact, the statements that said it, and the caches."""
    return _run(vault, lambda: vault.forget(attribute, entity=entity, purge=purge, dry_run=dry_run), dry_run)  # fmt: skip


def forget_text(vault: Vault, phrase: str, *, purge: bool = False, dry_run: bool = False) -> Forgot:
    """`mdmem forget --text PHRASE`: the words everywhere, and the caches."""
    return _run(vault, lambda: vault.forget_text(phrase, purge=purge, dry_run=dry_run), dry_run)


def forget_all(vault: Vault, *, purge: bool = False, dry_run: bool = False) -> Forgot:
    """`mdmem forget --all`: every fact, and every message of every episode."""
    keys = sorted(k for k, f in vault.scan(refresh=True)[0].items() if f.status != "deleted")
    if not keys and not (vault.root / "episodes").is_dir():
        raise RefusedError("there is nothing to forget: the vault holds no fact and no episode")
    wanted = dict.fromkeys(keys)
    return _run(vault, lambda: forget_facts(vault, wanted, purge=purge, dry_run=dry_run, wipe=True), dry_run)  # fmt: skip
