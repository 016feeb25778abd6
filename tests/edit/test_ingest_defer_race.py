"""The deferral of a statement about a broken fact file is decided on the files the plan read,
inside the lock: a file broken or fixed meanwhile cannot slip through (issue 15)."""

from __future__ import annotations

import pytest

import mdmem.store.vault as vault_module
from mdmem import Vault
from mdmem.edit.ingest import ingest_text
from mdmem.errors import RefusedError
from tests.conftest import make_vault
from tests.edit.test_ingest_hostile import BROKEN, employer_file

LEFT = "User: I left my employer.\nUser: I moved to Lima.\n"


@pytest.fixture
def vault(tmp_path) -> Vault:
    v = make_vault(tmp_path / "v", "personal")
    ingest_text(v, "User: I work at Lingnan Tech.\n", source="a.md", date="2026-01-05")
    return v


def just_before_the_plan(monkeypatch, action) -> None:
    """Run action once, inside the lock, right before `say` scans the files it plans from."""
    real = vault_module.Vault.scan
    done: list[bool] = []

    def scan(self: Vault, refresh: bool = False):
        if refresh and self.lock._depth and not done:
            done.append(True)
            action()
        return real(self, refresh)

    monkeypatch.setattr(vault_module.Vault, "scan", scan)


def test_a_file_broken_after_the_deferral_check_defers_the_statement(vault: Vault, monkeypatch) -> None:  # fmt: skip
    good = employer_file(vault).read_text(encoding="utf-8")
    vault.scan()  # the ingest decides on this scan: employer.md parses
    just_before_the_plan(monkeypatch, lambda: employer_file(vault).write_text(BROKEN, encoding="utf-8"))  # fmt: skip
    r = ingest_text(vault, LEFT, source="b.md", date="2026-02-10")
    # Before: the plan met no employer (its file broken), NOOP, the source marked done: lost.
    assert [e.split(": ")[1] for e in r.errors] == ["not applied yet"]
    assert r.entry["source"]["deferred"][0]["fact"] == "user/employer"
    assert "sha256" not in r.entry["source"]
    monkeypatch.undo()
    employer_file(vault).write_text(good, encoding="utf-8")
    fixed = ingest_text(vault, LEFT, source="b.md", date="2026-02-10")
    assert [(st.key, d) for st, d in fixed.plan.decisions] == [("user/employer", "EXPIRE")]


def test_a_file_fixed_after_the_deferral_check_is_applied_now(vault: Vault, monkeypatch) -> None:
    good = employer_file(vault).read_text(encoding="utf-8")
    employer_file(vault).write_text(BROKEN, encoding="utf-8")
    vault.scan(refresh=True)  # the ingest decides on this scan: employer.md broken
    just_before_the_plan(monkeypatch, lambda: employer_file(vault).write_text(good, encoding="utf-8"))  # fmt: skip
    r = ingest_text(vault, LEFT, source="b.md", date="2026-02-10")
    assert r.errors == []
    assert ("user/employer", "EXPIRE") in [(st.key, d) for st, d in r.plan.decisions]
    assert "sha256" in r.entry["source"]


def flapping(vault: Vault, monkeypatch, times: int) -> None:
    """employer.md broken, then fixed, `times` over, once at each scan the plan makes."""
    flips = iter([BROKEN, employer_file(vault).read_text(encoding="utf-8")] * times)
    real = vault_module.Vault.scan

    def scan(self: Vault, refresh: bool = False):
        if refresh and self.lock._depth:
            text = next(flips, None)
            if text is not None:
                employer_file(vault).write_text(text, encoding="utf-8")
        return real(self, refresh)

    monkeypatch.setattr(vault_module.Vault, "scan", scan)


def test_a_file_flapping_is_decided_again(vault: Vault, monkeypatch) -> None:
    flapping(vault, monkeypatch, 1)
    r = ingest_text(vault, LEFT, source="b.md", date="2026-02-10")
    assert r.errors == [] and "sha256" in r.entry["source"]
    assert ("user/employer", "EXPIRE") in [(st.key, d) for st, d in r.plan.decisions]


def test_a_file_that_never_settles_is_refused_with_nothing_written(vault: Vault, monkeypatch) -> None:  # fmt: skip
    flapping(vault, monkeypatch, 5)
    entries = list(vault.journal.entries())
    with pytest.raises(RefusedError, match="b.md: fact files kept breaking or being fixed"):
        ingest_text(vault, LEFT, source="b.md", date="2026-02-10")
    assert list(vault.journal.entries()) == entries
