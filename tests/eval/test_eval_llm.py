"""eval with a model: extraction and answering measured apart, failed messages count as missing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from mdmem.cli import app
from mdmem.eval import evaluate as ev
from mdmem.extract.model_finder import TIMEOUT, LLMConfig, ModelFinder
from mdmem.extract.plugins import finder_for

SCENARIO = """\
name: move
lang: en
rules: personal
sessions:
  - date: '2026-02-10'
    transcript: |
      User: I moved to Shanghai.
  - date: '2026-02-11'
    transcript: |
      User: I take the metro to work now.
probes:
  - {after: 1, type: recall, ask: Where do I live?, expect: {contains: [Shanghai]}}
  - {after: 2, type: recall, ask: How do I get to work?, expect: {contains: [metro]}}
"""


def fact(attribute: str, value: str) -> str:
    return json.dumps({"facts": [{"entity": "user", "attribute": attribute, "value": value,
                                  "kind": "assert", "date": None, "quote": ""}]})  # fmt: skip


@pytest.fixture
def scenario(tmp_path: Path) -> Path:
    path = tmp_path / "move.yaml"
    path.write_text(SCENARIO, encoding="utf-8")
    return path


def test_a_failed_message_counts_as_missing_not_as_a_failed_scenario(scenario: Path) -> None:
    cfg = LLMConfig("gpt-4o-mini", mock_responses=[TIMEOUT, fact("commute_mode", "metro")], retries=0,
                    timeout=0.5)  # litellm's mock timeout waits this long
    report = ev.evaluate([scenario], extractor=finder_for(cfg))
    assert report.errors == []  # the scenario ran
    assert [p.passed for p in report.probe_results()] == [False, True]
    assert len(report.failed_messages) == 1 and "did not answer" in report.failed_messages[0]
    assert report.to_json()["failed_messages"] == report.failed_messages


def test_extraction_alone_with_the_model(scenario: Path) -> None:
    cfg = LLMConfig("gpt-4o-mini", mock_responses=[fact("home_city", "Shanghai"), fact("commute_mode", "metro")])  # fmt: skip
    asked: list[Any] = []

    def answer(vault: Any, question: str, **kw: Any) -> str:
        asked.append(kw["llm"])
        return ev.ask_text(vault, question, **kw)

    report = ev.evaluate([scenario], extractor=finder_for(cfg), answer=answer)
    assert report.overall()["passed"] == 2 and asked == [None, None]  # the templates answered
    assert cfg.usage.calls == 2


def test_cli_chooses_the_model_for_each_side(scenario: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[str, Any]] = []
    real_ingest = ev.default_ingest

    def ingest_with(*finder: Any) -> Any:
        seen.append(("finder", type(finder[0]).__name__ if finder else None))
        return real_ingest(*finder) if not finder else (lambda *a, **k: type("R", (), {"errors": []})())

    def answer(vault: Any, question: str, **kw: Any) -> str:
        seen.append(("answer", (kw["llm"], kw.get("api_base"))))
        return "Shanghai metro"

    monkeypatch.setattr(ev, "default_ingest", ingest_with)
    monkeypatch.setattr(ev, "ask_text", answer)
    monkeypatch.setenv("XDG_CACHE_HOME", str(scenario.parent / "cache"))
    out = CliRunner().invoke(app, ["eval", str(scenario), "--llm-answer", "m1", "--json"])
    assert out.exit_code == 0, out.output
    assert ("finder", None) in seen and ("answer", ("m1", None)) in seen  # rules extract
    seen.clear()
    out = CliRunner().invoke(app, ["eval", str(scenario), "--llm-extract", "m2", "--json"])
    assert out.exit_code == 0, out.output
    assert ("finder", ModelFinder.__name__) in seen and ("answer", (None, None)) in seen
    assert json.loads(out.stdout)["usage"]["calls"] == 0
    seen.clear()
    out = CliRunner().invoke(app, ["eval", str(scenario), "--llm", "m3", "--api-base", "http://127.0.0.1:8080/v1"])
    assert out.exit_code == 0, out.output
    assert ("answer", ("m3", "http://127.0.0.1:8080/v1")) in seen
