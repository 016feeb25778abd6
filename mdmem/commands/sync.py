"""sync, watch: hand edits to the fact files become what the person meant."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from mdmem.commands.app import (
    DryRunOpt,
    JsonOpt,
    VaultOpt,
    WaitOpt,
    command,
    here_line,
    open_vault,
    print_json,
    say,
)
from mdmem.edit.edits import Action
from mdmem.engine import describe

if TYPE_CHECKING:
    from mdmem.store.vault import Vault


@command()
def sync(
    vault: VaultOpt = None,
    wait: WaitOpt = 10.0,
    dry_run: DryRunOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Apply hand edits made since mdmem last wrote the files; exit 1 if some are left to fix."""
    from mdmem.commands.plain import sync_report
    from mdmem.edit.sync import sync as run_sync

    v = open_vault(vault, wait)
    result = run_sync(v, dry_run=dry_run)
    if as_json:
        print_json(
            {
                "dry_run": result.dry_run,
                "baseline": result.baseline,
                "journal_id": result.entry["id"] if result.entry else None,
                "rules": {"status": result.rules or "unchanged", "note": result.rules_note},
                "actions": [_action_json(a) for a in result.actions],
                "reindexed": result.reindexed,
                "problems": [
                    {"path": p.path, "line": p.line, "message": p.message} for p in result.problems
                ],
            }
        )
        code = 1 if result.problems else 0
    else:
        from mdmem.commands import render

        out, err, code = sync_report(v, result)
        for line in out:
            render.prose(render.escape(line))
        for line in err:
            typer.echo(line, err=True)
    if code:
        raise typer.Exit(code)


@command()
def watch(
    debounce: Annotated[
        int,
        typer.Option("--debounce", min=0, help="Milliseconds of quiet before syncing a change."),
    ] = 300,
    vault: VaultOpt = None,
    wait: WaitOpt = 10.0,
) -> None:
    """Sync on every change to the vault's files, logging one line per action; Ctrl-C stops."""
    from mdmem.edit.watch import Watcher

    v = open_vault(vault, wait)
    watcher = Watcher(v.root, debounce=debounce / 1000, wait=wait, log=lambda line: _log(v, line))
    typer.echo(f"Watching {v.root} (debounce {debounce} ms); Ctrl-C to stop.", err=True)
    code = watcher.run()
    if code:
        typer.echo("Stopped.", err=True)
        raise typer.Exit(code)


def _log(v: Vault, line: str) -> None:
    stamp, _, rest = line.partition(" ")  # "10:42:07 facts/user/home_city.md: …"
    say(f"{stamp} {here_line(v, rest)}")


def _action_json(a: Action) -> dict[str, object]:
    return {
        "path": a.rel,
        "kind": a.kind,
        "message": a.message,
        "line": a.line,
        "changes": [describe.change_json(c) for c in a.changes],
    }
