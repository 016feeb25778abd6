"""context: one deterministic Markdown document, budgeted by importance."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mdmem import Vault
from mdmem.cli import app
from mdmem.read.context import build_context
from tests.conftest import make_vault

runner = CliRunner()


@pytest.fixture
def moved(tmp_path: Path) -> Vault:
    v = make_vault(tmp_path / "v", "personal")
    for attr, value, day in [
        ("home_city", "Guangzhou", "2024-01-01"),
        ("employer", "Lingnan Tech", "2024-01-01"),
        ("home_address", "Haizhu", "2024-01-01"),
        ("social_insurance_city", "Guangzhou", "2024-01-01"),
        ("commute_minutes", "20", "2024-01-02"),
        ("birthday", "1990-03-14", "2024-01-01"),
        ("hobby", "climbing", "2024-05-01"),
        ("home_city", "Shanghai", "2026-02-10"),
    ]:
        v.set(attr, value, date=day)
    v.set("employer", "Acme", entity="alice", date="2025-01-01")
    return v


def md(v: Vault, **kw: object) -> str:
    ctx = build_context(v.facts, v.rules, v.journal.entries(), now=v.now, **kw)  # type: ignore[arg-type]
    return ctx.to_markdown()


def test_sections_and_contents(moved: Vault) -> None:
    text = md(moved)
    assert text.startswith("# Memory (as of 2026-03-01)\n\n## Needs confirmation\n")
    assert (
        "- **employer**: Lingnan Tech, uncertain since 2026-02-10 (home city changed)."
        ' Ask: "You seem to be in Shanghai now. Are you still working at Lingnan Tech?"'
    ) in text
    assert "- **commute time (minutes)**: unknown — was 20 until 2026-02-10." in text
    assert "## Current facts\n### user\n" in text
    assert (
        "#### work\n- social insurance city: Shanghai (since 2026-02-10; derived from home city)\n"
        in text
    )
    assert "#### home\n- home city: Shanghai (since 2026-02-10)\n" in text
    assert "### alice\n#### work\n- employer: Acme (since 2025-01-01)\n" in text
    assert "## Recent changes\n- 2026-02-10 home city: stated: Guangzhou → Shanghai\n" in text
    assert "  - social insurance city: derived from home city: Guangzhou → Shanghai" in text
    assert "- 2025-01-01 alice · employer: stated: Acme" in text
    assert "user/" not in text  # the agent reads names, not internal keys
    # Current facts only: the old city is history, never a current fact.
    current = text.split("## Current facts")[1].split("## Recent changes")[0]
    assert "Guangzhou" not in current


def test_sections_come_in_a_fixed_order(moved: Vault) -> None:
    moved.forget("hobby")
    text = md(moved)
    heads = [line for line in text.splitlines() if line.startswith("## ")]
    assert heads == ["## Needs confirmation", "## Current facts",
                     "## Forgotten at the person's request", "## Recent changes"]  # fmt: skip
    assert "- hobbies (do not bring it up again" in text and "climbing" not in text


def test_deterministic(moved: Vault) -> None:
    assert md(moved) == md(moved)
    runs = {runner.invoke(app, ["context", "--vault", str(moved.root)]).stdout for _ in range(2)}
    assert len(runs) == 1


def test_budget_keeps_current_facts_then_doubts_then_questions(moved: Vault) -> None:
    full = md(moved)
    small = md(moved, max_chars=700)
    assert len(small) <= 700 < len(full)
    assert "home city: Shanghai" in small and "1990-03-14" in small  # every current fact
    assert "- **employer**: Lingnan Tech, uncertain since 2026-02-10" in small
    assert "Ask:" not in small  # no room for questions once the doubtful facts are in
    assert small.splitlines()[-1] == (
        "_Also known but left out here for space: 1 fact (home address) and 9 recent changes._"
    )
    mid = md(moved, max_chars=1100)
    assert mid.count("Ask:") == 3 and "## Recent changes" not in mid
    tiny = md(moved, max_chars=300)
    assert "home city: Shanghai" in tiny and "Needs confirmation" not in tiny
    for text in (small, mid, tiny):
        assert "mdmem" not in text and "max-chars" not in text and "user/" not in text


@pytest.mark.parametrize("limit", [60, 200, 250, 400, 900, 1500, 3000])
def test_budget_is_always_respected(moved: Vault, limit: int) -> None:
    assert len(md(moved, max_chars=limit)) <= limit


def test_entity_filter(moved: Vault) -> None:
    text = md(moved, entity="alice")
    assert "Acme" in text and "Lingnan" not in text and "Shanghai" not in text


def test_chinese_vault_uses_chinese_labels(tmp_path: Path) -> None:
    v = make_vault(tmp_path / "zh", "personal")
    v.set("home_city", "广州", date="2024-01-01")
    v.set("employer", "岭南科技", date="2024-01-01")
    v.set("home_city", "上海", date="2026-02-10")
    text = md(v)
    assert "- 居住城市: 上海 (since 2026-02-10)" in text
    assert 'Ask: "我注意到你好像去了上海？你现在还在岭南科技工作吗？"' in text


def test_json_and_cli(moved: Vault) -> None:
    r = runner.invoke(app, ["context", "--format", "json", "--vault", str(moved.root)])
    assert r.exit_code == 0
    data = json.loads(r.stdout)
    assert data["as_of"] == "2026-03-01T12:00:00Z"
    assert [p["fact"] for p in data["pending"]] == [
        "user/commute_minutes",
        "user/employer",
        "user/home_address",
    ]
    assert {f["fact"] for f in data["current"]} >= {"user/home_city", "alice/employer"}
    assert data["recent"][0]["cascade"]
    r = runner.invoke(app, ["context", "--max-chars", "600", "--vault", str(moved.root)])
    assert r.exit_code == 0 and len(r.stdout) <= 600
    r = runner.invoke(app, ["context", "--max-chars", "10", "--vault", str(moved.root)])
    assert r.exit_code == 2  # too small to say anything useful


def test_empty_vault(story_vault: Vault) -> None:
    assert md(story_vault) == "# Memory (as of 2026-03-01)\n\nNothing is known yet.\n"


def test_budget_with_every_kind_of_item(moved: Vault) -> None:
    moved.confirm("employer", reject=True)  # stated to be no longer true: no question
    moved.forget("hobby")
    moved.set("partner", "Sam", date="2026-01-05", tentative=True)
    full = md(moved)
    assert (
        "## No longer known\n- **employer**: unknown — was Lingnan Tech until 2026-03-01." in full
    )
    for limit in (300, 600, 1000, 2000):
        assert len(md(moved, max_chars=limit)) <= limit


def test_a_broken_file_keeps_serving_its_last_good_state(moved: Vault) -> None:
    root = str(moved.root)
    assert "climbing" in runner.invoke(app, ["context", "--vault", root]).stdout
    (moved.root / "facts/user/hobby.md").write_text("---\nvalue: [oops\n---\n", encoding="utf-8")
    r = runner.invoke(app, ["context", "--vault", root])
    assert r.exit_code == 0 and "climbing" in r.stdout
    r = runner.invoke(app, ["ask", "What are my hobbies?", "--vault", root])
    assert "climbing" in r.stdout
