"""recent_entries: the journal newest first, cut to what a log shows."""

from __future__ import annotations

from mdmem import Vault
from mdmem.store.journal import recent_entries


def test_newest_first_with_causes_and_a_fact_filter(story_vault: Vault) -> None:
    v = story_vault
    v.set("home_city", "广州", date="2025-08-15")
    v.set("employer", "岭南科技", date="2025-08-15")
    v.set("home_city", "上海", date="2026-02-10")
    log = recent_entries(v.journal)
    assert len(log) == 3
    ids = [e["id"] for e in v.journal.entries()]
    assert [e["id"] for e in log] == ids[::-1]
    moved = log[0]["changes"]
    assert moved[0] == {"fact": "user/home_city", "decision": "UPDATE", "cause": None,
                        "before": "广州", "after": "上海", "status": "active"}  # fmt: skip
    assert any(c["cause"] == "user/home_city" for c in moved[1:])  # the cascade names its cause
    assert [e["id"] for e in recent_entries(v.journal, limit=1)] == [log[0]["id"]]
    only = recent_entries(v.journal, fact="user/employer")
    assert [e["id"] for e in only] == [log[0]["id"], log[1]["id"]]
    # Only that fact's rows: the move's entry also changed home_city and its cascade.
    assert [c["fact"] for e in only for c in e["changes"]] == ["user/employer", "user/employer"]


def test_an_empty_journal_has_no_entries(story_vault: Vault) -> None:
    assert recent_entries(story_vault.journal, limit=5) == []
