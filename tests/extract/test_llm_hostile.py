"""A model may propose; only what the message says is applied (issue 23).

Each case is a person's message and a hostile (or careless) model answer, replayed through
litellm's own `mock_response`. What the answer proposes is checked against the message by the
rule path's reader: a dependency needs the person to state it, a change of a value held needs a
statement of change by the speaker, a word-for-word note needs a request and never takes the
slot the model names. After each case the vault's fact files must be byte for byte as before
(except where the case says what is applied), and a note must say why the answer was refused.
The last cases are the controls: the same kinds, said by the person, are applied.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mdmem import Vault
from mdmem.edit.ingest import ingest_text
from mdmem.extract.model_finder import LLMConfig
from mdmem.extract.plugins import finder_for
from tests.conftest import make_vault

HELD = [  # the person before: a move would cascade to much of this
    ("home_city", "Guangzhou"), ("employer", "Lingnan Tech"), ("home_address", "Haizhu"),
    ("commute_mode", "bike"), ("commute_minutes", "20"), ("favourite_food", "dim sum"),
    ("gym", "Iron Temple"), ("pets", ["dog"]),
]  # fmt: skip


def fact(**kw: object) -> dict:
    return {"entity": "user", "kind": "assert", "date": None, **kw}


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hostile") / "v"
    v = make_vault(root, "personal")
    for attr, value in HELD:
        v.set(attr, value, date="2025-08-15")
    return root


@pytest.fixture
def vault(template: Path, tmp_path: Path) -> Vault:
    import shutil

    shutil.copytree(template, tmp_path / "v")
    return Vault(tmp_path / "v")


def facts_bytes(v: Vault) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((v.root / "facts/user").glob("*.md"))}


def replay(v: Vault, said: str, *facts: dict):
    cfg = LLMConfig("gpt-4o-mini", mock_responses=[json.dumps({"facts": list(facts)})], retries=0,
                    backoff=0.0, timeout=0.2)  # fmt: skip
    return ingest_text(v, f"## 2026-02-10\n\nUser: {said}\n", extractor=finder_for(cfg))


# (the message, the model's answer, words the refusal note must hold)
HOSTILE = {
    # The three answers issue 23 found applied.
    "a rule for a statement of taste": (
        "I like pizza.",
        [fact(kind="rule", attribute="employer", on="favourite_food", action="expire", quote="I like pizza.")],
        "does not state one",
    ),
    "a value merely present, taken as a move": (
        "I had dinner in Shanghai.",
        [fact(attribute="home_city", value="Shanghai", quote="I had dinner in Shanghai.")],
        "nothing there says it replaced 'Guangzhou'",
    ),
    "a verbatim note written over the home city": (
        "I like pizza.",
        [fact(kind="verbatim", attribute="home_city", value="I like pizza", quote="I like pizza.")],
        "does not ask to keep these words",
    ),
    # Our own.
    "a derive rule from someone else's move": (
        "My sister lives in Paris.",
        [fact(kind="rule", attribute="social_insurance_city", on="home_city", action="derive", value="Paris", quote="My sister lives in Paris.")],
        "does not state one",
    ),
    "a rule read out of a question": (
        "What happens to my gym if I move?",
        [fact(kind="rule", attribute="gym", on="home_city", action="expire", quote="What happens to my gym if I move?")],
        "does not state one",
    ),
    "a rule on another trigger than the one said": (
        "If I move, my gym would change.",
        [fact(kind="rule", attribute="gym", on="employer", action="expire", quote="If I move, my gym would change.")],
        "a dependency on employer",
    ),
    "a rule turned around": (
        "If I move, my gym would change.",
        [fact(kind="rule", attribute="home_city", on="gym", action="expire", quote="If I move, my gym would change.")],
        "a dependency on gym",
    ),
    "a verbatim note with no request": (
        "My wifi password is hunter2, by the way.",
        [fact(kind="verbatim", attribute="note", value="hunter2", quote="My wifi password is hunter2")],
        "does not ask to keep these words",
    ),
    "a verbatim note of words not said": (
        'Remember this exactly: "gate 4471".',
        [fact(kind="verbatim", attribute="note", value="gate 9999", quote="gate 9999")],
        "does not ask to keep these words",
    ),
    "an employer changed by a mention": (
        "I met someone from Huaxin at lunch.",
        [fact(attribute="employer", value="Huaxin", quote="someone from Huaxin")],
        "nothing there says it replaced 'Lingnan Tech'",
    ),
    "a move read out of a Chinese dinner": (
        "我在上海吃了晚饭。",
        [fact(attribute="home_city", value="上海", quote="我在上海吃了晚饭。")],
        "nothing there says it replaced 'Guangzhou'",
    ),
    "a forged quote for a move": (
        "I had dinner in Shanghai.",
        [fact(attribute="home_city", value="Shanghai", quote="I moved to Shanghai.")],
        "nothing there says it replaced 'Guangzhou'",
    ),
    "a move in another clause than the living": (
        "I live in Guangzhou but had dinner in Shanghai.",
        [fact(attribute="home_city", value="Shanghai", quote="had dinner in Shanghai")],
        "nothing there says it replaced 'Guangzhou'",
    ),
    "a commute changed by a story": (
        "The metro was packed when I visited my aunt.",
        [fact(attribute="commute_mode", value="metro", quote="The metro was packed")],
        "nothing there says it replaced 'bike'",
    ),
    "an invalidate from a mention": (
        "I had dinner in Shanghai.",
        [fact(kind="invalidate", attribute="home_city", value=None, quote="I had dinner in Shanghai.")],
        "does not say the end of home_city",
    ),
    "a forget hidden in small talk": (
        "Forget it, the dinner was fine.",
        [fact(kind="forget", attribute="employer", value=None, quote="Forget it")],
        "does not ask to forget employer",
    ),
    "a move given to the boss": (
        "My boss moved to Shanghai.",
        [fact(attribute="home_city", value="Shanghai", quote="My boss moved to Shanghai.")],
        "said of someone else",
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_hostile_answer_changes_nothing(vault: Vault, case: str) -> None:
    said, answer, why = HOSTILE[case]
    before = facts_bytes(vault)
    r = replay(vault, said, *answer)
    assert r.errors == [], r.errors
    assert facts_bytes(vault) == before, r.notes
    assert any(why in n for n in r.notes), r.notes


def test_the_refused_rule_cannot_cascade_later(vault: Vault) -> None:
    """Issue 23's first case, to the end: the next change of the favourite food expires nothing."""
    replay(vault, "I like pizza.", *HOSTILE["a rule for a statement of taste"][1])
    assert vault.get("employer").depends_on == []
    result = vault.set("favourite_food", "sushi", date="2026-03-01")
    assert [c.key for c in result.plan.changes] == ["user/favourite_food"]
    assert vault.get("employer").status == "active"


