"""ask picks the fact the question names: not a neighbour that shares a word, not a topic when
a value is named, a rule's derivation for an attribute never stated; list answers read well."""

from __future__ import annotations

from pathlib import Path

import pytest

from mdmem import Vault
from mdmem.eval.evaluate import says_any
from mdmem.read.answer import is_plural
from mdmem.read.ask import UNCERTAIN_WORDS, ask
from tests.conftest import make_vault


@pytest.fixture
def person(tmp_path: Path) -> Vault:
    """Someone with an employer, a gym, pets and allergies, but no job title or work city."""
    v = make_vault(tmp_path / "p", "personal")
    for attr, value, day in [
        ("home_city", "Guangzhou", "2024-01-01"),
        ("employer", "Lingnan Tech", "2024-01-01"),
        ("gym", "Iron Temple", "2024-01-01"),
        ("pets", ["Miso", "Tofu", "Biscuit"], "2024-01-01"),
        ("allergies", ["penicillin"], "2024-01-01"),
        ("employer", "Northwind", "2025-01-01"),
    ]:
        v.set(attr, value, date=day)
    return v


@pytest.fixture
def gym_only(tmp_path: Path) -> Vault:
    """A doubtful gym and nothing about work: 'work' must not find the gym."""
    v = make_vault(tmp_path / "g", "personal")
    v.set("home_city", "Shanghai", date="2024-01-01")
    v.set("gym", "Anytime Fitness", date="2024-01-02")
    v.set("home_city", "Berlin", date="2025-10-01")
    assert v.get("gym").status == "uncertain"
    return v


@pytest.fixture
def patient(tmp_path: Path) -> Vault:
    """Conditions that contain the words of another attribute (高血压 / high blood pressure)."""
    v = make_vault(tmp_path / "h", "health")
    v.set("condition", ["gout", "high blood pressure"], date="2025-01-08")
    v.set("blood_pressure", "145/95", date="2025-01-08")
    v.set("blood_pressure", "128/82", date="2025-04-12")
    return v


# --- a better-named attribute that holds nothing beats a neighbour ------------------------


@pytest.mark.parametrize(
    "q", ["What is my job title?", "What is my occupation?", "我的职位是什么？"]
)
def test_missing_attribute_is_not_answered_by_a_neighbour(person: Vault, q: str) -> None:
    a = ask(person, q)
    assert a.mode == "none", a.text
    assert "Northwind" not in a.text


@pytest.mark.parametrize(
    "q", ["Who do I work for?", "Which company do I work for?", "我在哪家公司上班？"]
)
def test_an_uncertain_unrelated_fact_does_not_answer(gym_only: Vault, q: str) -> None:
    a = ask(gym_only, q)
    assert "Anytime" not in a.text and "gym" not in a.text and "健身房" not in a.text
    assert a.mode == "none"


def test_the_neighbour_still_answers_its_own_question(gym_only: Vault, person: Vault) -> None:
    assert "Anytime Fitness" in ask(gym_only, "Which gym do I go to?").text
    assert "Northwind" in ask(person, "Who do I work for?").text
    assert "Northwind" in ask(person, "我在哪家公司上班？").text


def test_a_work_city_question_is_not_the_home_city(person: Vault) -> None:
    assert ask(person, "我在哪个城市上班？").mode == "none"
    assert "广州" in ask(person, "我住在哪个城市？").text


# --- a label beats a fact that merely contains the word ---------------------------------


@pytest.mark.parametrize(
    ("q", "first", "second"),
    [
        ("我的血压是怎么变化的？", "145/95", "128/82"),
        ("How has my blood pressure changed?", "145/95", "128/82"),
    ],
)
def test_label_beats_a_value_containing_the_word(
    patient: Vault, q: str, first: str, second: str
) -> None:
    a = ask(patient, q)
    assert [f["key"] for f in a.facts] == ["user/blood_pressure"]
    assert a.text.index(first) < a.text.index(second)
    assert "痛风" not in a.text and "gout" not in a.text


@pytest.mark.parametrize("q", ["我还有高血压吗？", "Do I still have high blood pressure?"])
def test_naming_the_whole_value_still_finds_it(patient: Vault, q: str) -> None:
    a = ask(patient, q)
    assert a.facts[0]["key"] == "user/condition"


@pytest.mark.parametrize(
    ("q", "want"),
    [("How much levothyroxine do I take?", "75 mcg"), ("levothyroxine我一次吃多少？", "75 mcg")],
)
def test_a_named_value_is_context_for_the_labelled_question(
    tmp_path: Path, q: str, want: str
) -> None:
    """'How much <medication>': the dosage answers first, the medication is context."""
    v = make_vault(tmp_path / "m", "health")
    v.set("medication", "levothyroxine", date="2025-05-26")
    v.set("dosage", "75 mcg", date="2025-05-26")
    a = ask(v, q)
    assert a.facts[0]["key"] == "user/dosage" and want in a.text


