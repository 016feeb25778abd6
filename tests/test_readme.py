"""The README's commands work as written: its cron line over a folder with a README.txt, its
quick start's import, and every `mdmem` command it names exists."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mdmem.commands import COMMANDS
from tests.conftest import DATA, ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"```(?:sh|crontab)\n(.*?)```", README, re.S)


def test_every_command_the_readme_runs_exists() -> None:
    named = {m for block in BLOCKS for m in re.findall(r"\bmdmem (?!--)([a-z][a-z-]+)", block)}
    assert named and named <= set(COMMANDS), named - set(COMMANDS)


def test_the_quick_start_shows_an_import() -> None:
    assert "mdmem ingest ~/Downloads/chatgpt-export/conversations.json" in README


@pytest.mark.skipif(shutil.which("git") is None or os.name != "posix", reason="needs git and a POSIX shell")
def test_the_cron_line_works_over_a_folder_with_a_readme(tmp_path: Path) -> None:
    (line,) = re.findall(r"```crontab\n(.*?)\n```", README, re.S)
    command = line.split(None, 5)[5]  # the five time fields, then the command
    home = tmp_path / "home"
    (home / "mdmem" / ".venv" / "bin").mkdir(parents=True)
    (home / "mdmem" / ".venv" / "bin" / "mdmem").symlink_to(Path(sys.executable).parent / "mdmem")
    chats = home / "chats"
    chats.mkdir()
    (chats / "README.txt").write_text("Phone exports land here, one file a day.\n", encoding="utf-8")
    (chats / "2025-08-15.md").write_text("## 2025-08-15\n\nUser: I live in Guangzhou.\n", encoding="utf-8")  # fmt: skip
    shutil.copy(DATA / "imports" / "chatgpt-conversations.json", chats / "conversations.json")
    vault = home / "my-memory"
    subprocess.run([str(home / "mdmem/.venv/bin/mdmem"), "init", str(vault), "--rules", "personal"],
                   check=True, capture_output=True)  # fmt: skip
    subprocess.run(["git", "-C", str(vault), "init", "-q"], check=True)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    for _night in (1, 2):  # two nights running
        proc = subprocess.run(["/bin/sh", "-c", command], env={**env, "HOME": str(home)})
        log = (home / "mdmem-cron.log").read_text(encoding="utf-8")
        assert proc.returncode == 0, log
    lines = log.splitlines()
    assert "Error" not in log and lines[-2].startswith("Committed ")  # the first night's
    assert "1 file with no messages passed over" in lines[-3]
    assert lines[-1].startswith("3 sources (3 skipped): nothing new")  # the next night: nothing again
