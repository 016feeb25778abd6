"""timeline: events in time order with their causes, cascades grouped, every format."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mdmem import Vault
from mdmem.cli import app
from mdmem.read.timeline import build_timeline, flatten
from mdmem.read.timeline_formats import describe, gantt_rows, to_markdown, to_mermaid
from mdmem.read.timeline_svg import to_svg
from tests.conftest import make_vault

runner = CliRunner()


@pytest.fixture
def story(story_vault: Vault) -> Vault:
    v = story_vault
    v.set("home_city", "Guangzhou", date="2024-01-01")
    v.set("employer", "Lingnan Tech", date="2024-01-01")
    v.set("social_insurance_city", "Guangzhou", date="2024-01-01")
    v.set("home_address", "Haizhu", date="2024-01-01")
    v.set("commute_minutes", "20", date="2024-01-02")
    v.set("home_city", "Shanghai", date="2026-02-10")
    return v


def heads_of(v: Vault, **kw: str) -> list:
    return build_timeline(v.facts, v.journal.entries(), **kw)


def test_events_in_time_order_with_cascade_grouped(story: Vault) -> None:
    heads = heads_of(story)
    assert [(h.at, h.fact, h.kind) for h in heads] == [
        ("2024-01-01", "user/home_city", "stated"),
        ("2024-01-01", "user/employer", "stated"),
        ("2024-01-01", "user/social_insurance_city", "stated"),
        ("2024-01-01", "user/home_address", "stated"),
        ("2024-01-02", "user/commute_minutes", "stated"),
        ("2026-02-10", "user/home_city", "stated"),
    ]
    move = heads[-1]
    assert (move.previous, move.value, move.source) == ("Guangzhou", "Shanghai", "cli")
    caused = {c.fact: (c.kind, c.cause) for c in move.children}
    assert caused == {
        "user/social_insurance_city": ("derived", "user/home_city"),
        "user/employer": ("uncertain", "user/home_city"),
        "user/home_address": ("uncertain", "user/home_city"),
        "user/commute_minutes": ("expired", "user/home_address"),
    }
    words = {c.fact: describe(c) for c in move.children}
    assert words["user/commute_minutes"] == "expired because user/home_address became uncertain"
    assert words["user/social_insurance_city"] == "derived from user/home_city"


def test_backfill_confirm_and_delete(story: Vault) -> None:
    story.set("home_city", "Beijing", date="2019-06-01")  # an earlier value, said later
    story.confirm("employer", keep=True)
    story.forget("home_address")
    heads = heads_of(story)
    first = heads[0]
    assert (first.at, first.value, first.backfilled) == ("2019-06-01", "Beijing", True)
    kinds = [(h.fact, h.kind) for h in heads]
    assert ("user/employer", "confirmed") in kinds and ("user/home_address", "deleted") in kinds
    assert all(
        e.value is None and e.previous is None
        for e, _ in flatten(heads)
        if e.fact == "user/home_address"
    )


def test_filters(story: Vault) -> None:
    only = heads_of(story, attribute="home_city")
    assert [h.at for h in only] == ["2024-01-01", "2026-02-10"]
    assert len(only[-1].children) == 4  # the cascade stays with its cause
    assert [h.at for h in heads_of(story, since="2025-01-01")] == ["2026-02-10"]
    assert [h.at for h in heads_of(story, until="2024-01-01")] == ["2024-01-01"] * 4
    assert [h.fact for h in heads_of(story, attribute="commute_minutes")] == [
        "user/commute_minutes",
        "user/home_city",
    ]


def test_hand_written_facts_without_a_journal(tmp_path: Path) -> None:
    v = make_vault(tmp_path / "v")
    path = v.root / "facts/user/home_city.md"
    path.parent.mkdir(parents=True)
    path.write_text(
        "---\nentity: user\nattribute: home_city\nvalue: Shanghai\nvalid_from: '2026-02-10'\n"
        "history:\n- value: Guangzhou\n  status: archived\n  valid_from: '2024-01-01'\n"
        "  valid_to: '2026-02-10'\n  source: transcripts/2024.md#L1\n---\n",
        encoding="utf-8",
    )
    heads = heads_of(v)
    assert [(h.at, h.value, h.previous) for h in heads] == [
        ("2024-01-01", "Guangzhou", None),
        ("2026-02-10", "Shanghai", "Guangzhou"),
    ]
    assert heads[0].source == "transcripts/2024.md#L1"


def test_unpurged_journal_values_of_a_forgotten_fact_are_hidden(story: Vault) -> None:
    story.forget("home_address")
    assert "Haizhu" in (story.root / ".mdmem/journal.jsonl").read_text(encoding="utf-8")
    out = to_markdown(heads_of(story))
    assert "Haizhu" not in out and "`user/home_address` — forgotten at the person's request" in out


def test_a_fact_forgotten_then_said_again_shows_only_the_new_value(story: Vault) -> None:
    story.forget("home_address")
    story.set("home_address", "Pudong", date="2026-02-20")
    out = to_markdown(heads_of(story))
    assert "Haizhu" not in out and "Pudong" in out


def test_markdown(story: Vault) -> None:
    md = to_markdown(heads_of(story))
    assert md.startswith(
        "# Timeline\n\n- **2024-01-01** `user/home_city` — stated: Guangzhou _(cli)_\n"
    )
    assert "- **2026-02-10** `user/home_city` — stated: Guangzhou → Shanghai _(cli)_\n" in md
    assert (
        "  - `user/employer` — uncertain because user/home_city changed: Lingnan Tech (doubtful)\n"
        in md
    )


def test_mermaid_gantt(story: Vault) -> None:
    rows = gantt_rows(story.facts, today="2026-03-01")
    text = to_mermaid(rows)
    assert text.startswith("gantt\n")
    assert "    section user/home_city\n    Guangzhou :done, p" in text
    assert ", 2024-01-01, 2026-02-10\n" in text and "    Shanghai :active, p" in text
    assert "unknown since :milestone, crit" in text  # commute minutes expired
    # An uncertain value was trusted until its trigger changed.
    assert "Lingnan Tech :active" in text and "Lingnan Tech (uncertain) :crit" in text


def test_svg_is_a_picture(story: Vault) -> None:
    story.forget("home_address")
    svg = to_svg(gantt_rows(story.facts, today="2026-03-01"), today="2026-03-01")
    root = ET.fromstring(svg)
    ns = "{http://www.w3.org/2000/svg}"
    assert root.tag == f"{ns}svg"
    labels = [t.text for t in root.iter(f"{ns}text")]
    assert "user/home_city" in labels and "Guangzhou" in labels
    assert len(list(root.iter(f"{ns}rect"))) > 8
    assert "Haizhu" not in svg
    assert "forgotten 2026-03-01" in svg  # the deleted slot is marked, without its value


def test_svg_escapes_markup(story_vault: Vault) -> None:
    story_vault.set("employer", "<Acme & Sons>", date="2025-01-01")
    svg = to_svg(gantt_rows(story_vault.facts, today="2026-03-01"), today="2026-03-01")
    ET.fromstring(svg)
    assert "&lt;Acme &amp; Sons&gt;" in svg


def test_cli_formats(story: Vault, tmp_path: Path) -> None:
    root = str(story.root)
    r = runner.invoke(app, ["timeline", "--vault", root])
    assert r.exit_code == 0 and "derived from" in r.stdout and "↳ user/employer" in r.stdout
    r = runner.invoke(app, ["timeline", "--json", "--vault", root])
    events = json.loads(r.stdout)["events"]
    move = next(e for e in events if e["fact"] == "user/home_city" and e["previous"] == "Guangzhou")
    assert [e["fact"] for e in events if e["caused_by"] == move["id"]] == [
        "user/employer", "user/home_address", "user/commute_minutes", "user/social_insurance_city",
    ]  # fmt: skip
    out = tmp_path / "t.svg"
    r = runner.invoke(app, ["timeline", "--format", "svg", "--output", str(out), "--vault", root])
    assert r.exit_code == 0 and out.read_text(encoding="utf-8").startswith("<svg")
    r = runner.invoke(app, ["timeline", "user/employer", "--format", "md", "--vault", root])
    assert "Lingnan Tech" in r.stdout and "`user/birthday`" not in r.stdout
    r = runner.invoke(app, ["timeline", "--since", "2026-13-01", "--vault", root])
    assert r.exit_code == 2
    r = runner.invoke(app, ["timeline", "--output", str(tmp_path / "t.txt"), "--vault", root])
    assert "Lingnan Tech" in (tmp_path / "t.txt").read_text(encoding="utf-8")


def test_an_odd_journal_record_is_skipped(story: Vault) -> None:
    entries = list(story.journal.entries())
    entries.append({"id": "x", "time": "2026-02-28T00:00:00Z", "changes": [
        {"fact": "user/employer", "decision": "UPDATE", "before": None,
         "after": {"entity": "user", "attribute": "employer", "status": "bogus"}}]})  # fmt: skip
    heads = build_timeline(story.facts, entries)
    assert heads and all(h.journal_id != "x" for h in heads)


# --- backfills ------------------------------------------------------------------------------


def _backfilled(v: Vault, batch: bool) -> Vault:
    from mdmem.engine.decide import Statement

    v.set("home_city", "Toronto", date="2023-06-01")
    earlier = [
        Statement("user", "home_city", value="Vancouver", at="2019-01-01", source="cli"),
        Statement("user", "home_city", value="Calgary", at="2021-01-01", source="cli",
                  until="2023-06-01"),
    ]  # fmt: skip
    if batch:
        v.say(earlier, command="set")
    else:
        for st in earlier:
            v.say([st], command="set")
    return v


@pytest.mark.parametrize("batch", [False, True])
def test_each_backfill_is_an_event_for_the_value_it_added(story_vault: Vault, batch: bool) -> None:
    v = _backfilled(story_vault, batch)
    hist = [h["value"] for h in v.get("home_city").history]
    assert hist == ["Vancouver", "Calgary"]  # the file is right; the timeline must agree
    events = [e for e, _ in flatten(heads_of(v, attribute="home_city"))]
    assert [(e.at[:10], e.value) for e in events] == [
        ("2019-01-01", "Vancouver"), ("2021-01-01", "Calgary"), ("2023-06-01", "Toronto"),
    ]  # fmt: skip
    assert [e.backfilled for e in events] == [True, True, False]
    assert len({e.id for e in events}) == 3
    res = runner.invoke(app, ["timeline", "home_city", "--vault", str(v.root)])
    assert res.exit_code == 0, res.output
    assert res.stdout.count("Vancouver") == 1 and "Calgary" in res.stdout
