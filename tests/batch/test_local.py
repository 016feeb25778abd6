"""The local pool on real worker processes: each fault is one failed line, every other vault done."""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
from pathlib import Path

import pytest

from mdmem.batch.manifest import undone
from mdmem.batch.run import run_batch
from mdmem.store.lock import VaultLock
from mdmem.store.vault import Vault
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
    run,
    run_in_thread,
    torn,
    tree,
    until,
)


def test_each_fault_is_one_failed_line_and_every_other_vault_is_done(tmp_path: Path) -> None:
    names = ["a", "broken", "bad_text", "gone", "torn", "b"]
    vaults = make_vaults(tmp_path, names)
    break_fact(vaults["broken"])
    (tmp_path / "chats/broken.md").write_text(MOVED, encoding="utf-8")  # touches the broken fact
    (tmp_path / "chats/bad_text.md").write_bytes(b"User: caf\xe9 au lait\n")
    home_city = torn(vaults["torn"])
    (tmp_path / "chats/torn.md").write_text(MOVED, encoding="utf-8")
    data = manifest_bytes(*(job(n) for n in names))
    lines, summary = collect(
        run_batch(DeletesWhenRead(data, 2, vaults["gone"]), tmp_path, workers=2)
    )
    status = {lines[i + 1]["vault"]: lines[i + 1]["status"] for i in range(len(names))}
    assert status == {str(vaults[n]): s for n, s in zip(names, ["ok", "failed", "failed", "failed", "ok", "ok"], strict=True)}  # fmt: skip
    assert "facts/user/home_city.md:2: invalid YAML" in lines[2]["error"]
    assert "bad_text.md:1: is not valid UTF-8" in lines[3]["error"]
    assert f"no vault at {vaults['gone']}" in lines[4]["error"] and not vaults["gone"].exists()
    # The torn vault: its own transaction rolled back first, then the job ran on a whole vault.
    assert lines[5]["notes"] == ["rolled back interrupted change deadbeef0001 (ingest)"]
    assert lines[5]["counts"] == {"UPDATE": 1, "UNCERTAIN": 1}  # moved: the employer is doubted
    assert (
        b"Written by the interrupted change"
        not in (vaults["torn"] / "facts/user/home_city.md").read_bytes()
    )
    assert home_city != (vaults["torn"] / "facts/user/home_city.md").read_bytes()  # now Shanghai
    for n in ("a", "b"):
        line = lines[names.index(n) + 1]
        assert (
            line["counts"] == {"ADD": 2}
            and [e["id"] for e in ingests(vaults[n])] == line["journal_ids"]
        )
    assert (summary["ok"], summary["failed"], summary["exit_code"]) == (3, 3, 1)
    assert sorted(summary["not_done"]) == [2, 3, 4]


def test_a_killed_worker_s_job_is_retried_once_then_failed(tmp_path: Path) -> None:
    vaults = make_vaults(tmp_path, ["once", "twice", "c"])
    for name in ("once", "twice"):  # a worker reading one blocks, holding the vault's lock
        (tmp_path / f"chats/{name}.md").unlink()
        os.mkfifo(tmp_path / f"chats/{name}.md")
    data = manifest_bytes(job("once"), job("twice"), job("c"))
    thread, out = run_in_thread(run_batch(io.BytesIO(data), tmp_path, workers=2))
    try:
        first = until(lambda: holder(vaults["once"]), what="a worker on 'once'")
        os.kill(first, signal.SIGKILL)
        for _ in range(2):
            pid = until(lambda: holder(vaults["twice"]), what="a worker on 'twice'")
            os.kill(pid, signal.SIGKILL)
            until(lambda p=pid: holder(vaults["twice"], not_pid=p) or not thread.is_alive() or out)
        until(lambda: holder(vaults["once"], not_pid=first), what="the retry of 'once'")
        feed(tmp_path / "chats/once.md", SAID)
        thread.join(60)
    finally:
        for name in ("once", "twice"):  # never leave a worker blocked on a FIFO
            with contextlib.suppress(OSError):  # no reader: ENXIO, nobody is blocked
                os.close(os.open(tmp_path / f"chats/{name}.md", os.O_WRONLY | os.O_NONBLOCK))
        thread.join(30)
    lines, summary = collect(out)
    assert lines[1]["status"] == "ok" and lines[1]["counts"] == {"ADD": 2}
    assert lines[1]["notes"] == ["attempt 1: its worker died (killed by SIGKILL); run again"]
    assert [e["id"] for e in ingests(vaults["once"])] == lines[1]["journal_ids"]
    assert lines[2]["status"] == "failed" and ingests(vaults["twice"]) == []
    assert lines[2]["error"].startswith(
        "attempt 1: its worker died (killed by SIGKILL); attempt 2: its worker died (killed by SIGKILL); not done."
    )
    assert lines[3]["status"] == "ok" and summary["exit_code"] == 1


def test_a_busy_vault_is_tried_again_later_in_the_run(tmp_path: Path) -> None:
    vaults = make_vaults(tmp_path, ["held", "x", "y"])
    lock = VaultLock(vaults["held"] / ".mdmem/lock")  # as `mdmem watch` holds it while it syncs
    order = []
    with contextlib.ExitStack() as held:
        held.enter_context(lock)
        for line in run_batch(io.BytesIO(manifest_bytes(job("held"), job("x"), job("y"))), tmp_path, workers=1):  # fmt: skip
            order.append(line.get("line"))
            if order == [2, 3]:  # the others went ahead of it; now the writer is done
                held.close()
    assert order == [2, 3, 1, None]
    assert len(ingests(vaults["held"])) == 1


