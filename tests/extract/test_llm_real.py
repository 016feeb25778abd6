"""What a real small model answered (tests/data/llm, see its README), replayed as canned answers:
every candidate yields a correct fact or a refusal with its reason, and no message loses a valid
fact because of a sibling."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mdmem import Vault
from mdmem.edit.ingest import ingest_text
from mdmem.eval.scenario import load_scenario
from mdmem.extract.model_finder import LLMConfig, parse_answer
from mdmem.extract.plugins import finder_for
from mdmem.extract.transcript import is_human_role, parse_transcript
from tests.conftest import make_vault

ROOT = Path(__file__).parents[2]
ANSWERS = [json.loads(line) for line in (ROOT / "tests/data/llm/qwen2.5-coder-1.5b-q4.jsonl").open(encoding="utf-8")]  # fmt: skip
SCENARIOS = ["zh-change-and-forget", "zh-allergies-aggregate", "en-change-and-forget", "en-pets-aggregate"]  # fmt: skip
SAMPLE = ["2025-08-15-en.md", "2026-02-10-en.md"]

# What each session must write (key → value, or the kind for forget): checked against the rule
# finder too where it writes the same key. The model missed some facts; none it gave is wrong.
EXPECTED = [
    {"user/phone": "13812345678", "user/home_address": "江南西路"},
    {"user/phone": "13987654321", "user/home_address": "forget"},
    {},  # "我对花生过敏" answered as an invalidate: refused, the message asks for no such thing
    {"user/allergies": "芒果"},  # answered in English ("mango"): the same values group
    {"user/phone": "+44 7700 900123", "user/email": "sam.hill@example.com"},
    {"user/phone": "+44 7700 900456", "user/home_address": "forget"},
    {"user/pets": "Mochi"},
    {"user/pets": "Biscuit"},
    {"user/home_city": "Guangzhou", "user/home_address": "Haizhu", "user/work_address": "Tianhe",
     "user/commute_mode": "bike", "user/commute_minutes": "20",
     "user/social_insurance_city": "Guangzhou", "user/birthday": "14 March"},
    {"user/commute_mode": "metro"},  # 'job_title: new job' refused: it names the slot
]  # fmt: skip


def sessions() -> list[tuple[str, str]]:
    out = []
    for name in SCENARIOS:
        sc = load_scenario(ROOT / f"tests/data/suite/personal/{name}.yaml")
        out += [(s.transcript, s.date[:10]) for s in sc.sessions]
    for name in SAMPLE:
        out.append(((ROOT / "sample_vault/transcripts" / name).read_text(encoding="utf-8"), name[:10]))
    return out


def replay(vault: Vault, text: str, date: str, answers: list[str]):
    vault._now = f"{date}T12:00:00Z"
    cfg = LLMConfig("gpt-4o-mini", mock_responses=list(answers), chunk=1, retries=0)
    return ingest_text(vault, text, date=date, extractor=finder_for(cfg)), cfg


@pytest.fixture(scope="module")
def replayed(tmp_path_factory: pytest.TempPathFactory) -> list[tuple]:
    tmp = tmp_path_factory.mktemp("real")
    out, at, vault, rule_vault = [], 0, None, None
    for n, (text, date) in enumerate(sessions()):
        if n in (0, 2, 4, 6, 8):  # a new scenario (or the sample): a new vault
            vault, rule_vault = make_vault(tmp / f"m{n}", "personal"), make_vault(tmp / f"r{n}", "personal")
        assert vault is not None and rule_vault is not None
        people = sum(is_human_role(m.role) for m in parse_transcript(text, source="t", default_time=date))
        answers = [row["answer"] for row in ANSWERS[at : at + people]]
        at += people
        r, cfg = replay(vault, text, date, answers)
        rule_vault._now = f"{date}T12:00:00Z"
        ingest_text(rule_vault, text, date=date)
        out.append((r, cfg, answers, vault, dict(rule_vault.scan(refresh=True)[0])))
    assert at == len(ANSWERS)  # every real answer was replayed, in order
    return out


@pytest.mark.parametrize("n", range(len(EXPECTED)))
def test_each_real_answer_yields_correct_facts_or_a_refusal_with_a_reason(replayed, n):
    r, cfg, answers, vault, rule_facts = replayed[n]
    assert r.errors == [] and len(cfg.calls) == len(answers)
    written = {st.key: st.value if st.kind == "assert" else st.kind for st, _ in r.plan.decisions}
    want = EXPECTED[n]
    assert set(written) == set(want), (written, r.notes)
    for key, value in want.items():
        entity, attribute = key.split("/")
        if value == "forget":
            assert written[key] == "forget"
            continue
        assert vault.rules.same_value(attribute, written[key], value), (key, written[key])
        rule = rule_facts.get(key)
        if rule is not None and rule.status == "active":  # the rule finder agrees
            assert vault.rules.same_value(attribute, written[key], rule.value) or isinstance(rule.value, list)
    # Every candidate is accounted for: written, or refused with the reason naming its slot.
    refused = [note for note in r.notes if "refused: " in note or "nothing written" in note]
    for answer in answers:
        for c in parse_answer(answer):
            slot = c["attribute"]
            assert f"user/{slot}" in written or any(f"{slot}: " in note for note in refused), (c, r.notes)


def test_no_valid_fact_is_lost_to_a_sibling(replayed):
    # Message #4 of the sample: two bad siblings (addresses from earlier messages) beside two
    # good candidates; message #11: a slot named as a value beside a good one.
    r, *_ = replayed[8]
    assert {st.key for st, _ in r.plan.decisions} >= {"user/commute_mode", "user/commute_minutes"}
    assert any("home_address" in n and "refused" in n for n in r.notes)


def test_before_this_issue_the_sample_lost_almost_everything(replayed):
    # The issue's measure: 11 of 12 messages refused, one wrong fact. Now: 8 facts, none wrong.
    written = [st for i in (8, 9) for st, _ in replayed[i][0].plan.decisions]
    assert len(written) == 8 and all(st.key != "user/job_title" for st in written)
