"""A plan said in Chinese, past its day, is fulfilled by a later session that tells it, even when
the telling has no subject and opens with its time ("上个月去了…"). Made-up sentences."""

from __future__ import annotations

from pathlib import Path

from mdmem import Vault
from mdmem.edit.ingest import ingest_text

PLAN = "## 2024-09-20 10:00\n\n用户: 我打算十一月去桂林爬山。\n助手: 好呀。\n"
LATE = "## 2024-12-10 10:00\n\n用户: 最近太忙了。\n助手: 注意休息。\n"
TOLD_LAST_MONTH = "## 2024-12-12 10:00\n\n用户: 上个月去了桂林爬山，累坏了。\n助手: 辛苦！\n"


def test_a_told_event_with_its_time_first_fulfils_the_overdue_plan_and_clears_its_question(tmp_path: Path) -> None:
    v = Vault.create(tmp_path / "v", "personal", now="2024-12-12T12:00:00Z")
    ingest_text(v, PLAN, source="plan.md")
    ingest_text(v, LATE, source="late.md")
    assert v.get("plan-去桂林爬山", "user").status == "uncertain"
    assert [p["fact"] for p in v.pending()] == ["user/plan-去桂林爬山"]
    ingest_text(v, TOLD_LAST_MONTH, source="told.md")
    plan, event = v.get("plan-去桂林爬山", "user"), v.get("event-2024-11-去桂林爬山", "user")
    assert plan.status == "active" and plan.fulfilled_by == "[[facts/user/event-2024-11-去桂林爬山]]"
    assert event.when == "2024-11"
    assert v.pending() == []


def test_a_subject_less_telling_is_the_speakers_event_but_someone_elses_is_not(tmp_path: Path) -> None:
    v = Vault.create(tmp_path / "v", "personal", now="2024-12-12T12:00:00Z")
    ingest_text(v, "## 2024-12-12 10:00\n\n用户: 上周去了趟苏州。前天妈妈去了医院。\n助手: 嗯。\n", source="a.md")
    events = sorted(k for k in v.facts if "/event-" in k)
    assert events == ["user/event-2024-12-02-去苏州"]
