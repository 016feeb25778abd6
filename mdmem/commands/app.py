"""The Typer app, the options every command shares, and the one error boundary."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from typer import core

from mdmem.commands.shown import fit, here, here_line  # noqa: F401 - commands import them from app
from mdmem.errors import MdmemError

if TYPE_CHECKING:  # the vault (yaml, the engine) loads when a command opens one, not for --help
    from mdmem.store.vault import Vault

app = typer.Typer(
    name="mdmem",
    help="Long-term memory about a person, kept as plain Markdown fact files.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    # Plain help and usage errors: no `<bool>` metavars, no rich markup eating "[forgotten]",
    # no box drawn into a log file; click wraps help at whole words.
    rich_markup_mode=None,
)


# --- `--help` in click's words: `--wait FLOAT`, `PATHS...`, never `<float>` or `<list[str]>` ---
# Typer ≥ 0.20 names a type by its Python annotation and wraps a required argument in braces on
# the usage line (`{paths}...`). Help says what to type, as click does. Older Typer versions
# have none of these methods and write click's words already: nothing is changed there.

_WORDS = {"str": "TEXT", "int": "INTEGER", "float": "FLOAT", "bool": "BOOLEAN", "path": "PATH",
          "int range": "INTEGER", "float range": "FLOAT", "datetime": "DATETIME"}  # fmt: skip


def _word(label: str) -> str:
    inner = label.strip("<>")
    while inner.startswith("list[") and inner.endswith("]"):  # a repeatable option: its item
        inner = inner[5:-1]
    if "|" in inner:
        return f"[{inner}]"
    return _WORDS.get(inner, inner.upper())


def _display_type(original: Any) -> Any:
    def display_type(self: Any, ctx: Any) -> str:
        return _word(original(self, ctx))

    return display_type


def _argument_type(self: Any, ctx: Any) -> str | None:
    return None  # an argument's name says what it is: `PATHS...`, as click writes it


def _argument_name(self: Any) -> str:
    name = self.metavar or self.name.upper()
    return name + "..." if self.metavar is None and self.nargs != 1 else name


def _usage_name(self: Any) -> str:
    name = _argument_name(self)
    return name if self.required else f"[{name}]"


def _install_help_words() -> None:
    """Patch Typer's help words, once; a Typer without them is left as it is."""
    base = getattr(core, "_TyperParameter", None)
    if base is None or getattr(base, "_mdmem_words", False) or not hasattr(base, "display_type"):
        return
    patches: list[tuple[Any, str, Any]] = [(base, "display_type", _display_type(base.display_type))]
    if hasattr(core.TyperArgument, "_usage_display_name"):
        patches += [(core.TyperArgument, "_usage_display_name", _usage_name),
                    (core.TyperArgument, "_rich_display_name", _argument_name),
                    (core.TyperArgument, "display_type_rich", _argument_type)]  # fmt: skip
    for cls, name, fn in patches:
        setattr(cls, name, fn)
    base._mdmem_words = True


_install_help_words()

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


def date_option(option: str, *, end: bool = False) -> Callable[[str | None], str | None]:
    """A typer callback reading an option as a day, a month, a year or words (commands/dates.py,
    loaded only when the option is given): the first day of that time, or with `end` its last;
    a usage error naming the option when it is not a date."""

    def read(value: str | None) -> str | None:
        if value is None:
            return None
        from mdmem.commands.dates import first_day, last_day

        try:
            return (last_day if end else first_day)(value, option)
        except MdmemError as e:
            raise typer.BadParameter(str(e).removeprefix(f"{option} ")) from None

    return read


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
                err(f"Error: {e}")
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


def err(message: str) -> None:
    """A line for stderr, after whatever stdout holds: in `>>log 2>&1` the two stay in order."""
    import sys

    sys.stdout.flush()
    typer.echo(fit(message, sys.stderr), err=True)


def say(message: str) -> None:
    """A line of prose for stdout, wrapped at whole words on a terminal."""
    import sys

    typer.echo(fit(message, sys.stdout))


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
