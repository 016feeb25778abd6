"""Ingest transcripts: parse, extract, decide and apply as ONE journal entry per source.

A source whose SHA-256 is already in the journal (and not undone since) is skipped, so cron can
re-run an ingest freely; `reprocess` reads it again and applies only what is new
(`edit.reprocess`). A dry run plans every source against the state the sources before it would
have left, and writes nothing.
"""

from __future__ import annotations

import contextlib
import dataclasses
import re
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from mdmem.edit import gitcommit
from mdmem.edit.ingest_result import IngestResult
from mdmem.edit.new_messages import (
    Deferred,
    NewMessages,
    applied_index,
    episode_ops,
    statement_line,
)
from mdmem.edit.progress import FileProgress
from mdmem.edit.reprocess import only_new
from mdmem.edit.requested import honour
from mdmem.edit.sources import (
    TRANSCRIPT_TYPES,
    PassedOver,
    SourceFile,
    transcript_files,
    whole_digest,
)
from mdmem.engine.decide import Plan, Statement, plan_statements
from mdmem.errors import MdmemError, RefusedError, TranscriptError
from mdmem.extract.finder import Extraction, Finder
from mdmem.extract.guard import is_warning
from mdmem.extract.importers.registry import by_name
from mdmem.extract.rule_finder import extract
from mdmem.extract.transcript import (
    Message,
    NoMessages,
    is_human_role,
    parse_transcript,
    read_conversations,
)
from mdmem.files import sha256
from mdmem.model.factfile import Fact
from mdmem.model.limits import MAX_SPEAKERS
from mdmem.model.slug import fact_path
from mdmem.read.passages import PassageIndex
from mdmem.store.forget_apply import Forgot
from mdmem.store.journal import live_entries
from mdmem.store.rules_cache import load_needles, save_needles
from mdmem.store.vault import ExtraOps, Vault, refuse_broken

DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


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
        self.applied = applied_index(vault)  # kept up to date as this run applies messages
        load_needles(vault.meta)  # the pack's literal tests, worked out by an earlier run
        self.shadow: dict[str, Fact] | None = None
        self.episodes: set[str] = set()  # the episode files this run wrote

    def close(self) -> None:
        """Keep what this run worked out for the next command: the pack's literal tests, and
        the passages of the episodes it wrote, indexed now so that no read pays for them."""
        if self.dry_run:
            return
        if self.extractor is extract:
            save_needles(self.vault.meta, self.vault.rules)
        if self.episodes:
            index_passages(self.vault, self.episodes)

    def facts(self) -> dict[str, Fact]:
        if self.dry_run:
            if self.shadow is None:
                self.shadow = dict(self.vault.scan(refresh=True)[0])
            return self.shadow
        return self.vault.scan()[0]  # cached until mdmem's next write; `say` rescans under the lock

    def known(self, f: SourceFile, fmt: str | None) -> IngestResult | None:
        """The result for a file whose very bytes were ingested whole before (a transcript, not
        an export's conversation): skipped as `run` skips it, without reading it again (a
        nightly cron re-reads a year of daily files); None: read it."""
        if self.reprocess or fmt is not None or f.path is None or not self.seen:
            return None
        digest = whole_digest(f.path)
        entry = self.seen.get(digest) if digest is not None else None
        src = entry.get("source") if entry is not None else None
        if digest is None or not isinstance(src, dict) or src.get("kind") != "transcript" or "file" in src:
            return None
        if not isinstance(messages := src.get("messages"), int) or messages <= 0:
            return None
        return IngestResult(f.name, digest, messages=messages, dry_run=self.dry_run, previous=entry, skipped=True)

    def run(self, messages: list[Message], digest: str, source: str, default_date: str,
            file: str | None = None, title: str | None = None) -> IngestResult:  # fmt: skip
        """Ingest one source; `file` and `title`: the export it is a conversation of, and its title."""
        speakers = {m.speaker for m in messages if is_human_role(m.role)}
        if len(speakers) > MAX_SPEAKERS:  # each may become an entity of its own: minutes of work
            raise TranscriptError(f"{len(speakers):,} people speak in it; a transcript holds at most {MAX_SPEAKERS:,} speakers: split it by conversation, or check that its 'Name:' lines are speakers", path=source)  # fmt: skip
        res = IngestResult(source, digest, messages=len(messages), dry_run=self.dry_run,
                           title=title, file=file)  # fmt: skip
        res.previous = self.seen.get(digest)
        if digest in self.seen and not self.reprocess:
            res.skipped = True
            return res
        facts = self.facts()
        # Requests to forget are honoured first: their words never reach the finder or a file.
        new = NewMessages.of(
            self.vault, source, messages, self.applied.get(source, (set(), 0)), title
        )
        asked = honour(self.vault, new, facts, default_date, dry_run=self.dry_run)
        step = asked.step
        if asked.forgot is not None:
            facts = self._forgotten(asked.forgot)
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
        res.errors, res.notes = list(found.errors), [*asked.notes, *found.notes]
        res.warnings = [f"{source}:{n.removeprefix('L')}" for n in asked.notes]
        res.warnings += [f"{source}:{n.removeprefix('L')}" for n in found.notes if is_warning(n)]
        res.forgot = asked.forgot
        res.asked = asked.plan()
        # A forget the finder read was honoured above, with its words: not again here.
        found_statements = [st for st in found.statements if st.kind != "forget"]
        statements = read.keep(found_statements, read.evidence(self.vault, default_date))
        if self.reprocess:
            statements = only_new(statements, step, facts, self.vault)
            if digest in self.seen and not statements and not found.errors:
                res.skipped = True  # nothing new: no journal entry for a re-read
                return res
        found_errors = list(res.errors)
        for _ in range(DEFER_ATTEMPTS):
            res.errors = list(found_errors)
            try:
                return self._apply(res, step, statements, facts, digest, source, default_date, file)
            except _BrokenMoved:  # decided again against the files as the plan read them
                continue
        raise RefusedError(
            f"{source}: fact files kept breaking or being fixed while it was ingested;"
            " nothing was applied. Run the ingest again"
        )

    def _apply(self, res: IngestResult, step: NewMessages, statements: list[Statement],
               facts: dict[str, Fact], digest: str, source: str, default_date: str,
               file: str | None) -> IngestResult:  # fmt: skip
        """Defer what touches a broken file, then plan and apply the rest."""
        messages = step.messages
        statements, deferred, guard = self._defer(statements, source)
        res.errors += [d.error for d in deferred]
        applied = step.applied_ids(res.errors)
        info: dict[str, Any] = {"kind": "transcript", "path": source, "messages": len(messages),
                                "statements": len(statements), "applied": applied}  # fmt: skip
        if file is not None:
            info["file"] = file
        if self.reprocess and digest in self.seen:
            info["reprocess"] = True
        if deferred:
            info["deferred"] = [d.journal() for d in deferred]
        # A source with failed or deferred messages is not marked done, so the next run
        # retries exactly those (their ids are not in `applied`).
        info["partial_sha256" if res.errors else "sha256"] = digest
        if self.dry_run:
            res.plan = _with_forget(
                res,
                self._dry_plan(
                    statements, facts, lifecycle_day(messages, default_date, self.vault.now)
                ),
            )
            res.episodes = [
                rel for rel, _ in step.episodes(self.vault, digest, default_date, None)[0]
            ]
            return res
        extra = guard(episode_ops(step, self.vault, digest, default_date, res.notes, res.episodes))  # fmt: skip
        today = lifecycle_day(messages, default_date, self.vault.now)
        result = self.vault.say(statements, command="ingest", source=info, extra=extra, heard=True, today=today)
        res.plan, res.entry = _with_forget(res, result.plan), result.entry
        if res.entry is None:  # nothing changed: still journal it, so a re-run skips it
            with self.vault.lock:
                res.entry = self.vault.apply(Plan(), command="ingest", source=info, extra=extra)
        if not res.errors:
            self.seen[digest] = res.entry
        self.episodes.update(res.episodes)
        self.applied.setdefault(source, (set(), 0))[0].update(i.split(":", 1)[-1] for i in applied)
        return res

    def _forgotten(self, forgot: Forgot) -> dict[str, Fact]:
        """The facts after a forget the conversation asked for (on a dry run: as it would)."""
        if not self.dry_run:
            return self.vault.scan(refresh=True)[0]
        facts = self.facts()
        for c in forgot.plan.changes:
            if c.after is not None:
                facts[c.key] = c.after
        return facts

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

    def _dry_plan(self, statements: list[Statement], facts: dict[str, Fact], today: str) -> Plan:
        plan = plan_statements(facts, self.vault.rules, statements, now=self.vault.now, today=today)
        refuse_broken(plan, self.vault.scan()[1])  # what `say` would refuse, with its words
        for change in plan.changes:
            if change.after is not None:
                facts[change.key] = change.after
        return plan


