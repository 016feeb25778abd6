"""Correcting a mistake from the command line: log, journal ids, undo by prefix, typos, --version."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mdmem.cli import app
from tests.conftest import STORY_RULES

runner = CliRunner()


def mdmem(*args: str):
    return runner.invoke(app, list(args), catch_exceptions=False)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    path = tmp_path / "v"
    assert mdmem("init", str(path), "--rules", str(STORY_RULES)).exit_code == 0
    return path


def entries(vault: Path) -> list[dict]:
    return json.loads(mdmem("log", "--json", "--vault", str(vault)).stdout)


def test_every_write_prints_its_journal_id(vault: Path) -> None:
    v = ("--vault", str(vault))
    for args in (("set", "home_city", "广州", "--date", "2025-08-15"),
                 ("set", "employer", "岭南科技", "--date", "2025-08-15"),
                 ("set", "home_city", "上海"), ("confirm", "employer", "--keep"),
                 ("forget", "employer")):  # fmt: skip
        out = mdmem(*args, *v)
        assert out.exit_code == 0, out.stderr
        newest = entries(vault)[0]["id"]
        assert f"Journal entry {newest} (`mdmem undo {newest}` reverses it)." in out.stderr
    undone = mdmem("undo", newest, *v)
    assert f"journal entry {entries(vault)[0]['id']}" in undone.stderr


def test_log_lists_entries_newest_first_with_ids_and_causes(vault: Path) -> None:
    v = ("--vault", str(vault))
    mdmem("set", "home_city", "广州", "--date", "2025-08-15", *v)
    mdmem("set", "social_insurance_city", "广州", "--date", "2025-08-15", *v)
    mdmem("set", "home_city", "上海", "--date", "2026-02-10", *v)
    data = entries(vault)
    assert [e["command"] for e in data] == ["set", "set", "set"]
    assert data[0]["changes"][0] == {"fact": "user/home_city", "decision": "UPDATE", "cause": None,
                                     "before": "广州", "after": "上海", "status": "active"}  # fmt: skip
    text = mdmem("log", *v).stdout.splitlines()
    assert text[0] == "id\ttime\tsource\tfact\tdecision\tchange"
    assert text[1].startswith(f"{data[0]['id']}\t2026-03-01 12:00\tset\tuser/home_city\tUPDATE")
    derived = next(x for x in text if "user/social_insurance_city\tDERIVE" in x)
    assert derived.startswith(data[0]["id"]) and "(because user/home_city changed)" in derived
    assert len(mdmem("log", "-n", "1", *v).stdout.splitlines()) == 3  # header + 2 changes
    only = json.loads(mdmem("log", "social_insurance_city", "--json", *v).stdout)
    assert len(only) == 2


def test_undo_with_an_ambiguous_prefix_lists_the_entries(vault: Path) -> None:
    v = ("--vault", str(vault))
    for n in range(40):  # enough entries that two ids share a first character
        mdmem("set", "commute_minutes", str(n), *v)
    ids = [e["id"] for e in entries(vault)]
    first = next(c for c in "0123456789abcdef" if sum(i.startswith(c) for i in ids) > 1)
    shared = [i for i in ids if i.startswith(first)]
    out = mdmem("undo", first, *v)
    assert out.exit_code == 1
    assert f"ambiguous: {len(shared)} entries start with '{first}'" in out.stderr
    assert all(i in out.stderr for i in shared)
    missing = mdmem("undo", "zzzz", *v)
    assert missing.exit_code == 1 and "`mdmem log` lists the ids" in missing.stderr
    assert "timeline" not in missing.stderr


def test_a_typo_in_set_is_refused_with_the_closest_names(vault: Path) -> None:
    v = ("--vault", str(vault))
    out = mdmem("set", "employr", "Google", *v)
    assert out.exit_code == 1
    assert "did you mean employer?" in out.stderr and "--new" in out.stderr
    assert not (vault / "facts" / "user" / "employr.md").exists()
    assert entries(vault) == []
    made = mdmem("set", "employr", "Google", "--new", *v)
    assert made.exit_code == 0 and "Warning: employr is not in rules.yaml" in made.stderr
    assert (vault / "facts" / "user" / "employr.md").exists()
    # Once a fact has the name, it is known: no --new needed, and show suggests it.
    assert mdmem("set", "employr", "Acme", *v).exit_code == 0
    assert "did you mean employer" in mdmem("show", "employe", *v).stderr


def test_version() -> None:
    out = mdmem("--version")
    assert out.exit_code == 0 and out.stdout.startswith("mdmem ")


def test_pending_says_how_to_answer(vault: Path) -> None:
    v = ("--vault", str(vault))
    mdmem("set", "home_city", "广州", "--date", "2025-08-15", *v)
    mdmem("set", "employer", "岭南科技", "--date", "2025-08-15", *v)
    mdmem("set", "home_city", "上海", "--date", "2026-02-10", *v)
    out = mdmem("pending", *v)
    assert "user/employer" in out.stdout
    assert "mdmem confirm user/employer VALUE" in out.stderr and "--keep" in out.stderr
    assert "--reject" in out.stderr
