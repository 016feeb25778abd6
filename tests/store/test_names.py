"""Attribute names (issue 23): one guard for every write, in the library, so the CLI, `fix`,
`confirm`, `forget`, the MCP tools and whatever calls `Vault.say` later all have it."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from mdmem import Vault
from mdmem.cli import app
from mdmem.edit.forget import forget
from mdmem.edit.ingest import ingest_text
from mdmem.errors import MdmemError
from mdmem.server.tools import Memory
from mdmem.store.names import UnknownAttribute
from tests.conftest import make_vault

runner = CliRunner()


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    v = make_vault(tmp_path / "v", "personal")
    v.set("employer", "Lingnan Tech", date="2025-08-15")
    return v


def files(v: Vault) -> list[str]:
    return sorted(p.name for p in (v.root / "facts/user").glob("*.md"))


@pytest.mark.parametrize(
    "write",
    [
        lambda v: v.set("employr", "Huaxin"),
        lambda v: v.correct("employr", "Huaxin"),
        lambda v: v.say([v.statement("employr", value="Huaxin", at="2026-03-01")], command="a-tool-added-later"),
        lambda v: Memory(v.root).set_fact("employr", "Huaxin"),
    ],
    ids=["set", "fix", "any say", "mcp set"],
)
def test_a_typo_is_refused_with_the_closest_names(vault: Vault, write) -> None:
    with pytest.raises(UnknownAttribute, match=r"'employr' is not an attribute .*did you mean employer\?.*--new"):
        write(vault)
    assert files(vault) == ["employer.md"] and vault.journal.find("x") is None


@pytest.mark.parametrize(
    "write",
    [
        lambda v: v.confirm("employr", value="Huaxin"),
        lambda v: forget(v, "employr"),
        lambda v: Memory(v.root).confirm("employr", keep=True),
        lambda v: Memory(v.root).forget("employr"),
        lambda v: Memory(v.root).show("employr"),
    ],
    ids=["confirm", "forget", "mcp confirm", "mcp forget", "mcp show"],
)
def test_what_needs_a_fact_names_the_closest(vault: Vault, write) -> None:
    with pytest.raises(MdmemError, match=r"did you mean employer\?"):
        write(vault)
    assert files(vault) == ["employer.md"]


def test_new_makes_a_name_on_purpose_and_then_it_is_known(vault: Vault) -> None:
    r = vault.set("favourite_tea", "oolong", new=True)
    assert r.notes == ["favourite_tea is not in rules.yaml (did you mean favourite_food?); creating it (--new)."]
    assert vault.set("favourite_tea", "green").notes == []  # a fact has the name now
    assert Memory(vault.root).set_fact("gym_buddy", "Tom", new=True)["notes"]
    assert vault.get("gym_buddy").value == "Tom"


def test_notes_and_what_conversation_names_need_no_new(vault: Vault) -> None:
    vault.set("note", "gate code 4471#")  # mdmem's own slot for word-for-word notes
    vault.set("note_2", "the spare key is under the mat")
    ingest_text(vault, "User: My favourite band is Muse.\n", source="chat.md", date="2026-02-10")
    assert vault.get("favourite_band").value == "Muse"  # generic extraction names it


def test_the_cli_offers_the_closest_names(vault: Vault) -> None:
    v = ["--vault", str(vault.root)]
    out = runner.invoke(app, ["fix", "employr", "Huaxin", *v])
    assert out.exit_code == 1 and "did you mean employer?" in out.stderr
    out = runner.invoke(app, ["confirm", "employr", "--keep", *v])
    assert out.exit_code == 1 and "did you mean employer?" in out.stderr
    out = runner.invoke(app, ["fix", "employr", "Huaxin", "--new", *v])
    assert out.exit_code == 0 and "Warning: employr is not in rules.yaml" in out.stderr


def test_check_warns_of_names_that_look_like_a_slip(vault: Vault) -> None:
    vault.set("employr", "Huaxin", new=True)  # made on purpose, but so close: a warning
    vault.set("favourite_tea", "oolong", new=True)  # on purpose, not close: none
    (vault.root / "facts/user/shoe_size.md").write_text(
        "---\nentity: user\nattribute: shoe_size\nvalue: '42'\nstatus: active\n---\n", encoding="utf-8"
    )  # by hand: a warning
    ingest_text(vault, "User: My favourite band is Muse.\n", source="chat.md", date="2026-02-10")
    assert vault.check() == []
    warned = {w.path: w.message for w in vault.name_warnings()}
    assert sorted(warned) == ["facts/user/employr.md", "facts/user/shoe_size.md"]
    assert "did you mean employer?" in warned["facts/user/employr.md"]
    out = runner.invoke(app, ["check", "--vault", str(vault.root)])
    assert out.exit_code == 0 and "facts/user/employr.md: warning:" in out.stdout
    assert "2 warnings" in out.stderr
