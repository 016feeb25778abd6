"""`mdmem ingest` itself, without typer: what both of its roads run and print.

A one-message ingest is most of what an agent's hook runs after each turn; typer's import and
the pydantic validators it builds for ingest's sixteen options cost ~0.2 s of CPU, as much as
reading the message. So the common form (`ingest PATH… [--vault V] [--wait S] [--quiet]
[--verbose] [--json] [--dry-run] [--reprocess] [--commit]`) is parsed here (`parse_ingest`), as
fast.py does for `ask`; anything else (--help, --date, --llm, --format, --ext, `-` for stdin,
an unknown option) returns None and goes through typer, whose `ingest` calls `run_ingest`
too, so the two roads print the same bytes (tests/perf_correctness/test_plain_cli.py).
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mdmem.commands.fast import plain_options
from mdmem.commands.shown import fit, here

if TYPE_CHECKING:
    from rich.table import Table

    from mdmem.edit.ingest_result import IngestResult
    from mdmem.store.vault import Vault

_FLAGS = {"--quiet": "quiet", "-q": "quiet", "--verbose": "verbose", "-v": "verbose", "--json": "as_json",
          "--dry-run": "dry_run", "--reprocess": "reprocess", "--commit": "commit"}  # fmt: skip
_ANSI = re.compile(r"\033\[[;?0-9]*[a-zA-Z]")  # what click's echo strips from a line not bound for a terminal


def echo(message: str, *, err: bool = False) -> None:
    """A line, as typer's `echo` writes it: flushed, its colour codes stripped off a terminal."""
    stream = sys.stderr if err else sys.stdout
    try:
        tty = stream.isatty()
    except Exception:  # noqa: BLE001 - a stream that cannot tell is no terminal
        tty = False
    stream.write(message + "\n" if tty else _ANSI.sub("", message + "\n"))
    stream.flush()


def recovered(note: str) -> None:
    echo(f"Recovered: {note}", err=True)


def err(message: str) -> None:
    """A line for stderr, after whatever stdout holds: in `>>log 2>&1` the two stay in order."""
    sys.stdout.flush()
    echo(fit(message, sys.stderr), err=True)


def _table(result: IngestResult) -> Table:
    """One row per fact, in its final state (`IngestResult.rows`, what the summary counts)."""
    from rich.table import Table

    from mdmem.commands import render

    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    for col in ("decision", "fact", "change", "because", "said at"):
        table.add_column(col)
    for row in result.rows():
        style = render.STATUS_STYLE.get(row.status, "")
        table.add_row(
            f"[{style}]{row.decision}[/]", render.escape(row.key), render.escape(row.change),
            render.escape(f"{', '.join(row.causes)} changed" if row.causes else ""),
            ", ".join(row.said_at),
        )  # fmt: skip
    return table


def _print(r: IngestResult, name: str, *, quiet: bool = False, reprocess: bool = False) -> None:
    """One source's outcome (`name`: how to show its source); `quiet` keeps only errors and
    changes. Errors go to stderr, the table to stdout, each flushed: in `>>log 2>&1` they stay
    in this order, one source after the other."""
    if r.skipped:
        if not quiet:
            prev = r.previous or {}
            done = "read again, nothing new" if reprocess else "nothing to do"
            err(f"{name}: already ingested (journal {prev.get('id', '?')},"
                f" {prev.get('time', '?')}); {done}.")  # fmt: skip
        return
    for e in r.errors:
        err(f"Error: {e}")
    for w in r.warnings:
        err(f"Warning: {w}")
    if r.failed or (quiet and not r.plan.changes):
        return
    from mdmem.commands import render

    noops = sum(d == "NOOP" for _, d in r.plan.decisions)
    head = f"[bold]{render.escape(name)}[/]"
    if r.title:
        head += f" [bold]“{render.escape(r.title)}”[/]"
    if r.entry:
        head += f"  [dim]journal {r.entry['id']}[/]"
    render.stdout.print(head)
    if r.plan.changes:
        render.print_table(_table(r), wrap=3)
    else:
        render.stdout.print("  nothing changed")
    if noops and not quiet:
        render.stdout.print(f"  [dim]{noops} statement{'s' * (noops != 1)} already known (NOOP)[/]")
    sys.stdout.flush()


