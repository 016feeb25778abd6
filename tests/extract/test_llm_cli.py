"""`mdmem ingest --llm`: settings, the answer cache under .mdmem/, usage and refusal notes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mdmem.cli import app
from tests.conftest import make_vault

ANSWER = json.dumps({"facts": [
    {"message": "L1", "entity": "user", "attribute": "home_city", "value": "Shanghai", "kind": "assert", "date": None, "quote": ""},
    {"message": "L1", "entity": "user", "attribute": "job_title", "value": "new job", "kind": "assert", "date": None, "quote": ""},
]})  # fmt: skip


@pytest.fixture
def mocked(monkeypatch: pytest.MonkeyPatch) -> list[dict]:
    import litellm

    sent: list[dict] = []
    real = litellm.completion

    def fake(**kw):
        sent.append(kw)
        return real(**kw, mock_response=ANSWER)

    monkeypatch.setattr(litellm, "completion", fake)
    return sent


def ingest(vault_root: Path, path: Path, *extra: str):
    return CliRunner().invoke(app, ["ingest", str(path), "--llm", "gpt-4o-mini", "--vault", str(vault_root), *extra])


def test_ingest_llm_caches_answers_and_reports_usage(tmp_path: Path, mocked: list[dict]) -> None:
    v = make_vault(tmp_path / "v", "personal")
    chat = tmp_path / "chat.md"
    chat.write_text("User: I moved to Shanghai for a new job.\n", encoding="utf-8")
    r = ingest(v.root, chat, "--llm-timeout", "30", "--llm-retries", "0")
    assert r.exit_code == 0, r.output
    assert len(mocked) == 1 and mocked[0]["timeout"] == 30
    assert mocked[0]["response_format"]["type"] == "json_schema" and mocked[0]["max_tokens"] > 0
    assert "model: 1 call, " in r.stderr and "tokens" in r.stderr
    assert "job_title: 'new job' names the attribute" in r.stderr  # why a candidate was refused
    assert v.get("home_city").value == "Shanghai" and v.get("job_title") is None
    assert list((v.root / ".mdmem/llm-cache").rglob("*.json"))
    # Another file whose prompt is the same (the reply after the last message is not sent).
    again = tmp_path / "again.md"
    again.write_text("User: I moved to Shanghai for a new job.\nAssistant: Congrats!\n", encoding="utf-8")
    r = ingest(v.root, again, "--json")
    assert r.exit_code == 0 and len(mocked) == 1
    assert json.loads(r.stdout)["usage"]["cached"] == 1


def test_no_cache_asks_again(tmp_path: Path, mocked: list[dict]) -> None:
    v = make_vault(tmp_path / "v", "personal")
    for name in ("a.md", "b.md"):
        (tmp_path / name).write_text(f"User: I moved to Shanghai for a new job.\nAssistant: {name}\n", encoding="utf-8")
        assert ingest(v.root, tmp_path / name, "--no-cache").exit_code == 0
    assert len(mocked) == 2 and not (v.root / ".mdmem/llm-cache").exists()


def test_env_settings_reach_the_call(tmp_path: Path, mocked: list[dict], monkeypatch) -> None:
    monkeypatch.setenv("MDMEM_LLM_TIMEOUT", "7")
    v = make_vault(tmp_path / "v", "personal")
    (tmp_path / "a.md").write_text("User: I moved to Shanghai.\n", encoding="utf-8")
    assert ingest(v.root, tmp_path / "a.md").exit_code == 0
    assert mocked[0]["timeout"] == 7


