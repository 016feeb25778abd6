"""The default extractor: rule patterns, generic forms, moods, dates, requests, dependencies."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mdmem.engine.decide import Statement
from mdmem.extract.candidates import Resolver, canonical
from mdmem.extract.dates import find_when
from mdmem.extract.prefilter import PatternSet, guard
from mdmem.extract.rule_finder import extract
from mdmem.extract.speakers import speaker_entities
from mdmem.extract.transcript import parse_transcript
from mdmem.model.factfile import Fact
from mdmem.model.rules_yaml import load_rules, rules_from_mapping
from mdmem.model.slug import check_slug

ROOT = Path(__file__).resolve().parents[2]
PERSONAL = load_rules(ROOT / "rules" / "personal.yaml")
SOFTWARE = load_rules(ROOT / "rules" / "software_project.yaml")
DAY = "2026-02-10"


def said(text: str, rules=PERSONAL, facts: dict[str, Fact] | None = None, day: str = DAY) -> list[Statement]:  # fmt: skip
    msgs = parse_transcript(text, default_time=day)
    return extract(msgs, rules, facts or {}, source="t.md", default_date=day).statements


def brief(statements: list[Statement]) -> list[tuple[str, str, object]]:
    return [(s.kind, s.key, s.value) for s in statements]


def fact(
    key: str, value: str, since: str = "2025-01-01", status: str = "active"
) -> dict[str, Fact]:
    e, a = key.split("/")
    return {key: Fact(e, a, value, status, valid_from=since)}


# --- rule patterns, speakers, canonical values ---------------------------------------------


def test_rule_patterns_in_english_and_chinese():
    assert brief(said("User: I moved to Shanghai for a new job.")) == [
        ("assert", "user/home_city", "Shanghai"),
        ("invalidate", "user/employer", None),
    ]
    assert brief(said("用户：我搬到上海了，换了份新工作。"))[0] == (
        "assert",
        "user/home_city",
        "上海",
    )


def test_statement_carries_source_line_date_and_a_neutral_body():
    [s] = said("## 2025-08-15\n\nUser: hi\nUser: I live in Guangzhou.\n")
    assert (s.source, s.at, s.tentative) == ("t.md#L4", "2025-08-15", False)
    assert s.body == "Learned from t.md on 2025-08-15."


def test_only_the_people_are_read_never_the_assistant():
    assert said("User: hello\nAssistant: I moved to Shanghai last year.\n") == []


def test_each_named_speaker_is_an_entity_of_their_own():
    text = "Caroline: I moved to Berlin.\nMelanie: I live in Paris.\nCaroline: ok\n"
    assert brief(said(text)) == [
        ("assert", "caroline/home_city", "Berlin"),
        ("assert", "melanie/home_city", "Paris"),
    ]


def test_one_named_person_with_an_assistant_is_the_user():
    msgs = parse_transcript("Alice: I moved to Berlin.\nAssistant: Nice!\n")
    assert speaker_entities(msgs) == {"alice": "user"}
    msgs = parse_transcript("User: hi\nBob Smith: I live in Paris.\nUser: ok\nBob Smith: yes\n")
    assert speaker_entities(msgs) == {"user": "user", "bob smith": "bob_smith"}


def test_canonical_spelling_fixes_case_only():
    assert canonical(PERSONAL, "home_city", "shanghai") == "Shanghai"
    assert canonical(PERSONAL, "home_city", "上海市") == "上海市"  # the person's spelling stays
    assert canonical(PERSONAL, "home_city", "Atlantis") == "Atlantis"


# --- moods ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Did I tell you I moved to Shanghai?",
        "It's not true that I live in Berlin.",
        "If I moved to Hangzhou I would miss the food.",
        "I used to live in Paris.",
        "我们搬到深圳了吗？",
        "我不住在广州。",
        "I can't believe I moved to Berlin, said nobody ever.",
    ],
)
def test_questions_denials_suppositions_and_the_past_write_nothing(text):
    assert said(f"User: {text}\n") == []


@pytest.mark.parametrize(
    "text",
    [
        "Maybe I live in Shanghai now.",
        "I think I moved to Berlin, not sure yet.",
        "Probably I live in Seoul.",
    ],
)
def test_hedged_statements_are_at_most_tentative(text):
    [s] = said(f"User: {text}\n")
    assert s.tentative and s.kind == "assert"


def test_a_hedged_statement_never_overwrites_a_plain_one():
    from mdmem.engine.decide import plan_statements

    facts = fact("user/home_city", "Guangzhou")
    sts = said("User: Maybe I live in Shanghai now.\n", facts=facts)
    plan = plan_statements(facts, PERSONAL, sts, now="2026-03-01T12:00:00Z")
    assert [d for _, d in plan.decisions] == ["NOOP"] and plan.changes == []


def test_a_date_still_to_come_makes_a_plan_not_a_fact():
    [s] = said("User: I moved to Berlin in 2027, the papers say so.\n")
    assert s.tentative and s.at == DAY


def test_hedge_after_the_statement_does_not_weaken_it():
    [s] = said("User: I moved to Shanghai, and I might change jobs too.\n")
    assert not s.tentative


# --- dates ----------------------------------------------------------------------------------

PAST = rules_from_mapping(
    {
        "attributes": {
            "home_city": {
                "extract": [r"(?i)\bI (?:lived|live|moved) (?:in|to) (?P<value>[A-Z]\w+)"]
            }
        }
    }
)


def test_relative_dates_resolve_against_the_message_time():
    [s] = said("## 2026-02-10\nUser: I moved to Shanghai last month.\n")
    assert s.at == "2026-01-01"
    [s] = said("## 2026-02-10\n用户：我去年搬到了上海。\n")
    assert (s.value, s.at) == ("上海", "2025-01-01")


def test_a_closed_past_period_with_nothing_current_is_added_then_ended():
    sts = said("User: I lived in Berlin from 2019 to 2021.\n", rules=PAST)
    assert [(s.kind, s.value, s.at) for s in sts] == [
        ("assert", "Berlin", "2019-01-01"),
        ("invalidate", None, "2022-01-01"),  # "to 2021" includes 2021; ends are exclusive
    ]


def test_a_closed_past_period_before_the_current_value_is_a_backfill():
    from mdmem.engine.decide import plan_statements

    facts = fact("user/home_city", "Shanghai", since="2024-03-01")
    sts = said("User: I lived in Berlin from 2019 to 2021.\n", rules=PAST, facts=facts)
    plan = plan_statements(facts, PAST, sts, now="2026-03-01T12:00:00Z")
    assert [d for _, d in plan.decisions] == ["BACKFILL"]
    after = plan.changes[0].after
    assert after.value == "Shanghai"
    assert after.history[0]["value"] == "Berlin" and after.history[0]["valid_from"] == "2019-01-01"


def test_since_dates_open_a_value():
    [s] = said("## 2026-02-10\n用户：2024年3月起我住在上海。\n")
    assert s.at == "2024-03-01"


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("from 2019 to 2021", "2019-01-01", "2022-01-01"),
        ("since March 2024", "2024-03-01", None),
        ("从2019年到2021年", "2019-01-01", "2022-01-01"),
        ("two years ago", "2024-01-01", None),
        ("3年前", "2023-01-01", None),
        ("yesterday", "2026-02-09", None),
        ("on 3 March 2024", "2024-03-03", None),
    ],
)
def test_date_phrases(text, start, end):
    w = find_when(text, DAY)
    assert w is not None and (w.start, w.end) == (start, end)


def test_no_date_in_plain_numbers():
    assert find_when("I have 12 cats and 3 dogs", DAY) is None


# --- generic forms --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "key", "value"),
    [
        ('My favorite book is "Charlotte\'s Web".', "user/favorite_book", "Charlotte's Web"),
        ("My favorite character is Aragorn.", "user/favorite_character", "Aragorn"),
        ("My name is Caroline.", "user/name", "Caroline"),
        ("My sister's name is Ruth.", "sister/name", "Ruth"),
        ("Lisa Wong is our new designer.", "user/designer", "Lisa Wong"),
        ("Editor: Neovim", "user/editor", "Neovim"),
        ("Invoices go to Anna Smith.", "user/invoices", "Anna Smith"),
        ("Update: my locker number is 42.", "user/locker_number", "42"),
        ("我的血型是A型。", "user/血型", "A型"),
    ],
)
def test_generic_forms(text, key, value):
    got = brief(said(f"User: {text}\n"))
    if key == "sister/name":  # the grammar also lists her with the speaker's siblings
        got = [g for g in got if g[1] != "user/siblings"]
    assert got == [("assert", key, value)]


def test_generic_slot_named_by_a_declared_label_takes_plain_words():
    rules = rules_from_mapping({"attributes": {"commute_mode": {"label": {"en": "commute mode"}}}})
    assert brief(said("User: My commute mode is cycling.\n", rules=rules)) == [
        ("assert", "user/commute_mode", "cycling")
    ]


def test_updates_named_only_by_their_value():
    rules = rules_from_mapping(
        {"attributes": {"package_manager": {"values": [["npm"], ["pnpm"], ["yarn", "Yarn"]]}}}
    )
    for text in [
        "We switched to pnpm.",
        "we're now using yarn",
        "我们换成了pnpm了。",
        "Update: we've moved over to Yarn.",
    ]:
        [s] = said(f"User: {text}\n", rules=rules)
        assert s.key == "user/package_manager" and s.value in ("pnpm", "yarn", "Yarn"), text
    assert said("User: We switched to decaf.\n", rules=rules) == []


def test_generic_forms_leave_patterned_attributes_to_the_rules():
    # "my job is …" names employer (alias) whose own patterns decide; generic stays out.
    assert said("User: My job is Lingnan Tech.\n") == []


# Chit-chat seen in LoCoMo (real chat between two people) that must not become facts.
CHITCHAT = [
    "My favorite part is when we all danced.",
    "The thing is, I never liked it.",
    "My job was tough but it gave me the push I needed.",
    "My music is about expressing my childhood by the sea.",
    "My customer base is the main focus right now.",
    "My Unity strategy game is finally finished!",
    "My mood is terrible now.",
    "My dream is to build a warm and welcoming studio for these students.",
    "Our bond with him was so special and something I cherish.",
    "My family is my motivation and they keep me going.",
    "The weather is Great today.",
    "I'll never forget that day.",
    "Don't forget to bring snacks!",
    "Forget it, it doesn't matter.",
    "I forgot my keys again.",
    "Note: bring the blue folder.",
    "Lol: that was funny.",
    "We go to Paris every summer.",
    "The kids go to Lincoln Elementary.",
    "If you ever need help, my door is always open.",
    "What if the team lead changes?",
    "My hard work is paying off.",
    "My old area was hit by a nasty flood last week.",
]


@pytest.mark.parametrize("text", CHITCHAT)
def test_chitchat_is_not_a_fact(text):
    assert said(f"Caroline: {text}\nMelanie: ha\nCaroline: ok\n") == []


@pytest.mark.parametrize(
    ("text", "liked"),
    [
        ("My favorite is the amazing banana split sundae - I enjoy it after dinner.", "amazing banana split sundae"),
        ("My favorite thing is lemon sorbet.", "lemon sorbet"),
    ],
)
def test_a_favourite_is_a_preference_and_no_slot_of_its_own(text, liked):
    assert [(s.key, s.value, s.polarity) for s in said(f"Caroline: {text}\nMelanie: ha\n")] == [("caroline/likes", liked, "like")]


def test_a_pet_named_in_passing_is_kept_and_its_breed_is_no_slot():
    sts = said("Caroline: My pup Toby is German Shephard and loves cute sweaters.\nMelanie: ha\n")
    assert [(s.key, s.value) for s in sts] == [("caroline/pets", "Toby")]


# --- forget requests ------------------------------------------------------------------------


def test_forget_that_is_not_a_candidate_the_ingest_cuts_its_words_first():
    # "that" points at words, not a slot: `edit.requested` cuts them before the finder reads
    # the message (tests/edit/test_forget_requests.py), so the finder offers no forget for it.
    text = "User: Our staging password is Tr0ub4dor. Please delete that from your memory.\n"
    assert [s.kind for s in said(text)] == ["assert"]
    cut = "User: Our staging password is [forgotten]. Please delete that from your memory.\n"
    assert said(cut) == []


def test_forget_an_existing_fact_by_name_in_both_languages():
    facts = {**fact("user/home_address", "Haizhu"), **fact("user/birthday", "14 March")}
    assert brief(said("User: Please forget my address.\n", facts=facts)) == [
        ("forget", "user/home_address", None)
    ]
    assert brief(said("用户：忘掉我的地址\n", facts=facts)) == [
        ("forget", "user/home_address", None)
    ]
    assert brief(said("用户：别记我的生日了。\n", facts=facts)) == [
        ("forget", "user/birthday", None)
    ]
    assert brief(said("用户：把这个忘了吧\n", facts=facts)) == []  # nothing said just before


@pytest.mark.parametrize(
    "text",
    [
        "Don't forget my birthday!",
        "I forget my address all the time.",
        "我忘记带钥匙了。",
        "别忘了我的生日。",
    ],
)
def test_forgetting_in_passing_is_not_a_request(text):
    facts = {**fact("user/home_address", "Haizhu"), **fact("user/birthday", "14 March")}
    assert said(f"User: {text}\n", facts=facts) == []


# --- verbatim -------------------------------------------------------------------------------


def test_verbatim_quote_is_kept_byte_for_byte():
    text = 'User: Remember word for word: "  Deploy key: ab\tcd — 测试  "\n'
    [s] = said(text)
    assert (s.key, s.value) == ("user/note", "  Deploy key: ab\tcd — 测试  ")


def test_verbatim_fenced_block_with_a_named_slot():
    text = "User: Please remember this error log word for word:\n```text\nE1: boom  \n\tat x()\n```\nthanks\n"
    [s] = said(text)
    assert (s.key, s.value) == ("user/error_log", "E1: boom  \n\tat x()")


def test_verbatim_in_chinese_and_its_text_is_not_read_for_facts():
    [s] = said("用户：原文记下：“我搬到上海了，别改一个字。”\n")
    assert (s.key, s.value, s.kind) == ("user/note", "我搬到上海了，别改一个字。", "assert")


# --- learned dependencies -------------------------------------------------------------------


def test_conditional_will_be_is_a_derive_on_the_dependent():
    sts = said(
        "User: The weekly report goes to Minji Park. If the team lead changes, the weekly report"
        " recipient will be James Lee.\n",
        rules=SOFTWARE,
    )
    assert brief(sts) == [("assert", "user/weekly_report_recipient", "Minji Park")]
    assert sts[0].depends_on == ({"on": "team_lead", "action": "derive", "value": "James Lee"},)


def test_assignment_would_change_is_a_confirm_on_the_statement_just_made():
    sts = said(
        "User: Code reviews go to Seoyun Choi — Seokjin Kang assigned it; if the team lead"
        " changes, this assignment would change.\n",
        rules=SOFTWARE,
    )
    assert brief(sts) == [("assert", "user/code_reviewer", "Seoyun Choi")]
    assert sts[0].depends_on == ({"on": "team_lead", "action": "confirm"},)


def test_chinese_conditionals():
    sts = said("用户：如果组长换了，周报就发给李明。\n", rules=SOFTWARE,
               facts=fact("user/weekly_report_recipient", "王芳"))  # fmt: skip
    assert brief(sts) == [("assert", "user/weekly_report_recipient", "王芳")]
    assert sts[0].depends_on == ({"on": "team_lead", "action": "derive", "value": "李明"},)
    sts = said("用户：我的健身房是乐刻。如果我换城市，这个也会变。\n")
    assert brief(sts) == [("assert", "user/gym", "乐刻")]
    assert sts[0].depends_on == ({"on": "home_city", "action": "confirm"},)


def test_a_dependency_on_another_entity_names_it():
    facts = {**fact("team/team_lead", "Dana"), **fact("user/weekly_report_recipient", "Minji Park")}
    sts = said(
        "User: If the team lead changes, the weekly report recipient will be James Lee.\n",
        rules=SOFTWARE, facts=facts,
    )  # fmt: skip
    assert sts[0].depends_on == (
        {"on": "team/team_lead", "action": "derive", "value": "James Lee"},
    )


def test_depends_on_and_would_end_forms():
    sts = said("User: My gym is Iron Temple Gym. My gym membership depends on my city.\n")
    # No value yet: no valueless fact that would answer "unknown"; the dependency waits …
    assert [s.key for s in sts] == ["user/gym"]
    sts = said(
        "User: My gym membership depends on my city.\nUser: My gym membership is Gold Plus.\n"
    )
    # … for a value said later in the same batch, which carries it.
    assert [(s.key, s.value, s.depends_on) for s in sts] == [
        ("user/gym_membership", "Gold Plus", ({"on": "home_city", "action": "confirm"},))
    ]
    rules = rules_from_mapping(
        {"attributes": {"home_city": {"aliases": ["move"]}, "parking_permit": {}}}
    )
    facts = fact("user/parking_permit", "P-17")
    [s] = said("User: If I move, the parking permit would end.\n", rules=rules, facts=facts)
    assert s.depends_on == ({"on": "home_city", "action": "expire"},) and s.value == "P-17"


def test_a_question_about_a_condition_is_not_a_rule():
    assert said("User: What happens if the team lead changes?\n", rules=SOFTWARE) == []


# --- the prefilter ----------------------------------------------------------------------------


def test_prefilter_never_hides_a_match():
    patterns = [rx for a in PERSONAL.attributes.values() for rx in a.extract + a.invalidate]
    samples = ["I moved to Shanghai for a new job.", "我住在广州海珠，在天河上班，骑车通勤20分钟。",
               "I take the metro to work now.", "my birthday is 14 March", "I work at Lingnan Tech."]  # fmt: skip
    for rx in patterns:
        g = guard(rx)
        for s in samples:
            if rx.search(s):
                assert g.may_match(s.lower()), rx.pattern[:80]
    pset = PatternSet((i, rx) for i, rx in enumerate(patterns))
    for s in samples:
        hits = {i for i, rx in enumerate(patterns) if rx.search(s)}
        assert hits <= {i for i, _ in pset.candidates(s.lower())}


def test_prefilter_literals():
    g = guard(re.compile(r"(?i)\bI (?:just )?(?:moved|relocated) to (?P<value>\w+)"))
    assert frozenset({"moved", "relocated"}) in g.needles
    assert not g.may_match("i live in paris")


# --- properties -----------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=200))
def test_any_text_extracts_without_error_and_with_valid_slugs(text):
    text = text.replace("\x00", "")
    if not text.strip():
        return
    try:
        msgs = parse_transcript(f"User: {text}\n", default_time=DAY)
    except Exception:  # noqa: BLE001 - the parser's own errors are its tests' business
        return
    for s in extract(msgs, SOFTWARE, {}, source="t.md", default_date=DAY).statements:
        assert check_slug(s.attribute) == s.attribute
        assert check_slug(s.entity, "entity") == s.entity


def test_resolver_prefers_labels_then_aliases_then_slugs():
    r = Resolver(PERSONAL)
    assert r.declared("home city") == "home_city"
    assert r.declared("address") == "home_address"
    assert r.declared("地址") == "home_address"
    assert r.declared("favourite band") is None
    assert r.attribute("Favourite Band's") == "favourite_band"


# --- changes of state, said as denials or switches --------------------------------------------

DIET = rules_from_mapping(
    {
        "attributes": {
            "diet": {
                "extract": [
                    r"(?i)\bI(?: don't)? eat (?P<value>meat|fish)",
                    "我(?:现在)?(?P<value>吃素)",
                ],
                "invalidate": ["我(?:现在)?不吃素了"],
            }
        }
    }
)


def test_no_longer_ends_the_current_value_and_only_that_one():
    assert brief(
        said("User: I don't eat meat anymore.\n", rules=DIET, facts=fact("user/diet", "meat"))
    ) == [("invalidate", "user/diet", None)]
    assert (
        said("User: I don't eat fish anymore.\n", rules=DIET, facts=fact("user/diet", "meat")) == []
    )
    assert said("User: I don't eat meat.\n", rules=DIET, facts=fact("user/diet", "meat")) == []


def test_a_switch_after_an_ending_names_the_same_slot():
    sts = said("用户：我现在不吃素了，医生说我蛋白质不够，改成正常饮食了。\n", rules=DIET,
               facts=fact("user/diet", "吃素"))  # fmt: skip
    assert brief(sts) == [("invalidate", "user/diet", None), ("assert", "user/diet", "正常饮食")]
    assert said("用户：改成正常饮食了。\n", rules=DIET) == []  # no slot just ended: no guess


def test_from_now_on_with_a_done_change_is_not_a_plan():
    [s] = said(
        "用户：以后改成周二发版了。\n", rules=SOFTWARE, facts=fact("user/release_day", "周四")
    )
    assert (s.key, s.value, s.tentative) == ("user/release_day", "周二", False)


def test_every_verbatim_note_keeps_its_own_slot():
    text = 'User: Remember word for word: "Gate code 4471#".\nUser: Also remember this verbatim: "T2, gate B7."\n'
    assert brief(said(text)) == [
        ("assert", "user/note", "Gate code 4471#"),
        ("assert", "user/note_2", "T2, gate B7."),
    ]
    same = said(
        'User: Remember word for word: "Gate code 4471#"\n',
        facts=fact("user/note", "Gate code 4471#"),
    )
    assert brief(same) == [("assert", "user/note", "Gate code 4471#")]  # said again: the same slot


def test_dependencies_on_a_job_in_both_languages():
    facts = fact("user/车位", "B2-108")
    [s] = said("用户：不过车位是跟着工作的，如果我换工作，这个也会变。\n", facts=facts)
    assert s.key == "user/车位" and s.depends_on == ({"on": "employer", "action": "confirm"},)
    [s] = said("User: My parking spot is B2-108. If I change jobs, this would change.\n")
    assert s.key == "user/parking_spot" and s.depends_on == (
        {"on": "employer", "action": "confirm"},
    )


def test_forget_a_slot_named_loosely():
    facts = fact("user/repo_url", "https://git.example/x")
    for text in ["Please forget the repo URL, it is internal.", "另外把仓库地址从记忆里删掉吧。"]:
        assert brief(said(f"User: {text}\n", rules=SOFTWARE, facts=facts)) == [
            ("forget", "user/repo_url", None)
        ]


def test_a_date_that_is_a_value_is_not_the_time_of_the_statement():
    sts = said("## 2025-02-14\nUser: My birthday is 3 March 1990, and I'm originally from Leeds.\n")
    assert {s.key: s.at for s in sts} == {
        "user/birthday": "2025-02-14",
        "user/hometown": "2025-02-14",
    }


# --- held-out gap classes: job changes, Chinese job phrases, offices, commutes, … ------------


def plan_of(text: str, facts: dict[str, Fact], rules=PERSONAL, day: str = DAY):
    from mdmem.engine.decide import plan_statements

    sts = said(text, rules=rules, facts=facts, day=day)
    return sts, plan_statements(facts, rules, sts, now="2026-03-01T12:00:00Z")


@pytest.mark.parametrize(
    ("text", "value", "at"),
    [
        ("I quit Lumen Labs and started at Northwind last Monday.", "Northwind", "2026-02-09"),
        ("I left my old agency and started at Brightline in January.", "Brightline", "2026-01-01"),
        ("I quit Acme last month and joined Globex as a data analyst.", "Globex", "2026-01-01"),
        ("I left Lumen Labs for Northwind.", "Northwind", DAY),
        ("I've left Initech to join Hooli.", "Hooli", DAY),
        ("I'm at Northwind now.", "Northwind", DAY),
        ("I'm at Hooli now as a staff engineer.", "Hooli", DAY),
        ("New job! I'm now at Northwind.", "Northwind", DAY),
        ("I joined Northwind last Monday.", "Northwind", "2026-02-09"),
        ("Started a new job at Northwind last week.", "Northwind", "2026-02-03"),
        ("我上周一入职了美团", "美团", "2026-02-02"),
    ],
)
def test_a_job_change_names_the_new_employer(text, value, at):
    sts = [s for s in said(f"User: {text}\n") if s.attribute == "employer"]
    assert [(s.kind, s.value, s.at) for s in sts] == [("assert", value, at)]


def test_a_job_change_updates_the_employer_and_the_cascade_follows():
    facts = fact("user/employer", "Lumen Labs") | fact("user/job_title", "designer")
    _, plan = plan_of("User: I left Lumen Labs for Northwind.\n", facts)
    assert [d for _, d in plan.decisions] == ["UPDATE"]  # one change, not an EXPIRE and an ADD
    emp = next(c.after for c in plan.changes if c.key == "user/employer")
    assert emp.value == "Northwind" and emp.history[-1]["value"] == "Lumen Labs"
    assert any(c.key == "user/job_title" and c.after.status == "uncertain" for c in plan.changes)


@pytest.mark.parametrize(
    "text",
    [
        "I'm at Heathrow now.",
        "I'm at Starbucks now.",
        "I'm at Mom's now.",
        "I'm now at Heathrow.",
        "I'm now at Hyde Park.",
        "I'm at the office now.",
        "I left London for Berlin.",
        "She quit her job and started at Google.",
        "I've worked at Google since 2020, and I'm at home now.",
        "I was in Calgary last week.",
    ],
)
def test_places_and_other_people_are_not_job_changes(text):
    assert [s for s in said(f"User: {text}\n") if s.attribute == "employer"] == []


def test_a_past_employer_goes_to_history_before_the_current_one():
    facts = fact("user/employer", "Northwind", since="2025-06-01")
    for text in (
        "I was working at a tiny startup called Bench then.",
        "Back then I was working at a tiny startup called Bench.",
        "I worked at Bench for three years before this.",
    ):
        sts, plan = plan_of(f"User: {text}\n", facts)
        assert [d for _, d in plan.decisions] == ["BACKFILL"], text
        after = plan.changes[0].after
        assert after.value == "Northwind"
        assert after.history[-1]["value"] == "Bench"
        assert after.history[-1]["valid_to"] == "2025-06-01"


def test_a_past_employer_dated_with_nothing_current_is_history_only():
    sts, plan = plan_of("User: Back in 2019 I was working at a small agency called Pixelworks.\n", {})  # fmt: skip
    assert [(s.kind, s.at) for s in sts] == [("assert", "2019-01-01"), ("invalidate", "2020-01-01")]
    after = plan.changes[-1].after
    assert after.value is None and after.status == "expired"
    assert after.history[-1]["value"] == "Pixelworks"


@pytest.mark.parametrize(
    ("text", "employer", "title"),
    [
        ("我在美团做后端开发", "美团", "后端开发"),
        ("在华为做测试", "华为", "测试"),
        ("我在腾讯做产品经理", "腾讯", "产品经理"),
        ("我现在在小米当产品经理。", "小米", "产品经理"),
        ("我在字节跳动做前端开发", "字节跳动", "前端开发"),
        ("我在字节做产品", "字节", None),
    ],
)
def test_a_chinese_job_phrase_names_employer_and_title(text, employer, title):
    got = {s.attribute: s.value for s in said(f"用户：{text}\n")}
    assert (got.get("employer"), got.get("job_title")) == (employer, title)


@pytest.mark.parametrize(
    ("text", "employer"),
    [
        ("现在在阿里上班，刚入职两周", "阿里"),
        ("刚入职三个月，在京东上班", "京东"),
        ("我入职快一年了", None),
        ("我在外面做销售", None),
        ("我在网上做客服", None),
    ],
)
def test_durations_and_places_are_never_employers(text, employer):
    got = [s.value for s in said(f"用户：{text}\n") if s.attribute == "employer"]
    assert got == ([employer] if employer else [])


@pytest.mark.parametrize(
    ("text", "address", "city"),
    [
        ("Our office is at Broadgate in London.", "Broadgate", "London"),
        ("My office is in Canary Wharf.", "Canary Wharf", None),
        ("The office is in Shoreditch.", "Shoreditch", None),
        ("Our offices are at Paddington Central in London.", "Paddington Central", "London"),
        ("公司在南山科技园。", "南山科技园", None),
        ("我在张江软件园上班", "张江软件园", None),
        ("办公室在陆家嘴中心", "陆家嘴中心", None),
    ],
)
def test_the_office_is_a_work_address(text, address, city):
    sts = said(f"User: {text}\n")
    assert [s.value for s in sts if s.attribute == "work_address"] == [address]
    assert [s.value for s in sts if s.attribute == "work_city"] == ([city] if city else [])


@pytest.mark.parametrize(
    ("text", "mode", "minutes"),
    [
        ("I take the tube in, about 30 min.", "tube", "30"),
        ("We take the bus in every day, roughly 25 minutes.", "bus", "25"),
        ("I take the train in, it's about an hour and a half.", "train", "90"),
        ("It's more like 55 minutes door to door.", None, "55"),
        ("Door to door it's about 40 minutes.", None, "40"),
        ("My commute is more like an hour.", None, "60"),
        ("现在只能坐地铁上班了，要四十分钟", "地铁", "40"),
        ("我每天坐公交上班，差不多半个小时", "公交", "30"),
        ("开车通勤一个小时", "开车", "60"),
        ("骑车上班二十五分钟", "骑车", "25"),
        ("通勤要一个半小时", None, "90"),
        ("I bike in, takes about 20 min.", "bike", "20"),
        ("The commute is about 50 minutes now.", None, "50"),
    ],
)
def test_commute_mode_and_minutes_said_loosely(text, mode, minutes):
    got = {s.attribute: s.value for s in said(f"User: {text}\n")}
    assert (got.get("commute_mode"), got.get("commute_minutes")) == (mode, minutes)


@pytest.mark.parametrize(
    ("text", "birthday"),
    [
        ("生日是1992年7月3号", "1992年7月3号"),
        ("我生日7月3号", "7月3号"),
        ("我叫小王，生日是1992年7月3号。", "1992年7月3号"),
        ("我出生于1990年5月20日", "1990年5月20日"),
        ("我是九月十二号生的", "九月十二号"),
        ("生日：3月8日", "3月8日"),
    ],
)
def test_chinese_birthdays(text, birthday):
    assert [s.value for s in said(f"用户：{text}\n") if s.attribute == "birthday"] == [birthday]


@pytest.mark.parametrize(
    ("text", "children"),
    [
        ("大宝叫乐乐，二宝叫安安", ["乐乐", "安安"]),
        ("我家老大叫豆豆，老二叫米米。", ["豆豆", "米米"]),
        ("My kids are Leo and Mia.", ["Leo", "Mia"]),
        ("My youngest daughter is called Ava.", ["Ava"]),
    ],
)
def test_children_are_many(text, children):
    sts = said(f"User: {text}\n")
    assert [s.value for s in sts if s.attribute == "children"] == children
    _, plan = plan_of(f"User: {text}\n", {})
    assert [c.after.value for c in plan.changes if c.key == "user/children"][-1] == children


@pytest.mark.parametrize(
    ("text", "key", "value"),
    [
        (
            "代码仓库在 https://git.example.cn/infra/gateway",
            "user/repo_url",
            "https://git.example.cn/infra/gateway",
        ),  # fmt: skip
        (
            "仓库地址：https://git.example.cn/a/b-c.git。",
            "user/repo_url",
            "https://git.example.cn/a/b-c.git",
        ),  # fmt: skip
        (
            "The repo is at https://github.com/acme/gateway.",
            "user/repo_url",
            "https://github.com/acme/gateway",
        ),  # fmt: skip
        (
            "Our repo lives at https://git.example.com/a/b, check it out",
            "user/repo_url",
            "https://git.example.com/a/b",
        ),  # fmt: skip
        (
            "仓库在GitLab上：https://gitlab.example.com/infra/gw",
            "user/repo_url",
            "https://gitlab.example.com/infra/gw",
        ),  # fmt: skip
        (
            "代码在 https://git.example.cn/infra/gateway",
            "user/repo_url",
            "https://git.example.cn/infra/gateway",
        ),  # fmt: skip
        ("CI用的GitLab CI", "user/ci_system", "GitLab CI"),
        ("我们CI用的是Jenkins", "user/ci_system", "Jenkins"),
        ("我们的CI 现在用的是 GitHub Actions。", "user/ci_system", "GitHub Actions"),
    ],
)
def test_chinese_and_english_tech_facts(text, key, value):
    assert (("assert", key, value)) in brief(said(f"User: {text}\n", rules=SOFTWARE))


@pytest.mark.parametrize(
    ("text", "hobbies"),
    [
        ("I'm into bouldering and sourdough baking.", ["bouldering", "sourdough baking"]),
        ("I also play chess.", ["chess"]),
        ("I also play the piano and tennis", ["piano", "tennis"]),
        ("I'm really into trail running these days.", ["trail running"]),
        ("我的爱好是摄影和徒步", ["摄影", "徒步"]),
        ("平时我喜欢打羽毛球和游泳", ["打羽毛球", "游泳"]),
        ("I'm into you.", []),
        ("I'm into it, honestly.", []),
    ],
)
def test_hobbies_get_each_item(text, hobbies):
    assert [s.value for s in said(f"User: {text}\n") if s.attribute == "hobby"] == hobbies


def test_a_hobby_list_grows_the_list():
    facts = {"user/hobby": Fact("user", "hobby", ["chess"], "active", valid_from="2025-01-01")}
    _, plan = plan_of("User: I'm into bouldering and sourdough baking.\n", facts)
    assert plan.changes[-1].after.value == ["chess", "bouldering", "sourdough baking"]


@pytest.mark.parametrize(
    ("text", "city", "address"),
    [
        ("我住在广州番禺的祈福新邨", "广州", "番禺的祈福新邨"),
        ("我住在深圳南山的蔚蓝海岸花园", "深圳", "南山的蔚蓝海岸花园"),
        ("我住在成都高新区", "成都", "高新区"),
        ("I live in Walthamstow.", None, "Walthamstow"),
        ("I live in Brooklyn.", None, "Brooklyn"),
        ("I live in Kreuzberg, Berlin.", "Berlin", "Kreuzberg"),
        ("I live in Leytonstone, London.", "London", "Leytonstone"),
        ("I live in Calgary.", "Calgary", None),  # an unknown place alone is still a city
    ],
)
def test_addresses_keep_the_estate_and_districts_are_not_cities(text, city, address):
    got = {s.attribute: s.value for s in said(f"User: {text}\n")}
    assert (got.get("home_city"), got.get("home_address")) == (city, address)


def test_a_known_district_never_overwrites_the_home_city():
    facts = fact("user/home_city", "London")
    sts, plan = plan_of("User: I live in Walthamstow now.\n", facts)
    assert [s.key for s in sts] == ["user/home_address"]
    assert all(c.key != "user/home_city" for c in plan.changes)


PLAN_RULES = rules_from_mapping(
    {
        "attributes": {
            "exercise_plan": {
                "label": {"en": "exercise plan", "zh": "运动计划"},
                "aliases": ["training plan", "锻炼计划"],
                "extract": [
                    r"(?:运动|锻炼)计划(?:现在)?(?:是|为)?(?:可能是)?(?P<value>[^，。]{2,30})",
                    r"(?i)\bmy training plan is (?:to )?(?P<value>[\w ]{3,40})",
                ],
            }
        }
    }
)


@pytest.mark.parametrize(
    ("text", "tentative"),
    [
        ("运动计划是每天晚饭后快走30分钟", False),
        ("我的锻炼计划是每周跑步三次", False),
        ("My training plan is to run 5k every morning", False),
        ("运动计划可能是每天快走", True),  # a real hedge stays a hedge
        ("我打算运动计划是每天快走", True),
    ],
)
def test_a_slot_named_plan_is_not_a_plan(text, tentative):
    [s] = said(f"用户：{text}\n", rules=PLAN_RULES)
    assert s.tentative is tentative


def test_a_period_end_said_as_a_year_closes_at_that_year():
    facts = fact("user/home_city", "Toronto", since="2025-02-01")
    for text in (
        "I lived in Calgary till 2023.",
        "We lived in Calgary up until 2023.",
        "I was in Calgary until 2023.",
        "我在卡尔加里住到2023年。",
    ):
        _, plan = plan_of(f"User: {text}\n", facts)
        assert [d for _, d in plan.decisions] == ["BACKFILL"], text
        entry = plan.changes[0].after.history[-1]
        assert (entry["valid_from"], entry["valid_to"]) == ("2023-01-01", "2024-01-01")
    _, plan = plan_of("User: I lived in Berlin from 2019 to 2021.\n", facts)
    entry = plan.changes[0].after.history[-1]
    assert (entry["value"], entry["valid_from"], entry["valid_to"]) == ("Berlin", "2019-01-01", "2022-01-01")  # fmt: skip


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("till 2023", "2023-01-01", "2024-01-01"),
        ("到2023年", "2023-01-01", "2024-01-01"),
        ("until March 2021", "2021-03-01", "2021-04-01"),
        ("until 5 March 2021", "2021-03-05", "2021-03-06"),
        ("till last year", "2025-01-01", "2026-01-01"),
        ("last Monday", "2026-02-09", None),  # DAY is a Tuesday
        ("上周一", "2026-02-02", None),
        ("上星期三", "2026-02-04", None),
        ("in January", "2026-01-01", None),
        ("in March", "2025-03-01", None),
        ("我3月入职", "2025-03-01", None),
    ],
)
def test_more_date_phrases(text, start, end):
    w = find_when(text, DAY)
    assert w is not None and (w.start, w.end) == (start, end)


def test_until_a_future_date_is_no_closed_period():
    assert find_when("until next year", DAY) is None
    assert find_when("7月3号", DAY) is None  # a day of a month, no year: a birthday, not a time


@pytest.mark.parametrize(
    ("text", "minutes"),
    [("40", "40"), ("四十", "40"), ("二十五分钟", "25"), ("半小时", "30"), ("一个小时", "60"),
     ("一个半小时", "90"), ("两个小时", "120"), ("an hour", "60"), ("half an hour", "30"),
     ("1.5 hours", "90"), ("about 30 min", "30"), ("1小时20分钟", "80"), ("四五", None),
     ("三三", None), ("soon", None)],
)  # fmt: skip
def test_minutes(text, minutes):
    from mdmem.extract.dates import minutes as to_minutes

    assert to_minutes(text) == minutes


# --- blind set tuned-2 classes: each with phrasings of its own, en and zh ------------------------------

HEALTH = load_rules(ROOT / "rules" / "health.yaml")


def values(text: str, key: str, rules=PERSONAL, facts: dict[str, Fact] | None = None) -> list:
    return [s.value for s in said(text, rules, facts) if s.key == key and s.kind == "assert"]


@pytest.mark.parametrize(
    ("text", "key", "expected", "rules"),
    [
        # lists of pets, named after their kind, or in the next sentence
        ("User: I've got two cats, Miso and Tofu, and a balcony.", "user/pets", ["Miso", "Tofu"], PERSONAL),
        ("User: We have three rabbits: Bun, Flop and Pip.", "user/pets", ["Bun", "Flop", "Pip"], PERSONAL),
        ("User: We adopted a puppy!! His name is Biscuit.", "user/pets", ["Biscuit"], PERSONAL),
        ("User: I have a new dog. We named him Rex!", "user/pets", ["Rex"], PERSONAL),
        ("User: We got a kitten last week. She's called Luna.", "user/pets", ["Luna"], PERSONAL),
        ("用户：一只猫叫年糕，还有一只柯基叫豆豆。", "user/pets", ["年糕", "豆豆"], PERSONAL),
        ("用户：上个月捡了只小橘猫，取名叫橘子。", "user/pets", ["橘子"], PERSONAL),
        ("用户：我家养了一只猫。名字叫团子，很乖。", "user/pets", ["团子"], PERSONAL),
        # a name in apposition, only where a member is shown; a thing after the noun is no name
        ("用户：这是我的狗旺财。", "user/pets", ["旺财"], PERSONAL),
        ("用户：这是我男朋友阿杰！", "user/partner", ["阿杰"], PERSONAL),
        ("用户：这是我的狗狗照片。", "user/pets", ["狗狗"], PERSONAL),
        ("用户：这是我的猫咪，很可爱。", "user/pets", ["猫咪"], PERSONAL),
        ("用户：我的猫咪可爱。", "user/pets", ["猫咪"], PERSONAL),
        # allergy lists, a sentence that ends with a stop or a dash
        ("User: I'm allergic to penicillin and shellfish, so no prawns.", "user/allergies", ["penicillin", "shellfish"], PERSONAL),
        ("User: Health basics: I'm allergic to penicillin.", "user/allergies", ["penicillin"], HEALTH),
        ("User: Turns out I'm also allergic to latex — found out the hard way.", "user/allergies", ["latex"], HEALTH),
        ("User: I am allergic to peanuts, shellfish and pollen!", "user/allergies", ["peanuts", "shellfish", "pollen"], PERSONAL),
        # Chinese partner, phone, address, employer, home city
        ("用户：女朋友叫林悦，在一起两年了。", "user/partner", ["林悦"], PERSONAL),
        ("用户：说一下，老公叫陈浩。", "user/partner", ["陈浩"], PERSONAL),
        ("用户：我家住在望京，手机号13911112222。", "user/phone", ["13911112222"], PERSONAL),
        ("用户：我换手机号了，新号码是13600003333。", "user/phone", ["13600003333"], PERSONAL),
        ("用户：有事打我电话：13800138000", "user/phone", ["13800138000"], PERSONAL),
        ("用户：我家住在朝阳区望京西园三区12号楼。", "user/home_address", ["朝阳区望京西园三区12号楼"], PERSONAL),
        ("用户：我住在海淀区学院路8号院。", "user/home_address", ["海淀区学院路8号院"], PERSONAL),
        ("用户：我现在住在北京，在星河互娱做游戏策划。", "user/employer", ["星河互娱"], PERSONAL),
        ("用户：我在蓝鲸文化做美术。", "user/employer", ["蓝鲸文化"], PERSONAL),
        ("用户：我家在杭州西湖区文三路。", "user/home_city", ["杭州"], PERSONAL),
        ("用户：我住在成都高新区。", "user/home_city", ["成都"], PERSONAL),
        # numbered street addresses
        ("User: Our new address is 7 Harbour View, Apt 12.", "user/home_address", ["7 Harbour View, Apt 12"], PERSONAL),
        ("User: We just moved to 42 Elm Street!", "user/home_address", ["42 Elm Street"], PERSONAL),
        ("User: My address is 221B Baker Street.", "user/home_address", ["221B Baker Street"], PERSONAL),
        # employer and title without the usual subject or with a time in between
        ("User: I work remotely for Fernwood Labs.", "user/employer", ["Fernwood Labs"], PERSONAL),
        ("User: I moved. Still working for Fernwood Labs, just from Berlin.", "user/employer", ["Fernwood Labs"], PERSONAL),
        ("User: I started at Cobalt Robotics this week as a program manager!", "user/job_title", ["program manager"], PERSONAL),
        ("User: I joined Northwind last Monday as a staff engineer.", "user/job_title", ["staff engineer"], PERSONAL),
        # exercise plans and blood pressure (health)
        ("User: My exercise plan is brisk walking, 30 minutes, five days a week.", "user/exercise_plan", ["brisk walking, 30 minutes, five days a week"], HEALTH),
        ("User: New exercise plan from the physio: swimming twice a week plus yoga.", "user/exercise_plan", ["swimming twice a week plus yoga"], HEALTH),
        ("User: My new workout routine is rowing and squats on Mondays.", "user/exercise_plan", ["rowing and squats on Mondays"], HEALTH),
        ("用户：血压最近是145/95。", "user/blood_pressure", ["145/95"], HEALTH),
        ("用户：我血压目前是130/85。", "user/blood_pressure", ["130/85"], HEALTH),
        ("User: I've switched to Northgate Hospital since it's close.", "user/hospital", ["Northgate Hospital"], HEALTH),
        ("User: I see Dr. Amelia Hart at Riverside Clinic.", "user/hospital", ["Riverside Clinic"], HEALTH),
    ],
)  # fmt: skip
def test_tuned2_extraction_classes(text, key, expected, rules):
    assert values(text, key, rules) == expected


@pytest.mark.parametrize(
    ("text", "key", "expected"),
    [
        # lockfiles committed, package managers and stacks in Chinese with spaces around Latin names
        ("User: We use npm and we commit package-lock.json.", "user/lockfile", ["package-lock.json"]),
        ("User: We check in yarn.lock, always.", "user/lockfile", ["yarn.lock"]),
        ("User: The lockfile we commit is uv.lock.", "user/lockfile", ["uv.lock"]),
        ("用户：仓库里提交的锁文件是 poetry.lock。", "user/lockfile", ["poetry.lock"]),
        ("用户：我们提交 pnpm-lock.yaml。", "user/lockfile", ["pnpm-lock.yaml"]),
        ("用户：后端用 Python，包管理用 poetry。", "user/package_manager", ["poetry"]),
        ("用户：好消息！我们把 poetry 换成 uv 了。", "user/package_manager", ["uv"]),
        ("用户：前端把npm换成了pnpm。", "user/package_manager", ["pnpm"]),
        ("用户：后端用 Python，包管理用 poetry。", "user/language", ["Python"]),
        ("用户：服务端是 Go，数据库用 PostgreSQL。", "user/database", ["PostgreSQL"]),
        ("用户：运维手册在 docs/ops/runbook.md。", "user/runbook", ["docs/ops/runbook.md"]),
        ("用户：应急手册放在 wiki/ops/incident 里。", "user/runbook", ["wiki/ops/incident"]),
        # alert channels: a quoted group name, "#x" after "land in", a plain name after 改成
        ("用户：告警发到钉钉群“支付-告警”。", "user/alert_channel", ["支付-告警"]),
        ("用户：报警推送到飞书群「ops-oncall」。", "user/alert_channel", ["ops-oncall"]),
        ("用户：告警频道改成 sre-alerts 了。", "user/alert_channel", ["sre-alerts"]),
        ("User: Alerts land in #payments-alerts.", "user/alert_channel", ["#payments-alerts"]),
        # deploy platform moves said without a subject
        ("用户：上周迁到了腾讯云 TKE，折腾了一整个周末。", "user/deploy_target", ["腾讯云"]),
        ("用户：最近整体搬到了 AWS。", "user/deploy_target", ["AWS"]),
        ("用户：我们现在部署在阿里云 ACK 上。", "user/deploy_target", ["阿里云"]),
        # on call for a period; a lead named after a lead-in
        ("User: Dana leads, and Dan Reyes is on call this month.", "user/on_call", ["Dan Reyes"]),
        ("User: Priya Nair is on call this sprint.", "user/on_call", ["Priya Nair"]),
        ("User: The on-call engineer for the week is Omar.", "user/on_call", ["Omar"]),
        ("User: Heads up: Marco Silva is our new team lead as of today.", "user/team_lead", ["Marco Silva"]),
        ("User: News; Ana Lima is the new tech lead.", "user/team_lead", ["Ana Lima"]),
    ],
)  # fmt: skip
def test_tuned2_software_classes(text, key, expected):
    assert values(text, key, SOFTWARE) == expected


def test_several_past_cities_in_one_message_are_each_a_period():
    facts = fact("user/home_city", "Shanghai", since="2024-11-05")
    sts = said(
        "User: I lived in Seattle from 2016 to 2019, and then in Hangzhou from 2019 to 2022.\n",
        facts=facts,
    )
    assert [(s.value, s.at[:4], s.until[:4]) for s in sts if s.kind == "assert"] == [
        ("Seattle", "2016", "2020"),
        ("Hangzhou", "2019", "2023"),
    ]
    facts = fact("user/home_city", "北京", since="2025-01-05")
    sts = said("用户：我2015年到2018年住在成都，2018年到2021年住在武汉。\n", facts=facts)
    assert [(s.value, s.at[:4]) for s in sts if s.kind == "assert"] == [
        ("成都", "2015"),
        ("武汉", "2018"),
    ]
    # a month after "and then in" is not a city
    assert (
        values(
            "User: I lived there from 2016 to 2019, and then in March from 2019 to 2020.\n",
            "user/home_city",
        )
        == []
    )


@pytest.mark.parametrize(
    "text",
    [
        "User: And please forget my phone number — I changed it.",
        "User: Please delete my phone number - it's outdated.",
        "User: Don't keep my phone number: I'd rather not.",
    ],
)
def test_forget_a_named_slot_before_a_dash_or_colon(text):
    assert [(s.kind, s.key) for s in said(text, facts=fact("user/phone", "415-555-0198"))] == [
        ("forget", "user/phone")
    ]


@pytest.mark.parametrize(
    ("text", "on", "dependent"),
    [
        ("User: I train at Iron Gym. If my home address changes, I'll have to find a new gym.", "home_address", "user/gym"),
        ("User: I train at Iron Gym. If my employer changes, we'd probably look for a different gym too.", "employer", "user/gym"),
        ("用户：我在超级猩猩健身。如果我搬家了，就得重新找健身房。", "home_city", "user/gym"),
        ("用户：我在超级猩猩健身。要是我跳槽的话，就得另找一家健身房。", "employer", "user/gym"),
    ],
)  # fmt: skip
def test_a_new_one_to_find_is_a_confirm_dependency(text, on, dependent):
    [s] = [s for s in said(text) if s.depends_on]
    assert s.key == dependent and s.depends_on == ({"on": on, "action": "confirm"},)


def test_a_derive_dependency_with_a_lowercase_value_in_chinese():
    facts = fact("user/alert_channel", "支付-告警")
    [s] = said("用户：如果部署平台换了，告警频道就改成 sre-alerts。\n", SOFTWARE, facts)
    assert s.depends_on == ({"on": "deploy_target", "action": "derive", "value": "sre-alerts"},)


def test_a_name_in_the_next_sentence_only_names_the_kind_just_said():
    assert values("User: We adopted a puppy! His name is Biscuit.", "user/pets") == ["Biscuit"]
    # a sentence in between: the name is not the puppy's
    text = "User: We adopted a puppy! It rained all day. His name is Biscuit."
    assert values(text, "user/pets") == ["puppy"]
    # a value that is already a name is not renamed
    assert values("User: I work at Acme. His name is Bob.", "user/employer") == ["Acme"]



def test_a_pet_shown_and_named_in_a_sentence_of_its_own():
    assert values("User: We adopted a kitten last week. Meet Pickle!", "user/pets") == ["Pickle"]
    # one of several, with a sentence about them between: one of them is named, the rest are not
    text = "User: Let me show you one of my geckos! They love the heat lamp. This is Noodle."
    assert values(text, "user/pets") == ["geckos", "Noodle"]
    assert values("User: My cousin came by. This is Porto.", "user/pets") == []  # a person shown could be a place
    assert values("User: We adopted a kitten last week. This is my favourite chair.", "user/pets") == ["kitten"]


@pytest.mark.parametrize(
    ("sentence", "value", "expected"),
    [
        ("I've transferred my care to Guy's hospital", "Guy's", True),
        ("My new doctor is Dr. Berg", "Dr. Berg", True),
        ("我转到华西医院看了", "华西医院", True),
        ("I see Dr. Hart at Riverside Clinic", "Riverside Clinic", False),
        ("我的医生是张伟", "张伟", False),
    ],
)
def test_a_first_value_said_as_a_change_is_marked(
    sentence: str, value: str, expected: bool
) -> None:
    from mdmem.extract.modality import said_as_change

    assert said_as_change(sentence, sentence.index(value)) is expected


@pytest.mark.parametrize(
    ("text", "value", "since"),
    [
        # a pet got "in March" is the pet, held since that March (said in February: last year's)
        ("User: I got a kitten in March.", "kitten", "2025-03-01"),
        ("User: We adopted a puppy in 2024.", "puppy", "2024-01-01"),
        ("User: We got a kitten last week.", "kitten", "2026-02-03"),
        # the naming clause names the kind it follows, in the same sentence
        ("User: We adopted a puppy in January and named her Juno.", "Juno", "2026-01-01"),
        ("User: We got a kitten, and called him Pip!", "Pip", DAY),
    ],
)
def test_a_pet_got_on_a_date_is_the_pet_since_then(text: str, value: str, since: str) -> None:
    statements = said(text)
    pets = [s for s in statements if s.key == "user/pets" and s.kind == "assert"]
    assert [(s.value, s.at) for s in pets] == [(value, since)]
    assert not [s for s in statements if s.form == "event"]  # the pet tells it, not an event too


def test_a_toy_named_in_the_same_sentence_is_no_pet() -> None:
    statements = said("User: I bought a teddy and named her Tilly.")
    assert not [s for s in statements if s.key == "user/pets"]
    assert "Tilly" not in [s.value for s in statements]
