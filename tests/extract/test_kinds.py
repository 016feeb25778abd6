"""The extractor reads chat as chat: fact kinds, subject-less sentences, answers across turns,
generic copular forms, and values cut whole."""

from __future__ import annotations

from pathlib import Path

import pytest

from mdmem.engine.decide import Statement
from mdmem.extract.kinds import gerund
from mdmem.extract.modality import is_question
from mdmem.extract.rule_finder import extract
from mdmem.extract.transcript import parse_transcript
from mdmem.model.factfile import Fact
from mdmem.model.rules_yaml import load_rules

ROOT = Path(__file__).resolve().parents[2]
PERSONAL = load_rules(ROOT / "rules" / "personal.yaml")
SOFTWARE = load_rules(ROOT / "rules" / "software_project.yaml")
DAY = "2026-02-10"


def said(text: str, rules=PERSONAL, facts: dict[str, Fact] | None = None) -> list[Statement]:
    msgs = parse_transcript(text, default_time=DAY)
    return extract(msgs, rules, facts or {}, source="t.md", default_date=DAY).statements


def kinds(text: str, rules=PERSONAL) -> list[tuple[str, object, str, str]]:
    return [(s.key, s.value, s.form, s.polarity) for s in said(text, rules)]


# --- kinds ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("I don't have any pets.", "user/pets"),
        ("No pets right now, my building doesn't allow them.", "user/pets"),
        ("I don't have any pets anymore.", "user/pets"),
        ("We have no kids yet.", "user/children"),
        ("我没有孩子。", "user/children"),
        ("我还没有车。", "user/car"),
    ],
)
def test_a_stated_absence_is_none(text, key):
    assert kinds(f"User: {text}") == [(key, None, "none", "")]


@pytest.mark.parametrize(
    "text",
    [
        "I don't have a dog.",  # a cat may still be there: not "no pets"
        "I don't have time for that.",
        "Do you have any pets?",
        "If I had no kids I would travel more.",
        "No worries at all!",
    ],
)
def test_absence_forms_stay_narrow(text):
    assert [s for s in said(f"User: {text}") if s.form == "none"] == []


def test_unnamed_relations_exist_without_names_and_keep_the_noun_said():
    assert kinds("User: My husband and kids went camping.") == [
        ("user/partner", "husband", "unnamed", ""),
        ("user/children", "kids", "unnamed", ""),
    ]
    assert kinds("User: 我老公今天加班。") == [("user/partner", "老公", "unnamed", "")]
    assert ("user/colleagues", "agent", "unnamed", "") in kinds("User: My agent booked the hall for us.")
    assert ("user/relatives", "grandma", "unnamed", "") in kinds("User: My grandma knitted me a scarf.")
    assert kinds("User: My ex-husband called.") == []
    # the name said in the same sentence wins; the unnamed mention adds nothing
    assert kinds("User: My wife, Anna, is a nurse.") == [
        ("user/partner", "Anna", "", ""), ("anna/relation", "wife", "", ""), ("anna/job_title", "nurse", "", ""),
    ]  # fmt: skip


def test_a_forget_request_names_a_slot_it_does_not_state():
    sts = said("User: Please forget my partner.", facts={"user/partner": Fact("user", "partner", "Sam")})
    assert [s.kind for s in sts] == ["forget"]


@pytest.mark.parametrize(
    ("text", "value", "polarity"),
    [
        ("I also don't like bowling.", "bowling", "dislike"),
        ("I love painting landscapes.", "painting landscapes", "like"),
        ("I love to paint.", "painting", "like"),
        ("I love tinkering in the garage, putting together something useful.",
         "tinkering in the garage", "like"),
        ("That's why I'm so passionate about yoga.", "yoga", "like"),
        ("I hate cilantro!", "cilantro", "dislike"),
        ("I love the ocean.", "ocean", "like"),
        ("Honestly I hate the rain.", "rain", "dislike"),
        ("Eagles have always mesmerized me.", "eagles", "like"),
        ("我讨厌香菜。", "香菜", "dislike"),
        ("我很喜欢爬山。", "爬山", "like"),
    ],
)
def test_preferences_keep_their_polarity(text, value, polarity):
    assert kinds(f"User: {text}") == [("user/likes", value, "", polarity)]


def test_dance_and_fashion_are_two_preferences():
    said_ = said("User: I'm passionate about dance and fashion, so I opened a store.")
    assert [s.value for s in said_ if s.attribute == "likes"] == ["dance", "fashion"]
    assert [s.value for s in said_ if s.form == "event"] == ["opened a store"]  # and an event


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("I love action and sci-fi movies.", ["action movies", "sci-fi movies"]),  # both kinds
        ("I really enjoy dramas and emotionally-driven films.", ["dramas", "emotionally-driven films"]),
        ("I'm more into reading and fantasy novels.", ["reading", "fantasy novels"]),  # a gerund is whole
        ("I also enjoy reading, watching movies, and exploring nature.",
         ["reading", "watching movies", "exploring nature"]),  # a list said with commas
        ("I love it, you, and the kids.", []),
        ("I adore lemon and wild strawberry sorbets.", ["lemon sorbets", "wild strawberry sorbets"]),  # a kind of two words
        ("I love hiking and long walks on the beach.", []),  # where the second ends is unclear
    ],
)
def test_two_preferences_with_a_shared_or_own_noun(text, values):
    assert [s.value for s in said(f"User: {text}") if s.polarity] == values


