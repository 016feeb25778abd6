"""Another person's fact never becomes the speaker's (issue 21, "Other people"): the words of a
clause whose subject is someone else are theirs, however the pack's patterns would read them.
Made-up sentences, not corpus ones."""

from __future__ import annotations

import pytest

from tests.extract.test_grammar import said


def pairs(text: str, facts=None) -> list[tuple[str, object]]:
    return [(s.key, s.value) for s in said(text, facts)]


@pytest.mark.parametrize(
    ("text", "theirs", "not_mine"),
    [
        # a clause with no subject of its own goes on with the one before it: the sister's
        ("用户: 我姐叫王芳，住在青岛，在一家银行当柜员。", ("王芳/home_city", "青岛"), "user/home_city"),
        ("用户: 我爸叫老周，住在洛阳。", ("老周/home_city", "洛阳"), "user/home_city"),
        ("用户: 我老公叫阿杰，在一家银行当柜员。", ("user/partner", "阿杰"), "user/job_title"),
        # "has a cat called …": the neighbour's, not the speaker's pet
        ("User: My neighbour Greta has a cat called Pepper and lets me feed her.", ("greta/pets", "Pepper"), "user/pets"),
        ("User: My friend Olu has a parrot called Mango.", ("olu/pets", "Mango"), "user/pets"),
    ],
)
def test_a_clause_of_someone_elses_is_theirs_never_the_speakers(text, theirs, not_mine):
    got = pairs(text)
    assert theirs in got
    assert [k for k, _ in got if k == not_mine] == []


def test_the_speakers_own_clause_beside_someone_elses_stays_the_speakers():
    got = pairs("用户: 我住在西安。我妹叫小雨，住在成都。")
    assert ("user/home_city", "西安") in got and ("小雨/home_city", "成都") in got
    assert [v for k, v in got if k == "user/home_city"] == ["西安"]
    got = pairs("用户: 我哥哥住在杭州，我住在宁波。")
    assert [v for k, v in got if k == "user/home_city"] == ["宁波"]
    # "my" marks the speaker's own even inside another person's clause
    got = pairs("User: My brother Tomas lives with my sister Anna.")
    assert ("user/siblings", "Anna") in got


def _kin(name: str, noun: str, *more: tuple[str, str]) -> dict:
    from mdmem.model.factfile import Fact

    people = [(name, noun), *more]
    held = {"user/siblings": Fact("user", "siblings", [n for n, _ in people], valid_from="2026-01-01")}
    held.update({f"{n.lower()}/relation": Fact(n.lower(), "relation", r, valid_from="2026-01-01") for n, r in people})
    return held


@pytest.mark.parametrize(
    ("text", "known", "expect"),
    [
        ("User: My sister moved to Porto.", _kin("Ines", "sister"), [("ines/home_city", "Porto")]),
        ("用户: 我姐上个月搬到了厦门。", _kin("王芳", "姐"), [("王芳/home_city", "厦门")]),
        ("用户: 我姐姐搬到了厦门。", _kin("王芳", "姐"), [("王芳/home_city", "厦门")]),  # 姐姐 is 姐
        ("用户: 我弟住在天津。", _kin("小林", "弟弟"), [("小林/home_city", "天津")]),
    ],
)
def test_a_relative_said_by_the_noun_alone_is_the_one_known_so(text, known, expect):
    assert pairs(text, known) == expect  # their fact, not a new unnamed sibling's nor the speaker's


def test_a_noun_two_known_people_share_or_a_new_noun_names_no_known_one():
    two = _kin("Ines", "sister", ("Rita", "sister"))
    assert ("ines/home_city", "Porto") not in pairs("User: My sister moved to Porto.", two)
    got = pairs("用户: 我妹住在天津。", _kin("王芳", "姐"))
    assert ("王芳/home_city", "天津") not in got and ("user/home_city", "天津") not in got


def test_a_later_move_of_a_relative_named_before_is_theirs_in_one_transcript():
    got = pairs("用户: 我住在苏州。我姐叫王芳，住在青岛。\n用户: 我姐上个月搬到了厦门。")
    assert [(k, v) for k, v in got if k.endswith("/home_city")] == [
        ("user/home_city", "苏州"), ("王芳/home_city", "青岛"), ("王芳/home_city", "厦门"),
    ]  # fmt: skip