def index_passages(vault: Vault, rels: Iterable[str]) -> None:
    """Index these episode files' passages for search; a cache: if not now, the next read."""
    with contextlib.suppress(sqlite3.Error, OSError, MdmemError):
        index = PassageIndex(vault.root, vault.meta)
        try:
            index.update(rels)
        finally:
            index.close()


def _with_forget(res: IngestResult, plan: Plan) -> Plan:
    """The ingest's plan, after what a request in it had forgotten first (its own entry)."""
    asked = res.asked or Plan()
    return Plan([*asked.changes, *plan.changes], [*asked.decisions, *plan.decisions])


def lifecycle_day(messages: list[Message], default_date: str, now: str) -> str:
    """The day an ingest checks plans against (docs/states.md#plans): the latest day its
    messages were said, never after the clock. Told as it happens, that is today; a chat from
    last year read now marks a plan overdue only if its day passed in that chat with no word
    (reading it today still shows it overdue: `seen_on`)."""
    said = [m.time[:10] for m in messages if m.time and DAY.fullmatch(m.time[:10])] or [
        default_date[:10]
    ]
    return min(max(said), now[:10])


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


def ingest_paths(vault: Vault, paths: Sequence[str | Path], *, date: str | None = None,
                 extractor: Finder | None = None, dry_run: bool = False, commit: bool = False,
                 progress: bool = False, reprocess: bool = False,
                 types: Iterable[str] = TRANSCRIPT_TYPES, fmt: str | None = None,
                 passed_over: PassedOver | None = None) -> list[IngestResult]:  # fmt: skip
    """Ingest transcript files and folders in order; a bad file is reported, the rest go on.

    An export's conversations are each a source of their own. `reprocess` reads sources
    already ingested again, applying only what is new; `fmt` reads every file as that format
    (default: as its content says). A folder's files that are not transcripts, and those that
    hold no message at all (a README.txt), are handed to `passed_over` with why, not read as
    errors; a file named on its own that holds none is an error."""
    if commit and not dry_run:
        gitcommit.check_repo(vault.root)
    if fmt is not None:
        by_name(fmt)  # an unknown format is refused before anything is read
    files = transcript_files(paths, vault, types=types, passed_over=passed_over)
    session = _Session(vault, dry_run=dry_run, extractor=extractor, reprocess=reprocess)
    results: list[IngestResult] = []
    with FileProgress(progress, len(files)) as advance:
        for f in files:
            for r in _file(session, f, date, fmt, passed_over):
                results.append(r)
                if r.source != f.name:  # a conversation of an export
                    advance.conversation(r.title or r.source)
            advance(f.name)
    session.close()
    if commit and not dry_run:
        sha = gitcommit.commit_results(vault, results)
        for r in results:
            r.commit = sha if r.entry else None
    return results


def _file(session: _Session, f: SourceFile, date: str | None, fmt: str | None,
          passed_over: PassedOver | None) -> Iterator[IngestResult]:  # fmt: skip
    """The results of one file: one per conversation it holds."""
    if (known := session.known(f, fmt)) is not None:
        yield known
        return
    empty = 0
    try:
        for conv in read_conversations(f.path if f.path is not None else "-", default_time=date, fmt=fmt):  # fmt: skip
            name = conv.key or f.name
            if conv.error is not None:  # named as read errors are: the path as given
                err = TranscriptError(conv.error, path=str(f.path or f.name), line=conv.line)
                yield IngestResult(name, errors=[str(err)], dry_run=session.dry_run, title=conv.title)  # fmt: skip
                continue
            if not conv.messages:
                empty += 1
                continue
            day = (conv.day if conv.key else None) or (date or session.vault.now)[:10]
            yield session.run(conv.messages, conv.digest, name, day,
                              file=f.name if conv.key else None, title=conv.title)  # fmt: skip
    except NoMessages as e:
        if not f.walked:
            yield IngestResult(f.name, errors=[str(e)], dry_run=session.dry_run)
        elif passed_over is not None:
            passed_over(f.path or Path(f.name), NO_MESSAGES)
    except (TranscriptError, RefusedError) as e:
        yield IngestResult(f.name, errors=[str(e)], dry_run=session.dry_run)
    if empty and passed_over is not None and f.path is not None:
        passed_over(f.path, f"{empty} conversation{'s' * (empty != 1)} {EMPTY}")


NO_MESSAGES = "holds no messages"
EMPTY = "with no messages passed over"  # an export's conversations opened and never written in