@pytest.mark.parametrize(
    "text",
    [
        "I love it!",
        "I'm into it.",
        "I'm looking into it.",
        "I love that idea.",
        "Doing something I love is awesome.",  # a relative clause: the object came before
        "I'm grateful to have a job I enjoy every day.",
        "I'm passionate about improving education and infrastructure in our town.",
        "I enjoy curling up.",  # a phrasal verb cut from its object (with it: test_told_shapes.py)
        "I just like playing for fun.",
        "I'd love to go.",
        "Do you like hiking?",
        "I loved hiking as a kid.",
        "I love the pic.",  # "the": the moment's, unless a place of nature
        "I love the ocean view from your room.",
    ],
)
def test_preference_forms_stay_narrow(text):
    assert [s for s in said(f"User: {text}") if s.polarity] == []


def test_a_plan_is_tentative_with_its_due_and_the_day_it_was_said():
    [st] = said("User: We're thinking about going kayaking next month.")
    assert (st.key, st.value, st.form, st.tentative, st.at, st.due, st.when_said) == (
        "user/plan-go_kayaking", "go kayaking", "plan", True, "2026-02-10", "2026-03", "next month")  # fmt: skip
    [zh] = said("User: 我们打算下个月去露营。")
    assert (zh.value, zh.due, zh.when_said) == ("去露营", "2026-03", "下个月")
    [undated] = said("User: We're thinking about going kayaking.")  # no day: a plan that never falls due
    assert (undated.value, undated.due) == ("go kayaking", "")


def test_gerunds():
    assert [gerund(w) for w in ("paint", "hike", "swim", "cook", "tie")] == [
        "painting", "hiking", "swimming", "cooking", "tying",
    ]  # fmt: skip


# --- chat grammar --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Haven't seen one, but I do spot them when I hike",
        "Can't do that here, city living makes it hard",
        "Will be cool to build an app",
        "Did some baking yesterday",
    ],
)
def test_subject_less_statements_are_not_questions(text):
    assert not is_question(text)


@pytest.mark.parametrize(
    "text", ["Did you go?", "Have your kids tried it", "Can't you come", "Is Sam coming", "Will it rain"]
)
def test_questions_still_are(text):
    assert is_question(text)


def test_subject_less_sentence_still_states_what_it_says():
    assert kinds("User: Haven't been out much, but I love hiking.") == [("user/likes", "hiking", "", "like")]


def test_names_given_in_answer_to_the_question_before():
    chat = "Tomas: What are your cats' names?\nIngrid: Their names are Juniper, Basil and Clove."
    assert [(s.key, s.value) for s in said(chat)] == [
        ("ingrid/pets", "Juniper"), ("ingrid/pets", "Basil"), ("ingrid/pets", "Clove"),
    ]  # fmt: skip
    assert said("Assistant: 你的狗叫什么名字？\nUser: 它叫豆豆。")[0].value == "豆豆"
    # no question before, or a question about something else: nothing
    assert said("Tomas: Nice!\nIngrid: Their names are Juniper and Clove.") == []
    assert said("Tomas: How was work?\nIngrid: Their names are Juniper and Clove.") == []


# --- generic copular forms -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "key", "value"),
    [
        ("The team's package manager is Karnex Pack.", "team/package_manager", "Karnex Pack"),
        ("The log drain endpoint is stream.velturis.io/aurora.", "user/log_drain_endpoint", "stream.velturis.io/aurora"),  # fmt: skip
        ("Our team channel is #aurora-core.", "user/team_channel", "#aurora-core"),
        ("包管理器是Karnex Pack。", "user/package_manager", "Karnex Pack"),
        ("发版日改成周二了。", "user/release_day", "周二"),
        ("我们的部署平台是Vercel。", "user/deploy_target", "Vercel"),
    ],
)
def test_generic_copular_forms_reach_a_slot(text, key, value):
    assert [(s.key, s.value) for s in said(f"User: {text}", SOFTWARE)] == [(key, value)]


@pytest.mark.parametrize("text", ["The weather is nice.", "The point is Sam.", "天气是晴天。", "这是我的。"])
def test_generic_copular_forms_stay_narrow(text):
    assert said(f"User: {text}", SOFTWARE) == []


# --- values cut whole ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expect"),
    [
        ("I work as a counselor.", [("user/job_title", "counselor")]),
        ("We have three dogs named Juniper, Basil and Clove.",
         [("user/pets", "Juniper"), ("user/pets", "Basil"), ("user/pets", "Clove"), ("user/pet_count", "3")]),
        ("My favorite game is CS:GO.", [("user/favorite_game", "CS:GO")]),
        ("My gym is Urban Sports Club", [("user/gym", "Urban Sports Club")]),
        ("I go to FitX now", [("user/gym", "FitX")]),
        ("我们的健身房是乐刻。", [("user/gym", "乐刻")]),
        ("My commute is about 15 minutes now.", [("user/commute_minutes", "15")]),
        ("I bike to work again, it takes 25 minutes",
         [("user/commute_mode", "bike"), ("user/commute_minutes", "25")]),
    ],
)  # fmt: skip
def test_values_are_cut_whole(text, expect):
    assert [(s.key, s.value) for s in said(f"User: {text}")] == expect


def test_a_district_is_an_address_not_a_city():
    held = {"user/home_city": Fact("user", "home_city", "Munich", valid_from="2025-01-01")}
    assert [(s.key, s.value) for s in said("User: I live in Schwabing now", facts=held)] == [
        ("user/home_address", "Schwabing")
    ]


def test_a_pet_adopted_on_a_day_keeps_that_day():
    [st] = said("User: We adopted Pixie on 2023-04-02.")
    assert (st.key, st.value, st.at) == ("user/pets", "Pixie", "2023-04-02")
