"""What the snapshot answers about many files without reading every entry or parse: how many
facts there are, which files do not parse, the facts a dependency cycle can pass through.
While the entries are not in memory, each question is one query of the cache database."""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from mdmem import boundary
from mdmem.errors import SlugError
from mdmem.model.factfile import Fact
from mdmem.model.slug import split_key
from mdmem.store.cachedb import paused_gc
from mdmem.store.snapshot_db import SnapStore
from mdmem.store.snapshot_entry import Entry, Record, decode, row_text

F = TypeVar("F", bound=Callable[..., Any])


def locked(method: F) -> F:
    """One thread at a time per snapshot: a process shares one copy between its Vaults."""

    @functools.wraps(method)
    def wrapper(self: SnapshotQueries, *args: Any, **kwargs: Any) -> Any:
        # Snapshots build acyclic data only; each folder is walked to (and checked) once a call.
        with self._mutex, paused_gc(), boundary.batch():
            return method(self, *args, **kwargs)

    return wrapper  # type: ignore[return-value]


class SnapshotQueries:
    """The questions; Snapshot (store/snapshot.py) holds the state they read."""

    meta: Path
    store: SnapStore
    _entries: dict[str, Entry] | None
    _mutex: threading.RLock
    _walked: list[tuple[str, list[str]]] | None
    _sweep: str | None
    _saved_sweep: str | None
    touched: set[str]

    if TYPE_CHECKING:  # Snapshot's

        @property
        def entries(self) -> dict[str, Entry]: ...

        def load_rows(self, root: Path, rels: list[str] | None = None) -> None: ...

    @locked
    def count(self) -> int:
        """How many facts reads are served from (each file that parses, and the last good
        state of each that does not): `facts()`'s length, without reading any parse."""
        if self._entries is None:
            return self.store.count_good()
        return sum(1 for e in self._entries.values() if e.good_sha is not None)

    @locked
    def good_shas(self) -> dict[str, str]:
        """Path -> SHA-256 of each present file that parses (without reading the entries if
        not read): what a first sync takes as it is."""
        if self._entries is None:
            return self.store.good_shas()
        return {rel: e.sha for rel, e in self._entries.items() if e.problem is None}

    @locked
    def problems(self) -> list[tuple[str, int | None, str]]:
        """(path, line, message) of each file that does not parse, in path order."""
        broken = self._select("problem IS NOT NULL", (), lambda r, e: e.problem is not None)
        return [(rel, *e.problem) for rel, e in broken.items() if e.problem is not None]

    @locked
    def cycle_facts(self) -> dict[str, Fact]:
        """The facts that parse of every entity a dependency cycle can pass through.

        Rules alone cannot close a loop (rules.yaml is refused with one), so a cycle takes a
        `depends_on` edge, and each entity on it holds the dependent or the trigger of one. No
        path enters those entities from outside, so their facts' graph finds the cycle the
        whole vault's graph would, and the same one first.
        """
        return self.facts_of_entities(set())

    @locked
    def facts_of_entities(self, entities: set[str]) -> dict[str, Fact]:
        """The facts that parse of these entities and of every entity a learned dependency
        touches (see `cycle_facts`): all a change to these entities' facts can reach, since a
        rule's edges stay within one entity and every learned edge is among them. A cascade
        from one edited file reads these, not the vault's."""
        learned = self._select("learned = 1 AND problem IS NULL", (),
                               lambda r, e: e.learned and e.problem is None)  # fmt: skip
        entities = set(entities)
        for rel, e in self._with_rows(learned).items():
            row = e.row or {}
            entity = row.get("entity", rel.split("/")[1])
            entities.add(entity)
            for dep in row.get("depends_on") or []:
                with contextlib.suppress(SlugError, KeyError, TypeError, AttributeError):
                    entities.add(split_key(dep["on"], entity)[0])  # as the graph reads it
        if len(entities) > 200:
            self.entries  # noqa: B018 - many: one read of all beats many small ones
        ranges = [(f"facts/{ent}/", f"facts/{ent}0") for ent in sorted(entities)]
        where = " OR ".join("(path >= ? AND path < ?)" for _ in ranges)
        chosen = self._select(f"({where or '0'})", [x for r in ranges for x in r],
                              lambda r, e: r.split("/")[1] in entities)  # fmt: skip
        out: dict[str, Fact] = {}
        for e in self._with_rows(chosen).values():
            if e.problem is None and e.row is not None:
                out[f"{e.row['entity']}/{e.row['attribute']}"] = decode(e.row)
        return dict(sorted(out.items()))

    def _select(self, where: str, args: Any, keep: Callable[[str, Entry], bool]) -> dict[str, Entry]:  # fmt: skip
        """The present entries `keep` accepts: from memory, or only these from the database."""
        if self._entries is not None:
            return {r: e for r, e in self._entries.items() if keep(r, e)}
        return self.store.entries(f"{where} AND gone = 0", args)[0]

    def _with_rows(self, chosen: dict[str, Entry]) -> dict[str, Entry]:
        """These entries with their parsed facts read."""
        if self._entries is None:
            rows = self.store.rows(list(chosen))
            for rel, e in chosen.items():
                kept = rows.get(rel)
                if kept is not None and kept[0] == e.good_sha:
                    e.row = kept[1]
            if all(e.row is not None or e.good_sha is None for e in chosen.values()):
                return chosen
            chosen = {r: self.entries[r] for r in chosen if r in self.entries}  # lost: healed
        self.load_rows(self.meta.parent, list(chosen))
        return chosen

    @locked
    def records_of(self, rels: list[str]) -> dict[str, Record | None]:
        """The facts of these files as last refreshed, each with its stored text (the search
        index stores the same: one encoding serves both): None for one that does not parse,
        and nothing for one the snapshot does not hold."""
        self.load_rows(self.meta.parent, rels)
        out: dict[str, Record | None] = {}
        for rel in rels:
            e = self.entries.get(rel)
            if e is not None and e.problem is not None:
                out[rel] = None
            elif e is not None and e.row is not None:
                text = e.text if e.text is not None else row_text(e.row)
                out[rel] = None if text is None else (decode(e.row), text)
        return out

    @locked
    def shas(self) -> dict[str, str]:
        """Path -> SHA-256 of each present file (without reading the entries if not read)."""
        if self._entries is None:
            return self.store.shas()
        return {rel: e.sha for rel, e in self._entries.items()}

    @locked
    def facts(
        self, root: Path
    ) -> tuple[dict[str, Fact], list[tuple[str, int | None, str]], dict[str, Fact]]:
        """(facts that parse, problems as (path, line, message), facts to serve reads from).

        The last mapping adds, for each file that no longer parses, its last good state.
        """
        self.load_rows(root)
        good: dict[str, Fact] = {}
        last_good: dict[str, Fact] = {}
        problems: list[tuple[str, int | None, str]] = []
        new = Fact.__new__
        with paused_gc(freeze=True):
            for rel, e in self.entries.items():
                row = e.row
                if e.problem is not None:
                    problems.append((rel, *e.problem))
                if row is None:
                    continue
                fact = new(Fact)
                fact.__dict__ = dict(row)
                key = f"{row['entity']}/{row['attribute']}"
                if e.problem is None:
                    good[key] = fact
                else:
                    last_good[key] = fact
        served = dict(sorted({**good, **last_good}.items())) if last_good else good
        return good, problems, served

    # --- what a walk that changed nothing still knows -------------------------------------------

    @locked
    def paths(self) -> list[str]:
        """Every present fact file's path: from the entries in memory, or the names of the walk
        that found nothing changed (its files are exactly the entries), or one query of the
        database."""
        if self._entries is not None:
            return list(self._entries)
        if self._walked is not None:
            return [f"facts/{ent}/{name}" for ent, names in self._walked for name in names]
        return list(self.store.shas())

    @locked
    def recalled(self, name: str, key: str) -> str | None:
        """What `remember` noted under name with this key, while neither the files nor the
        saved entries changed since; else None."""
        got = self.store.meta(name) if self._settled() else None
        head, _, value = (got or "").partition("\n")
        return value if got is not None and head == f"{self._sweep} {key}" else None

    @locked
    def remember(self, name: str, key: str, value: str) -> None:
        """Note value, worked out from these very files and key (see `recalled`)."""
        if self._settled() and not self.touched:
            self.store.note(name, f"{self._sweep} {key}\n{value}", self.store.meta("gen"))

    def _settled(self) -> bool:
        return self._sweep is not None and self._sweep == self._saved_sweep

    @locked
    def agrees(self, manifest: str) -> bool:
        """Whether `sync` found no edit in these very files against this very manifest."""
        return self._settled() and self.store.meta("agreed") == f"{self._sweep} {manifest}"

    @locked
    def agree(self, manifest: str) -> None:
        """Note that `sync` found no edit (kept until the files or the saved entries change)."""
        if self._settled() and not self.touched:
            self.store.note("agreed", f"{self._sweep} {manifest}", self.store.meta("gen"))
