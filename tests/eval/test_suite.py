"""The scenario suite (tests/data/suite/) through the real ingest and ask: a regression guard.

The floors are the accuracy per task type reached when they were last raised; a change that
makes memory answer worse fails here. Raise them when the extractor or reader gets better.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from mdmem.eval.evaluate import Report, evaluate
from mdmem.eval.scenario import TYPES, find_scenarios, load_scenario

SCENARIOS = Path(__file__).resolve().parents[1] / "data" / "suite"

# Accuracy per task type (and per language) reached by the deterministic extractor and the
# template reader when these floors were last raised, rounded down to two places. Measured
# 2026-11-29 over 62 scenarios / 238 probes (all passing); BENCHMARKS.md "Accuracy" has the table.
FLOORS: dict[str, dict[str, float]] = {
    lang: dict.fromkeys((*TYPES, "overall"), 1.0) for lang in ("all", "en", "zh")
}


@pytest.fixture(scope="module")
def report() -> Report:
    return evaluate([SCENARIOS])


def test_the_suite_is_what_the_issue_asks_for() -> None:
    scenarios = [load_scenario(p) for p in find_scenarios([SCENARIOS])]
    assert len(scenarios) >= 60
    langs = Counter(s.lang for s in scenarios)
    assert langs["en"] == langs["zh"]
    kinds = Counter(p.type for s in scenarios for p in s.probes)
    assert all(kinds[k] >= 6 for k in TYPES), kinds
    packs = Counter(s.rules for s in scenarios)
    assert {"personal", "software_project", "health"} <= set(packs)


def test_every_scenario_runs(report: Report) -> None:
    assert [r.error for r in report.errors] == []


@pytest.mark.parametrize("lang", ["all", "en", "zh"])
def test_accuracy_per_task_type_stays_at_or_above_its_floor(report: Report, lang: str) -> None:
    scope = None if lang == "all" else lang
    reached = {k: v["accuracy"] for k, v in report.by_type(scope).items()}
    reached["overall"] = report.overall(scope)["accuracy"]
    below = {
        k: (reached.get(k), floor)
        for k, floor in FLOORS[lang].items()
        if reached.get(k) is None or reached[k] < floor
    }
    assert below == {}, "accuracy fell below its floor (reached, floor): " + str(below)


BLIND = Path(__file__).resolve().parents[1] / "data" / "blind"
# The held-out sets were written blind, without reading the extractor, the reader or the other
# sets. tuned-1, tuned-2 and tuned-3 were each scored once blind (0.58, 0.67, 0.75) and then
# used to find general failure classes, so they now guard those fixes; never-tuned-1 has not been
# tuned on, nor has never-tuned-2 (real-sounding chat, 2026-12-01): each floor is its blind figure (BENCHMARKS.md, "Accuracy").
# zh-chat-dev (24 Chinese chat scenarios, 2026-12-01) was written to tune on: 0.71 when first
# scored, 0.96 after the Chinese chat classes it showed were fixed. tuned-4 (38 scenarios on
# events, plans, names and other people, half Chinese, 2026-12-03) was scored once blind at
# e195b1e (0.68), then used to fix the four classes of wrong fact it showed (0.71 after).
HELDOUT_FLOORS = {
    "tuned-1": 1.0, "tuned-2": 1.0, "tuned-3": 1.0, "never-tuned-1": 0.74, "never-tuned-2": 0.36,
    "zh-chat-dev": 0.96, "never-tuned-3": 0.53, "tuned-4": 0.71,
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(HELDOUT_FLOORS))
def test_held_out_sets_stay_at_or_above_their_floor(name: str) -> None:
    held = evaluate([BLIND / name])
    assert [r.error for r in held.errors] == []
    assert held.overall(None)["accuracy"] >= HELDOUT_FLOORS[name]
