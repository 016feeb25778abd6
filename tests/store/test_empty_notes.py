"""The empty note Obsidian makes when a link to a fact not known yet is clicked is no fact."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from mdmem.cli import app
from mdmem.edit.sync import sync
from mdmem.store.vault import Vault
from tests.conftest import make_vault

runner = CliRunner()


def test_an_empty_note_where_a_link_points_is_no_fact_and_no_problem(tmp_path: Path) -> None:
    v = make_vault(tmp_path / "v", "personal")
    v.set("employer", "Acme")  # links upstream to facts/user/home_city, not known yet
    assert "[[facts/user/home_city]]" in (v.root / "facts/user/employer.md").read_text("utf-8")
    (v.root / "facts/user/home_city.md").write_bytes(b"")  # the click in Obsidian
    out = runner.invoke(app, ["check", "--vault", str(v.root)])
    assert out.exit_code == 0, out.stdout + out.stderr
    v = Vault(v.root)
    assert sync(v).actions == [] and v.get("home_city") is None
    assert sorted(v.facts) == ["user/employer"]
    v.set("home_city", "Lisbon")  # once it is known, mdmem writes the note in full
    assert Vault(v.root).get("home_city").value == "Lisbon"  # type: ignore[union-attr]


def test_a_fact_emptied_after_mdmem_wrote_it_is_reported_not_forgotten(tmp_path: Path) -> None:
    v = make_vault(tmp_path / "v", "personal")
    v.set("home_city", "Lisbon")
    v.set("employer", "Acme")
    (v.root / "facts/user/home_city.md").write_bytes(b"")
    out = runner.invoke(app, ["check", "--vault", str(v.root)])
    assert out.exit_code == 1 and "home_city.md: is empty" in out.stdout + out.stderr
    result = sync(Vault(v.root))
    assert [a.kind for a in result.actions] == ["broken"] and not result.plan.changes
    assert Vault(v.root).get("employer").status == "active"  # type: ignore[union-attr]
    assert (v.root / "facts/user/home_city.md").read_bytes() == b""  # left as it is
