"""The tool functions in-process, without the SDK: how `remember` reads its text, `context` a query."""

from __future__ import annotations

import json

import pytest

from mdmem import Vault
from mdmem.errors import MdmemError
from mdmem.server.messages import as_transcript
from mdmem.server.tools import Memory

DAY = "2026-03-01"


@pytest.mark.parametrize(
    ("text", "speaker", "read_as"),
    [
        ("I moved to Berlin.", None, "message"),
        # A colon, not a speaker called 'I moved to Berlin':
        ("I moved to Berlin: it's great", None, "message"),
        ("[note] I moved to Berlin.", None, "message"),
        ("User: I moved to Berlin.", None, "conversation"),
        ("Alice: I moved to Rome.\nBob: Nice!", None, "conversation"),
        ('[{"role": "user", "content": "I moved to Rome."}]', None, "conversation"),
        ("User: I moved to Berlin.\nAssistant: ok", "user", "message"),
    ],
)
def test_how_remember_reads_its_text(text: str, speaker: str | None, read_as: str) -> None:
    transcript, how = as_transcript(text, speaker, DAY)  # type: ignore[arg-type]
    assert how == read_as
    if how == "message":
        assert json.loads(transcript) == [{"role": speaker or "user", "content": text, "time": DAY}]
    else:
        assert transcript == text


def test_a_context_query_keeps_the_facts_it_is_about_and_their_neighbours(
    sample_vault: Vault,
) -> None:
    m = Memory(sample_vault.root)
    work = m.context(query="Where do I work?")
    assert work["matched"] == ["user/employer"]
    assert "job title" in work["markdown"]  # depends on the employer
    assert "14 March" not in work["markdown"]
    nothing = m.context(query="What is my favourite colour?")
    assert nothing["matched"] == [] and "## Current facts" not in nothing["markdown"]


def test_fact_resources_stay_inside_the_vault(sample_vault: Vault) -> None:
    m = Memory(sample_vault.root)
    assert m.fact_file("user", "home_city") == (sample_vault.root / "facts/user/home_city.md").read_text(encoding="utf-8")  # fmt: skip
    assert m.fact_file("user", "nope") is None
    with pytest.raises(MdmemError):
        m.fact_file("..", "rules")
    assert "user/home_city" in m.fact_keys()
