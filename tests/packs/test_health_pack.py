"""The health pack through ingest: switches, transfers, appointments, lists of conditions, diet.

Each class of sentence is said several ways (English and Chinese) into a real vault, and the
test reads back the fact files and what cascaded, as a person's next question would.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mdmem import Vault
from mdmem.edit.ingest import ingest_text


def _vault(tmp_path: Path, pack: str = "health") -> Vault:
    return Vault.create(tmp_path / "v", pack)


def _say(vault: Vault, text: str, date: str, source: str) -> Vault:
    result = ingest_text(vault, text, date=date, source=source)
    assert not result.errors
    return Vault(vault.root)


def _story(tmp_path: Path, *sessions: str, pack: str = "health") -> Vault:
    vault = _vault(tmp_path, pack)
    for i, text in enumerate(sessions):
        vault = _say(vault, text, f"2025-{3 + 3 * i:02d}-10", f"s{i}.md")
    return vault


def _value(vault: Vault, attr: str) -> object:
    fact = vault.facts.get(f"user/{attr}")
    return None if fact is None else fact.value


def _status(vault: Vault, attr: str) -> str | None:
    fact = vault.facts.get(f"user/{attr}")
    return None if fact is None else fact.status


# --- 1. medication switches -------------------------------------------------------------------

BEFORE_EN = "User: For my diabetes I take metformin, 500 mg twice a day."


@pytest.mark.parametrize(
    "switch",
    [
        "User: Dr Shaw switched me off metformin onto Jardiance last week.",
        "User: They moved me from metformin to Jardiance.",
        "User: I'm on Jardiance now instead of metformin.",
        "User: My GP has just switched me from metformin to Jardiance.",
        "User: The consultant swapped my medication to Jardiance.",
        "User: My GP switched me to Jardiance.",
        "User: Switched from metformin to Jardiance last month.",
        "User: I stopped metformin and started Jardiance.",
    ],
)
def test_a_switch_replaces_the_drug_and_the_old_dose_expires(tmp_path: Path, switch: str) -> None:
    vault = _story(tmp_path, BEFORE_EN, switch)
    assert _value(vault, "medication") == "Jardiance"
    assert _status(vault, "dosage") == "expired"  # the pack's medication → dosage rule
    assert vault.facts["user/medication"].history[-1]["value"] == "metformin"


@pytest.mark.parametrize(
    ("switch", "dose"),
    [
        ("User: My GP switched me to Jardiance, 10 mg once a day.", "10 mg"),
        ("User: They moved me from metformin to Jardiance, 25mg every morning.", "25mg"),
        ("User: I take Jardiance 10mg now.", "10mg"),
        ("User: I've been put on Jardiance, 10mg a day.", "10mg"),
        ("User: They moved me from metformin to Jardiance 10mg.", "10mg"),
    ],
)
def test_a_new_dose_said_with_the_switch_is_the_dose_now(
    tmp_path: Path, switch: str, dose: str
) -> None:
    vault = _story(tmp_path, BEFORE_EN, switch)
    assert _value(vault, "medication") == "Jardiance"
    assert (_value(vault, "dosage"), _status(vault, "dosage")) == (dose, "active")


@pytest.mark.parametrize(
    ("switch", "drug", "dose"),
    [
        ("用户：医生给我换成缬沙坦了，80毫克每天一次。", "缬沙坦", "80毫克"),
        ("用户：改吃缬沙坦了。", "缬沙坦", None),
        ("用户：他们把我的药从二甲双胍换成了恩格列净，每天10mg。", "恩格列净", "10mg"),
        ("用户：医生把我的药换成Jardiance了。", "Jardiance", None),
        ("用户：现在吃的药是缬沙坦。", "缬沙坦", None),
        ("用户：医生让我改吃缬沙坦，每次80mg。", "缬沙坦", "80mg"),
    ],
)
def test_a_switch_in_chinese(tmp_path: Path, switch: str, drug: str, dose: str | None) -> None:
    vault = _story(tmp_path, "用户：我在吃二甲双胍，每次500毫克。", switch)
    assert _value(vault, "medication") == drug
    if dose is None:
        assert _status(vault, "dosage") == "expired"
    else:
        assert (_value(vault, "dosage"), _status(vault, "dosage")) == (dose, "active")


@pytest.mark.parametrize(
    ("text", "dose"),
    [
        ("User: I take 500mg.", "500mg"),
        ("User: I take 500 mg twice a day.", "500 mg"),
        ("用户：每天5mg。", "5mg"),
        ("用户：我每天吃2片。", "2片"),
    ],
)
def test_a_first_dose(tmp_path: Path, text: str, dose: str) -> None:
    assert _value(_story(tmp_path, text), "dosage") == dose


@pytest.mark.parametrize(
    "text",
    [
        "User: They moved me from London to Manchester.",
        "User: I'm on Twitter now instead of Facebook.",
        "User: I switched from Android to Apple.",
        "User: I eat 30 g of fibre a day.",
        "用户：我换成了iPhone。",
        "User: I switched to Vodafone.",
        "User: They put me on Mondays.",
    ],
)
def test_switches_that_are_not_about_medicine(tmp_path: Path, text: str) -> None:
    vault = _story(tmp_path, text)
    assert not any(k in vault.facts for k in ("user/medication", "user/dosage", "user/hospital"))


# --- 2. hospital / care transfer --------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "hospital"),
    [
        ("User: I'm under the Royal Free now.", "Royal Free"),
        ("User: I've transferred my care to Guy's hospital.", "Guy's hospital"),
        ("User: My care was transferred to King's College Hospital.", "King's College Hospital"),
        ("User: They referred me to St Thomas' Hospital last week.", "St Thomas' Hospital"),
        ("用户：我转到华西医院看了。", "华西医院"),
        ("用户：上个月转院到了中山一院。", "中山一院"),
        ("User: I'm being seen at the Royal Free now.", "Royal Free"),
        ("用户：换了家医院，改去华西医院了。", "华西医院"),
    ],
)
def test_a_transfer_changes_the_hospital_and_doubts_the_doctor(
    tmp_path: Path, text: str, hospital: str
) -> None:
    before = "User: My doctor is Dr Patel. I go to Riverside Clinic."
    vault = _story(tmp_path, before, text)
    assert _value(vault, "hospital") == hospital
    doctor = vault.facts["user/doctor"]
    assert doctor.status == "uncertain" and doctor.value == "Dr Patel"
    assert doctor.uncertain_because["fact"] == "user/hospital"


@pytest.mark.parametrize(
    "text",
    [
        "User: I'm under the weather.",
        "User: I'm under Dr Shaw.",
        "User: They transferred me to Guy's.",
    ],
)
def test_not_a_hospital(tmp_path: Path, text: str) -> None:
    assert "user/hospital" not in _story(tmp_path, text).facts


# --- 3. appointments --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "when"),
    [
        ("User: Next appointment is on 14 March.", "14 March"),
        ("User: The next check-up's booked for March 14.", "March 14"),
        ("User: I've got my next appointment on 14 March.", "14 March"),
        ("User: Ok, so the next follow-up with Dr Shaw is on the 14th of March.", "14th of March"),
        ("用户：下次复诊是3月14号。", "3月14号"),
        ("用户：约了3月14号复诊。", "3月14号"),
        ("用户：下回复查定在3月14日。", "3月14日"),
        ("User: Next appointment: 14 March.", "14 March"),
        ("User: I have an appointment with Dr Shaw on 14 March.", "14 March"),
        ("用户：3月14号复诊。", "3月14号"),
        ("用户：下次复诊时间：3月14日。", "3月14日"),
    ],
)
def test_next_appointment(tmp_path: Path, text: str, when: str) -> None:
    assert _value(_story(tmp_path, text), "next_appointment") == when


# --- 4. conditions, medication said as use, diet ----------------------------------------------


@pytest.mark.parametrize(
    ("text", "items"),
    [
        ("User: I have asthma and migraines.", ["asthma", "migraines"]),
        ("User: I've got eczema, asthma and hay fever.", ["eczema", "asthma", "hay fever"]),
        ("用户：我有哮喘和偏头痛。", ["哮喘", "偏头痛"]),
        ("用户：查出了高血压、高血脂和痛风。", ["高血压", "高血脂", "痛风"]),
        ("User: I was diagnosed with asthma and migraines.", ["asthma", "migraines"]),
    ],
)
def test_every_condition_of_a_list(tmp_path: Path, text: str, items: list[str]) -> None:
    assert sorted(_value(_story(tmp_path, text), "condition")) == sorted(items)  # type: ignore[arg-type]


def test_a_condition_said_later_is_added(tmp_path: Path) -> None:
    vault = _story(tmp_path, "User: I have asthma and migraines.", "User: I also have eczema.")
    assert _value(vault, "condition") == ["asthma", "migraines", "eczema"]


@pytest.mark.parametrize(
    ("text", "condition"),
    [
        ("用户：一查，是痛风。", "痛风"),
        ("用户：确诊了痛风。", "痛风"),
        ("用户：查出来是糖尿病。", "糖尿病"),
        ("用户：医生说是胃炎。", "胃炎"),
        ("用户：诊断是哮喘。", "哮喘"),
        ("User: Turns out it's gout.", "gout"),
        ("User: The tests came back as type 2 diabetes.", "type 2 diabetes"),
    ],
)
def test_a_diagnosis_found_by_a_test(tmp_path: Path, text: str, condition: str) -> None:
    assert _value(_story(tmp_path, text), "condition") == [condition]


@pytest.mark.parametrize(
    "text", ["用户：一查，不是痛风。", "用户：他有哮喘和偏头痛。", "用户：我有点头痛和发烧。"]
)
def test_not_my_diagnosis(tmp_path: Path, text: str) -> None:
    assert "user/condition" not in _story(tmp_path, text).facts


def test_a_hedged_diagnosis_is_tentative(tmp_path: Path) -> None:
    vault = _story(tmp_path, "用户：医生说可能是痛风。")
    assert (_value(vault, "condition"), _status(vault, "condition")) == (["痛风"], "tentative")


@pytest.mark.parametrize(
    ("text", "drug"),
    [
        ("User: I use a Ventolin inhaler.", "Ventolin inhaler"),
        ("User: I also use an inhaler when I run.", "inhaler"),
        ("User: I use salbutamol when it gets bad.", "salbutamol"),
        ("User: I'm on a Ventolin inhaler.", "Ventolin inhaler"),
    ],
)
def test_medication_said_as_use(tmp_path: Path, text: str, drug: str) -> None:
    assert _value(_story(tmp_path, text), "medication") == drug


@pytest.mark.parametrize(
    ("text", "diet"),
    [
        ("用户：饮食上是低糖饮食。", "低糖"),
        ("用户：我现在低糖饮食。", "低糖"),
        ("用户：饮食方面要低盐。", "低盐"),
        ("用户：我现在得控糖。", "控糖"),
        ("用户：我在吃低糖饮食。", "低糖"),
        ("User: I've gone low-carb.", "low-carb"),
        ("User: I'm following a low-salt diet now.", "low-salt"),
    ],
)
def test_diet(tmp_path: Path, text: str, diet: str) -> None:
    assert _value(_story(tmp_path, text), "diet") == diet
