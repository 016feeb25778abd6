"""Ingest transcripts: parse, extract, decide and apply as ONE journal entry per source.

A source whose SHA-256 is already in the journal (and not undone since) is skipped, so cron can
re-run an ingest freely; `reprocess` reads it again and applies only what is new
(`edit.reprocess`). A dry run plans every source against the state the sources before it would
have left, and writes nothing.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from mdmem.edit import gitcommit
from mdmem.edit.forget import scrub_search_caches
from mdmem.edit.ingest_result import IngestResult
from mdmem.edit.new_messages import (
    Deferred,
    NewMessages,
    applied_by_source,
    episode_ops,
    forgotten_phrases,
    statement_line,
)
from mdmem.edit.reprocess import only_new
from mdmem.engine.decide import Plan, Statement, plan_statements
from mdmem.errors import RefusedError, TranscriptError
from mdmem.extract.finder import Extraction, Finder
from mdmem.extract.guard import is_warning
from mdmem.extract.rule_finder import extract
from mdmem.extract.transcript import Message, parse_transcript, read_transcript
from mdmem.files import sha256
from mdmem.model.factfile import Fact
from mdmem.model.slug import fact_path
from mdmem.store.journal import live_entries
from mdmem.store.rules_cache import load_needles, save_needles
from mdmem.store.vault import ExtraOps, Vault, refuse_broken

# Editors' swap, backup and temporary files left beside transcripts in a folder.
EDITOR_JUNK = (".swp", ".swo", ".swx", "~", ".tmp", ".bak", ".orig")
# What a folder is read for; anything else in it (a README.txt is a .txt, a photo is not) is
# passed over. A file named on its own is read whatever its name.
TRANSCRIPT_TYPES = (".md", ".txt", ".jsonl", ".json")


def ingested_sources(vault: Vault) -> dict[str, dict[str, Any]]:
    """SHA-256 → journal entry, for every source ingested and not undone since."""
    out: dict[str, dict[str, Any]] = {}
    for e in live_entries(vault.journal.records()):
        src = e.get("source") or {}
        if isinstance(src, dict) and src.get("sha256"):
            out.setdefault(str(src["sha256"]), e)
    return out


class _Session:
    """One ingest run: the journal's known sources, and on a dry run the state so far."""

    def __init__(self, vault: Vault, *, dry_run: bool, extractor: Finder | None,
                 reprocess: bool = False) -> None:  # fmt: skip
        self.vault = vault
        self.dry_run = dry_run
        self.reprocess = reprocess
        self.extractor = extractor or extract  # the rule finder unless another was chosen
        self.seen = ingested_sources(vault)
        self.applied = applied_by_source(vault)  # one read of the journal for the whole run
        load_needles(vault.meta)  # the pack's literal tests, worked out by an earlier run
        self.shadow: dict[str, Fact] | None = None

    def close(self) -> None:
        """Keep what this run worked out of the pack's patterns for the next one."""
        if not self.dry_run and self.extractor is extract:
            save_needles(self.vault.meta, self.vault.rules)

    def facts(self) -> dict[str, Fact]:
        if self.dry_run:
            if self.shadow is None:
                self.shadow = dict(self.vault.scan(refresh=True)[0])
            return self.shadow
        return self.vault.scan()[0]  # cached until mdmem's next write; `say` rescans under the lock

    def run(self, messages: list[Message], digest: str, source: str, default_date: str) -> IngestResult:  # fmt: skip
        res = IngestResult(source, digest, messages=len(messages), dry_run=self.dry_run)
        res.previous = self.seen.get(digest)
        if digest in self.seen and not self.reprocess:
            res.skipped = True
            return res
        facts = self.facts()
        step = NewMessages.of(self.vault, source, messages, self.applied)
        # Reprocessing reads every message; only `step.new` ones are recorded and kept as episodes.
        read = dataclasses.replace(step, new=list(range(1, len(messages) + 1))) if self.reprocess else step  # fmt: skip
        window = read.window()
        # A finder that takes `targets` (the model finder) reads only the messages read now; the
        # others of the window are context, so a retry sends only what failed before.
        targets = {"targets": {messages[p - 1].line for p in read.new}} if getattr(self.extractor, "takes_targets", False) else {}  # fmt: skip
        found = (
            self.extractor(window, self.vault.rules, facts, source=source, default_date=default_date, **targets)
            if window else Extraction()
        )  # fmt: skip
        res.errors, res.notes = list(found.errors), list(found.notes)
        res.warnings = [f"{source}:{n.removeprefix('L')}" for n in found.notes if is_warning(n)]
        statements = read.keep(found.statements, read.evidence(self.vault, default_date))
        if self.reprocess:
            statements = only_new(statements, step, facts, self.vault)
            if digest in self.seen and not statements and not found.errors:
                res.skipped = True  # nothing new: no journal entry for a re-read
                return res
        found_errors = list(res.errors)
        for _ in range(DEFER_ATTEMPTS):
            res.errors = list(found_errors)
            try:
                return self._apply(res, step, statements, facts, digest, source, default_date)
            except _BrokenMoved:  # decided again against the files as the plan read them
                continue
        raise RefusedError(
            f"{source}: fact files kept breaking or being fixed while it was ingested;"
            " nothing was applied. Run the ingest again"
        )

    def _apply(self, res: IngestResult, step: NewMessages, statements: list[Statement],
               facts: dict[str, Fact], digest: str, source: str, default_date: str) -> IngestResult:  # fmt: skip
        """Defer what touches a broken file, then plan and apply the rest."""
        messages = step.messages
        statements, deferred, guard = self._defer(statements, source)
        res.errors += [d.error for d in deferred]
        redact = forgotten_phrases(statements, facts)
        applied = step.applied_ids(res.errors)
        info = {"kind": "transcript", "path": source, "messages": len(messages),
                "statements": len(statements), "applied": applied}  # fmt: skip
        if self.reprocess and digest in self.seen:
            info["reprocess"] = True
        if deferred:
            info["deferred"] = [d.journal() for d in deferred]
        # A source with failed or deferred messages is not marked done, so the next run
        # retries exactly those (their ids are not in `applied`).
        info["partial_sha256" if res.errors else "sha256"] = digest
        if self.dry_run:
            res.plan = self._dry_plan(statements, facts)
            res.episodes = [rel for rel, _ in step.episodes(self.vault, digest, default_date, redact, None)[0]]
            return res
        extra = guard(episode_ops(step, self.vault, digest, default_date, redact, res.notes, res.episodes))  # fmt: skip
        result = self.vault.say(statements, command="ingest", source=info, extra=extra)
        res.plan, res.entry = result.plan, result.entry
        if res.entry is None:  # nothing changed: still journal it, so a re-run skips it
            with self.vault.lock:
                res.entry = self.vault.apply(Plan(), command="ingest", source=info, extra=extra)
        if redact:  # a forget request was said: no search cache keeps the words
            scrub_search_caches(self.vault)
        if not res.errors:
            self.seen[digest] = res.entry
        self.applied.setdefault(source, (set(), 0))[0].update(i.split(":", 1)[-1] for i in applied)  # fmt: skip
        return res

    def _defer(self, statements: list[Statement], source: str) -> tuple[list[Statement], list[Deferred], Callable[[ExtraOps], ExtraOps]]:  # fmt: skip
        """Statements about a fact whose file does not parse wait, with every other statement
        of their message: applied now, "I left my employer" would meet no current employer
        and be dropped as already known. Decided on the last scan, outside the lock; the guard
        returned checks, inside the lock, that the plan's own scan finds the same files broken."""
        rels = {st.key: self.vault.rel(fact_path(self.vault.root, *st.key.split("/", 1))) for st in statements}  # fmt: skip
        broken = {p.path: p for p in self.vault.scan()[1] if p.path in rels.values()}
        guard = _broken_guard(self.vault, set(rels.values()), set(broken))
        if not broken:
            return statements, [], guard
        deferred: dict[int | None, Deferred] = {}
        for st in statements:
            line = statement_line(st)
            if rels[st.key] in broken and line not in deferred:
                deferred[line] = Deferred(source, line, st.key, str(broken[rels[st.key]]))
        if None in deferred:  # a statement tied to no message: the whole source waits
            return [], list(deferred.values()), guard
        kept = [st for st in statements if statement_line(st) not in deferred]
        return kept, list(deferred.values()), guard

    def _dry_plan(self, statements: list[Statement], facts: dict[str, Fact]) -> Plan:
        plan = plan_statements(facts, self.vault.rules, statements, now=self.vault.now)
        refuse_broken(plan, self.vault.scan()[1])  # what `say` would refuse, with its words
        for change in plan.changes:
            if change.after is not None:
                facts[change.key] = change.after
        return plan


