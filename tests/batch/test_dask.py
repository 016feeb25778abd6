"""The same jobs on a real Dask cluster on loopback: each fault one failed line, the rest done."""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from mdmem.batch.run import run_batch
from mdmem.store.lock import VaultLock
from tests.batch.helpers import (
    MOVED,
    SAID,
    DeletesWhenRead,
    break_fact,
    collect,
    feed,
    holder,
    ingests,
    job,
    make_vaults,
    manifest_bytes,
    run_in_thread,
    torn,
    until,
)

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    """Three one-thread worker processes and a scheduler on 127.0.0.1, configured as
    docs/batch.md tells a cluster's owner to: a job whose worker dies is run once more."""
    import dask

    from mdmem.batch.dask_runner import CLUSTER_CONFIG

    with dask.config.set(CLUSTER_CONFIG):
        cluster = distributed.LocalCluster(
            n_workers=3,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address="127.0.0.1:0",
        )
    try:
        yield cluster.scheduler_address
    finally:
        cluster.close()


def test_each_fault_is_one_failed_line_on_a_cluster(tmp_path: Path, scheduler: str) -> None:
    names = ["a", "broken", "bad_text", "gone", "torn", "held", "b"]
    vaults = make_vaults(tmp_path, names)
    break_fact(vaults["broken"])
    (tmp_path / "chats/broken.md").write_text(MOVED, encoding="utf-8")
    (tmp_path / "chats/bad_text.md").write_bytes(b"User: caf\xe9 au lait\n")
    torn(vaults["torn"])
    (tmp_path / "chats/torn.md").write_text(MOVED, encoding="utf-8")
    data = manifest_bytes(*(job(n) for n in names))
    seen = []
    with contextlib.ExitStack() as held:
        held.enter_context(VaultLock(vaults["held"] / ".mdmem/lock"))  # another writer at work
        for line in run_batch(
            DeletesWhenRead(data, 1, vaults["gone"]), tmp_path, scheduler=scheduler
        ):
            seen.append(line)
            if len(seen) == len(names) - 1:  # everyone else is done: the writer lets go
                held.close()
    lines, summary = collect(seen)
    assert [lines[n]["status"] for n in range(1, 8)] == [
        "ok",
        "failed",
        "failed",
        "failed",
        "ok",
        "ok",
        "ok",
    ]
    assert "facts/user/home_city.md:2: invalid YAML" in lines[2]["error"]
    assert "bad_text.md:1: is not valid UTF-8" in lines[3]["error"]
    assert "no vault at" in lines[4]["error"]
    assert lines[5]["notes"] == ["rolled back interrupted change deadbeef0001 (ingest)"]
    assert seen[-2]["line"] == 6  # the busy vault came last, after the others
    for n in ("a", "held", "b"):
        assert (
            [e["id"] for e in ingests(vaults[n])] == lines[names.index(n) + 1]["journal_ids"] != []
        )
    assert (summary["engine"], summary["exit_code"], len(summary["workers"])) == ("dask", 1, 3)


def test_a_killed_worker_s_job_is_retried_once_by_dask(tmp_path: Path, scheduler: str) -> None:
    vaults = make_vaults(tmp_path, ["once", "twice", "c"])
    for name in ("once", "twice"):
        (tmp_path / f"chats/{name}.md").unlink()
        os.mkfifo(tmp_path / f"chats/{name}.md")
    data = manifest_bytes(job("once"), job("twice"), job("c"))
    thread, out = run_in_thread(run_batch(io.BytesIO(data), tmp_path, scheduler=scheduler))
    try:
        first = until(lambda: holder(vaults["once"]), what="a worker on 'once'")
        os.kill(first, signal.SIGKILL)
        until(lambda: holder(vaults["once"], not_pid=first), what="Dask's retry of 'once'")
        feed(tmp_path / "chats/once.md", SAID)
        pid = None
        for _ in range(2):
            pid = until(
                lambda p=pid: holder(vaults["twice"], not_pid=p), what="a worker on 'twice'"
            )
            os.kill(pid, signal.SIGKILL)
        thread.join(120)
    finally:
        for name in ("once", "twice"):
            with contextlib.suppress(OSError):
                os.close(os.open(tmp_path / f"chats/{name}.md", os.O_WRONLY | os.O_NONBLOCK))
        thread.join(30)
    lines, summary = collect(out)
    assert (
        lines[1]["status"] == "ok"
        and [e["id"] for e in ingests(vaults["once"])] == lines[1]["journal_ids"]
    )
    assert lines[2]["status"] == "failed" and "KilledWorker" in lines[2]["error"]
    assert ingests(vaults["twice"]) == []
    assert lines[3]["status"] == "ok" and summary["exit_code"] == 1


def test_engine_dask_starts_its_own_local_cluster(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from mdmem.commands import load

    make_vaults(tmp_path, ["a", "b"])
    (tmp_path / "m.jsonl").write_bytes(manifest_bytes(job("a"), job("b")))
    args = ["batch", "m.jsonl", "--root", str(tmp_path), "--engine", "dask", "--workers", "1",
            "--dask-resources", "VAULTS=1"]  # fmt: skip
    result = CliRunner().invoke(load("batch"), args)
    assert result.exit_code == 0, result.stderr
    summary = json.loads(result.stdout.splitlines()[-1])["summary"]
    assert (summary["ok"], summary["engine"], len(summary["workers"])) == (2, "dask", 1)
    assert len(ingests(tmp_path / "a")) == len(ingests(tmp_path / "b")) == 1


def test_a_scheduler_that_cannot_be_reached_exits_75(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import socket

    from typer.testing import CliRunner

    from mdmem.batch import dask_runner
    from mdmem.commands import load

    monkeypatch.setattr(dask_runner, "CONNECT_SECONDS", 1)
    with socket.socket() as s:  # a port on loopback that nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    make_vaults(tmp_path, ["a"])
    (tmp_path / "m.jsonl").write_bytes(manifest_bytes(job("a")))
    args = ["batch", "m.jsonl", "--root", str(tmp_path), "--scheduler", f"tcp://127.0.0.1:{port}"]
    result = CliRunner().invoke(load("batch"), args)
    assert result.exit_code == 75 and "cannot reach the Dask scheduler" in result.stderr
    assert ingests(tmp_path / "a") == []
