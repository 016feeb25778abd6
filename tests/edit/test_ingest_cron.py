"""The nightly cron line: a README beside the chats, .mdmemignore, one order in `>>log 2>&1`."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mdmem import Vault
from mdmem.cli import app
from mdmem.edit.sources import Ignore, transcript_files
from tests.conftest import make_vault

runner = CliRunner()
FIRST = "## 2025-08-15\n\nUser: I live in Guangzhou and I work at Lingnan Tech.\n"
MOVE = "## 2026-02-10\n\nUser: I moved to Shanghai.\n"


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    return make_vault(tmp_path / "v", "personal")


@pytest.fixture
def chats(tmp_path: Path) -> Path:
    folder = tmp_path / "chats"
    folder.mkdir()
    (folder / "2025-08-15.md").write_text(FIRST, encoding="utf-8")
    (folder / "2026-02-10.md").write_text(MOVE, encoding="utf-8")
    (folder / "README.txt").write_text("Exports from my phone go here.\nOne file a day.\n", encoding="utf-8")  # fmt: skip
    (folder / "empty.md").write_text("", encoding="utf-8")
    return folder


def test_a_folder_file_with_no_messages_is_passed_over_with_a_note(vault: Vault, chats: Path) -> None:
    out = runner.invoke(app, ["ingest", str(chats), "--quiet", "--vault", str(vault.root)])
    assert out.exit_code == 0, out.stderr  # every night's run used to exit 1 here
    assert "Error" not in out.stderr
    assert out.stderr.strip().endswith(
        "2 files with no messages passed over (--verbose names them)"
    )
    verbose = runner.invoke(app, ["ingest", str(chats), "--verbose", "--vault", str(vault.root)])
    assert f"{chats / 'README.txt'}: holds no messages; passed over." in verbose.stderr
    assert f"{chats / 'empty.md'}: holds no messages; passed over." in verbose.stderr


def test_a_file_named_on_its_own_with_no_messages_is_still_an_error(vault: Vault, chats: Path) -> None:
    out = runner.invoke(app, ["ingest", str(chats / "README.txt"), "--vault", str(vault.root)])
    assert out.exit_code == 1 and "README.txt: no messages found" in out.stderr


def test_mdmemignore_in_the_folder_and_below_it(vault: Vault, chats: Path) -> None:
    (chats / "drafts").mkdir()
    (chats / "drafts" / "d.md").write_text("User: I moved to Paris.\n", encoding="utf-8")
    (chats / "old").mkdir()
    (chats / "old" / "a.md").write_text("User: I moved to Rome.\n", encoding="utf-8")
    (chats / "old" / "keep.md").write_text("User: I moved to Oslo.\n", encoding="utf-8")
    (chats / "old" / ".mdmemignore").write_text("!keep.md\n", encoding="utf-8")
    (chats / ".mdmemignore").write_text("# not chats\nREADME.txt\nempty.md\ndrafts/\nold/*\n", encoding="utf-8")  # fmt: skip
    passed: list[tuple[str, str]] = []
    files = transcript_files([chats], vault, passed_over=lambda p, why: passed.append((p.name, why)))
    assert [f.path.relative_to(chats).as_posix() for f in files if f.path] == [
        "2025-08-15.md", "2026-02-10.md", "old/keep.md",
    ]  # fmt: skip
    assert sorted(passed) == [("README.txt", "named in .mdmemignore"), ("a.md", "named in .mdmemignore"),
                              ("drafts", "named in .mdmemignore"), ("empty.md", "named in .mdmemignore")]  # fmt: skip
    out = runner.invoke(app, ["ingest", str(chats), "--vault", str(vault.root)])
    assert out.exit_code == 0 and Vault(vault.root).get("home_city").value == "Oslo"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "pattern, path, is_dir, ignored",
    [("*.txt", "a/b/c.txt", False, True), ("/a.md", "a.md", False, True), ("/a.md", "x/a.md", False, None),
     ("a/*.md", "a/b.md", False, True), ("a/*.md", "a/b/c.md", False, None), ("**/tmp", "x/y/tmp", True, True),
     ("logs/", "logs", False, None), ("logs/", "logs", True, True), ("a/**/b", "a/b", False, True),
     ("a/**/b", "a/x/y/b", False, True), ("x/**", "x/y/z", False, True), ("[ab].md", "b.md", False, True),
     ("[!ab].md", "b.md", False, None), ("\\#x", "#x", False, True), ("?.md", "ab.md", False, None)],
)  # fmt: skip
def test_ignore_patterns_follow_gitignore(pattern: str, path: str, is_dir: bool, ignored: bool | None) -> None:
    assert Ignore([pattern]).verdict(path, is_dir) is ignored


def test_a_later_pattern_takes_a_path_back() -> None:
    rules = Ignore(["*.md", "!keep.md", "# a comment", ""])
    assert rules.verdict("keep.md", False) is False and rules.verdict("x.md", False) is True


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_a_cron_log_has_one_order_and_counts_that_match_the_tables(vault: Vault, chats: Path, tmp_path: Path) -> None:  # fmt: skip
    subprocess.run(["git", "-C", str(vault.root), "init", "-q"], check=True)
    (chats / "2025-09-01.md").write_bytes(b"User: caf\xe9\n")  # a bad file between the good ones
    (chats / "2026-02-11.md").write_text(
        "## 2026-02-11\n\nUser: I live in Guangzhou.\nUser: Sorry, I moved to Shanghai. I work at Tencent now.\n",
        encoding="utf-8",
    )
    log = tmp_path / "mdmem-cron.log"
    code = "import sys; from mdmem.commands import main; main(sys.argv[1:])"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # cron does not set it
    with log.open("ab") as f:  # `>>log 2>&1`: stdout is a block-buffered file, stderr is not
        proc = subprocess.run([sys.executable, "-c", code, "ingest", str(chats), "--quiet", "--commit",
                               "--vault", str(vault.root)], stdout=f, stderr=subprocess.STDOUT, env=env)  # fmt: skip
    assert proc.returncode == 1
    lines = log.read_text("utf-8").splitlines()
    # Sources are shown as paths from the current folder (the vault knows them as ../chats/…).
    heads = [n for n, line in enumerate(lines) if re.match(r"^chats/|^Error: ", line)]
    order = [lines[n].split()[0].rstrip(":") for n in heads]
    assert order == ["chats/2025-08-15.md", "Error", "chats/2026-02-10.md", "chats/2026-02-11.md"]
    for n, end in zip(heads, [*heads[1:], len(lines) - 2], strict=True):  # each table under its head
        block = lines[n + 1 : end]
        assert block == [] if lines[n].startswith("Error") else block and all("\t" in x for x in block)
    summary, committed = lines[-2], lines[-1]
    assert committed.startswith("Committed ")
    rows = [line.split("\t") for line in lines if "\t" in line and not line.startswith("decision")]
    counts = dict(re.findall(r"([A-Z]+) (\d+)", summary))
    assert sum(int(n) for k, n in counts.items() if k != "NOOP") == len(rows)
    msg = subprocess.run(["git", "-C", str(vault.root), "log", "-1", "--format=%B"],
                         capture_output=True, text=True, check=True).stdout  # fmt: skip
    assert msg.startswith(f"mdmem ingest: 3 sources, {len(rows)} facts changed")
    assert len([m for m in msg.splitlines() if m.startswith("  ")]) == len(rows)
