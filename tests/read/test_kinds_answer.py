"""How `ask` says each fact kind, in English and Chinese (docs/states.md#kinds)."""

from pathlib import Path

import pytest

from mdmem.model.factfile import Fact
from mdmem.model.rules_yaml import load_rules
from mdmem.read.answer import affirms, state_sentence

RULES = load_rules(Path(__file__).resolve().parents[2] / "rules" / "personal.yaml")


@pytest.mark.parametrize(
    ("fact", "en", "zh"),
    [
        (Fact("user", "pets", None, kind="none", valid_from="2024-05-10"),
         "Your pets: none (as of 2024-05-10).", "你的宠物：没有（2024-05-10时）。"),
        (Fact("user", "partner", None, kind="unnamed", valid_from="2024-04-10"),
         "Your partner: mentioned, but not by name yet (since 2024-04-10).",
         "你的伴侣：提到过，还不知道名字（2024-04-10起）。"),
        (Fact("user", "relatives", None, kind="unnamed", valid_from="2024-04-10", mentioned_as=["aunt", "grandma"]),
         "Your relatives: mentioned as “aunt”, “grandma”, but not by name yet (since 2024-04-10).",
         "你的亲戚：提到过（“aunt”、“grandma”），还不知道名字（2024-04-10起）。"),
        (Fact("user", "plan-camping", "camping", "tentative", kind="plan", valid_from="2024-04-10", due="2024-05"),
         "Your plan “camping”: planned in 2024-05, not confirmed yet (said 2024-04-10).",
         "你的计划“camping”：计划在2024-05，尚未确认（2024-04-10提到）。"),
        (Fact("user", "plans", ["camping"], "tentative", kind="plan", valid_from="2024-05-01"),
         "Your plan “camping”: planned, not confirmed yet (said 2024-05-01).",
         "你的计划“camping”：在计划中，尚未确认（2024-05-01提到）。"),
        (Fact("dana", "event-2023-05-07-fun_run", "10k fun run", kind="event", valid_from="2023-05-07",
              when="2023-05-07", when_said="last Sunday"),
         "Dana's event “10k fun run” was on 2023-05-07 (“last Sunday”).",
         "Dana的经历“10k fun run”：2023-05-07（“last Sunday”）。"),
        (Fact("caroline", "pets", ["Max", "Pixie"], valid_from="2021-01-01",
              items={"Pixie": {"valid_from": "2023-04-02"}}),
         "Caroline's pets are Max (since 2021-01-01) and Pixie (since 2023-04-02).",
         "Caroline的宠物是Max（2021-01-01起）、Pixie（2023-04-02起）。"),
        (Fact("user", "likes", ["hiking", "bowling"], valid_from="2024-03-10",
              items={"bowling": {"polarity": "dislike"}}),
         "Your likes and dislikes are hiking and bowling (dislike) (since 2024-03-10).",
         "你的喜好是hiking、bowling（不喜欢）（2024-03-10起）。"),
    ],
)  # fmt: skip
def test_each_kind_has_its_sentence(fact, en, zh):
    assert state_sentence(fact, RULES, "en") == en
    assert state_sentence(fact, RULES, "zh") == zh


def test_a_dislike_is_never_answered_yes():
    liked = Fact("user", "likes", ["hiking"])
    disliked = Fact("user", "likes", ["bowling"], items={"bowling": {"polarity": "dislike"}})
    assert affirms(liked) and not affirms(disliked)


def test_a_fact_that_says_less_than_the_words_is_followed_by_them(tmp_path, monkeypatch):
    from mdmem.edit.ingest import ingest_text
    from mdmem.read.ask import ask
    from mdmem.store.vault import Vault

    monkeypatch.setenv("MDMEM_NOW", "2026-03-01T12:00:00Z")
    vault = Vault.create(tmp_path / "v", "personal")
    ingest_text(vault, "User: My kids loved the camp at Lake Tahoe.\n", source="a.md", date="2026-02-10")
    answer = ask(vault, "Which camp did my kids love?")
    # The words say which camp; the fact only that there are children: the words' span is
    # the answer (issue 27: the first line answers), the fact's sentence follows it.
    first, fact, *_ = answer.text.splitlines()
    assert first == "Lake Tahoe"
    assert fact.startswith("Your children: mentioned as “kids”, but not by name yet")
