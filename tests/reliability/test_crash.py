"""Real `mdmem` processes killed mid-cascade, and hand edits saved while they write (issue 15).

By default one kill and one raced edit, aimed at the write, so the suite stays fast;
MDMEM_CRASH_TRIALS=40 runs forty of each, for `set` and for `sync`, also with `mdmem watch`
running (RELIABILITY.md has the larger runs, made with `python -m tests.reliability.harness`)."""

import os
from pathlib import Path

import pytest

from tests.reliability.harness import Template, edit_trials, kill_trials, template

TRIALS = int(os.environ.get("MDMEM_CRASH_TRIALS", "1"))
KINDS = ["set", "sync"] if TRIALS > 1 else ["set"]
DEPENDENTS = 30


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("crash")


@pytest.fixture(scope="module")
def set_template(work: Path) -> Template:
    return template(work, "set", DEPENDENTS)


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_kills_leave_the_before_or_after_state_and_lose_no_edit(
    work: Path, set_template: Template, kind: str
) -> None:
    t = set_template if kind == "set" else template(work, kind, DEPENDENTS)
    tally = kill_trials(t, TRIALS, work / f"kills-{kind}")
    assert tally.failures == [], tally.outcomes
    assert tally.trials == TRIALS


@pytest.mark.slow
def test_an_edit_saved_during_a_cascade_is_never_overwritten(
    work: Path, set_template: Template
) -> None:
    tally = edit_trials(set_template, TRIALS, work / "edits")
    assert tally.failures == [], tally.outcomes
    assert tally.trials == TRIALS


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["set", "sync"])
def test_an_edit_saved_while_watch_runs_is_never_overwritten(work: Path, kind: str) -> None:
    """`mdmem watch` on the vault: for `set` it syncs around the command; for `sync` the
    watcher itself runs the cascade the edit races with."""
    (work / f"watch-{kind}").mkdir()
    t = template(work / f"watch-{kind}", kind, DEPENDENTS)
    tally = edit_trials(t, TRIALS, work / f"watch-edits-{kind}", watch=True)
    assert tally.failures == [], tally.outcomes
    assert tally.trials == TRIALS
