"""A correction said in a conversation: "no, I said Munich", "不对，我说的是慕尼黑"."""

import pytest

from mdmem.edit.ingest import ingest_text
from mdmem.extract.requests import find_correction
from tests.conftest import make_vault


@pytest.mark.parametrize(
    ("text", "right", "wrong"),
    [
        ("no, I said Munich, Schwabing is the district", "Munich", "Schwabing"),
        ("Sorry, I meant Munich, not Schwabing.", "Munich", "Schwabing"),
        ("No, I said Munich.", "Munich", None),
        ("不对，我说的是慕尼黑", "慕尼黑", None),
        ("不对，我说的是慕尼黑，施瓦宾只是区。", "慕尼黑", "施瓦宾"),
    ],
)
def test_correction_phrasings(text, right, wrong):
    found = find_correction(text)
    assert found is not None and found.kind == "correct" and found.value == right
    assert found.dep.get("wrong") == wrong


@pytest.mark.parametrize("text", ["I said hello to Munich", "no way, I said so", "我说的是实话"])
def test_not_corrections(text):
    assert find_correction(text) is None


def test_a_correction_in_the_conversation_rewrites_the_fact(tmp_path):
    v = make_vault(tmp_path / "v", "personal")
    ingest_text(v, "## 2026-01-05\n\nUser: I live in Munich and I work at Siemens.\n")
    r = ingest_text(v, "## 2026-05-01\n\nUser: I live in Schwabing now.\n"
                       "Assistant: You moved?\nUser: no, I said Munich, Schwabing is the district\n")  # fmt: skip
    assert ("correct", "CORRECT") in [(s.kind, d) for s, d in r.plan.decisions]
    city = v.get("home_city")
    assert (city.value, city.valid_from, city.history) == ("Munich", "2026-01-05", [])


def test_a_correction_in_chinese_in_a_later_conversation(tmp_path):
    v = make_vault(tmp_path / "v", "personal")
    ingest_text(v, "## 2026-01-05\n\nUser: 我住在慕尼黑。\n")
    ingest_text(v, "## 2026-05-01\n\nUser: 我住在施瓦宾。\n")
    ingest_text(v, "## 2026-05-01\n\nUser: 不对，我说的是慕尼黑，施瓦宾只是区。\n")
    assert (v.get("home_city").value, v.get("home_city").history) == ("慕尼黑", [])
