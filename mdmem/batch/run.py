"""Run a manifest's jobs on an engine and stream their result lines, then a summary line.

The driver reads the manifest as it goes, keeps at most the engine's `slots` jobs in flight,
and yields each result line as its job finishes (so 100,000 lines need no more memory than a
few). A vault another writer holds is tried again later in the run, with a growing pause, for
up to `wait` seconds from the first time it was found busy; after that it is a busy line. Which
worker runs a job, and running one again when a worker dies, are the engine's.
"""

from __future__ import annotations

import heapq
import os
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, Protocol

from mdmem.batch.job import STATUSES, Options, result_line, usage
from mdmem.batch.manifest import Job, Refused, Undone, read_jobs
from mdmem.errors import MdmemError

ENGINES = ("local", "dask")
# Exit codes a scheduler can act on: all done; some job failed (its line says why; the rest
# were done); nothing failed but some vault stayed busy (EX_TEMPFAIL: run again later).
EXIT_OK, EXIT_FAILED, EXIT_BUSY = 0, 1, 75
FIRST_PAUSE, LONGEST_PAUSE = 0.25, 2.0  # seconds before a busy vault is tried again


class Engine(Protocol):
    slots: int
    used: list[dict[str, float]]

    def submit(self, job: Job) -> None: ...
    def wait(self, timeout: float | None = None) -> list[dict[str, Any]]: ...
    def close(self) -> None: ...
    def terminate(self) -> None: ...


def start_engine(options: Options, *, engine: str = "local", workers: int = 1,
                 scheduler: str | None = None, resources: dict[str, float] | None = None) -> Engine:  # fmt: skip
    """The local process pool (the default), or Dask: a local cluster, or the one at `scheduler`."""
    if engine == "dask":
        from mdmem.batch.dask_runner import DaskRunner  # the one place dask is imported

        return DaskRunner(options, scheduler=scheduler, workers=workers, resources=resources)
    from mdmem.batch.local import LocalPool

    return LocalPool(options, workers)


def check_pack(pack: str) -> str:
    """A rule pack for --init, checked once here rather than failing in every job: its name
    (each worker finds the installed pack itself), or the absolute path of a rules file."""
    from mdmem.model.rules_yaml import load_rules
    from mdmem.store.packs import pack_path

    path = pack_path(pack)
    load_rules(path)
    return str(path.resolve()) if Path(pack).suffix in (".yaml", ".yml") else pack


def run_batch(manifest: IO[bytes], root: str | Path, *, engine: str = "local", workers: int = 1,
              scheduler: str | None = None, init: str | None = None, commit: bool = False,
              retry: Undone | None = None, wait: float = 60.0,
              resources: dict[str, float] | None = None) -> Iterator[dict[str, Any]]:  # fmt: skip
    """Every job of the manifest (only those `retry` names, if given), run on the engine: one
    result line per manifest line as each finishes, then `{"summary": {…}}` with the exit code.
    `init` is the rule pack that creates missing vaults; `wait` how long a busy vault is tried;
    `resources` what a Dask worker must declare to take a job.

    The options, the root and the pack are checked now (MdmemError); the engine starts when
    the first line is asked for, and stops when the last is read or the caller stops reading."""
    base = os.path.abspath(os.path.expanduser(str(root)))
    if not os.path.isdir(base):
        raise MdmemError(f"the root {base} is not a folder; give --root the folder that holds the vaults")  # fmt: skip
    if engine not in ENGINES:
        raise MdmemError(f"no engine {engine!r}; choose one of: {', '.join(ENGINES)}")
    if workers < 1:
        raise MdmemError(f"--workers must be at least 1, not {workers}")
    options = Options(base, check_pack(init) if init is not None else None, commit)
    if scheduler is not None:
        engine = "dask"
    if resources and engine != "dask":
        raise MdmemError("Dask resources are for --engine dask or --scheduler")
    return _run(manifest, options, retry, wait, engine=engine, workers=workers,
                scheduler=scheduler, resources=resources)  # fmt: skip


def _run(manifest: IO[bytes], options: Options, retry: Undone | None, wait: float,
         **engine: Any) -> Iterator[dict[str, Any]]:  # fmt: skip
    started = time.monotonic()
    runner = start_engine(options, **engine)
    tally: Counter[str] = Counter()
    not_done: list[int] = []
    try:
        for line, ran in _drive(runner, read_jobs(manifest, options.root, only=retry), wait):
            tally[line["status"]] += 1
            tally["ran"] += ran
            if line["status"] in ("failed", "busy") and len(not_done) < 100:
                not_done.append(line["line"])
            yield line
        runner.close()
    except BaseException:  # interrupted, or the caller stopped reading: stop the workers now
        runner.terminate()
        raise
    seconds = time.monotonic() - started
    code = EXIT_FAILED if tally["failed"] else EXIT_BUSY if tally["busy"] else EXIT_OK
    yield {"summary": {
        "lines": sum(tally[s] for s in STATUSES), **{s: tally[s] for s in ("ok", "failed", "busy", "duplicate")},
        "not_done": not_done, "seconds": round(seconds, 3),
        "vaults_per_second": round(tally["ran"] / seconds, 2) if seconds else None,
        "engine": engine["engine"], "workers": runner.used, "driver": usage(), "exit_code": code,
    }}  # fmt: skip


def _drive(runner: Engine, items: Iterator[Job | Refused], wait: float) -> Iterator[tuple[dict[str, Any], bool]]:  # fmt: skip
    """Feed the engine while slots are free; yield results as they come (and whether the line
    was run, not refused), trying busy vaults again later."""
    later: list[tuple[float, int, Job]] = []  # (when to try again, line, job)
    busy: dict[int, tuple[float, int]] = {}  # line → (first found busy, times)
    flying: dict[int, Job] = {}  # line → its job, while the engine has it
    exhausted = False
    while True:
        now = time.monotonic()
        while len(flying) < runner.slots:
            if later and later[0][0] <= now:
                job = heapq.heappop(later)[2]
            elif exhausted or (item := next(items, None)) is None:
                exhausted = True
                break
            elif isinstance(item, Refused):
                yield (
                    result_line(item.line, item.vault, status=item.status, error=item.error),
                    False,
                )
                continue
            else:
                job = item
            flying[job.line] = job
            runner.submit(job)
        if exhausted and not flying and not later:
            return
        pause = max(later[0][0] - now, 0.0) if later else None
        if not flying:
            time.sleep(pause or 0.0)
            continue
        for line in runner.wait(pause):
            job = flying.pop(line["line"])
            if line["status"] == "busy":
                first, times = busy.get(job.line, (time.monotonic(), 0))
                if time.monotonic() - first < wait:
                    busy[job.line] = (first, times + 1)
                    retry_at = time.monotonic() + min(FIRST_PAUSE * 2**times, LONGEST_PAUSE)
                    heapq.heappush(later, (retry_at, job.line, job))
                    continue
                line["error"] = (
                    f"still busy after {times + 1} tries over {wait:g}s: {line['error']}"
                )
            busy.pop(job.line, None)
            yield line, True