class _BrokenMoved(Exception):
    """A fact file a statement is about broke, or was fixed, between the deferral and the plan."""


DEFER_ATTEMPTS = 3


def _broken_guard(vault: Vault, rels: set[str], broken: set[str]) -> Callable[[ExtraOps], ExtraOps]:  # fmt: skip
    """Wrap a transaction's extra files so that, inside the lock and before anything is
    written, the plan's scan is checked to find exactly these of rels broken (else
    _BrokenMoved: deferred again). `extra` runs in `Vault.apply`, under the lock, while the
    plan's scan is still the vault's current one, whether `say` planned changes or not."""

    def wrap(extra: ExtraOps) -> ExtraOps:
        def ops(journal_id: str) -> Sequence[tuple[str, str | None]]:
            now = {p.path for p in vault.scan()[1]} & rels
            if now != broken:
                raise _BrokenMoved
            return extra(journal_id)

        return ops

    return wrap


def ingest_text(vault: Vault, text: str, *, source: str = "<text>", date: str | None = None,
                extractor: Finder | None = None, dry_run: bool = False) -> IngestResult:  # fmt: skip
    """Ingest one transcript given as text; one journal entry (none on a dry run or a re-run).
    `extractor` finds the statements (`extract.plugins.finder_for`); the rule finder by default."""
    default = date or vault.now[:10]
    messages = parse_transcript(text, source=source, default_time=default)
    session = _Session(vault, dry_run=dry_run, extractor=extractor)
    result = session.run(messages, sha256(text), source, default)
    session.close()
    return result


