"""`mdmem check`, `mdmem sync` and `mdmem init` in their plain forms, run without typer or rich.

With nothing changed, either costs one stat walk of the fact files (store/walk.py); typer's
import and the pydantic validators it builds for the options (~0.3 s of CPU) would be most of
the command at any size a person has, and twice the walk at 100,000 files. So their common
forms (`check [--vault V] [--json]`, `sync [--vault V] [--wait S]`) are parsed here, as
fast.py does for `ask`; anything else (--help, --dry-run, sync --json, an unknown option)
returns None and goes through typer. The text both roads print is made here, once
(`check_report`, `sync_report`); tests/perf_correctness/test_plain_cli.py compares the two
roads. `init FOLDER [--rules PACK]` too: typer was 0.3 s of its 0.45 s.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from mdmem.commands.fast import parse_mcp, plain_options, plain_vault
from mdmem.commands.shown import fit, here_line

if TYPE_CHECKING:
    from mdmem.edit.sync import SyncResult
    from mdmem.store.guards import Problem
    from mdmem.store.vault import Vault

Report = tuple[list[str], list[str], int]  # lines for stdout, lines for stderr, exit code


def parse_check(args: list[str]) -> dict[str, str | bool | None] | None:
    """The options of a plain `check`, or None to leave it to typer."""
    parsed = plain_options(args, {"--vault": "vault"}, {"--json": "as_json"})
    if parsed is None or parsed[1]:
        return None
    return {"vault": os.environ.get("MDMEM_VAULT") or None, **parsed[0]}


def parse_sync(args: list[str]) -> dict[str, str | float | None] | None:
    """The options of a plain `sync` (--vault, --wait: those of a stdio `mcp`), or None to
    leave it to typer."""
    return parse_mcp(args)


def parse_init(args: list[str]) -> dict[str, str] | None:
    """The options of a plain `init` (a folder, --rules), or None to leave it to typer."""
    parsed = plain_options(args, {"--rules": "rules"}, {})
    if parsed is None or len(parsed[1]) != 1:
        return None
    return {"path": parsed[1][0], "rules": str(parsed[0].get("rules", "personal"))}


def run_init(opts: dict[str, str]) -> int:
    """Create a vault as `mdmem init` does (its words on stderr); the exit code."""
    from pathlib import Path

    from mdmem.commands.ingest_run import echo, err
    from mdmem.errors import MdmemError
    from mdmem.store.vault import Vault

    try:
        vault = Vault.create(Path(opts["path"]), opts["rules"])
    except MdmemError as e:
        err(f"Error: {e}")
        return e.exit_code
    except KeyboardInterrupt:
        echo("Interrupted.", err=True)
        return 130
    echo(f"Created vault {vault.root} with the {opts['rules']!r} rules.", err=True)
    return 0


def check_report(vault: Vault, problems: list[Problem], as_json: bool) -> Report:
    """What `mdmem check` prints for these problems, and the warnings about attribute names
    (the count of facts read without decoding one)."""
    warnings = vault.name_warnings() if not problems or problems[-1].path != "rules.yaml" else []
    code = 1 if problems else 0
    found = [*problems, *warnings]
    if as_json:
        rows = [{"path": p.path, "line": p.line, "message": p.message, "level": p.level} for p in found]
        return [json.dumps(rows, ensure_ascii=False, indent=2, sort_keys=False)], [], code
    out = [here_line(vault, str(p)) for p in found]
    if problems:
        return out, [], code
    also = f"; {len(warnings)} warning{'s' * (len(warnings) != 1)}" if warnings else ""
    return out, [f"OK: {vault.count()} facts, rules valid{also}."], code


def sync_report(vault: Vault, result: SyncResult) -> Report:
    """What `mdmem sync` prints of a result (text form)."""
    from mdmem.edit.sync import result_lines

    err = []
    if result.dry_run and result.plan.changes:
        err.append("(dry run: nothing was written)")
    elif result.entry:
        err.append(f"Synced; journal entry {result.entry['id']}.")
    elif not (result.actions or result.problems or result.rules or result.reindexed):
        err.append("Nothing to sync.")
    return [here_line(vault, line) for line in result_lines(result)], err, 1 if result.problems else 0


def _print(report: Report, wrap: bool = True) -> int:
    """Print a report; its lines wrapped at whole words on a terminal, as `say` does (not JSON)."""
    out, err, code = report
    for line in out:
        sys.stdout.write((fit(line, sys.stdout) if wrap else line) + "\n")
    for line in err:
        sys.stderr.write(line + "\n")
    return code


def _imported(*modules: str) -> None:
    """Import these with the collector off, then freeze what was imported out of its later
    passes (~2% of a nothing-changed `check` or `sync` at 100,000 facts went to sweeping the
    modules while they loaded)."""
    import gc
    import importlib

    if not gc.isenabled():
        return
    gc.disable()
    try:
        for name in modules:
            importlib.import_module(name)
    finally:
        gc.freeze()
        gc.enable()


def run_check(opts: dict[str, str | bool | None]) -> int:
    """Check as `mdmem check` does; the exit code."""
    _imported("mdmem.store.vault", "mdmem.store.check")

    def run() -> int:
        path = opts.get("vault")
        vault = plain_vault(path if isinstance(path, str) else None)
        as_json = bool(opts.get("as_json"))
        return _print(check_report(vault, vault.check(), as_json), wrap=not as_json)

    return _guarded(run)


def run_sync(opts: dict[str, str | float | None]) -> int:
    """Sync as `mdmem sync` does; the exit code."""
    _imported("mdmem.store.vault", "mdmem.edit.sync")

    def run() -> int:
        from mdmem.edit.sync import sync

        path = opts.get("vault")
        vault = plain_vault(path if isinstance(path, str) else None, float(opts["wait"] or 0))
        return _print(sync_report(vault, sync(vault)))

    return _guarded(run)


def _guarded(run: Callable[[], int]) -> int:
    """run(), with the CLI's error boundary: `Error: …` and the error's exit code."""
    from mdmem.errors import MdmemError

    try:
        return run()
    except MdmemError as e:
        sys.stderr.write(f"Error: {e}\n")
        return e.exit_code
    except KeyboardInterrupt:
        sys.stderr.write("Interrupted.\n")
        return 130
