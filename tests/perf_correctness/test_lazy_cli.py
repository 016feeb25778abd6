"""The lazy command table: it names every real command, and a command loads only its module."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
import typer.main
from typer.testing import CliRunner

from mdmem.commands import COMMANDS, help_text, load
from mdmem.commands.fast import parse_ask, run_ask
from tests.conftest import ROOT, STORY_RULES


def test_table_matches_the_registered_commands() -> None:
    group = typer.main.get_command(load())
    real = {name: cmd for name, cmd in group.commands.items()}  # type: ignore[attr-defined]
    assert sorted(real) == sorted(COMMANDS)
    for name, (module, short) in COMMANDS.items():
        cmd = real[name]
        assert cmd.callback.__module__ == f"mdmem.commands.{module}", name
        first_paragraph = " ".join((cmd.help or "").strip().split("\n\n")[0].split())
        assert short == first_paragraph, f"COMMANDS[{name!r}] help differs from its docstring"


def test_help_lists_every_command() -> None:
    text = help_text()
    flat = " ".join(text.split())
    for name, (_, short) in COMMANDS.items():
        assert f"  {name} " in text and short in flat
    assert all(len(line) <= 80 for line in text.splitlines())  # wrapped at words, never cut


def _modules_after(*args: str, out: list[str] | None = None) -> set[str]:
    code = (
        "import sys, json, atexit\n"
        "atexit.register(lambda: sys.__stderr__.write('MODS' + json.dumps(sorted(sys.modules))))\n"
        "from mdmem.cli import main\n"
        f"sys.argv = ['mdmem', *{list(args)!r}]\n"
        "main()\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if out is not None:
        out.append(proc.stdout)
    return set(json.loads(proc.stderr.rsplit("MODS", 1)[1]))


def test_help_imports_nothing_heavy() -> None:
    mods = _modules_after("--help")
    assert not {"typer", "rich", "yaml", "frontmatter", "click"} & {m.split(".")[0] for m in mods}
    assert not [m for m in mods if m.startswith("mdmem.commands.")]


def test_a_command_imports_only_its_module(tmp_path: Path) -> None:
    vault = tmp_path / "v"
    CliRunner().invoke(load("init"), ["init", str(vault), "--rules", str(STORY_RULES)])
    mods = _modules_after("ask", "Where do I live?", "--vault", str(vault))
    assert {m for m in mods if m.startswith("mdmem.commands.")} == {"mdmem.commands.fast"}
    assert not {"litellm", "mcp", "rich", "typer", "pydantic"} & {m.split(".")[0] for m in mods}
    mods = _modules_after("context", "--vault", str(vault))  # through typer: its module only
    assert {m for m in mods if m.startswith("mdmem.commands.")} == {
        "mdmem.commands.app",
        "mdmem.commands.read",
        "mdmem.commands.shown",  # app's: how paths and prose are shown, no typer in it
    }
    assert not {"litellm", "mcp"} & {m.split(".")[0] for m in mods}


def test_reading_commands_load_no_yaml_and_no_extractor_once_the_caches_are_warm(tmp_path: Path) -> None:
    """A warm `ask`, and `check` and `sync` with nothing changed, read rules.yaml from its cache,
    facts from the index and the snapshot: PyYAML, python-frontmatter, the transcript readers and
    the rule finder (hundreds of regexes) are for parsing what changed and for ingest."""
    vault = tmp_path / "v"
    CliRunner().invoke(load("init"), ["init", str(vault), "--rules", "personal"])
    CliRunner().invoke(load("set"), ["set", "home_city", "Chengdu", "--vault", str(vault)])
    for args in (["check"], ["sync"], ["ask", "Where do I live?"]):  # the caches built
        _modules_after(*args, "--vault", str(vault))
    for args in (["ask", "Where do I live?"], ["check"], ["sync"]):
        mods = _modules_after(*args, "--vault", str(vault))
        assert not {"yaml", "frontmatter", "regex"} & {m.split(".")[0] for m in mods}, args
        assert not [m for m in mods if m.startswith("mdmem.extract.")], args
    # nor the planner, the cascade or the graph (a read plans nothing), nor calendar for a
    # question that writes no date, nor the model's answer without --llm, nor the span tables
    # for a question the facts answer (no passage is searched)
    mods = _modules_after("ask", "Where do I live?", "--vault", str(vault))
    assert not {"mdmem.engine.decide", "mdmem.engine.correct", "mdmem.engine.cascade", "calendar"} & mods
    assert not {"mdmem.model.graph", "mdmem.llm", "mdmem.read.model_answer"} & mods
    assert not {"mdmem.read.spans", "mdmem.read.span_state", "mdmem.read.span_time"} & mods


def test_a_warm_ask_answered_from_what_was_said_takes_its_span(tmp_path: Path) -> None:
    """The span tables load where a span is taken: a question only an episode answers."""
    import shutil

    vault = tmp_path / "v"
    shutil.copytree(ROOT / "sample_vault", vault)
    _modules_after("ask", "What can't I find?", "--vault", str(vault))  # the caches built
    said: list[str] = []
    mods = _modules_after("ask", "What can't I find?", "--vault", str(vault), out=said)
    assert said[0].splitlines()[0] == "Kettle"
    assert {"mdmem.read.spans", "mdmem.read.span_state", "mdmem.read.span_time"} <= mods


@pytest.mark.parametrize(
    "extra",
    [
        ["Where do I live?"],
        ["Where do I live?", "--json"],
        ["--json", "我住在哪个城市？", "-e", "user"],
        ["Where did I live before?", "--entity=user", "--as-of", "2025-09-01"],
        ["Where do I live?", "--as-of=2020-01-01"],
        ["Where do I live?", "--entity", "User"],  # a bad slug: Error: … and exit 1
    ],
)
def test_fast_ask_prints_what_typer_prints(
    story_vault: Path, extra: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    args = [*extra, "--vault", str(story_vault)]
    opts = parse_ask(args)
    assert opts is not None
    code = run_ask(opts)
    fast = capsys.readouterr()
    slow = CliRunner().invoke(load("ask"), ["ask", *args])
    assert (code, fast.out, fast.err) == (slow.exit_code, slow.stdout, slow.stderr)


@pytest.mark.parametrize(
    "args",
    [["--help"], ["q", "--llm", "m"], ["q", "--as-of", "2026-02-30"], [], ["a", "b"],
     ["q", "--vault"], ["q", "--", "x"]],
)  # fmt: skip
def test_unusual_ask_goes_to_typer(args: list[str]) -> None:
    assert parse_ask(args) is None


def _crashed_copy(vault: Path, to: Path) -> Path:
    """A copy of the vault as a `set` killed mid-write leaves it: one file replaced, no journal."""
    import shutil

    shutil.copytree(vault, to)
    fact = to / "facts/user/home_city.md"
    before = fact.read_text(encoding="utf-8")
    after = before + "Written by the interrupted change.\n"
    record = {"id": "deadbeef0001", "command": "set",
              "ops": [{"path": "facts/user/home_city.md", "before": before, "after": after}]}  # fmt: skip
    (to / ".mdmem/txn.json").write_text(json.dumps(record), encoding="utf-8")
    fact.write_text(after, encoding="utf-8")
    return to


def test_fast_ask_tells_what_recovery_did_as_typer_does(
    story_vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fast_vault, slow_vault = _crashed_copy(story_vault, tmp_path / "a"), _crashed_copy(story_vault, tmp_path / "b")
    opts = parse_ask(["Where do I live?", "--vault", str(fast_vault)])
    assert opts is not None
    code = run_ask(opts)
    fast = capsys.readouterr()
    slow = CliRunner().invoke(load("ask"), ["ask", "Where do I live?", "--vault", str(slow_vault)])
    assert "Recovered: rolled back interrupted change deadbeef0001 (set)" in slow.stderr
    assert (code, fast.out, fast.err) == (slow.exit_code, slow.stdout, slow.stderr)


def test_the_plain_ask_answers_with_the_collector_off_and_typers_road_keeps_it(tmp_path: Path) -> None:
    vault = tmp_path / "v"
    CliRunner().invoke(load("init"), ["init", str(vault), "--rules", str(STORY_RULES)])
    code = (
        "import atexit, gc, sys\n"
        "atexit.register(lambda: sys.__stderr__.write(f'GC {gc.isenabled()}'))\n"
        "from mdmem.cli import main\n"
        "sys.argv = ['mdmem', *sys.argv[1:]]\n"
        "main()\n"
    )
    for args, enabled in ((["ask", "Where do I live?"], False), (["ask", "--help"], True)):
        proc = subprocess.run([sys.executable, "-c", code, *args, "--vault", str(vault)],
                              capture_output=True, text=True)  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        assert proc.stderr.rsplit("GC ", 1)[1] == str(enabled), args