def transcript_files(paths: Sequence[str | Path], vault: Vault | None = None, *,
                     types: Iterable[str] = TRANSCRIPT_TYPES,
                     passed_over: list[Path] | None = None) -> list[tuple[str, Path | None]]:  # fmt: skip
    """(source name, path) per transcript: files as given, folders' files of the transcript
    `types` in name order, '-' = stdin. A folder's other files are added to `passed_over`."""
    out: list[tuple[str, Path | None]] = []
    suffixes = tuple(_suffix(t) for t in types)
    for raw in paths:
        if str(raw) == "-":
            out.append(("<stdin>", None))
            continue
        path = Path(raw)
        if path.is_dir():
            for p in _folder(path, vault):
                if p.name.lower().endswith(suffixes):
                    out.append((_source_name(p, vault), p))
                elif passed_over is not None:
                    passed_over.append(p)
        else:
            out.append((_source_name(path, vault), path))
    return out


def _suffix(kind: str) -> str:
    """'md', '.md' or 'MD' → '.md'."""
    kind = kind.strip().lower()
    return kind if kind.startswith(".") else f".{kind}"


def _folder(folder: Path, vault: Vault | None) -> Iterator[Path]:
    skip = (
        {vault.root / "facts", vault.root / "episodes", vault.meta, vault.root / "rules.yaml"}
        if vault else set()
    )  # fmt: skip
    for p in sorted(folder.rglob("*"), key=lambda p: p.relative_to(folder).as_posix()):
        rel = p.relative_to(folder).parts
        if any(part.startswith(".") for part in rel) or p.name.endswith(EDITOR_JUNK):
            continue
        resolved = p.resolve()
        if any(resolved == s or s in resolved.parents for s in skip) or not p.is_file():
            continue  # the vault's own files are not transcripts
        yield p


def _source_name(path: Path, vault: Vault | None) -> str:
    """The same name on every machine and from any working directory (a cron job's is `/`):
    relative to the vault (`../chats/a.md` beside it), else the path as given."""
    if vault is None:
        return path.as_posix()
    resolved = path.resolve()
    common = Path(os.path.commonpath([vault.root, resolved]))
    if common == Path(common.anchor):  # nothing shared but the root: no shorter honest name
        return path.as_posix()
    return Path(os.path.relpath(resolved, vault.root)).as_posix()


def ingest_paths(vault: Vault, paths: Sequence[str | Path], *, date: str | None = None,
                 extractor: Finder | None = None, dry_run: bool = False, commit: bool = False,
                 progress: bool = False, reprocess: bool = False,
                 types: Iterable[str] = TRANSCRIPT_TYPES,
                 passed_over: Callable[[Path], None] | None = None) -> list[IngestResult]:  # fmt: skip
    """Ingest transcript files and folders in order; a bad file is reported, the rest go on.
    `reprocess` reads sources already ingested again, applying only what is new; a folder's
    files not of the transcript `types` are handed to `passed_over`, if given, and not read."""
    if commit and not dry_run:
        gitcommit.check_repo(vault.root)
    others: list[Path] = []
    files = transcript_files(paths, vault, types=types, passed_over=others)
    for p in others:
        if passed_over is not None:
            passed_over(p)
    session = _Session(vault, dry_run=dry_run, extractor=extractor, reprocess=reprocess)
    results: list[IngestResult] = []
    with _progress(progress and len(files) > 1, len(files)) as advance:
        for source, path in files:
            results.append(_one(session, source, path, date))
            advance(source)
    session.close()
    if commit and not dry_run:
        sha = gitcommit.commit_results(vault, results)
        for r in results:
            r.commit = sha if r.entry else None
    return results


def _one(session: _Session, source: str, path: Path | None, date: str | None) -> IngestResult:
    try:
        messages, digest = read_transcript(path if path is not None else "-", default_time=date)
        return session.run(messages, digest, source, (date or session.vault.now)[:10])
    except (TranscriptError, RefusedError) as e:
        return IngestResult(source, errors=[str(e)], dry_run=session.dry_run)


class _progress:  # noqa: N801 - used as a context manager, reads like a function
    """A rich progress bar on a terminal; nothing at all under cron (no TTY)."""

    def __init__(self, wanted: bool, total: int) -> None:
        self.on = wanted and sys.stderr.isatty()
        self.total = total

    def __enter__(self) -> Any:
        if not self.on:
            return lambda source: None
        from rich.console import Console
        from rich.progress import Progress

        self._bar = Progress(console=Console(stderr=True), transient=True)
        self._bar.start()
        task = self._bar.add_task("ingesting", total=self.total)
        return lambda source: self._bar.update(task, advance=1, description=source[-40:])

    def __exit__(self, *exc: object) -> None:
        if self.on:
            self._bar.stop()
