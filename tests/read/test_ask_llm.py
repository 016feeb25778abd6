"""ask --llm never loses what the template answer says: values, history dates, state words."""

from __future__ import annotations

import pytest

from mdmem import Vault
from mdmem.read.ask import ask
from mdmem.read.model_answer import llm_prompt, lost
from tests.conftest import make_vault


@pytest.fixture
def moved(tmp_path) -> Vault:
    v = make_vault(tmp_path / "v", "personal", now="2026-02-10T12:00:00Z")
    v._now = "2025-08-15T12:00:00Z"
    v.set("employer", "Lingnan Tech")
    v.set("home_city", "Guangzhou")
    v._now = "2026-02-10T12:00:00Z"
    v.say([v.statement("employer", kind="invalidate", at="2026-02-10", source="t")], command="ingest")
    v.set("home_city", "Shanghai")
    return v


def llm(vault: Vault, question: str, said: str):
    return ask(vault, question, llm="gpt-4o-mini", llm_options={"mock_response": said})


def test_i_dont_know_never_replaces_an_unknown_with_history(moved):
    template = ask(moved, "Where do I work?").text
    assert "Lingnan Tech" in template and "2026-02-10" in template  # unknown — was … until …
    a = llm(moved, "Where do I work?", "I don't know.")
    assert a.text == template and a.model is None
    assert "draft answer is correct" in llm_prompt(a)[0]["content"]


def test_a_faithful_rephrasing_is_kept(moved):
    template = ask(moved, "Where do I work?").text
    said = "That's unknown now: you were at Lingnan Tech until 2026-02-10."
    a = llm(moved, "Where do I work?", said)
    assert a.text == said and a.model == "gpt-4o-mini", template
    assert llm(moved, "Where do I live?", "Shanghai.").text == "Shanghai."  # a current value


def test_dropping_the_state_word_or_a_value_falls_back():
    facts = [{"key": "user/employer", "status": "expired", "value": None, "valid_from": None,
              "history": [{"value": "Lingnan Tech", "valid_from": "2025-08-15", "valid_to": "2026-02-10"}]}]  # fmt: skip
    template = "Your employer is unknown — was Lingnan Tech until 2026-02-10."
    assert lost(template, "You work at Lingnan Tech since 2025-08-15, until 2026-02-10.", facts) == ["that it is uncertain/unknown"]  # fmt: skip
    assert lost(template, "Unknown; it was Lingnan Tech.", facts) == ["2026-02-10"]
    assert lost(template, "Unknown — it was Lingnan Tech until 2026-02-10.", facts) == []
