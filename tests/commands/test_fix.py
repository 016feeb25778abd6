"""`mdmem fix`: a wrong value replaced as if never said; journaled and undoable."""

import json
from pathlib import Path

from typer.testing import CliRunner

from mdmem.cli import app
from mdmem.edit.ingest import ingest_text
from mdmem.edit.undo import undo
from mdmem.read.ask import ask
from tests.conftest import make_vault

runner = CliRunner()
FIRST = "## 2026-01-05\n\nUser: I live in Munich and I work at Siemens.\n"


def test_fix_rewrites_history_and_undo_brings_the_mistake_back(tmp_path: Path):
    v = make_vault(tmp_path / "v", "personal")
    ingest_text(v, FIRST)
    v.set("home_city", "Schwabing", date="2026-05-01")  # the mistake (a district, not a city)
    path = v.root / "facts/user/home_city.md"
    wrong_bytes = path.read_bytes()
    out = runner.invoke(app, ["fix", "home_city", "Munich", "--vault", str(v.root), "--json"])
    assert out.exit_code == 0, out.output
    entry_id = json.loads(out.stdout)["journal_id"]
    text = path.read_text(encoding="utf-8")
    assert "Schwabing" not in text and "valid_from: '2026-01-05'" in text
    assert "Schwabing" not in ask(v, "Where do I live?").text
    assert v.get("employer").status == "active"  # the doubt the mistake raised is gone
    undo(v, entry_id)
    assert path.read_bytes() == wrong_bytes


def test_fix_dry_run_writes_nothing(tmp_path: Path):
    v = make_vault(tmp_path / "v", "personal")
    ingest_text(v, FIRST)
    v.set("home_city", "Schwabing", date="2026-05-01")  # the mistake (a district, not a city)
    before = (v.root / "facts/user/home_city.md").read_bytes()
    out = runner.invoke(app, ["fix", "home_city", "Munich", "--dry-run", "--vault", str(v.root)])
    assert out.exit_code == 0 and "CORRECT" in out.stdout
    assert (v.root / "facts/user/home_city.md").read_bytes() == before
