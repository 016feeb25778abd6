"""The tools an agent corrects memory with: fix, undo, search; set's source; pending's shape."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mdmem.cli import app
from mdmem.errors import MdmemError
from mdmem.server.tools import Memory
from tests.conftest import make_vault


@pytest.fixture
def memory(tmp_path: Path) -> Memory:
    v = make_vault(tmp_path / "v", "personal")
    m = Memory(v.root)
    m.remember(text="I live in Guangzhou and I work at Lingnan Tech.", speaker="user", date="2025-08-15")
    m.remember(text="I moved to Shanghai.", speaker="user", date="2026-02-10")
    return m


def test_fix_corrects_a_value_that_was_wrong_all_along(memory: Memory) -> None:
    out = memory.fix(fact="home_city", value="Shenzhen")
    assert out["journal_id"]
    city = memory.vault().get("home_city")
    assert city is not None and city.value == "Shenzhen"
    assert "Shanghai" not in json.dumps(city.history)  # as if it had never been said


def test_undo_reverses_a_write_and_a_second_undo_says_already_undone(memory: Memory) -> None:
    done = memory.set_fact(fact="pets", value=["Rex"])
    out = memory.undo(entry=done["journal_id"])
    assert out["undoes"] == done["journal_id"] and memory.vault().get("pets") is None
    with pytest.raises(MdmemError, match="already undone"):
        memory.undo(entry=done["journal_id"])


def test_search_finds_the_persons_own_words(memory: Memory) -> None:
    out = memory.search(query="Where did I move?")
    assert out["passages"] and out["passages"][0]["text"] == "I moved to Shanghai."
    assert out["passages"][0]["link"].startswith("[[episodes/2026/")


def test_set_over_mcp_records_its_own_source(memory: Memory) -> None:
    memory.set_fact(fact="commute_minutes", value="35")
    fact = memory.vault().get("commute_minutes")
    assert fact is not None and fact.source == "mcp" and "through mcp" in fact.body


def test_pending_has_one_shape_over_mcp_and_the_cli(memory: Memory) -> None:
    cli = CliRunner().invoke(app, ["pending", "--json", "--vault", str(memory.root)])
    assert json.loads(cli.stdout) == memory.pending()


def test_log_of_an_attribute_shows_only_its_rows(memory: Memory) -> None:
    out = CliRunner().invoke(app, ["log", "home_city", "--vault", str(memory.root)])
    rows = [line.split("\t") for line in out.stdout.splitlines()[1:]]
    assert rows and all(r[3] == "user/home_city" for r in rows)
    entries = memory.log(fact="employer")["entries"]
    assert entries and all(c["fact"] == "user/employer" for e in entries for c in e["changes"])
