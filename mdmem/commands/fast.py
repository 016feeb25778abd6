"""The plain form of `mdmem ask`, run without typer: a question answered in a blink.

Typer builds a pydantic validator for every option of the command it runs; with its import
that is ~120 ms, more than the answer. `ask` is what agents and scripts run most, so its
common form (a question, --vault, --entity/-e, --as-of, --json) is parsed here. Anything
else (--help, --llm, a bad date, an unknown option, a missing question) returns None and goes
through typer, which owns the usage messages. tests/perf_correctness/test_lazy_cli.py runs
both roads on the same arguments and compares what they print.
"""

from __future__ import annotations

import json
import os
import re
import sys
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mdmem.store.vault import Vault

_VALUED = {"--vault": "vault", "--entity": "entity", "-e": "entity", "--as-of": "as_of",
           "--evidence": "evidence"}  # fmt: skip
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
_MONTH_OR_YEAR = re.compile(r"\d{4}(?:-(?:0[1-9]|1[0-2]))?")


def plain_options(args: list[str], valued: dict[str, str], flags: dict[str, str]) -> tuple[dict[str, str | bool], list[str]] | None:  # fmt: skip
    """Options (`--name value`, `--name=value`, flags) and positional arguments, or None for
    anything else (--help, --, an unknown option, a value missing): typer's job."""
    opts: dict[str, str | bool] = {}
    rest: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        name, eq, inline = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        if name in valued:
            if not eq:
                if i + 1 == len(args):
                    return None
                i += 1
                inline = args[i]
            opts[valued[name]] = inline
        elif arg in flags:
            opts[flags[arg]] = True
        elif arg.startswith("-"):
            return None
        else:
            rest.append(arg)
        i += 1
    return opts, rest


def parse_ask(args: list[str]) -> dict[str, str | bool | None] | None:
    """The options of a plain `ask` (args after the command name), or None to leave it to typer."""
    parsed = plain_options(args, _VALUED, {"--json": "as_json"})
    if parsed is None or len(parsed[1]) != 1:
        return None  # no question, or a second argument
    opts: dict[str, str | bool | None] = {"vault": os.environ.get("MDMEM_VAULT") or None}
    opts.update(parsed[0])
    as_of = opts.get("as_of")
    if isinstance(as_of, str) and not _is_day(as_of):
        if not _MONTH_OR_YEAR.fullmatch(as_of):
            return None  # words or a bad date: typer's road (dateparser, the usage message)
        from mdmem.commands.dates import last_day

        opts["as_of"] = last_day(as_of, "--as-of")
    evidence = opts.get("evidence")
    if isinstance(evidence, str):
        if not evidence.isdigit():
            return None
        opts["evidence"] = evidence
    opts["question"] = parsed[1][0]
    return opts


def _is_day(value: str) -> bool:
    try:
        return bool(_DAY.fullmatch(value)) and date.fromisoformat(value).isoformat() == value
    except ValueError:
        return False


def plain_vault(path: str | Path | None, wait: float = 10.0) -> Vault:
    """The vault at path (None: the nearest one upward), telling stderr what crash recovery
    did, as `commands.app.open_vault` does for typer's commands (this module loads no typer)."""
    from mdmem.store.vault import Vault

    v = Vault(path, wait=wait) if path is not None else Vault.find(wait=wait)
    v.report = _recovered  # a crash's leftovers
    return v


def _recovered(note: str) -> None:
    sys.stderr.write(f"Recovered: {note}\n")


def run_ask(opts: dict[str, str | bool | None]) -> int:
    """Answer as `mdmem ask` does; the exit code (MdmemError: 'Error: …' and its code)."""
    from mdmem.errors import MdmemError
    from mdmem.model.slug import check_slug
    from mdmem.read.ask import ask

    try:
        raw = opts.get("entity")
        entity = check_slug(raw, "entity") if isinstance(raw, str) else None
        path = opts.get("vault")
        vault = plain_vault(path if isinstance(path, str) else None)
        answer = ask(vault, str(opts["question"]), as_of=opts.get("as_of"),  # type: ignore[arg-type]
                     entity=entity, evidence=int(str(opts.get("evidence") or 2)))  # fmt: skip
    except MdmemError as e:
        sys.stderr.write(f"Error: {e}\n")
        return e.exit_code
    if opts.get("as_json"):
        print(json.dumps(answer.to_json(), ensure_ascii=False, indent=2, sort_keys=False))
    else:
        print(answer.text)
    return 0


def parse_mcp(args: list[str]) -> dict[str, str | float | None] | None:
    """The options of a stdio `mcp` (--vault, --wait), or None to leave it to typer: an agent
    client starts the server on every session, and typer's start is a tenth of it."""
    parsed = plain_options(args, {"--vault": "vault", "--wait": "wait"}, {})
    if parsed is None or parsed[1]:
        return None  # --http, --host, --help, a stray argument: typer's job
    given = parsed[0]
    opts: dict[str, str | float | None] = {"vault": os.environ.get("MDMEM_VAULT") or None, "wait": 10.0}  # fmt: skip
    if isinstance(given.get("vault"), str):
        opts["vault"] = str(given["vault"])
    if "wait" in given:
        try:
            opts["wait"] = float(str(given["wait"]))
        except ValueError:
            return None
    return opts


def run_mcp(opts: dict[str, str | float | None]) -> int:
    """Serve the vault over stdio as `mdmem mcp` does; the exit code."""
    from mdmem.errors import MdmemError

    wait = float(opts["wait"] or 0)
    try:
        path = opts.get("vault")
        vault = plain_vault(path if isinstance(path, str) else None, wait)
        from mdmem.server.lean import serve  # the MCP SDK loads only when a request needs it

        serve(vault.root, wait=wait)
    except MdmemError as e:
        sys.stderr.write(f"Error: {e}\n")
        return e.exit_code
    except KeyboardInterrupt:
        return 130
    return 0