def run_ingest(v: Vault, paths: list[str], *, date: str | None = None, llm: str | None = None,
               api_base: str | None = None, llm_timeout: float | None = None, llm_retries: int | None = None,
               llm_concurrency: int | None = None, no_cache: bool = False, commit: bool = False,
               reprocess: bool = False, fmt: str | None = None, ext: list[str] | None = None,
               quiet: bool = False, verbose: bool = False, dry_run: bool = False,
               as_json: bool = False) -> int:  # fmt: skip
    """Ingest as `mdmem ingest` does, printing what it prints; the exit code."""
    from mdmem.edit.ingest import EMPTY, ingest_paths
    from mdmem.edit.ingest_result import summary
    from mdmem.edit.sources import TRANSCRIPT_TYPES
    from mdmem.extract.model_cache import VAULT_CACHE
    from mdmem.extract.plugins import finder_for

    options = {} if llm is None else {
        "timeout": llm_timeout, "retries": llm_retries, "concurrency": llm_concurrency,
        "cache_dir": None if no_cache else v.meta / VAULT_CACHE,
    }  # fmt: skip
    extractor = finder_for(llm, api_base, **options)  # the rules, or with --llm the model finder
    types = [t for e in ext for t in e.replace(",", " ").split()] if ext else TRANSCRIPT_TYPES
    passed: list[dict[str, str]] = []

    def passed_over(path: Path, why: str) -> None:
        passed.append({"path": str(path), "why": why})
        if verbose and not as_json:
            err(f"{path}: {why}; passed over." if EMPTY not in why else f"{path}: {why}.")

    results = ingest_paths(v, paths, date=date, extractor=extractor, dry_run=dry_run,
                           commit=commit, progress=not as_json, reprocess=reprocess,
                           types=types, fmt=fmt, passed_over=passed_over)  # fmt: skip
    usage = getattr(getattr(extractor, "config", None), "usage", None)
    if as_json:
        data: dict[str, Any] = {"dry_run": dry_run, "summary": summary(results),
                                "results": [r.to_json() for r in results], "passed_over": passed}  # fmt: skip
        if usage is not None:
            data["usage"] = usage.to_json()
        echo(json.dumps(data, ensure_ascii=False, indent=2, sort_keys=False))
    else:
        for r in results:
            if r.file and not (r.errors or r.warnings or r.plan.changes or verbose):
                continue  # an export's thousand quiet conversations: the summary counts them
            _print(r, here(v, r.source), quiet=quiet, reprocess=reprocess)
        if dry_run:
            from mdmem.commands import render

            render.stdout.print("[dim](dry run: nothing was written)[/]")
            sys.stdout.flush()
        err(summary(results) + _passed_note(passed, verbose))
        sha = next((r.commit for r in results if r.commit), None)
        if sha:
            err(f"Committed {sha[:12]}.")
        if usage is not None:  # what the model candidates cost, and why any were refused
            for r in results:
                for note in r.notes:
                    if "model candidate refused" in note:
                        err(f"Note: {r.source}:{note}")
            err(usage.summary())
    return 1 if any(r.errors for r in results) else 0


def _passed_note(passed: list[dict[str, str]], verbose: bool) -> str:
    """The summary's note of the folder files not read: those with no messages always (a
    README.txt beside the chats), the others of another type only with --verbose."""
    from mdmem.edit.ingest import EMPTY, NO_MESSAGES

    empty = sum(p["why"] == NO_MESSAGES for p in passed)
    other = sum(p["why"] != NO_MESSAGES and EMPTY not in p["why"] for p in passed)
    parts = []
    if empty:
        parts.append(f"{empty} file{'s' * (empty != 1)} with no messages passed over"
                     + ("" if verbose else " (--verbose names them)"))  # fmt: skip
    if other and verbose:
        parts.append(f"{other} other file{'s' * (other != 1)} passed over")
    return "".join(f"; {p}" for p in parts)


def parse_ingest(args: list[str]) -> dict[str, Any] | None:
    """The options of a plain `ingest` (args after the command name), or None to leave it to typer."""
    parsed = plain_options(args, {"--vault": "vault", "--wait": "wait"}, _FLAGS)
    if parsed is None or not parsed[1]:
        return None  # no path (typer's usage message), or an option only typer reads
    given, paths = parsed
    vault = given["vault"] if "vault" in given else os.environ.get("MDMEM_VAULT") or None
    opts: dict[str, Any] = {"vault": vault, "wait": 10.0, "paths": paths}
    if "wait" in given:
        try:
            opts["wait"] = float(str(given["wait"]))
        except ValueError:
            return None
    opts.update({name: bool(given.get(name)) for name in set(_FLAGS.values())})
    return opts


def run_plain(opts: dict[str, Any]) -> int:
    """A plain `ingest`, with the CLI's error boundary (`Error: …` and its exit code)."""
    from mdmem.errors import MdmemError

    try:
        from mdmem.store.vault import Vault

        path, wait = opts["vault"], opts["wait"]
        v = Vault(path, wait=wait) if path is not None else Vault.find(wait=wait)
        v.report = recovered  # a crash's leftovers, as `commands.app.open_vault` tells them
        flags = {name: opts[name] for name in set(_FLAGS.values())}
        return run_ingest(v, opts["paths"], **flags)
    except MdmemError as e:
        err(f"Error: {e}")
        return e.exit_code
    except KeyboardInterrupt:
        echo("Interrupted.", err=True)
        return 130
