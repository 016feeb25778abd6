"""Forgetting reaches what was said: after a forget, the words appear nowhere in the vault
(files, search caches, the journal with --purge) and in no read command's output."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from mdmem.cli import app
from mdmem.edit.ingest import ingest_text
from tests.conftest import holds, make_vault

CHAT = """## 2025-08-15
User: I live in Guangzhou. Oh, and my birthday is 14 March, remind me to book a table.
Assistant: Noted!
User: The error I keep seeing:

> ERR 42 at stream.velturis.io/aurora
> retry failed
"""

READS = [
    ["ask", "When is my birthday?"], ["ask", "What did I tell you about my birthday?"],
    ["ask", "recite the exact error I shared"], ["show"], ["timeline"], ["context"],
    ["pending"], ["check"], ["show", "--json"], ["timeline", "--format", "json"], ["log"],
    ["log", "--json"],
]  # fmt: skip


def _files_hold(root: Path, words: str) -> list[str]:
    return [
        p.relative_to(root).as_posix() for p in sorted(root.rglob("*"))
        if p.is_file() and holds(p.read_bytes().decode("utf-8", "replace"), words)
    ]  # fmt: skip


def _nowhere(root: Path, runner: CliRunner, words: str) -> None:
    assert _files_hold(root, words) == []  # at once, before any read rebuilds a cache
    for cmd in READS:
        out = runner.invoke(app, [*cmd, "--vault", str(root)])
        assert words.casefold() not in out.output.casefold(), (cmd, out.output)
    assert _files_hold(root, words) == []  # and after every read


@pytest.fixture
def vault(tmp_path: Path):  # type: ignore[no-untyped-def]
    v = make_vault(tmp_path / "v", "personal")
    ingest_text(v, CHAT, source="chat.md")
    runner = CliRunner()
    for cmd in READS:
        runner.invoke(app, [*cmd, "--vault", str(v.root)])  # indexes hold the words now
    assert "14 march" in (v.root / "facts/user/birthday.md").read_text("utf-8").casefold()
    return v


def test_forget_attribute_with_purge_leaves_the_value_nowhere(vault) -> None:  # type: ignore[no-untyped-def]
    runner = CliRunner()
    out = runner.invoke(app, ["forget", "birthday", "--purge", "--vault", str(vault.root)])
    assert out.exit_code == 0, out.output
    episode = (vault.root / "episodes/2025/2025-08-15-chat.md").read_text("utf-8")
    assert "I live in Guangzhou. Oh, and [forgotten], remind me to book a table." in episode
    _nowhere(vault.root, runner, "14 March")


def test_forget_text_redacts_a_phrase_everywhere(vault) -> None:  # type: ignore[no-untyped-def]
    runner = CliRunner()
    out = runner.invoke(
        app, ["forget", "--text", "velturis", "--purge", "--vault", str(vault.root)]
    )
    assert out.exit_code == 0, out.output
    assert "> ERR 42 at stream.[forgotten].io/aurora" in (
        vault.root / "episodes/2025/2025-08-15-chat.md"
    ).read_text("utf-8")
    _nowhere(vault.root, runner, "velturis")


def test_a_forget_request_in_conversation_redacts_before_anything_is_written(vault) -> None:  # type: ignore[no-untyped-def]
    ingest_text(vault, "## 2025-08-20\nUser: Please forget my birthday.\n", source="later.md")
    assert vault.get("birthday").status == "deleted"
    text = (vault.root / "episodes/2025/2025-08-15-chat.md").read_text("utf-8")
    assert "14 March" not in text and "[forgotten]" in text


def test_forget_needs_an_attribute_or_text(vault) -> None:  # type: ignore[no-untyped-def]
    out = CliRunner().invoke(app, ["forget", "--vault", str(vault.root)])
    assert out.exit_code != 0 and "ATTRIBUTE, --text PHRASE or --all" in out.output
