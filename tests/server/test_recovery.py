"""A tool call that finds a crash's unfinished transaction recovers it and says so in `notes`."""

from __future__ import annotations

import shutil
from pathlib import Path

import anyio
import pytest

from mdmem.store.vault import Vault
from tests.conftest import ROOT
from tests.server.client import LockHolder, call, connect, error


def run(body) -> None:  # type: ignore[no-untyped-def]
    async def bounded() -> None:
        with anyio.fail_after(60):  # server start-ups on a loaded machine included
            await body()

    anyio.run(bounded)


def crashed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The sample vault killed between writing a `set`'s files and its journal line."""
    root = tmp_path / "sample"
    shutil.copytree(ROOT / "sample_vault", root)
    v = Vault(root)
    monkeypatch.setattr(v.journal, "append", lambda e: (_ for _ in ()).throw(KeyboardInterrupt()))
    with pytest.raises(KeyboardInterrupt):
        v.set("home_city", "Berlin", date="2026-02-20")
    monkeypatch.undo()
    assert (root / ".mdmem" / "txn.json").exists()
    assert "Berlin" in (root / "facts/user/home_city.md").read_text(encoding="utf-8")  # half applied
    return root


def test_a_reading_tool_recovers_first_and_says_so(tmp_path, monkeypatch) -> None:
    root = crashed(tmp_path, monkeypatch)

    async def body() -> None:
        async with connect(root) as s:
            answer = await call(s, "ask", question="Where do I live?")
            assert len(answer["notes"]) == 1 and "rolled back" in answer["notes"][0]
            assert "Shanghai" in answer["answer"]  # answered from the vault as before the crash
            again = await call(s, "ask", question="Where do I live?")
            assert "notes" not in again  # told once: nothing was left to recover

    run(body)
    assert not (root / ".mdmem" / "txn.json").exists()
    assert "Berlin" not in (root / "facts/user/home_city.md").read_text(encoding="utf-8")


def test_a_writing_tool_recovers_first_and_says_so(tmp_path, monkeypatch) -> None:
    root = crashed(tmp_path, monkeypatch)

    async def body() -> None:
        async with connect(root) as s:
            result = await call(s, "set", fact="home_city", value="Hangzhou", date="2026-03-01")
            assert list(result)[0] == "notes" and "rolled back" in result["notes"][0]
            assert result["journal_id"] is not None
            log = await call(s, "log", limit=2)
            assert [e["command"] for e in log["entries"]] == ["set", "recover"]

    run(body)


def test_a_busy_vault_with_a_transaction_left_is_a_busy_error(tmp_path, monkeypatch) -> None:
    root = crashed(tmp_path, monkeypatch)
    holder = LockHolder(root)  # another writer holds the lock: nothing can be recovered now

    async def body() -> None:
        async with connect(root, "--wait", "0.2") as s:
            message = await error(s, "set", fact="home_city", value="Hangzhou")
            assert "vault busy" in message and "Recovered" not in message

    try:
        run(body)
    finally:
        holder.release()
    assert (root / ".mdmem" / "txn.json").exists()  # left for the next call, untouched
