"""The extractor's grammar (mdmem/extract/grammar/): life as people tell it.

Habits, hobbies, skills and ended hobbies; names and counts; other people's facts; Chinese on a
par with English; and the bad input that must give the right kind or nothing.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from mdmem.engine.decide import Statement
from mdmem.extract.grammar.lexicon import Words, plural
from mdmem.extract.grammar.people import third_to_first
from mdmem.extract.guard import MAX_CANDIDATES
from mdmem.extract.rule_finder import extract
from mdmem.extract.transcript import parse_transcript
from mdmem.model.factfile import Fact
from mdmem.model.rules_yaml import load_rules, rules_from_mapping

ROOT = Path(__file__).resolve().parents[2]
PERSONAL = load_rules(ROOT / "rules" / "personal.yaml")
DAY = "2026-02-10"


def said(text: str, facts: dict[str, Fact] | None = None, rules=PERSONAL) -> list[Statement]:
    if ":" not in text.split("\n")[0][:12] and "：" not in text.split("\n")[0][:12]:
        text = "User: " + text
    msgs = parse_transcript(text, default_time=DAY)
    return extract(msgs, rules, facts or {}, source="t.md", default_date=DAY).statements


def brief(text: str, facts: dict[str, Fact] | None = None) -> list[tuple[str, str, object, str]]:
    return [(s.kind, s.key, s.value, s.form) for s in said(text, facts)]


# --- the pack's words --------------------------------------------------------------------


def test_words_match_whole_with_plurals_and_keep_the_case_of_a_capitalised_word():
    w = Words()
    w.add("Go", "skills", plurals=False)
    w.add("puppy", "pets", plurals=True)
    assert (w.find("Go"), w.find("go")) == ("Go", None)  # the verb is never the language
    assert (w.find("puppies"), w.plural_said("puppies"), w.plural_said("Puppy")) == ("puppy", True, False)
    assert [plural(n) for n in ("rabbit", "puppy", "child", "fish", "box")] == ["rabbits", "puppies", "children", "fish", "boxes"]  # fmt: skip


def test_a_pack_without_grammar_words_reads_what_it_read_before():
    rules = rules_from_mapping({"attributes": {"pets": {"cardinality": "many"}, "partner": {}}})
    assert [(s.key, s.form) for s in said("My husband and I got a cat.", rules=rules)] == [("user/partner", "unnamed")]


# --- habits, hobbies, skills, endings ------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "items"),
    [
        ("Most evenings I squeeze in some swimming, sketching or a bit of cello.", ["swimming", "sketching", "cello"]),
        ("I'm doing kickboxing and it's giving me so much energy.", ["kickboxing"]),
        ("Just started doing aerial yoga, it's great.", ["aerial yoga"]),
        ("I started surfing five years ago and it's been great.", ["surfing"]),
        ("I go swimming every morning before work.", ["swimming"]),
        ("我每天晚上游泳、画画。", ["游泳", "画画"]),
        ("我最近开始学吉他了", ["吉他"]),
        ("We usually watch movies, hike, and have game nights.", ["watching movies", "hiking", "game nights"]),
        ("I'll keep pursuing my passion for writing.", ["writing"]),
        ("Besides writing, I also enjoy a good film.", ["writing"]),
    ],
)  # fmt: skip
def test_habits_and_hobbies_said_as_life_are_hobbies(text, items):
    assert [(s.key, s.value) for s in said(text)] == [("user/hobby", i) for i in items]


@pytest.mark.parametrize(
    "text",
    [
        "I went hiking last weekend.",  # an event, not a hobby
        "Do you go swimming often?",
        "If I had the time I'd do some pottery.",
        "我不想游泳",
        "Let's go swimming!",
    ],
)
def test_an_outing_a_question_or_a_wish_is_no_hobby(text):
    assert [s for s in said(text) if s.attribute == "hobby"] == []


@pytest.mark.parametrize(
    ("text", "items"),
    [
        ("I'm trying to eat less processed food and sugary snacks.", ["eating less processed food", "eating less sugary snacks"]),
        ("I've been cutting down on sugary snacks and eating more veggies.", ["cutting down on sugary snacks", "eating more veggies"]),
        ("I'm reducing my soda and candy intake.", ["reducing my soda", "reducing my candy"]),
        ("Reading a good fantasy book helps me escape.", ["reading a good fantasy book"]),
        ("Sitting in that spot by the window gives me peace.", ["sitting in that spot by the window"]),
    ],
)  # fmt: skip
def test_what_one_eats_on_purpose_and_what_calms_one_are_habits(text, items):
    assert [(s.key, s.value) for s in said(text)] == [("user/habits", i) for i in items]


@pytest.mark.parametrize(
    "text",
    [
        "My doctor told me to go and eat more fruit.",  # someone else's advice
        "Are you cutting down on sugar?",
        "I'm not cutting down on anything.",
        "It gives me peace.",  # no doing named
        "My passion for the job is obvious.",  # no hobby in it
    ],
)
def test_advice_a_question_or_a_denial_is_no_habit(text):
    assert [s for s in said(text) if s.attribute in ("habits", "hobby")] == []


def test_skills_keep_their_case_and_the_verb_go_is_no_language():
    assert [(s.key, s.value) for s in said("I've done a lot of Go and some Rust.")] == [
        ("user/skills", "Go"), ("user/skills", "Rust"),
    ]  # fmt: skip
    assert [s.value for s in said("I speak Portuguese and a bit of Spanish. 我会说日语")] == ["Portuguese", "Spanish", "日语"]
    assert said("I've done a lot of go-karting, let's go.") == [] or all(s.value != "Go" for s in said("I've done a lot of go-karting, let's go."))  # fmt: skip


def test_an_ended_hobby_is_history_dated_by_its_stop_not_a_current_hobby():
    assert brief("I used to sing in a choir but stopped last year.") == [
        ("assert", "user/hobby", "singing in a choir", ""),
        ("invalidate", "user/hobby", "singing in a choir", ""),
    ]
    st = said("I used to sing in a choir but stopped last year.")
    assert {s.at for s in st} == {"2025-01-01"} and st[0].until == "2025-01-01"
    # held already: only that item ends, the others stay
    held = {"user/hobby": Fact("user", "hobby", ["swimming", "singing in a choir"], valid_from="2024-01-01")}
    assert brief("I used to sing in a choir but stopped last year.", held) == [
        ("invalidate", "user/hobby", "singing in a choir", "")
    ]
    assert brief("我以前唱歌，去年不唱了") == [("assert", "user/hobby", "唱歌", ""), ("invalidate", "user/hobby", "唱歌", "")]


def test_a_job_quit_after_years_ends_with_its_period():
    assert [(s.kind, s.key, s.value, s.at) for s in said("I quit the bakery after five years.")] == [
        ("assert", "user/employer", "the bakery", "2021-02-01"),
        ("invalidate", "user/employer", None, DAY),
    ]
    held = {"user/employer": Fact("user", "employer", "Crumb Bakery", valid_from="2021-01-01")}
    assert brief("I quit Crumb Bakery after five years.", held) == [("invalidate", "user/employer", None, "")]


@pytest.mark.parametrize(
    ("text", "expect"),
    [
        ("I'm not vegan anymore, I eat fish again.", [("assert", "user/diet", "vegan", ""), ("invalidate", "user/diet", "vegan", "")]),  # fmt: skip
        ("我最近开始吃纯素了", [("assert", "user/diet", "纯素", "")]),
        ("I'm not vegan.", []),
        # back home is the aunt's too: her clause, re-read as hers, says so
        ("a blanket my aunt brought from back home in Portugal", [
            ("assert", "user/relatives", "aunt", "unnamed"), ("assert", "user/hometown", "Portugal", ""),
            ("assert", "aunt/relation", "aunt", ""), ("assert", "aunt/hometown", "Portugal", "")]),  # fmt: skip
    ],
)
def test_diet_changes_and_origin_said_in_passing(text, expect):
    assert brief(text) == expect


# --- names and counts ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expect"),
    [
        ("My parrot Kiwi screams all day.", [("user/pets", "Kiwi")]),
        ("Say hi to Rufus, my new puppy!", [("user/pets", "Rufus")]),
        ("My second snake Seraphim did it.", [("user/pets", "Seraphim"), ("user/pet_count", "2")]),
        ("我家狗狗叫豆豆", [("user/pets", "豆豆")]),
        ("My cat Ginger hates ginger.", [("user/pets", "Ginger")]),  # a name that is also a word
        ("I love ginger.", [("user/likes", "ginger")]),
    ],
)
def test_names_in_apposition_and_named_outright(text, expect):
    assert [(s.key, s.value) for s in said(text)] == expect


@pytest.mark.parametrize("text", ["Yeah, my mom really loved flowers.", "Jolene, my mom loved flowers."])
def test_a_word_or_the_name_of_the_one_spoken_to_before_my_is_no_members_name(text):
    assert [(s.key, s.value) for s in said(text) if s.attribute == "parents"] == [("user/parents", "mom")]


def test_an_ended_hobby_keeps_what_was_done_after_a_few():
    assert brief("I used to compete in a few dance competitions and shows.")[-1] == (
        "invalidate", "user/hobby", "competing in a few dance competitions", "",
    )  # fmt: skip


def test_a_name_given_later_fills_a_pet_or_a_child_never_a_friend():
    got = brief("User: My best friend came over.\nUser: I still have the toy dog you gave me! I named her Tilly.")
    assert ("assert", "user/friends", "Tilly", "") not in got


def test_names_given_as_the_answer_to_a_question():
    assert [s.value for s in said("A: What are your cats called?\nB: Mochi and Tofu.")] == ["Mochi", "Tofu"]
    assert [s.key for s in said("A: What are your cats called?\nB: Mochi and Tofu.")] == ["b/pets", "b/pets"]
    got = said("A: What are your dogs' names?\nB: They're called Ash, Birch and Cedar.")
    assert [s.value for s in got] == ["Ash", "Birch", "Cedar"]
    assert said("A: Nice weather today?\nB: Mochi and Tofu.") == []  # no name was asked


def test_a_count_keeps_and_a_later_name_fills_the_unnamed_one_and_a_third_makes_three():
    assert brief("I have two rabbits.") == [("assert", "user/pet_count", "2", ""), ("assert", "user/pets", "rabbits", "unnamed")]
    held = {"user/pets": Fact("user", "pets", None, kind="unnamed", valid_from="2026-01-01"),
            "user/pet_count": Fact("user", "pet_count", "2", valid_from="2026-01-01")}  # fmt: skip
    assert brief("We ended up naming her Juno.", held) == [("assert", "user/pets", "Juno", "")]
    held["user/pets"] = Fact("user", "pets", ["Juno"], valid_from="2026-01-01")
    assert brief("Our third rabbit Pip arrived today.", held) == [
        ("assert", "user/pets", "Pip", ""), ("assert", "user/pet_count", "3", ""),
    ]  # fmt: skip
    assert said("We ended up naming her Juno.") == []  # nothing unnamed to name


def test_a_neighbours_horse_is_the_neighbours():
    assert [(s.key, s.value) for s in said("My neighbour's horse Star got out again.")] == [
        ("user/neighbours", "neighbour"), ("neighbour/relation", "neighbour"), ("neighbour/pets", "Star"),
    ]  # fmt: skip
    assert [(s.key, s.value) for s in said("Caroline: My neighbor Anna's dog Max barks.\nMel: ha")] == [
        ("caroline/neighbours", "Anna"), ("caroline-anna/relation", "neighbor"), ("caroline-anna/pets", "Max"),
    ]  # fmt: skip


# --- other people ---------------------------------------------------------------------------


def test_another_persons_clause_is_their_fact_with_how_they_are_related():
    assert brief("My brother Tomas lives in Graz and works at a brewery.") == [
        ("assert", "user/siblings", "Tomas", ""),
        ("assert", "tomas/relation", "brother", ""),
        ("assert", "tomas/home_city", "Graz", ""),
    ]
    known = {"user/siblings": Fact("user", "siblings", ["Tomas"], valid_from="2026-01-01"),
             "tomas/relation": Fact("tomas", "relation", "brother", valid_from="2026-01-01")}  # fmt: skip
    assert brief("Tomas moved to Linz.", known) == [("assert", "tomas/home_city", "Linz", "")]
    assert brief("我哥哥住在上海。") == [
        ("assert", "user/siblings", "哥哥", "unnamed"), ("assert", "哥哥/relation", "哥哥", ""), ("assert", "哥哥/home_city", "上海", ""),
    ]  # fmt: skip
    # she: the one person just spoken of
    assert ("anna/employer", "Siemens") in [(s.key, s.value) for s in said("My neighbour Anna moved to Vienna. She works at Siemens.")]  # fmt: skip


def test_a_person_only_mentioned_gets_no_facts_of_their_own():
    assert brief("My brother Tomas called yesterday.") == [("assert", "user/siblings", "Tomas", "")]


@pytest.mark.parametrize(
    "text",
    [
        "My mom thinks I should move to Berlin.",  # her words about the speaker
        "My boss says I should learn Rust.",
        "My sister asked if I live in Berlin now.",
    ],
)
def test_someone_elses_words_about_the_speaker_are_nobodys_fact(text):
    assert [s for s in said(text) if s.attribute not in ("parents", "colleagues", "siblings")] == []


def test_the_other_person_in_a_two_person_chat_keeps_their_own_facts():
    got = said("Priya: Still in Leeds, still at the hospital. I live in Leeds.\nUser: nice")
    assert [(s.key, s.value) for s in got if s.attribute == "home_city"] == [("priya/home_city", "Leeds")]


# --- bad input ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "We were going to move to Utrecht, but not anymore.",
        "If I won the lottery I'd move to Bali.",
        "Are you moving to Berlin?",
        "I'm moving to Mars. Just kidding!",
        "I live on the moon lol jk",
        "我妈觉得我应该搬到上海",
    ],
)
def test_a_cancelled_plan_a_joke_a_question_or_a_hypothetical_writes_no_fact_of_the_speakers(text):
    # a cancelled plan only ends the plan it names, if one is held (an invalidate, never a fact)
    made = [s for s in said(text) if s.entity == "user" and s.attribute != "parents"]
    assert [s for s in made if not (s.form == "plan" and s.kind == "invalidate")] == []


def test_a_hundred_names_in_one_message_are_bounded_and_linear():
    names = ", ".join(f"Nam{chr(97 + i // 26)}{chr(97 + i % 26)}" for i in range(100))
    text = f"My friends {names} and Zed came over."
    t0 = time.perf_counter()
    one = said(text)
    small = time.perf_counter() - t0
    t0 = time.perf_counter()
    said(" ".join([text] * 8))
    big = time.perf_counter() - t0
    assert len(one) <= MAX_CANDIDATES
    assert big < 30 * max(small, 0.01)  # eight times the text, nowhere near 64 times the work


def test_third_person_verbs_become_the_speakers():
    assert [third_to_first(v) for v in ("lives", "studies", "watches", "is", "has", "moved", "goes")] == [
        "live", "study", "watch", "am", "have", "moved", "go",
    ]  # fmt: skip


# --- the cue words that decide which forms run ---------------------------------------------


@pytest.mark.parametrize(
    "sentence",
    [
        "We usually swim, hike and have game nights on Fridays.",  # verbs whose "-ing" the pack knows
        "I've taken up bouldering and I'm really into it.",  # an "-ing" word the pack does not know
        "We often go kayaking at weekends.",
        "My marketing skills got me the job.",
        "I used to sing in a choir but stopped last year.",
        "I have 2 rabbits and a couple of cats.",
        "We ended up naming her Juno.",
        "I got a new pendant for my birthday.",
        "I like to come to this spot by the water after work.",
    ],
)
def test_the_cue_words_never_drop_a_reading_the_full_grammar_finds(sentence):
    from mdmem.extract.candidates import Resolver
    from mdmem.extract.grammar import find_grammar
    from mdmem.extract.grammar.activities import find_activities
    from mdmem.extract.grammar.habits import find_habits
    from mdmem.extract.grammar.lexicon import lexicon
    from mdmem.extract.grammar.names import find_members
    from mdmem.extract.grammar.preferences import find_favourites
    from mdmem.extract.grammar.things import find_things
    from mdmem.extract.values import tidy

    resolver, lex = Resolver(PERSONAL, set()), lexicon(PERSONAL)
    every = find_members(sentence, lex, resolver) + find_activities(sentence, lex)
    every += find_favourites(sentence, resolver, lex.activities) + find_things(sentence, lex.things) + find_habits(sentence)  # fmt: skip
    assert tidy(every)  # the sentence says something
    assert find_grammar(sentence, resolver) == tidy(every)


def test_a_thing_a_relative_clause_says_the_speaker_loves_is_a_like():
    likes = [(s.value, s.polarity) for s in said("There's this lake nearby that I love - so calm.") if s.key == "user/likes"]
    assert likes == [("lake", "like")]
    assert [s.value for s in said("There's a tiny noodle bar round the corner that I adore.") if s.key == "user/likes"] == [
        "tiny noodle bar"]
    for text in ("These are the people that I love.", "If there was a cafe that I love, I'd go daily.",
                 "Is there a song that I love?", "My sister found a trail that she loves."):
        assert [s for s in said(text) if s.key == "user/likes"] == [], text