@pytest.mark.parametrize(
    ("q", "old", "new"),
    [
        ("Where have we deployed over time?", "Heroku", "Fly.io"),
        ("我们的服务部署过哪些地方？", "Heroku", "Fly.io"),
    ],
)
def test_a_note_sharing_the_label_word_does_not_answer(
    tmp_path: Path, q: str, old: str, new: str
) -> None:
    """'deployed' names the deploy target, even weakly (a stemmed alias), not a note that
    happens to say 'deploy'."""
    v = make_vault(tmp_path / "d", "software_project")
    v.set("deploy_target", "Heroku", date="2025-05-19")
    v.set("note", "Never deploy on Friday after 3pm. 周五下午三点后不要部署。", date="2025-09-30")
    v.set("deploy_target", "Fly.io", date="2025-09-30")
    a = ask(v, q)
    assert [f["key"] for f in a.facts] == ["user/deploy_target"]
    assert a.text.index(old) < a.text.index(new) and "Friday" not in a.text


# --- a named value is about that fact, not its whole topic ------------------------------


@pytest.mark.parametrize(
    ("q", "new", "old"),
    [
        ("我还在Lingnan Tech上班吧？", "Northwind", "Lingnan"),
        ("Am I still working at Lingnan Tech?", "Northwind", "Lingnan"),
    ],
)
def test_old_value_with_topic_words_is_a_premise(person: Vault, q: str, new: str, old: str) -> None:
    a = ask(person, q)
    assert a.mode == "current" and a.topic is None
    assert new in a.text and old not in a.text
    assert "过时" in a.text or "out of date" in a.text


@pytest.mark.parametrize("q", ["我的工作情况", "Tell me about my work"])
def test_topic_words_alone_still_give_the_topic(person: Vault, q: str) -> None:
    assert ask(person, q).mode == "topic"


# --- a rule's derivation for an attribute never stated -----------------------------------


@pytest.mark.parametrize(
    ("q", "want", "how"),
    [
        ("我的社保在哪个城市交？", "广州", "根据你的居住城市推出"),
        ("Where do I pay social insurance?", "Guangzhou", "derived from your home city"),
        ("What time zone am I in?", "Asia/Shanghai", "derived from your home city"),
    ],
)
def test_an_unstated_attribute_is_derived_by_its_rule(
    person: Vault, q: str, want: str, how: str
) -> None:
    assert person.get("social_insurance_city") is None and person.get("timezone") is None
    a = ask(person, q)
    assert want in a.text and how in a.text
    assert not says_any(a.text, UNCERTAIN_WORDS)


def test_no_derivation_from_a_forgotten_source(tmp_path: Path) -> None:
    v = make_vault(tmp_path / "d", "personal")
    v.set("home_city", "Guangzhou", date="2024-01-01")
    assert "Asia/Shanghai" in ask(v, "What time zone am I in?").text
    v.forget("home_city")
    a = ask(v, "What time zone am I in?")
    assert a.mode == "none" and "Asia" not in a.text


# --- lists read as English ----------------------------------------------------------------


def test_plural_label_and_list_join(person: Vault) -> None:
    assert "Your pets are Miso, Tofu and Biscuit" in ask(person, "What pets do I have?").text
    assert "你的宠物是Miso、Tofu、Biscuit" in ask(person, "我养了哪些宠物？").text
    assert "Your allergies are penicillin" in ask(person, "What am I allergic to?").text
    assert "Your employer is Northwind" in ask(person, "Who do I work for?").text
    person.forget("allergies")
    assert "your allergies were removed" in ask(person, "What am I allergic to?").text


@pytest.mark.parametrize(
    ("label", "plural"),
    [
        ("pets", True), ("allergies", True), ("hobbies", True), ("medications", True),
        ("home address", False), ("status", False), ("gym", False), ("diagnosis", False),
        ("commute time (minutes)", False), ("CI system", False), ("", False),
    ],
)  # fmt: skip
def test_is_plural(label: str, plural: bool) -> None:
    assert is_plural(label) is plural


# --- a value named as context comes after the attribute asked for -----------------------


@pytest.fixture
def commuter(tmp_path: Path) -> Vault:
    """Commute minutes expired by a move; the work address (a place name) still active."""
    v = make_vault(tmp_path / "c", "personal")
    v.set("home_city", "Guangzhou", date="2024-05-06")
    v.set("home_address", "Panyu", date="2024-05-06")
    v.set("work_address", "Zhujiang New Town", date="2024-05-06")
    v.set("commute_minutes", "60", date="2024-05-06")
    v.set("home_city", "Hangzhou", date="2025-03-01")
    assert v.get("commute_minutes").status in ("expired", "uncertain")
    return v


@pytest.mark.parametrize(
    ("q", "moved"),
    [
        ("How long does it take me to get to Zhujiang New Town?", "Hangzhou"),
        ("我每天去Zhujiang New Town上班要多久？", "杭州"),
    ],
)
def test_value_named_as_context_follows_the_asked_attribute(
    commuter: Vault, q: str, moved: str
) -> None:
    a = ask(commuter, q)
    keys = [f["key"] for f in a.facts]
    assert keys[0] == "user/commute_minutes", a.text
    assert moved in a.text  # why the commute is no longer known
    assert says_any(a.text, UNCERTAIN_WORDS)


def test_expired_answer_says_what_ended_it(commuter: Vault) -> None:
    if commuter.get("commute_minutes").status != "expired":
        pytest.skip("the pack makes the commute doubtful, not expired")
    t = ask(commuter, "How long is my commute?").text
    assert t.index("Hangzhou") < t.index("unknown")
    assert "60" in t
