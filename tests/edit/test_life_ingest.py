"""Events and plans through the whole road: ingest, the files, pending and confirm, ask, the
timeline. A two-person chat, so that each speaker is an entity (dana, bob)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from mdmem import Vault
from mdmem.cli import app
from mdmem.edit.ingest import ingest_text
from mdmem.errors import RefusedError
from mdmem.read.ask import ask
from mdmem.read.timeline import build_timeline
from mdmem.read.timeline_formats import to_markdown

runner = CliRunner()

MAY = """## 2023-05-14 10:00

Dana: I did a 10k fun run for the animal shelter last Sunday!
Bob: Nice. We're planning a trip to the Faroe Islands in August.
Dana: We're thinking about a canoe trip next month. And I'm moving to Utrecht in September. I live in Amsterdam, in Jordaan.
"""
JULY = """## 2023-07-08 10:00

Dana: We finally did the canoe trip two weekends ago, it was amazing.
Bob: Cool.
"""
OCTOBER = """## 2023-10-02 10:00

Dana: So much to tell you.
Bob: Go on.
"""


def vault(tmp_path: Path, now: str) -> Vault:
    return Vault.create(tmp_path / "v", "personal", now=now)


def test_a_plan_is_fulfilled_by_the_event_that_tells_it(tmp_path: Path) -> None:
    v = vault(tmp_path, "2023-07-08T12:00:00Z")
    ingest_text(v, MAY, source="may.md")
    assert v.get("plan-canoe_trip", "dana").status == "tentative"
    ingest_text(v, JULY, source="july.md")
    plan, event = v.get("plan-canoe_trip", "dana"), v.get("event-2023-06-24-canoe_trip", "dana")
    assert plan.status == "active" and plan.fulfilled_by == "[[facts/dana/event-2023-06-24-canoe_trip]]"
    assert event.fulfils == "[[facts/dana/plan-canoe_trip]]" and event.when == "2023-06-24/2023-06-25"
    assert event.evidence == "[[episodes/2023/2023-07-08-july#^m1]]"


def test_a_plan_past_its_day_turns_uncertain_at_the_ingest_that_passes_it(tmp_path: Path) -> None:
    v = vault(tmp_path, "2023-10-02T12:00:00Z")
    ingest_text(v, MAY, source="may.md")
    assert v.get("plan-trip_to_the_faroe_islands", "bob").status == "tentative"  # May: still to come
    ingest_text(v, OCTOBER, source="october.md")
    faroe = v.get("plan-trip_to_the_faroe_islands", "bob")
    assert faroe.status == "uncertain"
    assert faroe.uncertain_because["question"]["en"] == "Did Bob's trip to the Faroe Islands happen in August?"
    assert [p["fact"] for p in v.pending()] == ["dana/plan-canoe_trip", "bob/plan-trip_to_the_faroe_islands",
                                               "dana/plan-move_to_utrecht"]  # oldest day first  # fmt: skip


def test_reading_sees_a_plan_past_its_day_before_any_write(tmp_path: Path) -> None:
    v = vault(tmp_path, "2023-05-14T12:00:00Z")
    ingest_text(v, MAY, source="may.md")
    later = Vault(v.root, now="2023-09-02T12:00:00Z")
    assert [p["fact"] for p in later.pending()] == ["dana/plan-canoe_trip", "bob/plan-trip_to_the_faroe_islands"]
    assert later.get("plan-trip_to_the_faroe_islands", "bob").status == "tentative"  # not written
    text = ask(later, "What are Bob's plans?").text
    assert "uncertain" in text and "Did Bob's trip to the Faroe Islands happen in August?" in text


def test_a_move_cascades_the_day_it_is_confirmed_not_the_day_it_is_announced(tmp_path: Path) -> None:
    v = vault(tmp_path, "2023-05-14T12:00:00Z")
    ingest_text(v, MAY, source="may.md")
    assert v.get("home_city", "dana").value == "Amsterdam"
    assert v.get("home_address", "dana").status == "active"
    answered = Vault(v.root, now="2023-10-05T12:00:00Z")
    with pytest.raises(RefusedError, match="answer with --keep"):
        answered.confirm("plan-move_to_utrecht", entity="dana", value="Utrecht")
    answered.confirm("plan-move_to_utrecht", entity="dana", keep=True)
    home = answered.get("home_city", "dana")
    assert (home.value, home.valid_from) == ("Utrecht", "2023-10-05")
    assert answered.get("home_address", "dana").status == "uncertain"
    assert answered.get("event-2023-09-move_to_utrecht", "dana").fulfils == "[[facts/dana/plan-move_to_utrecht]]"


def test_ask_answers_when_from_the_event(tmp_path: Path) -> None:
    v = vault(tmp_path, "2023-07-08T12:00:00Z")
    ingest_text(v, MAY, source="may.md")
    answer = ask(v, "When did Dana do the fun run?")
    # The answer first (issue 27): the event's date, worded as it was said, then its sentence.
    first, second = answer.text.split("\n")[:2]
    assert first == "Sunday, 7 May 2023" and answer.source == "event"
    assert second.startswith("Dana's event “10k fun run for the animal shelter” was on 2023-05-07")
    assert answer.facts[0]["key"] == "dana/event-2023-05-07-10k_fun_run_for_the_animal_shelter"


def test_the_timeline_of_one_person_shows_events_at_their_own_time(tmp_path: Path) -> None:
    v = vault(tmp_path, "2023-07-08T12:00:00Z")
    ingest_text(v, MAY, source="may.md")
    ingest_text(v, JULY, source="july.md")
    md = to_markdown(build_timeline(v.facts, v.journal.entries(), entity="dana"))
    assert "- **2023-05-07** `dana/event-2023-05-07-10k_fun_run_for_the_animal_shelter` — happened: 10k fun run for the animal shelter (“last Sunday”)" in md
    assert "- **2023-06-24/2023-06-25** `dana/event-2023-06-24-canoe_trip` — happened: canoe trip (“two weekends ago”)" in md
    assert "  - `dana/plan-canoe_trip` — came true: canoe trip (“next month”), due 2023-06" in md
    assert "bob/" not in md
    out = runner.invoke(app, ["timeline", "--entity", "dana", "--vault", str(v.root), "--json"])
    assert out.exit_code == 0 and '"when": "2023-05-07"' in out.stdout


def test_a_cancelled_plan_is_called_off_and_asks_nothing(tmp_path: Path) -> None:
    v = vault(tmp_path, "2023-07-08T12:00:00Z")
    ingest_text(v, MAY, source="may.md")
    ingest_text(v, "## 2023-06-01 10:00\n\nDana: We were going to move, but not anymore.\nBob: Oh.\n", source="june.md")
    plan = v.get("plan-move_to_utrecht", "dana")
    assert plan.status == "expired" and plan.history[-1]["reason"] == "cancelled, said the person"
    assert v.get("home_city", "dana").value == "Amsterdam"
    assert "dana/plan-move_to_utrecht" not in [p["fact"] for p in Vault(v.root, now="2024-01-01T00:00:00Z").pending()]
    assert "called off" in to_markdown(build_timeline(v.facts, v.journal.entries(), entity="dana"))
