"""Turn-to-turn reference: answers read with their question, a duration with the commute just
talked about, and the Chinese chat forms the zh-chat-dev set showed missing."""

from __future__ import annotations

from pathlib import Path

import pytest

from mdmem.engine.decide import Statement
from mdmem.extract.rule_finder import extract
from mdmem.extract.transcript import parse_transcript
from mdmem.extract.turns import answer_statements
from mdmem.model.rules_yaml import load_rules

ROOT = Path(__file__).resolve().parents[2]
PERSONAL = load_rules(ROOT / "rules" / "personal.yaml")
DAY = "2026-02-10"


def said(text: str) -> list[Statement]:
    msgs = parse_transcript(text, default_time=DAY)
    return extract(msgs, PERSONAL, {}, source="t.md", default_date=DAY).statements


def facts(text: str) -> list[tuple[str, object, bool]]:
    return [(s.key, s.value, s.tentative) for s in said(text) if s.kind == "assert"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("助手: 你在哪上班呀？\n用户: 华为，在坂田那边", [("user/employer", "华为", False)]),
        ("助手: 每天怎么去公司？\n用户: 坐地铁，大概四十分钟",
         [("user/commute_mode", "地铁", False), ("user/commute_minutes", "40", False)]),
        ("助手: 你是哪里人呀？\n用户: 湖南的，长沙人", [("user/hometown", "长沙", False)]),
        ("助手: 大学在哪读的？\n用户: 武汉大学，本科四年都在武汉", [("user/university", "武汉大学", False)]),
        ("助手: 辛苦了。你现在还住在杭州吗？\n用户: 对，还在杭州，滨江这边", [("user/home_city", "杭州", False)]),
        ("助手: 你家狗狗叫什么名字？\n用户: 一个叫豆豆，一个叫可乐",
         [("user/pets", "豆豆", False), ("user/pets", "可乐", False)]),
    ],
)  # fmt: skip
def test_a_chinese_answer_is_read_with_its_question(text, expected):
    assert facts(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "助手: 你在哪上班呀？\n用户: 哈哈你猜",  # talks back
        "助手: 你在哪上班呀？\n用户: 还没定，可能去华为",  # hedged
        "助手: 你现在还住在杭州吗？\n用户: 不是，早搬走了",  # no
        "助手: 他在哪上班？\n用户: 华为",  # a question about someone else
        "用户: 你在哪上班呀？\n助手: 华为",  # the assistant's answer is not the person's fact
        "助手: 你在哪上班呀？\n用户: 好累啊\n用户: 华为",  # not the message right after
    ],
)
def test_an_answer_that_does_not_answer_says_nothing(text):
    assert [s for s in said(text) if s.attribute == "employer" or s.attribute == "home_city"] == []


def test_answer_statements_turn_the_question_into_the_answerers_words():
    def slot(x: str) -> str | None:
        return "university" if x == "大学" else None

    assert answer_statements("你在哪上班呀？", "华为，在坂田那边", slot)[0] == "我在华为上班"
    assert answer_statements("大学在哪读的？", "武汉大学", slot) == ["我大学在武汉大学读的", "我的大学是武汉大学"]
    assert answer_statements("Do you still live in Berlin?", "Yes, still there.", slot) == [
        "I still live in Berlin."
    ]
    assert answer_statements("Do you still live in Berlin?", "Not anymore.", slot) == []


@pytest.mark.parametrize(
    ("text", "minutes"),
    [
        ("用户: 不开车了，现在改坐地铁了\n用户: 半小时左右就到，舒服多了", "30"),
        ("用户: 我每天骑车上班。\n用户: 二十分钟就到", "20"),
        ("助手: 你通勤要多久？\n用户: 差不多一个小时吧", "60"),
    ],
)
def test_a_bare_duration_after_the_commute_is_its_minutes(text, minutes):
    got = [s.value for s in said(text) if s.attribute == "commute_minutes"]
    assert got == [minutes]


@pytest.mark.parametrize(
    "text",
    [
        "用户: 今天跑了半小时\n用户: 累死了",  # no commute in sight
        "助手: 你周末干嘛？\n用户: 半小时就到的公园",  # not a bare duration
        "用户: 我每天骑车上班。\n助手: 挺好\n用户: 看了二十分钟书",
    ],
)
def test_a_duration_without_the_commute_says_nothing(text):
    assert [s for s in said(text) if s.attribute == "commute_minutes"] == []


