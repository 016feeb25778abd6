"""Requests said in passing, through ingest: forget a slot (named by its label or alias, in
Chinese too), and keep a text word for word as its own note."""

from __future__ import annotations

from pathlib import Path

import pytest

from mdmem import Vault
from mdmem.edit.ingest import ingest_text
from mdmem.extract.candidates import Resolver
from mdmem.extract.requests import find_forget, find_verbatim, find_verbatims
from mdmem.model.rules_yaml import load_rules

ROOT = Path(__file__).resolve().parents[2]


def _story(tmp_path: Path, pack: str, *sessions: str) -> tuple[Vault, list[tuple[str, str]]]:
    """The vault after the sessions, and the (decision, key) pairs of the last one."""
    vault = Vault.create(tmp_path / "v", pack)
    decisions: list[tuple[str, str]] = []
    for i, text in enumerate(sessions):
        result = ingest_text(vault, text, date=f"2025-{3 + 3 * i:02d}-10", source=f"s{i}.md")
        assert not result.errors
        decisions = [(d, st.key) for st, d in result.plan.decisions]
        vault = Vault(vault.root)
    return vault, decisions


# --- forget, in Chinese -----------------------------------------------------------------------

FORGETS = [
    ("personal", "用户：我的手机号是13812345678。", "用户：你把我手机号从记忆里删掉吧。", "phone"),
    ("personal", "用户：我老公叫李明。", "用户：我老公的名字也别记了，忘掉吧。", "partner"),
    ("personal", "用户：我住在江南西路。", "用户：别再记着我的地址了。", "home_address"),
    ("personal", "用户：我的手机号是13812345678。", "用户：把手机号删了吧。", "phone"),
    ("personal", "用户：我的邮箱是a@b.cn。", "用户：麻烦把我的email从记录里去掉。", "email"),
    ("health", "用户：我体重90公斤。", "用户：我体重就别记了，删掉吧。", "weight"),
    ("health", "用户：我的主治医生是陈医生。", "用户：我医生是谁也忘掉吧。", "doctor"),
    ("health", "用户：我的血压是145/95。", "用户：血压这个就不用记了。", "blood_pressure"),
    ("health", "User: I weigh 90 kg.", "User: Please forget my weight.", "weight"),
]


@pytest.mark.parametrize(("pack", "said", "forget", "attr"), FORGETS)
def test_a_forget_request_names_its_slot(
    tmp_path: Path, pack: str, said: str, forget: str, attr: str
) -> None:
    vault, decisions = _story(tmp_path, pack, said, forget)
    assert decisions == [("DELETE", f"user/{attr}")]
    assert vault.facts[f"user/{attr}"].status == "deleted"


def test_the_longest_label_or_alias_wins() -> None:
    resolver = Resolver(load_rules(ROOT / "rules" / "personal.yaml"))
    # 手机号 (phone's label) over 手机; 住址 over 住 (home_city's alias)
    [f] = find_forget("把我的手机号删掉吧", resolver)
    assert f.attribute == "phone"
    [f] = find_forget("别再记我的住址了", resolver)
    assert f.attribute == "home_address"


def test_the_slot_may_be_a_clause_away_from_the_verb() -> None:
    resolver = Resolver(load_rules(ROOT / "rules" / "personal.yaml"))
    found = find_forget("我老公的名字，忘掉吧", resolver)
    assert [f.attribute for f in found] == ["partner"]


@pytest.mark.parametrize(
    "text",
    [
        "我忘记带钥匙了。",
        "别忘了我的生日。",
        "我差点忘了吃药。",
        "我把微信删了。",
        "我把手机号删了，换了个新的。",
        "你别记错我的地址。",
        "我不用记我的地址，我知道。",
    ],
)
def test_forgetting_in_passing_is_not_a_request(tmp_path: Path, text: str) -> None:
    said = "用户：我的手机号是13812345678。我住在江南西路。我的生日是3月14号。"
    vault, decisions = _story(tmp_path, "personal", said, f"用户：{text}")
    assert all(d != "DELETE" for d, _ in decisions)
    assert all(f.status != "deleted" for f in vault.facts.values())


