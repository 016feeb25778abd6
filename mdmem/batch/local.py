"""The local engine: N long-lived worker processes on this machine, one job at a time each.

Each worker imports mdmem once and then runs job after job (`job.run_job`), so a vault costs
its ingest, not an interpreter's start. A worker that dies mid-job (killed, out of memory) is
replaced and its job run once more: the vault's transaction recovers whatever the dead worker
left half-written when the job opens it again. A second death, or an unexpected error raised
twice, is that job's failed line; every other job goes on.

(The standard library's pools do not fit: `concurrent.futures` marks the whole pool broken and
stops every other worker when one dies; `multiprocessing.Pool` loses the dead worker's task.)
"""

from __future__ import annotations

import contextlib
import multiprocessing
import signal
import sys
import traceback
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Any

from mdmem.batch.job import Options, result_line, run_job, usage
from mdmem.batch.manifest import Job

ATTEMPTS = 2  # a job whose worker died (or raised) is run once more, then reported failed


def _serve(conn: Connection, options: Options) -> None:
    """A worker: run the jobs sent until told to stop, then send what it used."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the driver's to handle
    while True:
        try:
            job = conn.recv()
        except EOFError:  # the driver is gone
            return
        if job is None:
            conn.send(usage())
            return
        try:
            conn.send(("done", run_job(job, options)))
        except Exception as e:  # noqa: BLE001 - reported, and the job retried once
            traceback.print_exc(file=sys.stderr)
            conn.send(("raised", f"{type(e).__name__}: {e}"))


class _Worker:
    def __init__(self, ctx: Any, options: Options) -> None:
        self.conn, theirs = ctx.Pipe()
        self.process: BaseProcess = ctx.Process(target=_serve, args=(theirs, options), daemon=True)
        self.process.start()
        theirs.close()
        self.job: Job | None = None
        self.failures: tuple[str, ...] = ()  # why each earlier attempt at its job failed


class LocalPool:
    """`workers` processes; `submit` a job while `slots` allow, `wait` for finished ones."""

    def __init__(self, options: Options, workers: int = 1) -> None:
        if workers < 1:
            raise ValueError("workers must be at least 1")
        methods = multiprocessing.get_all_start_methods()
        # forkserver: a clean process to fork workers from, safe in a program with threads;
        # it imports the job's modules once, so each worker starts with them loaded.
        self._ctx = multiprocessing.get_context(
            "forkserver" if "forkserver" in methods else "spawn"
        )
        if "forkserver" in methods:
            self._ctx.set_forkserver_preload(["mdmem.batch.job"])
        self._options = options
        self._workers = [_Worker(self._ctx, options) for _ in range(workers)]
        self._retry: list[tuple[Job, tuple[str, ...]]] = []
        self.slots = workers
        self.used: list[dict[str, float]] = []  # each worker's CPU time and peak memory, at close

    def submit(self, job: Job, failures: tuple[str, ...] = ()) -> None:
        idle = next(w for w in self._workers if w.job is None)  # the caller keeps within slots
        idle.job, idle.failures = job, failures
        idle.conn.send(job)

    def wait(self, timeout: float | None = None) -> list[dict[str, Any]]:
        """Result lines of the jobs finished within `timeout` seconds (None: at least one)."""
        busy = [w for w in self._workers if w.job is not None]
        if not busy:
            return []
        ready = set(wait([w.conn for w in busy] + [w.process.sentinel for w in busy], timeout))
        out: list[dict[str, Any]] = []
        for w in busy:
            if w.conn in ready or w.process.sentinel in ready:
                line = self._collect(w)
                if line is not None:
                    out.append(line)
        while self._retry and any(w.job is None for w in self._workers):
            self.submit(*self._retry.pop())
        return out

    def _collect(self, w: _Worker) -> dict[str, Any] | None:
        job, failures = w.job, w.failures
        assert job is not None
        message: tuple[str, Any] | None = None
        with contextlib.suppress(EOFError, OSError):
            if w.conn.poll():
                message = w.conn.recv()
        w.job = None
        if message is None or not w.process.is_alive():  # a fresh worker takes its place
            if message is None and w.process.is_alive():  # its pipe broke: it cannot go on
                w.process.kill()
            w.process.join(5)
            self._workers[self._workers.index(w)] = _Worker(self._ctx, self._options)
        told = [f"attempt {n}: {why}" for n, why in enumerate(failures, 1)]
        if message is not None and message[0] == "done":
            line: dict[str, Any] = message[1]
            line["notes"] += [f"{t}; run again" for t in told]
            return line
        why = f"it raised {message[1]}" if message else f"its worker died ({_signal_name(w.process.exitcode)})"  # fmt: skip
        if len(failures) + 1 < ATTEMPTS:
            self._retry.append((job, (*failures, why)))
            return None
        told.append(f"attempt {len(failures) + 1}: {why}")
        return result_line(job.line, job.vault, status="failed",
                           error=f"{'; '.join(told)}; not done. The vault recovers anything a"
                                 " dead worker left half-written on its next open")  # fmt: skip

    def close(self) -> None:
        """Stop the workers after their current jobs, keeping what each used."""
        for w in self._workers:
            with contextlib.suppress(OSError):
                w.conn.send(None)
        for w in self._workers:
            with contextlib.suppress(EOFError, OSError):
                if w.conn.poll(30):
                    self.used.append(w.conn.recv())
            w.process.join(5)

    def terminate(self) -> None:
        """Stop the workers now (an interrupted run): a vault cut mid-write recovers on its next open."""
        for w in self._workers:
            w.process.terminate()
        for w in self._workers:
            w.process.join(5)


def _signal_name(code: int | None) -> str:
    if code is not None and code < 0:
        with contextlib.suppress(ValueError):
            return f"killed by {signal.Signals(-code).name}"
    return f"exit code {code}"
