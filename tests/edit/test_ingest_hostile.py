"""ingest under bad input: a broken fact file defers, a bad transcript fails alone."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from mdmem import Vault
from mdmem.cli import app
from mdmem.edit.ingest import ingest_paths, ingest_text
from mdmem.extract import guard
from tests.conftest import make_vault

runner = CliRunner()
BROKEN = "---\nvalue: [\n"


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    v = make_vault(tmp_path / "v", "personal")
    ingest_text(v, "User: I work at Lingnan Tech.\n", source="a.md", date="2026-01-05")
    return v


def employer_file(v: Vault) -> Path:
    return v.root / "facts" / "user" / "employer.md"


def test_a_statement_about_a_broken_file_stays_pending_until_the_file_is_fixed(vault):
    good = employer_file(vault).read_text(encoding="utf-8")
    employer_file(vault).write_text(BROKEN, encoding="utf-8")
    left = "User: I left my employer.\nUser: I moved to Lima.\n"
    r = ingest_text(vault, left, source="b.md", date="2026-02-10")
    # Before: NOOP ("already known"), exit 0, the source marked done, the statement lost.
    assert [(st.key, d) for st, d in r.plan.decisions] == [("user/home_city", "ADD")]
    [error] = r.errors
    assert error.startswith("b.md:1: not applied yet: user/employer is in a file that does not")
    source = r.entry["source"]
    assert source["deferred"] == [{"line": 1, "fact": "user/employer", "problem": source["deferred"][0]["problem"]}]  # fmt: skip
    assert "sha256" not in source and source["partial_sha256"]
    assert len(source["applied"]) == 1  # the Lima message only
    assert employer_file(vault).read_text(encoding="utf-8") == BROKEN  # never touched

    again = ingest_text(vault, left, source="b.md", date="2026-02-10")
    assert again.errors == r.errors and not again.plan.decisions  # still pending, nothing redone

    employer_file(vault).write_text(good, encoding="utf-8")
    fixed = ingest_text(vault, left, source="b.md", date="2026-02-10")
    assert fixed.errors == []
    assert [(st.key, d) for st, d in fixed.plan.decisions] == [("user/employer", "EXPIRE")]
    assert vault.get("employer").status == "expired"
    assert "sha256" in fixed.entry["source"]
    done = ingest_text(vault, left, source="b.md", date="2026-02-10")
    assert done.skipped


def test_a_dry_run_defers_the_same_statements(vault):
    employer_file(vault).write_text(BROKEN, encoding="utf-8")
    text = "User: I left my employer.\n"
    dry = ingest_text(vault, text, source="b.md", dry_run=True)
    real = ingest_text(vault, text, source="b.md")
    assert dry.errors == real.errors and len(dry.errors) == 1


def test_bad_json_files_fail_alone_and_the_good_file_is_ingested(vault, tmp_path):
    (tmp_path / "1-deep.json").write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    (tmp_path / "2-stamp.jsonl").write_text(
        '{"role": "user", "content": "I moved to Oslo.", "timestamp": ' + "9" * 5001 + "}\n",
        encoding="utf-8",
    )
    (tmp_path / "3-utf16.md").write_bytes("User: I moved to Berlin.\n".encode("utf-16"))
    (tmp_path / "4-good.md").write_text("User: I moved to Lima.\n", encoding="utf-8")
    results = ingest_paths(vault, [tmp_path / n for n in sorted(p.name for p in tmp_path.glob("[1-4]-*"))])  # fmt: skip
    assert [bool(r.errors) for r in results] == [True, True, False, False]
    assert "nests JSON arrays or objects too deeply" in results[0].errors[0]
    assert "holds a JSON value that cannot be read" in results[1].errors[0]
    assert [(st.key, st.value) for st, _ in results[2].plan.decisions] == [("user/home_city", "Berlin")]  # fmt: skip
    assert vault.get("home_city").value == "Lima"


def test_the_command_shows_a_skipped_message_as_a_warning(vault, tmp_path, monkeypatch):
    monkeypatch.setattr(guard, "MESSAGE_BUDGET", 0.0)
    (tmp_path / "c.md").write_text("User: I moved to Lima.\n", encoding="utf-8")
    out = runner.invoke(app, ["ingest", "--vault", str(vault.root), str(tmp_path / "c.md")])
    assert out.exit_code == 0, out.output
    assert "c.md:1: not read for facts: reading it took longer than 0 s" in out.output
    assert out.output.startswith("Warning: ")  # the source is named as stored: ../c.md
    assert "its text is kept in the episode file" in out.output
