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
