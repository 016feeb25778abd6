"""What a person sees of the CLI: help words, completion, graph --json, 80 columns, paths."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console
from rich.table import Table
from typer.testing import CliRunner

from mdmem.cli import app
from mdmem.commands import COMMANDS, render
from mdmem.commands.app import fit
from tests.conftest import make_vault

runner = CliRunner()
MAIN = "import sys; from mdmem.commands import main; main(sys.argv[1:])"


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_help_names_types_in_words_and_keeps_brackets(name: str) -> None:
    out = runner.invoke(app, [name, "--help"], terminal_width=80)
    assert out.exit_code == 0
    assert not re.search(r"<[a-z]", out.stdout.replace("<stdin>", ""))  # no <bool>, <list[str]>
    assert "{" not in out.stdout.splitlines()[0]  # the usage line: PATHS..., not {paths}...
    assert "╭" not in out.stdout and "│" not in out.stdout
    assert all(len(line) <= 80 for line in out.stdout.splitlines())


def test_help_keeps_forgotten_in_brackets() -> None:
    out = runner.invoke(app, ["forget", "--help"])
    assert "'[forgotten]'" in out.stdout
    assert runner.invoke(app, ["ingest", "--help"]).stdout.startswith("Usage: mdmem ingest [OPTIONS] PATHS...")  # fmt: skip


def test_a_usage_error_in_a_log_is_plain_text(tmp_path: Path) -> None:
    log = tmp_path / "log"
    with log.open("w") as f:
        code = subprocess.run([sys.executable, "-c", MAIN, "ingest"], stdout=f, stderr=subprocess.STDOUT).returncode  # fmt: skip
    text = log.read_text("utf-8")
    assert code == 2 and "Error: Missing argument 'paths'." in text
    assert not any(ch in text for ch in "╭╮╰╯│─")


def test_shell_completion_completes_commands_and_options() -> None:
    env = {**os.environ, "_MDMEM_COMPLETE": "complete_bash", "COMP_WORDS": "mdmem ing", "COMP_CWORD": "1"}  # fmt: skip
    out = subprocess.run([sys.executable, "-c", MAIN], env=env, capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.split() == ["ingest"]
    env.update(COMP_WORDS="mdmem ingest --for", COMP_CWORD="2")
    out = subprocess.run([sys.executable, "-c", MAIN], env=env, capture_output=True, text=True)
    assert out.stdout.split() == ["--format"]
    # The shell named, not detected: detection reads the parent process, which is `sh` or
    # nothing at all when pytest is started from a script or a detached job.
    script = subprocess.run([sys.executable, "-c", MAIN, "--show-completion", "bash"], capture_output=True, text=True,
                            env={**os.environ, "_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"})  # fmt: skip
    assert script.returncode == 0 and "_MDMEM_COMPLETE=complete_bash" in script.stdout
    assert "--install-completion" in runner.invoke(app, ["--help"]).stdout


def test_graph_json_lists_attributes_and_every_edge(tmp_path: Path) -> None:
    v = make_vault(tmp_path / "v", "personal")
    out = runner.invoke(app, ["graph", "--json", "--vault", str(v.root)])
    data = json.loads(out.stdout)
    assert "home_city" in data["attributes"]
    edge = next(e for e in data["edges"] if e["when"] == "home_city" and e["then"] == "social_insurance_city")  # fmt: skip
    assert edge["action"] == "derive" and edge["learned"] is False
    assert len(data["edges"]) == len(v.rules.dependencies)


ROWS = [
    ["UNCERTAIN", "user/social_insurance_city", "Lingnan Tech Corporation International (uncertain)",
     "user/home_city changed, user/employer changed because of a request", "L3, L5, L7"],
    ["EXPIRE", "user/commute_minutes", "20 → (unknown)", "user/commute_mode changed", ""],
    ["ADD", "user/request", "a request, requested", "", "L12"],
]  # fmt: skip


@pytest.mark.parametrize("width", [50, 64, 80, 100, 160])
def test_a_table_at_any_width_never_cuts_a_word(width: int) -> None:
    table = Table(show_header=True, box=None, pad_edge=False)
    for col in ("decision", "fact", "change", "because", "said at"):
        table.add_column(col)
    for row in ROWS:
        table.add_row(*row)
    buf = io.StringIO()
    console = Console(file=buf, width=width, force_terminal=True, color_system=None, soft_wrap=True)
    render.print_table(table, console, wrap=3)
    shown = buf.getvalue().split()
    assert all(word in shown for row in ROWS for cell in row for word in cell.split())
    longest = max(len(line) for line in buf.getvalue().splitlines())
    assert longest <= max(width, 77)  # 77: the names and the longest words; never narrower


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_prose_wraps_at_whole_words_on_a_terminal_and_not_in_a_pipe(monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    monkeypatch.setattr("shutil.get_terminal_size", lambda *a: os.terminal_size((40, 24)))
    line = "Answer with `mdmem confirm user/home_address VALUE` (the right value now) or --keep"
    wrapped = fit(line, _Tty())
    assert all(len(x) <= 40 for x in wrapped.splitlines()) and wrapped.split() == line.split()
    assert fit(line, io.StringIO()) == line


def test_paths_are_shown_from_the_current_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    v = make_vault(tmp_path / "my-memory", "personal")
    v.set("home_city", "Lisbon")
    path = v.root / "facts/user/home_city.md"
    path.write_text(path.read_text("utf-8").replace("value: Lisbon", "value: [Lisbon"), "utf-8")
    monkeypatch.chdir(tmp_path)
    out = runner.invoke(app, ["check", "--vault", str(v.root)])
    assert out.stdout.startswith("my-memory/facts/user/home_city.md:")
    out = runner.invoke(app, ["sync", "--vault", str(v.root)])
    assert out.stdout.startswith("my-memory/facts/user/home_city.md:")
    monkeypatch.chdir(v.root)
    assert runner.invoke(app, ["check"]).stdout.startswith("facts/user/home_city.md:")
