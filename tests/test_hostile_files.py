"""Files and inputs past mdmem's limits (issue 23): each gets a clear error naming the file, the
limit and the fix, never a traceback or minutes of work (model/limits.py; RELIABILITY.md has
the times). The inputs are the issue's, made smaller where a smaller one crosses the same
limit, so that the suite stays fast; the full sizes are timed by benchmarks/bench_limits.py."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import mdmem.model.factfile as factfile
from mdmem import Vault
from mdmem.cli import app
from mdmem.edit.ingest import ingest_text
from mdmem.errors import FactFileError, RefusedError, RulesError, TranscriptError
from mdmem.model import limits
from mdmem.model.rules_yaml import parse_rules
from mdmem.read.passages import split_passages
from tests.conftest import ROOT, make_vault

runner = CliRunner()
HEAD = "---\nentity: user\nattribute: employer\n"
EPISODE = "---\nsource: chat\nsha256: x\ndate: {date}\nspeakers:\n- User\n---\n\n**User** · — ^m1\n\n{text}\n"


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    v = make_vault(tmp_path / "v", "personal")
    v.set("home_city", "Paris", date="2026-01-01")
    return v


def cli(v: Vault, *args: str) -> tuple[int, str]:
    r = runner.invoke(app, [*args, "--vault", str(v.root)])
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    return r.exit_code, r.stdout + r.stderr


def every_reader_copes(v: Vault, expect: str) -> None:
    """check names the problem; sync, ask, show and context neither crash nor hang on it."""
    code, out = cli(v, "check")
    assert code == 1 and expect in out, out
    for args in (["sync"], ["ask", "where do I live?"], ["ask", "what did I say about the river?"],
                 ["show"], ["context"]):  # fmt: skip
        code, out = cli(v, *args)
        assert code in (0, 1) and "Traceback" not in out, (args, out)
    assert cli(v, "ask", "where do I live?")[1].startswith("Your home city is Paris")


FACT_FILES = {
    "500 levels of block nesting": (
        HEAD + "value: x\nextra:\n" + "".join("  " * (i + 1) + f"k{i}:\n" for i in range(500)) + "---\n",
        "nests more than 20 levels deep",
    ),
    "500 levels of brackets": (HEAD + "value: " + "[" * 500 + "]" * 500 + "\n---\n", "nests more than 20 levels deep"),
    "50,000 fields": (HEAD + "value: x\n" + "".join(f"k{i}: v\n" for i in range(50_000)) + "---\n", "has more than 100 fields"),
    "100,000 history entries": (
        HEAD + "value: x\nhistory:\n" + "".join(f"- value: v{i}\n  valid_from: '2020-01-01'\n" for i in range(100_000)) + "---\n",
        "a fact file holds at most 1,000,000",
    ),
    "a 10 MB value": (HEAD + "value: " + "x" * 10_000_000 + "\n---\n", "a fact file holds at most 1,000,000"),
    "a list value past the limit": (HEAD + "value:\n" + "- xxx\n" * 5_050 + "---\n", "the limit is 10,000"),
    "more list entries than a fact keeps": (HEAD + "value:\n" + "- x\n" * 30_000 + "---\n", "has more than 5,100 list entries"),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(FACT_FILES))
def test_a_fact_file_past_a_limit_is_a_problem_not_a_crash(vault: Vault, case: str) -> None:
    text, expect = FACT_FILES[case]
    (vault.root / "facts/user/employer.md").write_text(text, encoding="utf-8")
    every_reader_copes(vault, expect)


def test_history_past_its_limit(monkeypatch: pytest.MonkeyPatch, vault: Vault) -> None:
    monkeypatch.setattr(factfile, "MAX_HISTORY", 3)
    text = HEAD + "value: x\nhistory:\n" + "- value: old\n" * 4 + "---\n"
    with pytest.raises(FactFileError, match="has 4 entries; a fact keeps at most 3"):
        factfile.parse(text, "facts/user/employer.md")
    import mdmem.store.guards as guards

    monkeypatch.setattr(guards, "MAX_HISTORY", 1)
    vault.set("home_city", "Lyon", date="2026-02-01")
    with pytest.raises(RefusedError, match="would keep 2 history entries; a fact keeps at most 1"):
        vault.set("home_city", "Nice", date="2026-03-01")
    assert vault.get("home_city").value == "Lyon"


def test_an_episode_that_is_not_one(vault: Vault) -> None:
    ep = vault.root / "episodes/2026"
    ep.mkdir(parents=True)
    (ep / "2026-02-10-chat.md").write_text(EPISODE.format(date="not-a-date", text="we walked by the river"), encoding="utf-8")
    every_reader_copes(vault, "'date' is 'not-a-date', not a day")
    (ep / "2026-02-10-chat.md").unlink()
    (ep / "2026-02-10-chat.md").mkdir()  # a folder where the file should be
    every_reader_copes(vault, "is a folder where an episode file should be")
    (ep / "2026-02-10-chat.md").rmdir()
    (ep / "2026-02-11-chat.md").write_text(
        EPISODE.format(date="'2026-02-11'", text="hi").replace("— ^m1", "yesterday ^m1"), encoding="utf-8"
    )
    every_reader_copes(vault, "the time 'yesterday' is not a time")


def test_a_long_episode_is_kept_whole_and_searched_in_part(monkeypatch, vault: Vault) -> None:
    import mdmem.read.passages as passages

    monkeypatch.setattr(passages, "MAX_INDEXED", 5_000)
    ep = vault.root / "episodes/2026"
    ep.mkdir(parents=True)
    body = "the dog ran to the river and back " * 3_000 + "the heron stood still"
    (ep / "2026-02-10-chat.md").write_text(EPISODE.format(date="'2026-02-10'", text=body), encoding="utf-8")
    code, out = cli(vault, "sync")
    assert "only its first 5,000 characters are searchable" in out
    assert "the dog ran" in cli(vault, "ask", "what did I say about the dog and the river?")[1]


def test_split_passages_cuts_a_long_line_in_linear_time() -> None:
    text = "x" * 100_003 + ". And the end."
    parts = split_passages(text, 600)
    assert parts[:166] == ["x" * 600] * 166 and parts[166:] == ["x" * 403 + ". And the end."]


def test_rules_past_a_limit_keep_the_last_good_ones(vault: Vault) -> None:
    rules = (ROOT / "rules/personal.yaml").read_text(encoding="utf-8")
    many = rules.replace("  districts_en: [\n", "  districts_en: [\n    " + ", ".join(f"Wx{i}" for i in range(5_000)) + ",\n", 1)  # fmt: skip
    with pytest.raises(RulesError, match="5,521 words; the limit is 5,000"):
        parse_rules(many, "rules.yaml")
    repeated = rules.replace("  districts_en: [\n", "  districts_en: [\n    " + ", ".join(f"Wx{i}town" for i in range(3_000)) + ",\n", 1)  # fmt: skip
    with pytest.raises(RulesError, match=r"rules.yaml:\d+: the patterns come to more than 400,000 characters"):
        parse_rules(repeated, "rules.yaml")
    (vault.root / "rules.yaml").write_text(rules + "#" * limits.MAX_RULES_CHARS, encoding="utf-8")
    code, out = cli(vault, "check")
    assert code == 1 and "rules.yaml holds at most 500,000" in out
    assert cli(vault, "ask", "where do I live?")[1].startswith("Your home city is Paris")


def test_a_transcript_with_too_many_speakers(vault: Vault, tmp_path: Path) -> None:
    text = "".join(f"Person{i}: hi\n" for i in range(limits.MAX_SPEAKERS + 1))
    with pytest.raises(TranscriptError, match="1,001 people speak in it; a transcript holds at most 1,000"):
        ingest_text(vault, text, source="crowd.md")
    (tmp_path / "crowd.md").write_text(text, encoding="utf-8")
    code, out = cli(vault, "ingest", str(tmp_path / "crowd.md"))
    assert code == 1 and "crowd.md: 1,001 people speak in it" in out


def test_a_day_of_messages_reads_its_episode_file_once(vault: Vault, monkeypatch) -> None:
    """Issue 23's 100,000 `User: hi` lines read the day's episode file once per message."""
    import mdmem.edit.new_messages as new_messages

    ingest_text(vault, "## 2026-02-10\n\nUser: hi\n", source="chat.md")
    reads: list[str] = []
    real = new_messages.read_text
    monkeypatch.setattr(new_messages, "read_text", lambda p: (reads.append(str(p)), real(p))[1])
    ingest_text(vault, "## 2026-02-10\n\n" + "User: hi\n" * 500, source="chat.md")
    assert len(reads) < 10


def _hot_journal(db: Path) -> None:
    """A process killed in the middle of a write transaction: its rollback journal is left."""
    code = (
        "import os, sqlite3, sys; db = sqlite3.connect(sys.argv[1], isolation_level=None);"
        " db.execute('PRAGMA journal_mode=DELETE'); db.execute('BEGIN IMMEDIATE');"
        " db.execute('UPDATE t SET x = x + 1'); db.execute('INSERT INTO t SELECT x FROM t');"
        " db.execute('PRAGMA cache_size=1'); [db.execute('INSERT INTO t SELECT x FROM t') for _ in range(6)];"
        " os.kill(os.getpid(), 9)"
    )
    subprocess.run([sys.executable, "-c", code, str(db)], check=False)


def test_a_rollback_journal_left_by_a_kill_is_recovered_as_the_vault_opens(vault: Vault) -> None:
    db = vault.meta / "index.sqlite"
    with sqlite3.connect(db) as c:
        c.execute("CREATE TABLE IF NOT EXISTS t(x)")
        c.executemany("INSERT INTO t VALUES(?)", [(i,) for i in range(2_000)])
    _hot_journal(db)
    assert (vault.meta / "index.sqlite-journal").exists()
    (vault.meta / "passages.sqlite-journal").write_bytes(b"")  # one with no database: stale
    Vault(vault.root).settle()
    assert not (vault.meta / "index.sqlite-journal").exists()
    assert not (vault.meta / "passages.sqlite-journal").exists()
    with sqlite3.connect(db) as c:
        assert c.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert c.execute("SELECT count(*), sum(x) FROM t").fetchone() == (2_000, sum(range(2_000)))


def test_a_journal_in_use_by_a_live_writer_is_left_alone(vault: Vault) -> None:
    db = vault.meta / "index.sqlite"
    live = sqlite3.connect(db, isolation_level=None)
    live.execute("CREATE TABLE IF NOT EXISTS t(x)")
    live.execute("BEGIN IMMEDIATE")
    live.execute("INSERT INTO t VALUES(1)")  # its journal is there while it writes
    assert (vault.meta / "index.sqlite-journal").exists()
    Vault(vault.root).settle()
    assert (vault.meta / "index.sqlite-journal").exists()
    live.execute("COMMIT")
    live.close()
    assert not (vault.meta / "index.sqlite-journal").exists()
    assert os.path.exists(db)

