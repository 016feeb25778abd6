"""The Vault: a folder of fact files plus rules.yaml, read and changed through one object."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mdmem import boundary
from mdmem.engine.statement import Statement
from mdmem.errors import RefusedError, RulesError, VaultLocked, VaultNotFound
from mdmem.files import atomic_write, read_required
from mdmem.model.factfile import Fact, render
from mdmem.model.rules import Rules
from mdmem.model.slug import check_slug
from mdmem.store import scrub, txn
from mdmem.store.cachedb import paused_gc, settle_journals
from mdmem.store.episodes import fact_values
from mdmem.store.fact_paths import fact_rels
from mdmem.store.guards import (
    Problem,
    refuse_broken,
    refuse_cycle,
    refuse_long,
    refuse_too_large,
    shas_of,
)
from mdmem.store.journal import Journal, make_entry
from mdmem.store.lastgood import GOOD_RULES_FILE, good_rules, journal_facts
from mdmem.store.links import linked
from mdmem.store.lock import VaultLock
from mdmem.store.manifest import Manifest
from mdmem.store.rules_cache import CACHE_FILE as RULES_CACHE
from mdmem.store.snapshot import SAVE_AFTER, Snapshot
from mdmem.store.snapshot_entry import Record
from mdmem.store.snapshot_kept import Kept, keep_written, kept_also
from mdmem.store.walk import fact_files
from mdmem.temps import remove_temps

# check, names, forget_apply, the graph and the planner are imported where used: a read (`ask`,
# a plain `check`) needs none of them (the first three reach the extractor's hundreds of regexes).
if TYPE_CHECKING:
    from mdmem.engine.decide import Plan
    from mdmem.model.graph import Graph
    from mdmem.store.forget_apply import Forgot

DEFAULT_ENTITY = "user"
ExtraOps = Callable[[str], Sequence[tuple[str, str | None]]]  # journal id -> (path, text or None)
RULES_FILE = "rules.yaml"
PASSAGES_FILE = "passages.sqlite"  # the passage search cache under .mdmem/
META_GITIGNORE = "# mdmem's caches, index and lock are rebuildable; the journal is history.\n*\n!.gitignore\n!journal.jsonl\n"
# A crash mid-write can leave `.name.XXXXXXXX.tmp` beside a file until the next write removes it.
ROOT_GITIGNORE = "# mdmem's temporary files (a crash can leave one; the next write removes it)\n.*.tmp\n"


def utc_now() -> str:
    """Now as recorded_at wants it; MDMEM_NOW pins it for reproducible runs and tests."""
    pinned = os.environ.get("MDMEM_NOW")
    if pinned:
        return pinned
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class Result:
    """What a write did (or, with dry_run, would do)."""

    plan: Plan
    entry: dict[str, Any] | None
    dry_run: bool = False
    notes: list[str] = field(default_factory=list)  # for the person: a name made on purpose


class Vault:
    """One person's memory. All writes go through `apply`, under the vault lock."""

    def __init__(self, root: Path | str, *, now: str | None = None, wait: float = 10.0) -> None:
        self.root = Path(root).resolve()
        if not (self.root / RULES_FILE).is_file():
            raise VaultNotFound(
                f"no {RULES_FILE} here; create a vault with `mdmem init PATH`", path=str(root)
            )
        self._now = now
        self.meta = self.root / ".mdmem"
        boundary.register(self.root)  # from now on every path below the root is checked at open
        with contextlib.suppress(FileNotFoundError):  # refused now if it leads out, not mid-command
            os.close(boundary.open_folder(self.meta))
        self._journals_settled = False
        self.journal = Journal(self.meta / "journal.jsonl")
        self.manifest = Manifest(self.meta / "written.json")
        self.lock = VaultLock(self.meta / "lock", wait)
        self._rules: Rules | None = None
        self._scan: tuple[dict[str, Fact], list[Problem]] | None = None
        self._served: dict[str, Fact] | None = None
        self._snap: Snapshot | None = None
        self._kept: Kept | None = None  # fact files written since _snap was refreshed: see scan()
        self.notes: list[str] = []  # what recovery did, for the caller to tell the person
        self.report: Callable[[str], None] = lambda note: None  # the CLI prints notes here
        if (self.meta / scrub.MARK).exists():  # a forget was killed: before any cache is open
            self.settle()

    # --- finding and creating -----------------------------------------------------------

    @classmethod
    def find(cls, start: Path | str | None = None, **kwargs: Any) -> Vault:
        """The vault at start, or the nearest folder upward that holds rules.yaml."""
        here = Path(start or Path.cwd()).resolve()
        for folder in (here, *here.parents):
            if (folder / RULES_FILE).is_file():
                return cls(folder, **kwargs)
        raise VaultNotFound(
            f"no {RULES_FILE} in {here} or above; pass --vault PATH, set MDMEM_VAULT, or run `mdmem init`"
        )

    @classmethod
    def create(cls, path: Path | str, pack: str = "personal", **kwargs: Any) -> Vault:
        """Make a new vault with a rule pack; refuses to overwrite an existing rules.yaml."""
        from mdmem.store.packs import is_own_pack, pack_path
        from mdmem.store.rules_cache import pack_rules, write_validated
        root = Path(path)
        if (root / RULES_FILE).exists():
            raise RefusedError(f"{root / RULES_FILE} already exists; not overwriting it")
        source = pack_path(pack)
        text = read_required(source, RulesError, "not found")
        # Refuse a broken pack before creating anything. mdmem's own packs are validated
        # by its tests, so their regexes are not compiled here (a few hundred compiles, most
        # of what `init` cost); any other pack is checked in full.
        rules, cached = pack_rules(Path(source), text, own=is_own_pack(source))
        (root / "facts").mkdir(parents=True, exist_ok=True)
        root = Path(boundary.register(root.resolve()))  # what follows is written inside it only
        atomic_write(root / RULES_FILE, Path(source).read_bytes(), expect=None)
        # Validated: the next command reads it from the cache, without parsing it again.
        with contextlib.suppress(OSError):
            write_validated(root / ".mdmem" / RULES_CACHE, text, rules, cached)
            atomic_write(root / ".mdmem" / GOOD_RULES_FILE, text, durable=False)
        atomic_write(root / ".mdmem" / ".gitignore", META_GITIGNORE)
        if not (root / ".gitignore").exists():  # a person's own is theirs
            atomic_write(root / ".gitignore", ROOT_GITIGNORE)
        return cls(root, **kwargs)

    # --- reading ------------------------------------------------------------------------

    @property
    def now(self) -> str:
        return self._now or utc_now()

    @property
    def rules(self) -> Rules:
        if self._rules is None:
            # A rules.yaml that stopped validating leaves the last good copy in force.
            self._rules = good_rules(self.root, self.meta).rules
        return self._rules

    def rel(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    def fact_files(self) -> list[Path]:
        """Fact files in name order, skipping editors' swap and temporary files."""
        return fact_files(self.root)

    def scan(self, refresh: bool = False) -> tuple[dict[str, Fact], list[Problem]]:
        """Every fact that parses, keyed 'entity/attribute', and a Problem for each that doesn't."""
        if self._scan is not None and not refresh:
            return self._scan
        kept, self._kept = self._kept, None  # what we wrote goes into the snapshot, unwalked
        snap = (None if refresh else keep_written(self._snap, self.root, kept, self.journal.path, lambda: self.manifest.data)) or self._refreshed()
        facts, problems, self._served = snap.facts(self.root)
        self._scan = (facts, [Problem(*p) for p in problems])
        return self._scan

    def _refreshed(self) -> Snapshot:
        """The snapshot cache, refreshed: only files whose signature changed are parsed again."""
        self.settle()
        self._scan, self._kept, self._snap = None, None, (snap := Snapshot.open(self.meta))  # read again
        snap.refresh(self.root, lambda: self.manifest.data, lambda: journal_facts(self.journal.entries()))  # fmt: skip
        snap.save(self.root)
        return snap

    def parsed(self, rels: list[str]) -> dict[str, Record | None]:
        """These files' facts through the snapshot, each with its stored text (None: does
        not parse), so that one parse and one encoding of a changed file serve the search
        index too; see `Snapshot.records_of`.

        Empty for a few files when this process has not read the snapshot yet: loading it
        costs more than parsing them where they are needed. A caller going through many
        files asks a chunk at a time: the parses handed out are not kept (`absorb`, `release`)."""
        self.settle()
        snap = Snapshot.open(self.meta)
        journaled = lambda: journal_facts(self.journal.entries())  # noqa: E731
        if len(rels) >= SAVE_AFTER or snap.absorbing:
            first = snap.absorb(self.root, rels, lambda: self.manifest.data, journaled)
            if first is not None:
                return first
        if len(rels) < SAVE_AFTER and not Snapshot.warm(self.meta):
            return {}
        snap.refresh(self.root, lambda: self.manifest.data, journaled, only=rels)
        got = snap.records_of(rels)  # before the save, which lets go of the texts it wrote
        snap.save(self.root)
        snap.release(rels)
        return got

    @property
    def facts(self) -> dict[str, Fact]:
        """Facts to read from: each that parses, and the last good state of each that doesn't."""
        self.scan()
        assert self._served is not None
        return self._served

    def count(self) -> int:
        """How many facts there are to read from: `len(self.facts)`, without reading one."""
        if self._served is not None:
            return len(self._served)
        return (self._snap or self._refreshed()).count()

    def get(self, attribute: str, entity: str = DEFAULT_ENTITY) -> Fact | None:
        return self.facts.get(f"{check_slug(entity, 'entity')}/{check_slug(attribute)}")

    def graph(self) -> Graph:
        from mdmem.model.graph import Graph  # noqa: PLC0415 - see the imports
        return Graph(self.rules, self.facts)

    def pending(self) -> list[dict[str, Any]]:
        """Questions waiting for the person (engine/pending.py), oldest change first."""
        from mdmem.engine.pending import pending
        return pending(self.facts, self.rules, self.now[:10])

    def check(self) -> list[Problem]:
        """Every problem with the rules, the fact files, the learned graph and links (`check`)."""
        from mdmem.store.check import check
        return check(self)

    def name_warnings(self) -> list[Problem]:
        """Facts whose attribute rules.yaml does not declare and that look like a slip (`names`)."""
        from mdmem.store.check import name_problems
        return name_problems(self)

    # --- writing ------------------------------------------------------------------------

    def say(
        self,
        statements: list[Statement],
        *,
        command: str,
        source: dict[str, Any] | None = None,
        dry_run: bool = False,
        extra: ExtraOps | None = None,
        new: bool = False,
        heard: bool = False,
        today: str | None = None,
    ) -> Result:
        """Decide and apply statements as one journaled batch (nothing written on dry_run);
        with `today`, plans past their day become uncertain in the same batch (ingest, sync).

        Every attribute named must be known (`names`), unless `new` (made on purpose) or
        `heard` (the statements were heard in conversation: ingest names what was said)."""
        for st in statements:
            refuse_long(st)
        with self.lock, paused_gc():  # a batch builds plans, texts and records: all acyclic
            self.recover()
            facts, problems = self.scan(refresh=True)
            from mdmem.store.names import checked_names  # noqa: PLC0415 - see the imports

            notes = [] if heard else checked_names(statements, self.rules, facts, new=new)
            now = self.now
            from mdmem.engine.decide import plan_statements  # noqa: PLC0415 - see the imports
            plan = plan_statements(facts, self.rules, statements, now=now, today=today)
            refuse_broken(plan, problems)
            if any(c.after is not None and c.after.depends_on for c in plan.changes):
                refuse_cycle(self.rules, facts, plan)
            if dry_run or not plan.changes:
                return Result(plan, None, dry_run, notes)
            entry = self.apply(plan, command=command, source=source or {"kind": command}, extra=extra)
            return Result(plan, entry, notes=notes)

    def read_shas(self, rels: list[str]) -> dict[str, str | None]:
        """The SHA-256 of each file as the last scan read it (None: absent), for apply's check."""
        return shas_of(self._snap, rels) if self._snap is not None else {}

    def apply(self, plan: Plan, *, command: str, source: dict[str, Any], extra: ExtraOps | None = None,
              expect: dict[str, str | None] | None = None) -> dict[str, Any]:  # fmt: skip
        """Write a plan as one transaction and journal it (the caller holds the lock); `extra(id)`
        gives more files for it (episodes, redactions); `expect` the SHA-256 of each file as
        planned from (by default, what the last scan read): a file saved since is a conflict."""
        if expect is None:
            expect = self.read_shas([f"facts/{c.key}.md" for c in plan.changes])
        final = linked(plan, self.rules)  # every fact written carries its upstream links
        rels = fact_rels(self.root, final)  # checked at one lstat a file, not two resolves
        ops = [(rels[k], render(f) if f is not None else None) for k, f in final.items()]
        refuse_too_large(final, ops)
        entry = make_entry(plan.changes, now=self.now, source=source, command=command)
        if extra is not None:
            ops += list(extra(entry["id"]))
        kept, self._scan, self._kept = self._kept, None, None
        txn.commit(self.root, self.journal, self.manifest, entry, ops, expect)
        self._kept = kept_also(kept, ops, rels.values(), self.journal.path) if self._snap is not None else None
        return entry

    def recover(self) -> str | None:
        """Finish or roll back a transaction a crash interrupted (caller holds the lock)."""
        note = txn.recover(self.root, self.journal, self.manifest, now=self.now)
        scrubbed = scrub.recover(self.meta, self.journal)  # a forget killed before its caches
        note = "; ".join(n for n in (note, scrubbed) if n) or None
        if note is not None:
            self._scan, self._kept = None, None
            self.notes.append(note)
            self.report(note)
        return note

    def settle(self) -> None:
        """Finish or roll back a crashed transaction before reading (waiting for a writer at
        work), so no reader answers from a half-applied vault; `check` reports one left."""
        remove_temps(self.meta, abandoned=True)  # a cache save a kill cut short
        if not self._journals_settled:  # a cache database's journal a kill left behind
            self._journals_settled = True
            settle_journals(self.meta)
        if not (self.meta / txn.TXN_FILE).exists() and not (self.meta / scrub.MARK).exists():
            return  # the usual case
        with contextlib.suppress(VaultLocked, OSError), self.lock:
            self.recover()

    def statement(self, attribute: str, entity: str = DEFAULT_ENTITY, **kwargs: Any) -> Statement:
        """A Statement with checked slugs."""
        return Statement(entity=check_slug(entity, "entity"), attribute=check_slug(attribute), **kwargs)

    def set(self, attribute: str, value: str | list[str], *, entity: str = DEFAULT_ENTITY, date: str | None = None,
            dry_run: bool = False, tentative: bool = False, new: bool = False,
            source: str = "cli") -> Result:  # fmt: skip
        """The person states a value, as if said (`mdmem set`; `source`: `mcp` for an agent's);
        `new` makes an unknown name."""
        at = date or self.now[:10]
        how = "with `mdmem set`" if source == "cli" else f"through {source} (`set`)"
        st = self.statement(attribute, entity, value=value, at=at, source=source, tentative=tentative, body=f"Stated {how} on {at}.")  # fmt: skip
        return self.say([st], command="set", dry_run=dry_run, new=new)

    def forget(self, attribute: str, *, entity: str = DEFAULT_ENTITY, purge: bool = False, dry_run: bool = False) -> Forgot:  # fmt: skip
        """The person asks to forget a fact: a tombstone stays, what was derived from it goes,
        dependents become uncertain, and the statements that said it show '[forgotten]'."""
        st = self.statement(attribute, entity, kind="forget")
        if self.get(st.attribute, st.entity) is None:
            raise RefusedError(f"there is no {st.key} to forget{self._near(st.attribute)}")
        from mdmem.store.forget_apply import forget_facts  # noqa: PLC0415 - see the imports
        return forget_facts(self, {st.key: None}, purge=purge, dry_run=dry_run)

    def forget_text(self, phrase: str, *, purge: bool = False, dry_run: bool = False) -> Forgot:
        """Forget a phrase everywhere: the values that held it (a fact holding nothing else
        becomes a tombstone), and the words in fact bodies and episodes (the journal too,
        with `purge`)."""
        phrase = phrase.strip()
        if len(phrase) < 2:
            raise RefusedError("give the words to forget (at least two characters)")
        held = {
            f.key: [v for v in fact_values(f) if phrase.casefold() in v.casefold()]
            for f in self.scan(refresh=True)[0].values() if f.status != "deleted"
        }  # fmt: skip
        wanted = {k: v for k, v in held.items() if v}
        from mdmem.store.forget_apply import forget_facts  # noqa: PLC0415 - see the imports
        return forget_facts(self, wanted, phrases=[phrase], purge=purge, dry_run=dry_run)

    def confirm(self, attribute: str, *, entity: str = DEFAULT_ENTITY, value: str | None = None,
                keep: bool = False, reject: bool = False, dry_run: bool = False) -> Result:  # fmt: skip
        """Answer a pending question: a new VALUE, --keep the shown one, or --reject it."""
        if sum([value is not None, keep, reject]) != 1:
            raise RefusedError("give exactly one of VALUE, --keep or --reject")
        fact = self.get(attribute, entity)
        if fact is None or fact.status == "deleted":
            raise RefusedError(f"there is no {entity}/{attribute} to confirm{self._near(attribute)}")
        at = self.now[:10]
        if value is not None and fact.kind == "plan":
            raise RefusedError(
                f"{fact.key} is a plan: answer with --keep (it happened) or --reject (it did not);"
                " a changed plan is told like any plan, or edited in its file"
            )
        if value is not None:
            st = self.statement(attribute, entity, value=value, at=at, source="cli")
        else:
            if fact.status == "active":
                raise RefusedError(f"{fact.key} is already active; nothing to confirm")
            st = self.statement(attribute, entity, kind="keep" if keep else "reject", at=at, source="cli")  # fmt: skip
        return self.say([st], command="confirm", dry_run=dry_run)

    def correct(self, attribute: str, value: str | list[str], *, entity: str = DEFAULT_ENTITY,
                dry_run: bool = False, new: bool = False) -> Result:  # fmt: skip
        """Replace a wrong value as if it had never been said (`mdmem fix`)."""
        at = self.now[:10]
        st = self.statement(attribute, entity, kind="correct", value=value, at=at, source="cli",
                            body=f"Stated with `mdmem fix` on {at}.")  # fmt: skip
        return self.say([st], command="fix", dry_run=dry_run, new=new)

    def _near(self, attribute: str) -> str:
        """' (did you mean employer?)' among the known names, for a fact that is not there."""
        from mdmem.store.names import did_you_mean, known_names
        return did_you_mean(attribute, known_names(self.rules, self.facts))

