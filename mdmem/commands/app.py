"""The Typer app, the options every command shares, and the one error boundary."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from mdmem.errors import MdmemError

if TYPE_CHECKING:  # the vault (yaml, the engine) loads when a command opens one, not for --help
    from mdmem.store.vault import Vault

app = typer.Typer(
    name="mdmem",
    help="Long-term memory about a person, kept as plain Markdown fact files.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

F = TypeVar("F", bound=Callable[..., Any])


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        try:
            typer.echo(f"mdmem {version('mdmem')}")
        except PackageNotFoundError:  # run from a source tree that was never installed
            typer.echo("mdmem (not installed)")
        raise typer.Exit()


@app.callback()
def _main(
    show_version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version."),
    ] = False,
) -> None:
    """Long-term memory about a person, kept as plain Markdown fact files."""
    # Being a callback also keeps `mdmem COMMAND` a group when only one command is loaded.

VaultOpt = Annotated[
    Path | None,
    typer.Option(
        "--vault",
        envvar="MDMEM_VAULT",
        help="The vault folder (default: search upward from here for rules.yaml).",
        show_default=False,
    ),
]
WaitOpt = Annotated[
    float, typer.Option("--wait", help="Seconds to wait for another writer's lock.")
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON for machines.")]
DryRunOpt = Annotated[
    bool, typer.Option("--dry-run", help="Show what would change; write nothing.")
]
EntityOpt = Annotated[str, typer.Option("--entity", "-e", help="Who or what the fact is about.")]
NewOpt = Annotated[
    bool, typer.Option("--new", help="Allow an attribute that rules.yaml does not know.")
]
DATE_RE = re.compile(r"\d{4}-\d{2}-\d{2}")


def check_date(value: str | None) -> str | None:
    """Typer callback: an ISO date, or a usage error."""
    if value is not None and not DATE_RE.fullmatch(value):
        raise typer.BadParameter(f"{value!r} is not a date like 2026-02-10")
    return value


DateOpt = Annotated[
    str | None,
    typer.Option(
        "--date", callback=check_date, help="When it became true (YYYY-MM-DD; default today)."
    ),
]


def command(name: str | None = None, **kwargs: Any) -> Callable[[F], F]:
    """Register a command whose MdmemError becomes 'Error: …' and its exit code; Ctrl-C exits 130."""

    def decorate(fn: F) -> F:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kw: Any) -> Any:
            try:
                return fn(*args, **kw)
            except MdmemError as e:
                typer.echo(f"Error: {e}", err=True)
                raise typer.Exit(e.exit_code) from None
            except KeyboardInterrupt:
                typer.echo("Interrupted.", err=True)
                raise typer.Exit(130) from None

        app.command(name, **kwargs)(wrapper)
        return fn

    return decorate


def open_vault(path: Path | None, wait: float = 10.0) -> Vault:
    """The vault named by --vault / MDMEM_VAULT, else the nearest one upward."""
    from mdmem.store.vault import Vault

    v = Vault(path, wait=wait) if path is not None else Vault.find(wait=wait)
    v.report = lambda note: typer.echo(f"Recovered: {note}", err=True)  # a crash's leftovers
    return v


def print_json(data: Any) -> None:
    typer.echo(json.dumps(data, ensure_ascii=False, indent=2, sort_keys=False))


def report_result(result: Any, as_json: bool, *, nothing: str = "nothing to change.") -> None:
    """A write's outcome: the changes (or --json), and the journal id that `undo` takes."""
    from mdmem.commands import render
    from mdmem.engine import describe

    changes = result.plan.changes
    if as_json:
        print_json(describe.result_json(result))
        return
    for note in getattr(result, "notes", ()):  # a name made on purpose (--new)
        typer.echo(f"Warning: {note}", err=True)
    if not changes:
        for st, decision in result.plan.decisions:
            render.stdout.print(f"{decision:<9} {st.key}: {nothing}")
        return
    render.print_changes(changes, dry_run=result.dry_run)
    if result.entry:
        entry_id = result.entry["id"]
        typer.echo(f"Journal entry {entry_id} (`mdmem undo {entry_id}` reverses it).", err=True)
