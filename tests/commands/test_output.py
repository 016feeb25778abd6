"""Output that survives pipes and narrow terminals: tab-separated rows, names never cut."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console
from rich.table import Table
from typer.testing import CliRunner

from mdmem.cli import app
from mdmem.commands import render
from tests.conftest import ROOT

runner = CliRunner()
SAMPLES = ROOT / "sample_vault" / "transcripts"


def mdmem(*args: str):
    return runner.invoke(app, list(args), catch_exceptions=False)


@pytest.fixture
def moved(tmp_path: Path) -> Path:
    root = tmp_path / "v"
    assert mdmem("init", str(root), "--rules", "personal").exit_code == 0
    files = [str(SAMPLES / "2025-08-15-en.md"), str(SAMPLES / "2026-02-10-en.md")]
    assert mdmem("ingest", *files, "--vault", str(root)).exit_code == 0
    return root


def test_show_in_a_pipe_is_tab_separated_and_never_truncated(moved: Path) -> None:
    out = mdmem("show", "--vault", str(moved)).stdout
    lines = out.splitlines()
    assert lines[0] == "fact\tvalue\tstatus\tsince\tnote"
    assert "…" not in out
    row = next(line for line in lines if line.startswith("user/commute_minutes\t"))
    assert row.split("\t")[2] == "expired"
    assert "user/social_insurance_city\tShanghai\tactive\t2026-02-10\tderived from" in out


def test_timeline_in_a_pipe_is_one_line_per_event(moved: Path) -> None:
    out = mdmem("timeline", "--vault", str(moved)).stdout
    lines = out.splitlines()
    assert lines[0] == "when\tfact\tchange\tvalue\tsource"
    assert all(line.count("\t") <= 4 for line in lines) and "…" not in out
    assert any("user/social_insurance_city\tderived from user/home_city" in x for x in lines)


def test_timeline_to_a_file_is_tab_separated_too(moved: Path, tmp_path: Path) -> None:
    target = tmp_path / "t.txt"
    assert mdmem("timeline", "--output", str(target), "--vault", str(moved)).exit_code == 0
    assert target.read_text(encoding="utf-8").startswith("when\tfact\tchange\tvalue\tsource\n")


def _terminal(table: Table, width: int, wrap: int = 1) -> str:
    console = Console(file=io.StringIO(), width=width, force_terminal=True, color_system=None)
    render.print_table(table, console, wrap=wrap)
    return console.file.getvalue()  # type: ignore[attr-defined]


def _table() -> Table:
    table = Table(show_header=True, box=None, pad_edge=False)
    for col in ("fact", "status", "note"):
        table.add_column(col)
    table.add_row("user/social_insurance_city", "uncertain", "user/home_city changed on 2026-02-10 " * 2)
    table.add_row("user/commute_minutes", "expired", "")
    return table


def test_on_a_narrow_terminal_names_stay_whole_and_the_last_column_wraps() -> None:
    text = _terminal(_table(), 60)
    assert "user/social_insurance_city" in text and "…" not in text
    assert "user/commute_minutes" in text
    first = text.splitlines()[1]
    assert first.startswith("user/social_insurance_city  uncertain  user/home_city")
    assert len(text.splitlines()) > 3  # the note wrapped onto lines of its own
    assert all(len(line) <= 60 for line in text.splitlines())


def test_a_terminal_too_narrow_for_the_names_gets_longer_lines_not_cut_names() -> None:
    text = _terminal(_table(), 30)
    assert "user/social_insurance_city" in text and "uncertain" in text and "…" not in text


def test_tsv_flattens_tabs_and_newlines_in_cells() -> None:
    table = Table("a", "b")
    table.add_row("x\ty", "line one\nline two")
    assert render.tsv(table) == "a\tb\nx y\tline one line two\n"


def test_context_within_a_budget_keeps_current_facts_and_speaks_to_the_agent(moved: Path) -> None:
    out = mdmem("context", "--max-chars", "1200", "--vault", str(moved)).stdout
    assert len(out) <= 1200
    current = out.split("## Current facts")[1]
    assert "- home city: Shanghai" in current and "- employer" not in current
    assert out.index("## Needs confirmation") < out.index("## Current facts")
    assert "mdmem" not in out and "--max-chars" not in out
    assert "user/" not in out  # labels, not internal keys like (user/home_city changed)
    assert "(home city changed)" in out
    small = mdmem("context", "--max-chars", "500", "--vault", str(moved)).stdout
    assert "home city: Shanghai" in small and "Ask:" not in small


def test_a_source_named_as_given_is_shown_from_here_not_joined_to_the_vault(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A transcript that shares nothing with the vault but `/` keeps the name it was given
    (`chats/a.md`, from the working folder); what ingest prints must open as it is."""
    from mdmem.commands.shown import here
    from tests.conftest import make_vault

    root = tmp_path / "elsewhere" / "vault"
    v = make_vault(root)
    work = tmp_path / "work"
    (work / "chats").mkdir(parents=True)
    (work / "chats" / "a.md").write_text("User: hi\n", encoding="utf-8")
    (root / "chats").mkdir()
    (root / "chats" / "b.md").write_text("User: hi\n", encoding="utf-8")
    monkeypatch.chdir(work)
    assert here(v, "chats/a.md") == "chats/a.md"  # as given: it is here, not in the vault
    assert here(v, "chats/b.md") == "../elsewhere/vault/chats/b.md"  # vault-relative
    assert here(v, "facts/user/x.md") == "../elsewhere/vault/facts/user/x.md"  # not yet written


def _into_a_closed_pipe(*args: str) -> subprocess.CompletedProcess[str]:
    """`mdmem ARGS` with stdout a pipe nobody reads: its first write fails with EPIPE, every time."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run([sys.executable, "-m", "mdmem", *args], stdout=write, stderr=subprocess.PIPE,
                              text=True, cwd=ROOT, timeout=120)  # fmt: skip
    finally:
        os.close(write)


@pytest.mark.parametrize("command", [["ask", "Where do I live?"], ["timeline"], ["pending"]])
def test_a_reader_that_went_away_gets_no_traceback(moved: Path, command: list[str]) -> None:
    # `mdmem ask … | head -0`: the plain road of ask raised BrokenPipeError with a traceback;
    # like typer's commands, it now stops quietly with exit code 1.
    run = _into_a_closed_pipe(*command, "--vault", str(moved))
    assert "Traceback" not in run.stderr and "BrokenPipe" not in run.stderr, run.stderr
    assert run.returncode == 1


def test_an_ingest_whose_reader_went_away_still_keeps_what_it_read(tmp_path: Path) -> None:
    root = tmp_path / "v"
    assert mdmem("init", str(root), "--rules", "personal").exit_code == 0
    run = _into_a_closed_pipe("ingest", str(SAMPLES / "2025-08-15-en.md"), "--vault", str(root))
    assert "Traceback" not in run.stderr, run.stderr
    assert (root / "facts" / "user" / "home_city.md").is_file()  # the summary failed, not the ingest
