"""Batch: one ingest per vault over many vaults, from a JSON-lines manifest (`mdmem batch`).

    from mdmem.batch import run_batch

    with open("nightly.jsonl", "rb") as manifest:
        for line in run_batch(manifest, root="/srv/vaults", workers=2):
            print(line)  # one result per manifest line as it finishes, then {"summary": …}

`manifest` reads and checks the lines, `job` is one vault's ingest as a worker runs it, `local`
the process pool on one machine, `dask_runner` the same jobs on a Dask cluster (the only module
that imports dask), and `run` the driver between them. See docs/batch.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mdmem.batch.manifest import Job, read_jobs, undone
    from mdmem.batch.run import run_batch

_EXPORTS = {
    "run_batch": "mdmem.batch.run",
    "read_jobs": "mdmem.batch.manifest",
    "undone": "mdmem.batch.manifest",
    "Job": "mdmem.batch.manifest",
}
__all__ = ["Job", "read_jobs", "run_batch", "undone"]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'mdmem.batch' has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(_EXPORTS[name]), name)