def test_a_vault_busy_for_the_whole_wait_is_a_busy_line_and_exit_75(tmp_path: Path) -> None:
    vaults = make_vaults(tmp_path, ["held", "x"])
    with VaultLock(vaults["held"] / ".mdmem/lock"):
        lines, summary = run(tmp_path, job("held"), job("x"), workers=1, wait=0.6)
    assert lines[1]["status"] == "busy" and lines[2]["status"] == "ok"
    assert (
        lines[1]["error"].startswith("still busy after ")
        and f"locked by pid {os.getpid()}" in lines[1]["error"]
    )
    assert ingests(vaults["held"]) == [] and (summary["busy"], summary["exit_code"]) == (1, 75)


def test_retry_failed_runs_only_what_failed(tmp_path: Path) -> None:
    vaults = make_vaults(tmp_path, ["a", "b", "c"])
    (tmp_path / "chats/b.md").unlink()
    rows = [job("a"), job("b"), "{oops", job("c")]
    first = [
        json.dumps(line)
        for line in run_batch(io.BytesIO(manifest_bytes(*rows)), tmp_path, workers=1)
    ]
    (tmp_path / "chats/b.md").write_text(SAID, encoding="utf-8")
    rows[2] = job("d", "chats/a.md")  # the malformed line, fixed since
    Vault.create(tmp_path / "d", "personal")
    lines, summary = run(tmp_path, *rows, workers=1, retry=undone(first))
    assert sorted(lines) == [2, 3] and lines[2]["status"] == lines[3]["status"] == "ok"
    assert [len(ingests(vaults[n])) for n in "abc"] == [1, 1, 1] and summary["exit_code"] == 0


def test_bad_lines_write_nothing_outside_the_named_vaults(tmp_path: Path) -> None:
    root = tmp_path / "root"
    make_vaults(root, ["kept"])
    (root / "other").mkdir()
    (root / "other/notes.md").write_text("User: not a vault\n", encoding="utf-8")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside/rules.yaml").write_text("not mdmem's\n", encoding="utf-8")
    before = tree(tmp_path, skip={root / "new"})
    rows = [
        job("new", "chats/kept.md"),  # created by --init
        job("../outside", "chats/kept.md"),  # refused: outside the root
        job("missing_input", "chats/nope.md"),  # refused before the vault is made
        '{"vault": "half", "inputs": "chats/kept.md"}',  # malformed
        job("new", "chats/kept.md"),  # the same job again: run once
    ]
    lines, summary = run(root, *rows, init="personal", workers=1)
    assert [lines[n]["status"] for n in range(1, 6)] == [
        "ok",
        "failed",
        "failed",
        "failed",
        "duplicate",
    ]
    assert "does not exist; nothing was ingested" in lines[3]["error"]
    assert tree(tmp_path, skip={root / "new"}) == before  # nothing else made or touched
    assert not (root / "missing_input").exists() and not (root / "half").exists()
    assert (root / "new/rules.yaml").is_file() and len(ingests(root / "new")) == 1


def test_without_init_a_missing_vault_fails_and_says_how_to_create_it(tmp_path: Path) -> None:
    make_vaults(tmp_path, [])
    (tmp_path / "chats/a.md").write_text(SAID, encoding="utf-8")
    lines, _ = run(tmp_path, job("a"), workers=1)
    assert "pass --init --rules PACK to create missing vaults" in lines[1]["error"]
    assert not (tmp_path / "a").exists()


def test_a_link_out_of_the_root_is_refused_by_the_worker(tmp_path: Path) -> None:
    root = tmp_path / "root"
    make_vaults(root, [])
    (root / "chats/a.md").write_text(SAID, encoding="utf-8")
    outside = Vault.create(tmp_path / "elsewhere", "personal").root
    (root / "sneaky").symlink_to(outside)
    lines, _ = run(root, job("sneaky", "chats/a.md"), workers=1)
    assert (
        lines[1]["status"] == "failed"
        and f"leads to {outside}, outside the root" in lines[1]["error"]
    )
    assert ingests(outside) == []


@pytest.mark.parametrize("workers", [0, -1])
def test_workers_must_be_at_least_one(tmp_path: Path, workers: int) -> None:
    from mdmem.errors import MdmemError

    with pytest.raises(MdmemError, match="--workers must be at least 1"):
        run_batch(io.BytesIO(b""), tmp_path, workers=workers)


def test_commit_makes_one_git_commit_per_vault(tmp_path: Path) -> None:
    import subprocess

    vaults = make_vaults(tmp_path, ["g", "plain"])
    subprocess.run(["git", "init", "-q"], cwd=vaults["g"], check=True)
    lines, _ = run(tmp_path, job("g"), job("plain"), workers=1, commit=True)
    log = subprocess.run(
        ["git", "log", "--format=%H"], cwd=vaults["g"], capture_output=True, text=True
    )
    assert lines[1]["status"] == "ok" and lines[1]["commit"] == log.stdout.split()[0]
    assert lines[2]["status"] == "failed" and "git" in lines[2]["error"]  # not a repository
