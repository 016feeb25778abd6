"""The Dask engine: the same jobs on a Dask distributed cluster (`pip install 'mdmem[dask]'`).

Dask places, moves and retries the work: a job is one task (`job.run_job`), submitted with
`retries=1`, so an unexpected error is run once more on any worker; a worker that dies mid-job
is Dask's to handle too, and the cluster this module starts allows one such death per task
(`CLUSTER_CONFIG`): the second is Dask's `KilledWorker`, that job's failed line. A scheduler
of one's own is configured on its own side (docs/batch.md). The only module that imports
dask: nothing else of mdmem pays for it.
"""

from __future__ import annotations

import uuid
from typing import Any

from mdmem.batch.job import Options, result_line, run_job, usage
from mdmem.batch.manifest import Job
from mdmem.errors import EngineUnavailable, MdmemError

# The local cluster's scheduler: a job whose worker dies is run once more, not three times;
# a worker holds only the jobs it is running, so none waits behind a slow one while another
# worker is free, and a death dooms no job that was merely queued there. No worker samples its
# threads for a dashboard's profile (it has none): ~2% of a core each (benchmarks/bench_batch.py).
CLUSTER_CONFIG = {
    "distributed.scheduler.allowed-failures": 1,
    "distributed.scheduler.worker-saturation": 1.0,
    "distributed.worker.profile.enabled": False,
}
CONNECT_SECONDS = 30  # to reach a scheduler of one's own, then EngineUnavailable (exit 75)
# Jobs handed to the scheduler at once, per worker thread: enough to keep every worker fed
# while the scheduler queues them, few enough that a long manifest is never held whole.
WINDOW_PER_THREAD = 4


class DaskRunner:
    """A client of the cluster at `scheduler`, or of a local cluster of `workers` processes.
    `resources` (Dask's worker resources, e.g. {"VAULTS": 1}) is what each job needs: only the
    workers that declare it run jobs (those that mount the vaults, say); a local cluster's
    workers declare it once each."""

    def __init__(self, options: Options, *, scheduler: str | None = None, workers: int = 1,
                 resources: dict[str, float] | None = None) -> None:  # fmt: skip
        try:
            import dask
            import distributed
        except ImportError:
            raise MdmemError("--engine dask needs Dask: pip install 'mdmem[dask]'") from None
        self._wait, self._killed = distributed.wait, distributed.KilledWorker
        self._options = options
        self._cluster: Any = None
        try:
            if scheduler is None:
                with dask.config.set(CLUSTER_CONFIG):
                    self._cluster = distributed.LocalCluster(
                        n_workers=workers, threads_per_worker=1, processes=True,
                        host="127.0.0.1", dashboard_address="127.0.0.1:0", resources=resources,
                    )  # fmt: skip
                self.client = distributed.Client(self._cluster)
            else:
                self.client = distributed.Client(scheduler, timeout=CONNECT_SECONDS)
        except (OSError, TimeoutError) as e:
            raise EngineUnavailable(
                f"cannot reach the Dask scheduler at {scheduler} ({e}); is it running? Try again later"
            ) from None
        threads = sum(self.client.nthreads().values())
        self.slots = WINDOW_PER_THREAD * max(threads, 1)
        self._run = uuid.uuid4().hex[:12]  # keys are the cluster's: two runs never share one
        self._futures: dict[Any, Job] = {}
        self._resources = resources
        self.used: list[dict[str, float]] = []

    def submit(self, job: Job) -> None:
        future = self.client.submit(
            run_job, job, self._options, key=f"mdmem-batch-{self._run}-{job.line}-{uuid.uuid4().hex[:8]}",
            retries=1, pure=False, resources=self._resources,
        )  # fmt: skip
        self._futures[future] = job

    def wait(self, timeout: float | None = None) -> list[dict[str, Any]]:
        """Result lines of the jobs finished within `timeout` seconds (None: at least one)."""
        if not self._futures:
            return []
        try:
            done, _ = self._wait(
                list(self._futures), timeout=timeout, return_when="FIRST_COMPLETED"
            )
        except TimeoutError:
            return []
        return [self._line(f, self._futures.pop(f)) for f in done]

    def _line(self, future: Any, job: Job) -> dict[str, Any]:
        if future.status == "finished":
            return future.result()  # type: ignore[no-any-return]
        if future.status == "error":
            exc = future.exception()
            why = ("its worker died on each attempt (Dask's KilledWorker)" if isinstance(exc, self._killed)
                   else f"it raised {type(exc).__name__}: {exc}, on each attempt")  # fmt: skip
        else:
            why = f"the cluster {future.status} it"
        return result_line(job.line, job.vault, status="failed",
                           error=f"{why}; not done. The vault recovers what it left on its next open")  # fmt: skip

    def close(self) -> None:
        """Keep each worker's CPU time and peak memory, then let the cluster go."""
        try:
            self.used = list(self.client.run(usage).values())
        finally:
            self.terminate()

    def terminate(self) -> None:
        self.client.cancel(list(self._futures))
        self.client.close()
        if self._cluster is not None:
            self._cluster.close()
