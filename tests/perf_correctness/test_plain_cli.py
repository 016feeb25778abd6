"""`check` and `sync` without typer (commands/plain.py) print what typer's road prints."""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mdmem.commands import load
from mdmem.commands.plain import parse_check, parse_sync, run_check, run_sync
from mdmem.store.packs import packs_dir
from tests.conftest import ROOT, STORY


def _twins(vault: Path, tmp_path: Path) -> tuple[Path, Path]:
    return shutil.copytree(vault, tmp_path / "plain"), shutil.copytree(vault, tmp_path / "typer")


def _edit_home(vault: Path, city: str) -> None:
    home = vault / "facts/user/home_city.md"
    text = home.read_text(encoding="utf-8")
    value = next(line for line in text.split("\n") if line.startswith("value: "))
    home.write_text(text.replace(value, f"value: {city}", 1), encoding="utf-8")


def _break(vault: Path) -> None:
    (vault / "facts/user/employer.md").write_text("---\nentity: user\nvalue: [oops\n---\n", encoding="utf-8")


def _both(command: str, change: object, extra: list[str], vault: Path, tmp_path: Path,
          capsys: pytest.CaptureFixture[str]) -> tuple[tuple[int, str, str], tuple[int, str, str]]:  # fmt: skip
    plain_vault, typer_vault = _twins(vault, tmp_path)
    for v in (plain_vault, typer_vault):
        change(v)  # type: ignore[operator]
    parse, run = (parse_check, run_check) if command == "check" else (parse_sync, run_sync)
    opts = parse([*extra, "--vault", str(plain_vault)])
    assert opts is not None
    code = run(opts)  # type: ignore[arg-type]
    got = capsys.readouterr()
    slow = CliRunner().invoke(load(command), [command, *extra, "--vault", str(typer_vault)])
    # A line naming a file names it as the person opens it, through the twin's own folder.
    same = lambda text, twin: re.sub(rf"(^|/){twin.name}/", r"\1<vault>/", text, flags=re.M)  # noqa: E731
    return ((code, same(got.out, plain_vault), same(got.err, plain_vault)),
            (slow.exit_code, same(slow.stdout, typer_vault), same(slow.stderr, typer_vault)))  # fmt: skip


@pytest.mark.parametrize(
    ("command", "change", "extra"),
    [
        ("check", lambda v: None, []),
        ("check", lambda v: None, ["--json"]),
        ("check", _break, []),
        ("check", _break, ["--json"]),
        ("sync", lambda v: None, []),
        ("sync", lambda v: _edit_home(v, "上海"), []),
        ("sync", _break, ["--wait", "5"]),
    ],
)
def test_plain_road_prints_what_typer_prints(
    story_vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    command: str, change: object, extra: list[str],
) -> None:  # fmt: skip
    plain, slow = _both(command, change, extra, story_vault, tmp_path, capsys)
    assert plain == slow
    if command == "check" and change is _break:
        assert plain[0] == 1 and "facts/user/employer.md" in plain[1]


def test_plain_check_counts_the_facts(story_vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    opts = parse_check(["--vault", str(story_vault)])
    assert opts is not None and run_check(opts) == 0
    assert capsys.readouterr().err == f"OK: {len(STORY)} facts, rules valid.\n"


@pytest.mark.parametrize(
    "args",
    [["check", "--help"], ["check", "x"], ["sync", "--dry-run"], ["sync", "--json"],
     ["sync", "--wait", "soon"], ["sync", "--vault"]],
)  # fmt: skip
def test_unusual_forms_go_to_typer(args: list[str]) -> None:
    parse = parse_check if args[0] == "check" else parse_sync
    assert parse(args[1:]) is None


def test_plain_check_and_sync_import_no_typer(story_vault: Path) -> None:
    for command in ("check", "sync"):
        code = (
            "import sys, json, atexit\n"
            "atexit.register(lambda: sys.__stderr__.write('MODS' + json.dumps(sorted(sys.modules))))\n"
            "from mdmem.cli import main\n"
            f"sys.argv = ['mdmem', {command!r}, '--vault', {str(story_vault)!r}]\n"
            "main()\n"
        )
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        mods = {m.split(".")[0] for m in json.loads(proc.stderr.rsplit("MODS", 1)[1])}
        assert not {"typer", "rich", "pydantic", "click", "litellm"} & mods, command


# --- ingest ------------------------------------------------------------------------------

_CHAT = "user: I live in Lisbon and my dog is called Rex.\nuser: I work at Acme now.\n"


@pytest.mark.parametrize("extra", [[], ["--json"], ["-q"], ["--dry-run"], ["--verbose"], ["--reprocess"], ["again"]])
def test_plain_ingest_prints_what_typer_prints(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch, extra: list[str]) -> None:  # fmt: skip
    from mdmem.commands.ingest_run import parse_ingest, run_plain
    from mdmem.store.vault import Vault

    monkeypatch.setenv("MDMEM_NOW", "2026-03-01T12:00:00Z")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "chat.md").write_text(_CHAT, encoding="utf-8")
    (tmp_path / "folder").mkdir()
    (tmp_path / "folder" / "b.md").write_text("user: My sister is called Ana.\n", encoding="utf-8")
    (tmp_path / "folder" / "notes.csv").write_text("a,b\n", encoding="utf-8")
    outs = []
    for road in ("plain", "typer"):
        Vault.create(tmp_path / road, "personal")
        args = ["--vault", road, "chat.md", "folder"]
        rounds = [args, args] if extra == ["again"] else [[*args, *extra]]
        for a in rounds:
            if road == "plain":
                opts = parse_ingest(a)
                assert opts is not None
                code = run_plain(opts)
                got = capsys.readouterr()
                out, errs = got.out, got.err
            else:
                slow = CliRunner().invoke(load("ingest"), ["ingest", *a])
                code, out, errs = slow.exit_code, slow.stdout, slow.stderr
            outs.append((road, code, out.replace(road, "<vault>"), errs.replace(road, "<vault>")))
    half = len(outs) // 2
    assert [o[1:] for o in outs[:half]] == [o[1:] for o in outs[half:]]
    assert "ADD" in "".join(o[2] + o[3] for o in outs)


