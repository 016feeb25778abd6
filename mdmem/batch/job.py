"""One batch job, as a worker runs it: one vault's ingest under that vault's lock, and the
result line that says what it did.

`run_job` is what every engine calls, in a long-lived worker: the local pool's processes and a
Dask cluster's workers alike. A problem the person can fix (an `MdmemError`: a vault that is
gone, an input that does not exist, a transcript that does not parse, a broken fact file) is a
failed line; a vault another writer holds (`mdmem watch`, a cron ingest) is a busy line, which
the run tries again later. Anything else is raised, for the engine to retry once.
"""

from __future__ import annotations

import os
import resource
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any

from mdmem.batch.manifest import Job, inside
from mdmem.edit.ingest import ingest_paths
from mdmem.errors import MdmemError, VaultLocked, VaultNotFound
from mdmem.store.vault import RULES_FILE, Vault

STATUSES = ("ok", "failed", "busy", "duplicate")


@dataclass(frozen=True, slots=True)
class Options:
    """What every job of a run shares: the root, the rule pack that creates a missing vault
    (`--init --rules PACK`; None: a missing vault fails), and whether to git-commit."""

    root: str
    init: str | None = None
    commit: bool = False


def run_job(job: Job, options: Options) -> dict[str, Any]:
    """Ingest the job's inputs into its vault, holding the vault's lock throughout."""
    start = time.perf_counter()
    try:
        out = _ingest(job, options)
    except VaultLocked as e:
        out = {"status": "busy", "error": str(e)}
    except MdmemError as e:
        out = {"status": "failed", "error": str(e)}
    return result_line(job.line, job.vault, seconds=round(time.perf_counter() - start, 4), **out)


def _ingest(job: Job, options: Options) -> dict[str, Any]:
    root, real = os.path.realpath(options.root), os.path.realpath(job.vault)
    if not inside(real, root):  # the manifest's check is by name; this one follows links
        raise MdmemError(f"{job.vault} leads to {real}, outside the root {root}; not run")
    missing = [p for p in job.inputs if not os.path.exists(p)]
    if missing:
        more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
        raise MdmemError(f"input {missing[0]} does not exist{more}; nothing was ingested into"
                         " this vault. Fix the path, or take it off the line")  # fmt: skip
    vault = _open(real, options)
    with vault.lock:
        vault.recover()  # a transaction a killed worker left is finished or rolled back first
        results = ingest_paths(vault, list(job.inputs), date=job.date, commit=options.commit)
        pending = vault.pending()
    counts: Counter[str] = Counter()
    for r in results:
        counts.update(d for _, d in r.plan.decisions)
        counts.update(r.cascaded())
    errors = [e for r in results for e in r.errors]
    return {
        "status": "failed" if errors else "ok",
        "sources": len(results),
        "skipped": sum(r.skipped for r in results),
        "counts": dict(sorted(counts.items())),
        "journal_ids": [r.entry["id"] for r in results if r.entry and not r.skipped],
        "pending": [
            {"fact": p["fact"], "status": p["status"], "question": p["question"]} for p in pending
        ],
        "error": "; ".join(errors) or None,
        "notes": [*vault.notes, *(w for r in results for w in r.warnings)],
        "commit": next((r.commit for r in results if r.commit), None),
    }


def _open(path: str, options: Options) -> Vault:
    """The vault, created from the pack when it is missing and the run was given --init."""
    if options.init is not None and not os.path.isfile(os.path.join(path, RULES_FILE)):
        return Vault.create(path, options.init, wait=0)
    try:
        return Vault(path, wait=0)  # wait=0: a vault another writer holds is busy at once
    except VaultNotFound:
        raise MdmemError(f"no vault at {path} (no {RULES_FILE}): it was deleted, or never made;"
                         " pass --init --rules PACK to create missing vaults") from None  # fmt: skip


def result_line(line: int, vault: str | None, *, status: str, error: str | None = None,
                **fields: Any) -> dict[str, Any]:  # fmt: skip
    """A result line, with every field present whatever happened, in one order."""
    assert status in STATUSES, status
    return {
        "line": line, "vault": vault, "status": status, "sources": 0, "skipped": 0,
        "counts": {}, "journal_ids": [], "pending": [], "error": error, "notes": [],
        "commit": None, "seconds": 0.0, **fields,
    }  # fmt: skip


def usage() -> dict[str, float]:
    """This worker process's CPU time and peak resident memory so far."""
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return {
        "cpu_seconds": round(ru.ru_utime + ru.ru_stime, 3),
        "peak_rss_mib": round(_peak_kib(ru) / 1024, 1),
    }


def _peak_kib(ru: resource.struct_rusage) -> int:
    """Linux's VmHWM: ru_maxrss carries over exec, so a worker would report its parent's peak."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            return next(int(t.split()[1]) for t in status if t.startswith("VmHWM:"))
    except (OSError, StopIteration, ValueError):
        return ru.ru_maxrss
