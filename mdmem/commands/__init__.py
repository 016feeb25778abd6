"""CLI commands, loaded lazily: only the module of the command being run is imported.

COMMANDS is the one table of every command: its module and its one-line help (what
`mdmem --help` prints without importing anything). Adding a command is one line here plus the
`@command()` function in its module; tests/perf_correctness/test_lazy_cli.py checks that the
table matches the commands the modules really register.
"""

from __future__ import annotations

import gc
import importlib
import os
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import typer

HELP = "Long-term memory about a person, kept as plain Markdown fact files."
COMPLETE_VAR = "_MDMEM_COMPLETE"  # click's shell completion: set by the script --install-completion adds

# name: (module under mdmem.commands, one-line help); in the order --help lists them.
COMMANDS: dict[str, tuple[str, str]] = {
    "init": ("core", "Create a vault with a rule pack."),
    "set": ("core", "State a fact, as if the person said it; dependents cascade."),
    "forget": ("core", "Forget a fact (or, with --text, some words; --all, everything) at the person's request; a tombstone stays, dependents become uncertain, and the statements that said it show '[forgotten]'."),
    "fix": ("fix", "Correct a wrong value: it leaves the history, dependents are re-derived (undoable)."),
    "confirm": ("core", "Answer a pending question: give the VALUE, or --keep or --reject the shown one."),
    "show": ("core", "Print facts: one, an entity's, or all."),
    "pending": ("core", "List the questions waiting for the person."),
    "graph": ("core", "Draw the dependency graph: declared in rules.yaml and learned from conversation."),
    "check": ("core", "Validate rules.yaml, the fact files, episodes and links; exit 1 on any problem."),
    "eval": ("eval", "Run scenarios in throwaway vaults and report accuracy per task type."),
    "eval-convert": ("eval", "Convert MEME benchmark episodes into scenario YAML files for `mdmem eval`."),
    "ingest": ("ingest", "Read conversations and update the facts they state; cascades follow."),
    "undo": ("ingest", "Reverse one journal entry, if nothing it touched has changed since."),
    "batch": ("batch", "Ingest into many vaults from a JSON-lines manifest; one result line per job."),
    "mcp": ("mcp", "Serve the vault to AI agents (Claude, Cursor, …) over MCP: stdio by default."),
    "log": ("log", "Journal entries, newest first: id, time, what caused them and what they changed."),
    "ask": ("read", "Answer a question from memory: current state first, history when asked."),
    "context": ("read", "The whole current memory as one Markdown document for an agent's prompt."),
    "timeline": ("read", "Every value change in time order with its cause; cascades grouped under their cause."),
    "sync": ("sync", "Apply hand edits made since mdmem last wrote the files; exit 1 if some are left to fix."),
    "watch": ("sync", "Sync on every change to the vault's files, logging one line per action; Ctrl-C stops."),
}  # fmt: skip


def load(*names: str) -> typer.Typer:
    """The Typer app with the modules of these commands imported (every command if none named)."""
    modules = {COMMANDS[n][0] for n in names} if names else {m for m, _ in COMMANDS.values()}
    for module in sorted(modules):
        importlib.import_module(f"mdmem.commands.{module}")  # registers its commands on the app
    from mdmem.commands.app import app

    return app


def help_text() -> str:
    """`mdmem --help`, from the table alone: no command module, typer, rich or yaml imported."""
    import textwrap

    width = max(len(n) for n in COMMANDS) + 2
    rows = "\n".join(  # wrapped at whole words within 80 columns, as click wraps a command's help
        textwrap.fill(short, 80, initial_indent=f"  {name:<{width}}", subsequent_indent=" " * (width + 2),
                      break_long_words=False, break_on_hyphens=False)
        for name, (_, short) in COMMANDS.items()
    )  # fmt: skip
    return (
        f"Usage: mdmem [OPTIONS] COMMAND [ARGS]...\n\n  {HELP}\n\n"
        "Options:\n"
        "  --version             Print the version.\n"
        "  --install-completion  Install completion for the current shell.\n"
        "  --show-completion     Show completion for the current shell, to copy it or\n"
        "                        customize the installation.\n"
        "  --help                Show this message and exit.\n\n"
        f"Commands:\n{rows}\n"
    )


def main(argv: list[str] | None = None) -> None:
    """Console entry point: import only the command being run."""
    try:
        _dispatch(sys.argv[1:] if argv is None else argv)
    except BrokenPipeError:  # the reader went away (`mdmem ask … | head -0`): no traceback
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())  # so the flush at exit does not raise it again
        sys.exit(1)  # as click does for typer's commands


def _dispatch(args: list[str]) -> None:
    if os.environ.get(COMPLETE_VAR):  # the shell asks what to complete: every command counts
        load()(args=args, prog_name="mdmem")
        return
    if not args or args[0] == "--help":
        sys.stdout.write(help_text())
        sys.exit(0 if args else 2)  # bare `mdmem` is a usage error, as click's no_args_is_help
    if args[0] == "--version":
        from mdmem.commands.app import app as bare  # its callback prints it: no command needed

        bare(args=args, prog_name="mdmem")
    if args[0] == "ask":  # the most run command skips typer's ~120 ms start when it can
        # One answer, then the process ends: the collector's passes over the modules being
        # imported are ~5% of it, and nothing it could free matters to a process that exits.
        gc.disable()
        from mdmem.commands.fast import parse_ask, run_ask

        opts = parse_ask(args[1:])
        if opts is not None:
            sys.exit(run_ask(opts))
        gc.enable()  # typer's road: as any command
    if args[0] in ("check", "sync"):  # with nothing changed these cost a stat walk: no typer
        from mdmem.commands import plain

        parse, run = (plain.parse_check, plain.run_check) if args[0] == "check" else (plain.parse_sync, plain.run_sync)
        if (plain_opts := parse(args[1:])) is not None:
            sys.exit(run(plain_opts))  # type: ignore[arg-type]
    if args[0] == "init":  # a folder and a pack: no typer
        from mdmem.commands.plain import parse_init, run_init

        if (init_opts := parse_init(args[1:])) is not None:
            sys.exit(run_init(init_opts))
    if args[0] == "ingest":  # an agent's hook runs it after every turn: no typer for its common form
        from mdmem.commands.ingest_run import parse_ingest, run_plain

        if (ingest_opts := parse_ingest(args[1:])) is not None:
            sys.exit(run_plain(ingest_opts))
    if args[0] == "mcp":  # stdio with plain options: the server starts without typer
        from mdmem.commands.fast import parse_mcp, run_mcp

        if (mcp_opts := parse_mcp(args[1:])) is not None:
            sys.exit(run_mcp(mcp_opts))
    app = load(args[0]) if args[0] in COMMANDS else load()  # unknown: typer names the mistake
    try:
        app(args=args, prog_name="mdmem")
    except KeyboardInterrupt:
        sys.exit(130)


def __getattr__(name: str) -> Any:
    if name == "app":  # `from mdmem.commands import app`: the app with every command
        return load()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