def test_a_rounded_amount_is_no_hedge_but_a_hedge_still_is():
    assert facts("用户: 我通勤大概四十分钟") == [("user/commute_minutes", "40", False)]
    assert all(t for _, _, t in facts("用户: 我可能通勤四十分钟"))


@pytest.mark.parametrize(
    ("text", "key", "value"),
    [
        ("用户: 我现在不养宠物了", "user/pets", None),
        ("用户: 车卖了，停车太贵了，现在没车了", "user/car", None),
        ("用户: 王医生退休了，医生换成张主任了", "user/doctor", "张主任"),
        ("用户: 我的大学是武汉大学", "user/university", "武汉大学"),
    ],
)
def test_chinese_chat_forms(text, key, value):
    assert [(s.key, s.value) for s in said(text) if s.kind == "assert"] == [(key, value)]


def test_starting_to_eat_meat_again_ends_a_meatless_diet():
    assert [(s.key, s.kind) for s in said("用户: 最近又开始吃肉了，实在坚持不住")] == [
        ("user/diet", "invalidate")
    ]


# --- English: names across turns, job loss, a duration after the commute --------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Maria: That toddler in the photo is lovely! What's their name?\n"
         "John: Thanks, Maria! He keeps us busy. Our little one just turned two, his name is Arlo!",
         [("john/children", "Arlo")]),
        ("Maria: Guess what - I got a puppy two weeks ago! Her name's Coco and she's adorable.",
         [("user/pets", "Coco")]),
        ("A: What are your cats' names?\nB: Their names are Juniper, Basil and Clove.",
         [("b/pets", "Juniper"), ("b/pets", "Basil"), ("b/pets", "Clove")]),
    ],
)  # fmt: skip
def test_names_given_across_turns(text, expected):
    assert [(s.key, s.value) for s in said(text) if s.kind == "assert"] == expected


@pytest.mark.parametrize(
    "text",
    [
        "A: Nice photo! Who is that?\nB: That's my coworker, his name is Bob.",  # not asked a name of
        "A: What's your dog's name?\nB: No idea. My neighbour's cat, her name is Tom, hates him.",
        "A: How was the trip? Any names to remember?\nB: Not really.\nB: His name is Bob.",
    ],
)
def test_a_name_not_given_for_what_was_asked_says_nothing(text):
    assert [s for s in said(text) if s.attribute in ("pets", "children", "partner")] == []


def test_a_lost_job_is_history_not_the_current_job():
    got = [(s.key, s.kind, s.value) for s in said("Gina: Unfortunately, I also lost my job at Door Dash this month.")]
    assert got == [("user/employer", "assert", "Door Dash"), ("user/employer", "invalidate", None)]
    got = [(s.key, s.kind, s.value) for s in said("Jon: Lost my job as a banker yesterday, so I'm starting a business.")]
    assert got == [("user/job_title", "assert", "banker"), ("user/job_title", "invalidate", None)]


@pytest.mark.parametrize(
    ("text", "minutes"),
    [
        ("A: How long is your commute these days?\nB: About 15 minutes now.", "15"),
        ("B: I bike to work again.\nB: It's about 25 minutes.", "25"),
    ],
)
def test_an_english_duration_after_the_commute(text, minutes):
    assert [s.value for s in said(text) if s.attribute == "commute_minutes"] == [minutes]


def test_a_yes_to_a_question_about_the_person_states_it():
    got = [(s.key, s.value) for s in said("A: Do you still live in Berlin?\nB: Yes, still there.")]
    assert got == [("b/home_city", "Berlin")]
    assert [s for s in said("A: Do you still live in Berlin?\nB: Not anymore, sadly.") if s.kind == "assert"] == []


@pytest.mark.parametrize(
    "text",
    [
        "助手: 你在哪里上班呀？\n用户: 我在一家花店帮忙，店不大，干了三年了。",
        "助手: 你在哪工作？\n用户: 我在一家小超市打零工，离家很近。",
        "助手: 你住在哪呀？\n用户: 我跟室友合租，房子挺旧的。",
    ],
)
def test_an_answer_with_a_subject_of_its_own_is_no_value_spliced_into_the_question(text):
    # the clause is a sentence of its own: never the employer or the city as "我在一家…"
    assert [v for _, v, _ in facts(text) if str(v).startswith(("我", "在"))] == []