@pytest.mark.parametrize(
    "args",
    [["--help"], [], ["-"], ["a.md", "--date", "yesterday"], ["a.md", "--llm", "x"], ["a.md", "--wait", "soon"],
     ["a.md", "--vault"], ["a.md", "-qv"], ["a.md", "--format", "text"], ["a.md", "--quiet=1"]],
)  # fmt: skip
def test_unusual_ingests_go_to_typer(args: list[str]) -> None:
    from mdmem.commands.ingest_run import parse_ingest

    assert parse_ingest(args) is None


def test_plain_ingest_imports_no_typer(tmp_path: Path) -> None:
    from mdmem.store.vault import Vault

    Vault.create(tmp_path / "v", "personal")
    (tmp_path / "chat.md").write_text(_CHAT, encoding="utf-8")
    code = (
        "import sys, json, atexit\n"
        "atexit.register(lambda: sys.__stderr__.write('MODS' + json.dumps(sorted(sys.modules))))\n"
        "from mdmem.cli import main\n"
        f"sys.argv = ['mdmem', 'ingest', '--vault', {str(tmp_path / 'v')!r}, {str(tmp_path / 'chat.md')!r}]\n"
        "main()\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}  # this tree's mdmem, not an installed one
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    mods = {m.split(".")[0] for m in json.loads(proc.stderr.rsplit("MODS", 1)[1])}
    assert "1 source: ADD" in proc.stderr
    assert not {"typer", "pydantic", "click", "litellm"} & mods


@pytest.mark.parametrize("extra", [[], ["--rules", "health"], ["--rules=software_project"], ["--rules", "nope"], ["again"]])
def test_plain_init_prints_what_typer_prints(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch, extra: list[str]) -> None:  # fmt: skip
    from mdmem.commands.plain import parse_init, run_init

    monkeypatch.chdir(tmp_path)
    outs = []
    for road in ("plain", "typer"):
        rounds = [[road], [road]] if extra == ["again"] else [[road, *extra]]
        for a in rounds:
            if road == "plain":
                opts = parse_init(a)
                assert opts is not None
                code = run_init(opts)
                got = capsys.readouterr()
                out, errs = got.out, got.err
            else:
                slow = CliRunner().invoke(load("init"), ["init", *a])
                code, out, errs = slow.exit_code, slow.stdout, slow.stderr
            where = str((tmp_path / road).resolve())
            outs.append(tuple([code, *(t.replace(where, "<vault>").replace(f"{road}/", "<vault>/") for t in (out, errs))]))
        pack = next((p for p in ("health", "software_project", "nope") if any(p in x for x in extra)), "personal")
        made = tmp_path / road / "rules.yaml"
        assert made.exists() == (pack != "nope")
        if made.exists():
            assert made.read_bytes() == (packs_dir() / f"{pack}.yaml").read_bytes()
    half = len(outs) // 2
    assert outs[:half] == outs[half:]
    assert any("Created vault" in o[2] for o in outs) or extra == ["--rules", "nope"]


@pytest.mark.parametrize("args", [[], ["a", "b"], ["--help"], ["a", "--rules"], ["a", "--force"]])
def test_unusual_inits_go_to_typer(args: list[str]) -> None:
    from mdmem.commands.plain import parse_init

    assert parse_init(args) is None
