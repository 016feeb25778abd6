"""The forget-request set (tests/data/forget_requests): 0 missed, 0 over-redacted. Written blind,
first scored before any fix (RELIABILITY.md has both scores); a development set since."""

from __future__ import annotations

import pytest

from tests.reliability.forget_requests import score, table


def test_every_request_is_honoured_and_nothing_else_goes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MDMEM_NOW", "2026-02-10T12:00:00Z")
    outcomes = score()
    wrong = [o for o in outcomes if o.verdict != "correct"]
    assert not wrong, table(outcomes) + "\n" + "\n".join(
        f"{o.id} ({o.kind}): {o.verdict}; still there {o.missed}, lost {o.lost}" for o in wrong
    )
    assert len(outcomes) >= 60 and {o.lang for o in outcomes} == {"en", "zh"}