def test_a_reference_forget_takes_what_was_just_said(tmp_path: Path) -> None:
    vault, decisions = _story(tmp_path, "personal", "用户：我的车牌是粤A12345，把这个忘了吧。")
    assert "user/车牌" not in vault.facts or vault.facts["user/车牌"].status == "deleted"
    assert all(d != "ADD" for d, _ in decisions)


# --- verbatim ---------------------------------------------------------------------------------

VERBATIMS = [
    ('User: write this down exactly: "Peak flow target 450, check mornings."', "Peak flow target 450, check mornings."),
    ('User: another one to keep exactly as I say it: "Bin day is Tuesday; recycling every other week."', "Bin day is Tuesday; recycling every other week."),
    ('User: Keep this word for word: "Gate code 4471#  (not 4417)"', "Gate code 4471#  (not 4417)"),
    ("User: Please note down verbatim: 'Take with food, never on an empty stomach.'", "Take with food, never on an empty stomach."),
    ("用户：再帮我原话记一句：“周二倒垃圾，周四回收。”", "周二倒垃圾，周四回收。"),
    ("用户：帮我原话记住：“门禁密码4471#”", "门禁密码4471#"),
    ("用户：一字不差地记下：“钥匙在花盆下面，别告诉别人。”", "钥匙在花盆下面，别告诉别人。"),
    ("用户：请原封不动地记下来：「血糖目标：空腹<7」", "血糖目标：空腹<7"),
    ('User: Could you note this down word for word?\n"Ring Mum on Sundays."', "Ring Mum on Sundays."),
    ('User: Please store this verbatim — "A, b;  c."', "A, b;  c."),
    ("用户：一字不差地帮我记下来，“钥匙在花盆下”", "钥匙在花盆下"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "kept"), VERBATIMS)
def test_verbatim_requests_keep_the_text_byte_for_byte(
    tmp_path: Path, text: str, kept: str
) -> None:
    vault, decisions = _story(tmp_path, "personal", text)
    assert decisions == [("ADD", "user/note")]
    assert vault.facts["user/note"].value == kept


def test_several_verbatim_requests_in_one_conversation_each_get_a_note(tmp_path: Path) -> None:
    text = "\n".join(t for t, _ in VERBATIMS[:3] + VERBATIMS[4:7])
    vault, _ = _story(tmp_path, "health", text)
    notes = ["note", *(f"note_{n}" for n in range(2, 7))]
    assert [vault.facts[f"user/{n}"].value for n in notes] == [
        k for _, k in VERBATIMS[:3] + VERBATIMS[4:7]
    ]


def test_a_verbatim_note_in_a_later_session_does_not_overwrite_the_first(tmp_path: Path) -> None:
    vault, decisions = _story(tmp_path, "health", VERBATIMS[0][0], VERBATIMS[4][0])
    assert decisions == [("ADD", "user/note_2")]
    assert vault.facts["user/note"].value == VERBATIMS[0][1]


@pytest.mark.parametrize(
    ("text", "slot"),
    [
        ('Remember my gate code exactly: "4471#"', "gate code"),
        ("把这段医嘱原话记下来：“每天两次，饭后。”", "医嘱"),
        ('Keep this one word for word: "x"', None),
        ("再帮我原话记一句：“x”", None),
    ],
)
def test_a_named_slot_or_none(text: str, slot: str | None) -> None:
    found = find_verbatim(text)
    assert found is not None and found[0] == slot


def test_find_verbatims_finds_every_request_of_one_message() -> None:
    text = (
        'Write this down exactly: "A: one, two."\nAnd keep this word for word: "B \\ two"\n'
        "还有，帮我原话记住：“丙：三。”"
    )
    assert [kept for _, kept, _ in find_verbatims(text)] == ["A: one, two.", "B \\ two", "丙：三。"]


@pytest.mark.parametrize(
    "text",
    [
        "I keep forgetting exactly what the nurse said.",
        "Write down what you remember, exactly.",
        "我原话记不太清了。",
    ],
)
def test_not_a_verbatim_request(text: str) -> None:
    assert find_verbatim(text) is None


def test_two_verbatim_requests_on_one_line_are_two_notes() -> None:
    text = 'Remember word for word: "Gate 4471#". And keep this word for word: "Bin day is Tuesday". I weigh 80 kg.'
    assert [payload for _, payload, _ in find_verbatims(text)] == [
        "Gate 4471#",
        "Bin day is Tuesday",
    ]
