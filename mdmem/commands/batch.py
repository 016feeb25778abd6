"""batch: one ingest per vault over many vaults, from a JSON-lines manifest (docs/batch.md)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from mdmem.commands.app import command
from mdmem.errors import MdmemError

# The run did not start: the command, the manifest, the root, the pack or the results file is
# wrong (typer's usage errors are 2 as well). A job's own problem is its line and exit 1.
EXIT_NOT_STARTED = 2


def _cpus() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _stop(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt  # a scheduler's SIGTERM stops the run as Ctrl-C does


def _on_sigterm(handler: Any) -> Any:
    """Set SIGTERM's handler, returning the one before (only the main thread may)."""
    try:
        return signal.signal(signal.SIGTERM, handler)
    except ValueError:
        return None


@command()
def batch(
    manifest: Annotated[
        Path,
        typer.Argument(
            help='JSON lines, one job each: {"vault": …, "inputs": […], "date": …} (- for stdin).',
            allow_dash=True,
        ),
    ],
    root: Annotated[
        Path,
        typer.Option(
            "--root",
            envvar="MDMEM_BATCH_ROOT",
            show_default=False,
            help="The folder holding the vaults: relative paths are taken from it, and no job may name a vault outside it.",
        ),
    ],
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers", "-w", help="Worker processes (default: one per CPU).", show_default=False
        ),
    ] = None,
    engine: Annotated[
        str,
        typer.Option(
            "--engine", help="local (a process pool) or dask (a local Dask cluster of --workers)."
        ),
    ] = "local",
    scheduler: Annotated[
        str | None,
        typer.Option(
            "--scheduler", help="Run on the Dask cluster at this address (tcp://host:8786)."
        ),
    ] = None,
    dask_resources: Annotated[
        str | None,
        typer.Option(
            "--dask-resources",
            help="What each job needs of a Dask worker, as NAME=N[,NAME=N] (Dask's worker resources).",
        ),
    ] = None,
    init: Annotated[
        bool, typer.Option("--init", help="Create a vault that does not exist yet, with --rules.")
    ] = False,
    rules: Annotated[
        str, typer.Option("--rules", help="The rule pack (a name or a rules.yaml path) for --init.")
    ] = "personal",
    retry_failed: Annotated[
        Path | None,
        typer.Option(
            "--retry-failed",
            help="A previous run's results: run only the vaults it left failed or busy.",
            dir_okay=False,
        ),
    ] = None,
    commit: Annotated[
        bool, typer.Option("--commit", help="One git commit per vault of what its ingest changed.")
    ] = False,
    wait: Annotated[
        float,
        typer.Option(
            "--wait",
            help="Seconds a busy vault (another writer holds it) is tried again before it is left busy.",
        ),
    ] = 60.0,
    quiet: Annotated[
        bool,
        typer.Option(
            "--quiet", "-q", help="No failure lines or summary on stderr; the results alone."
        ),
    ] = False,
) -> None:
    """Ingest into many vaults from a JSON-lines manifest; one result line per job.

    Results go to stdout as JSON lines (line, vault, status ok/failed/busy/duplicate, counts,
    journal_ids, pending, error, …), then one summary line. Exit 0: all done; 1: some job failed,
    every other was done; 2: the run did not start; 75: only busy vaults are left; run again later
    (--retry-failed takes this run's results)."""
    from mdmem.batch.manifest import undone
    from mdmem.batch.run import run_batch

    previous = _on_sigterm(_stop)
    try:
        retry = None
        if retry_failed is not None:
            with _open(retry_failed) as f:
                retry = undone((line.decode("utf-8", "replace") for line in f), str(retry_failed))
        with _open(manifest) as stream:
            lines = run_batch(stream, root, engine=engine, workers=workers or _cpus(), scheduler=scheduler,
                              init=rules if init else None, commit=commit, retry=retry, wait=wait,
                              resources=_resources(dask_resources))  # fmt: skip
            summary = _stream(lines, quiet)
    except MdmemError as e:  # before any line: nothing was run
        typer.echo(f"Error: {e}", err=True)
        raise typer.Exit(e.exit_code if e.exit_code != 1 else EXIT_NOT_STARTED) from None
    finally:
        if previous is not None:
            _on_sigterm(previous)
    raise typer.Exit(summary["exit_code"])


def _resources(text: str | None) -> dict[str, float] | None:
    """'VAULTS=1,MEM=2' → {'VAULTS': 1.0, 'MEM': 2.0}."""
    if not text:
        return None
    out = {}
    for part in text.split(","):
        name, _, amount = part.partition("=")
        try:
            out[name.strip()] = float(amount)
        except ValueError:
            raise typer.BadParameter(
                f"{part!r} is not NAME=N", param_hint="--dask-resources"
            ) from None
        if not name.strip():
            raise typer.BadParameter(f"{part!r} has no name", param_hint="--dask-resources")
    return out


def _open(path: Path) -> Any:
    if str(path) == "-":
        return contextlib.nullcontext(sys.stdin.buffer)
    try:
        return path.open("rb")
    except OSError as e:
        raise MdmemError(f"cannot be read ({e.strerror or e})", path=str(path)) from None


def _stream(lines: Any, quiet: bool) -> dict[str, Any]:
    """Print each result line as it comes, and its failure on stderr; return the summary."""
    out = sys.stdout
    for line in lines:
        if "summary" in line:
            summary: dict[str, Any] = line["summary"]
        elif not quiet and line["status"] in ("failed", "busy"):
            typer.echo(f"line {line['line']} ({line['vault'] or 'no vault'}): {line['status']}: {line['error']}", err=True)  # fmt: skip
        out.write(json.dumps(line, ensure_ascii=False) + "\n")
        out.flush()
    if not quiet:
        counts = ", ".join(
            f"{summary[s]} {s}" for s in ("ok", "failed", "busy", "duplicate") if summary[s]
        )
        typer.echo(f"batch: {summary['lines']} lines in {summary['seconds']:.1f}s"
                   f" ({summary['vaults_per_second']} vaults/s): {counts or 'nothing to do'}", err=True)  # fmt: skip
    return summary