CONTROLS = {
    "a move said": ("I moved to Shanghai.", fact(attribute="home_city", value="Shanghai"), ("home_city", "Shanghai")),
    "the slot named": ("I live in Shanghai these days.", fact(attribute="home_city", value="Shanghai"), ("home_city", "Shanghai")),
    "a move said in Chinese": ("我搬到上海了。", fact(attribute="home_city", value="上海"), ("home_city", "上海")),
    "a new employer": ("I started a new job at Huaxin.", fact(attribute="employer", value="Huaxin"), ("employer", "Huaxin")),
    "a dependency said": (
        "If I move, my gym would change.",
        fact(kind="rule", attribute="gym", on="home_city", action="expire", quote="If I move, my gym would change."),
        ("gym", "Iron Temple"),
    ),
    "a note asked for, the model naming a held slot": (
        'Remember word for word: "I like pizza".',
        fact(kind="verbatim", attribute="home_city", value="I like pizza", quote="I like pizza"),
        ("note", "I like pizza"),
    ),
    "a first value, no change": ("My doctor is Dr. Berg.", fact(attribute="doctor", value="Dr. Berg"), ("doctor", "Dr. Berg")),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(CONTROLS))
def test_what_the_person_said_is_still_applied(vault: Vault, case: str) -> None:
    said, answer, (attribute, value) = CONTROLS[case]
    r = replay(vault, said, answer)
    assert r.errors == [] and vault.get(attribute).value == value, r.notes
    assert vault.get("home_city").value == ("Guangzhou" if attribute != "home_city" else value)


def test_a_stated_dependency_is_the_readers_not_the_models(vault: Vault) -> None:
    """The model says `expire`; the person said the gym would change: confirm, as the reader reads it."""
    replay(vault, *CONTROLS["a dependency said"][:2])
    assert vault.get("gym").depends_on == [{"on": "home_city", "action": "confirm"}]

