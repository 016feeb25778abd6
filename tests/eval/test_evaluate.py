"""The evaluation runner: scoring rules, the before-change gate, bad files, the CLI, MEME conversion."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from mdmem.cli import app
from mdmem.eval import evaluate as ev
from mdmem.eval.meme import load_meme, meme_to_scenario, meme_to_yaml
from mdmem.eval.scenario import Expect, Probe, parse_scenario, scenario_from_mapping
from mdmem.store.vault import Vault
from tests.conftest import STORY_RULES

WORDS = (("uncertain", "unknown", "不确定"), ("removed", "已删除"))


def probe(kind: str = "recall", ask: str = "q", after: int = 1, index: int = 0, **expect: Any) -> Probe:  # fmt: skip
    lists = {k: tuple(v) for k, v in expect.items() if isinstance(v, list)}
    flags = {k: v for k, v in expect.items() if not isinstance(v, list)}
    return Probe(ask=ask, type=kind, after=after, expect=Expect(**lists, **flags), index=index)


# --- scoring ---------------------------------------------------------------------------------


def test_matching_ignores_case_width_and_runs_of_spaces() -> None:
    p = probe(contains=["Shanghai Pudong", "２０ minutes"])
    assert ev.check("You live in ＳＨＡＮＧＨＡＩ   pudong; 20 MINUTES by metro.", p, WORDS) == []
    assert ev.check("You live in Shanghai.", p, WORDS) == [
        "missing 'Shanghai Pudong'",
        "missing '２０ minutes'",
    ]


def test_exact_keeps_case_but_forgives_whitespace_and_width() -> None:
    p = probe("exact", contains=["Wi-Fi password: Tulip 42"])
    assert ev.check("It is “Wi-Fi password:  Tulip ４２”.", p, WORDS) == []
    assert ev.check("wi-fi password: tulip 42", p, WORDS) == ["missing 'Wi-Fi password: Tulip 42'"]


def test_absent_order_uncertain_and_removed() -> None:
    p = probe(absent=["Guangzhou"], order=["Wuhan", "Guangzhou"], uncertain=True, removed=False)
    assert ev.check("uncertain: Wuhan, then Guangzhou", p, WORDS) == ["should not say 'Guangzhou'"]
    why = ev.check("Guangzhou then Wuhan, which I know", p, WORDS)
    assert "should not say 'Guangzhou'" in why
    assert any(w.startswith("out of order: 'Guangzhou'") for w in why)
    assert "does not say it is uncertain/unknown" in why
    assert ev.check("Wuhan; removed", probe(removed=False, contains=["Wuhan"]), WORDS) == [
        "says it was removed"
    ]
    assert ev.check("已删除", probe("deletion", removed=True), WORDS) == []
    assert ev.check("不确定", probe(uncertain=False), WORDS) == ["says uncertain/unknown"]


def test_alternatives_any_one_of_which_will_do() -> None:
    p = probe(contains=[("bike", "cycl")], order=[("metro", "subway"), "scooter"])
    assert ev.check("From cycling to the subway, then a scooter", p, WORDS) == []
    why = ev.check("scooter, then metro; walks", p, WORDS)
    assert why == [
        "missing 'bike' or 'cycl'",
        "out of order: 'scooter' (expected order: 'metro' or 'subway' → 'scooter')",
    ]


@given(st.text(max_size=30), st.text(min_size=1, max_size=8))
def test_a_string_always_matches_itself_inside_any_answer(noise: str, needle: str) -> None:
    if not ev.normalize(needle):
        return
    assert ev.check(f"{noise} {needle} {noise}", probe(contains=[needle]), WORDS) == []


def test_gate_cascade_passes_only_when_its_before_change_probe_passed() -> None:
    before = probe("recall", "Where is my insurance?", 1, 0, contains=["Guangzhou"])
    after = probe("cascade", "where is my  insurance?", 2, 1, contains=["Shanghai"], absent=["Guangzhou"])  # fmt: skip
    lone = probe("absence", "Employer?", 2, 2, contains=["Acme"], uncertain=True)
    good = ev.score([before, after, lone], {0: "Guangzhou", 1: "Shanghai", 2: "unknown, was Acme"}, WORDS)  # fmt: skip
    assert [r.passed for r in good] == [True, True, True]
    assert [r.role for r in good] == ["before", "gated", "plain"]
    assert [r.counted_as for r in good] == ["recall", "cascade", "absence"]
    # "I don't know" cannot pass by never having known:
    bad = ev.score([before, after, lone], {0: "no idea", 1: "Shanghai", 2: "Acme"}, WORDS)
    assert [r.passed for r in bad] == [False, False, False]
    assert (
        bad[1].reasons == [] and "before-change probe (probe 1, after session 1)" in bad[1].why()[0]
    )
    report = ev.Report([ev.ScenarioResult("s.yaml", probes=bad)])
    gate = report.gate()
    assert gate["blocked_by_gate"] == 1
    assert gate["gated"]["probes"] == 1 and gate["before_change"]["probes"] == 1


def test_gate_uses_the_latest_earlier_probe_and_chains() -> None:
    ps = [
        probe("recall", "city?", 1, 0, contains=["A"]),
        probe("cascade", "city?", 2, 1, contains=["B"], absent=["A"]),
        probe("cascade", "city?", 3, 2, contains=["C"], absent=["B"]),
    ]
    res = ev.score(ps, {0: "A", 1: "A", 2: "C"}, WORDS)
    assert res[2].gate is res[1] and res[1].role == "gated" and res[2].role == "gated"
    assert [r.passed for r in res] == [True, False, False]  # doubt travels down the chain
    unasked = ev.score(ps, {0: "A", 1: "B"}, WORDS)
    assert unasked[2].why() == ["not asked"] and unasked[1].passed


def test_report_tallies_per_type_language_and_overall() -> None:
    ps = [probe("recall", contains=["x"], index=0), probe("premise", contains=["y"], index=1)]
    en = ev.ScenarioResult("a", parse_scenario(_tiny("en"), "a"), ev.score(ps, {0: "x", 1: "no"}, WORDS))  # fmt: skip
    zh = ev.ScenarioResult("b", parse_scenario(_tiny("zh"), "b"), ev.score(ps, {0: "x", 1: "y"}, WORDS))  # fmt: skip
    broken = ev.ScenarioResult("c", error="c: bad")
    report = ev.Report([en, zh, broken])
    assert report.by_type() == {
        "recall": {"probes": 2, "passed": 2, "accuracy": 1.0},
        "premise": {"probes": 2, "passed": 1, "accuracy": 0.5},
    }
    assert report.overall("en")["accuracy"] == 0.5 and report.overall("zh")["accuracy"] == 1.0
    assert report.langs() == ["en", "zh"]
    data = report.to_json()
    assert data["scenarios"] == 3 and data["ran"] == 2
    assert data["errors"] == [{"path": "c", "error": "c: bad"}]
    assert data["by_lang"]["en"]["by_type"]["premise"]["passed"] == 0


# --- running against a real vault with a small fake extractor and reader ------------------------


def _tiny(lang: str = "en") -> str:
    return f"name: t\nlang: {lang}\nrules: {{}}\nsessions: [{{date: '2025-01-01', transcript: 'User: hi'}}]\nprobes: [{{type: recall, ask: q, expect: {{contains: [x]}}}}]\n"  # fmt: skip


SET = re.compile(r"my (\w+) is (.+?)\.?$", re.I)
FORGET = re.compile(r"forget my (\w+)", re.I)


def fake_ingest(vault: Vault, text: str, *, source: str, date: str, llm: str | None) -> Any:
    """'my ATTR is VALUE' and 'forget my ATTR', one statement per user line."""
    statements = []
    for line in text.splitlines():
        if not line.startswith("User:"):
            continue
        said = line.split(":", 1)[1].strip()
        if m := FORGET.search(said):
            statements.append(vault.statement(m[1], kind="forget", at=date, source=source))
        elif m := SET.search(said):
            statements.append(vault.statement(m[1], value=m[2], at=date, source=source))
    assert vault.now.startswith(date)  # the clock stands at the session's date
    vault.say(statements, command="ingest", heard=True)
    return type("R", (), {"errors": ["boom"] if "BOOM" in text else []})()


def fake_answer(vault: Vault, question: str, *, as_of: str | None, llm: str | None) -> str:
    """Reads the one attribute a question names, by the state table of docs/states.md."""
    for key, fact in sorted(vault.scan(refresh=True)[0].items()):
        if fact.attribute not in question:
            continue
        if "history" in question:
            return " → ".join([str(h["value"]) for h in fact.history] + [str(fact.value)])
        if fact.status == "deleted":
            return "no information — removed at your request"
        if fact.status == "uncertain":
            return f"uncertain — previously {fact.value}"
        if fact.status == "expired":
            return f"unknown — was {fact.history[-1]['value']}"
        return f"{key}: {fact.value}"
    return "I don't know."


STORY = f"""\
name: story
lang: en
rules: {STORY_RULES}
sessions:
  - date: '2025-08-15'
    transcript: |
      User: my home_city is Guangzhou.
      User: my social_insurance_city is Guangzhou.
      User: my employer is Acme.
      User: my home_address is Haizhu 1.
      User: my commute_minutes is 20.
  - date: '2026-02-10'
    transcript: |
      User: my home_city is Shanghai.
      Assistant: my home_city is Paris (the assistant's turns are not read)
  - date: '2026-02-20'
    transcript: |
      User: forget my home_address
probes:
  - {{after: 1, type: recall, ask: social_insurance_city?, expect: {{contains: [Guangzhou]}}}}
  - {{after: 1, type: recall, ask: employer?, expect: {{contains: [Acme], uncertain: false}}}}
  - {{after: 2, type: cascade, ask: social_insurance_city?, expect: {{contains: [Shanghai], absent: [Guangzhou]}}}}
  - {{after: 2, type: absence, ask: employer?, expect: {{contains: [Acme]}}}}
  - {{type: tracking, ask: home_city history, expect: {{order: [Guangzhou, Shanghai]}}}}
  - {{after: 1, type: recall, ask: home_address?, expect: {{contains: [Haizhu 1]}}}}
  - {{type: deletion, ask: home_address?, expect: {{absent: [Haizhu]}}}}
  - {{type: absence, ask: commute_minutes now?, expect: {{contains: ['20']}}}}
"""


def test_run_scenario_ingests_in_order_and_asks_after_each_session(tmp_path: Path) -> None:
    seen: list[tuple[str, str]] = []

    def answer(vault: Vault, question: str, **kw: Any) -> str:
        seen.append((vault.now[:10], question))
        return fake_answer(vault, question, **kw)

    sc = parse_scenario(STORY, "story.yaml")
    res = ev.run_scenario(sc, ingest=fake_ingest, answer=answer)
    assert res.error is None
    assert [r.passed for r in res.probes] == [True] * 8, [r.why() for r in res.probes]
    assert seen[0] == ("2025-08-15", "social_insurance_city?")
    assert seen[2] == ("2025-08-15", "home_address?")  # file order within a session
    assert seen[3] == ("2026-02-10", "social_insurance_city?")
    assert [r.role for r in res.probes][:4] == ["before", "before", "gated", "gated"]


def test_inline_rules_are_written_into_the_temporary_vault() -> None:
    text = STORY.replace(f"rules: {STORY_RULES}", "rules: {attributes: {home_city: {}}}")
    sc = parse_scenario(text, "inline.yaml")
    rules_seen = []

    def answer(vault: Vault, question: str, **kw: Any) -> str:
        rules_seen.append(sorted(vault.rules.attributes))
        return fake_answer(vault, question, **kw)

    res = ev.run_scenario(sc, ingest=fake_ingest, answer=answer)
    assert rules_seen[0] == ["home_city"]
    # Without the dependency rules nothing cascades: the cascade probe must fail.
    assert not res.probes[2].passed


def test_evaluate_reports_broken_files_and_still_runs_the_others(tmp_path: Path) -> None:
    (tmp_path / "a_good.yaml").write_text(STORY, encoding="utf-8")
    (tmp_path / "b_bad.yaml").write_text("name: x\nsessions: nope\n", encoding="utf-8")
    (tmp_path / "c_boom.yaml").write_text(STORY.replace("forget my", "BOOM forget my"), encoding="utf-8")  # fmt: skip
    report = ev.evaluate([tmp_path, tmp_path / "typo"], ingest=fake_ingest, answer=fake_answer)
    names = [Path(r.path).name for r in report.results]
    assert names == ["a_good.yaml", "b_bad.yaml", "c_boom.yaml", "typo"]
    assert "no such file or folder" in (report.results[-1].error or "")
    # A failed message does not fail its scenario: its facts count as missing (issue 14).
    assert report.overall() == {"probes": 16, "passed": 16, "accuracy": 1.0}
    bad, _ = report.errors
    assert "b_bad.yaml:2" in (bad.error or "") and "sessions" in (bad.error or "")
    assert len(report.failed_messages) == 1
    assert "c_boom.yaml: session 3: boom" in report.failed_messages[0]


def test_llm_reaches_both_ingest_and_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: set[str | None] = set()

    def ingest(vault: Vault, text: str, **kw: Any) -> Any:
        seen.add(kw["llm"])
        return fake_ingest(vault, text, **kw)

    def answer(vault: Vault, question: str, **kw: Any) -> str:
        seen.add(kw["llm"])
        return fake_answer(vault, question, **kw)

    monkeypatch.setattr(ev, "default_ingest", lambda *finder: ingest)
    monkeypatch.setattr(ev, "ask_text", answer)
    (tmp_path / "s.yaml").write_text(STORY, encoding="utf-8")
    out = CliRunner().invoke(
        app, ["eval", str(tmp_path / "s.yaml"), "--llm", "ollama/tiny", "--json"]
    )
    assert out.exit_code == 0, out.output
    assert seen == {"ollama/tiny"}


def test_a_crash_is_reported_not_raised(tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text(STORY, encoding="utf-8")

    def broken(*a: Any, **kw: Any) -> str:
        raise ZeroDivisionError("oops")

    report = ev.evaluate([tmp_path], ingest=fake_ingest, answer=broken)
    assert "crashed: ZeroDivisionError: oops" in (report.errors[0].error or "")


@pytest.fixture
def fake_mdmem(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ev, "default_ingest", lambda: fake_ingest)
    monkeypatch.setattr(ev, "ask_text", fake_answer)


def test_cli_table_verbose_json_and_exit_codes(tmp_path: Path, fake_mdmem: None) -> None:
    good = tmp_path / "good.yaml"
    good.write_text(STORY.replace("contains: [Acme], uncertain", "contains: [Globex], uncertain"), encoding="utf-8")  # fmt: skip
    runner = CliRunner()
    out = runner.invoke(app, ["eval", str(good), "--verbose"])
    assert out.exit_code == 0, out.output
    assert "cascade" in out.stdout and "overall" in out.stdout
    assert "FAIL" in out.stdout and "employer?" in out.stdout and "missing 'Globex'" in out.stdout
    # the failed before-change probe blocks the absence probe that asks the same question
    assert "its before-change probe (probe 2, after session 1) failed" in out.stdout
    js = runner.invoke(app, ["eval", str(good), "--json"])
    data = json.loads(js.stdout)
    assert data["by_type"]["absence"] == {"probes": 2, "passed": 1, "accuracy": 0.5}
    assert data["by_type"]["recall"]["probes"] == 3  # the three before-change probes
    assert data["gate"]["blocked_by_gate"] == 1
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: [\n", encoding="utf-8")
    out = runner.invoke(app, ["eval", str(good), str(bad)])
    assert out.exit_code == 1
    assert "bad.yaml" in out.stderr and "invalid YAML" in out.stderr
    assert "1 of 2 scenarios ran" in out.stdout


# --- the MEME converter ------------------------------------------------------------------------

MEME = {
    "episode_id": "ep-move-1",
    "sessions": [
        {
            "conversation": [
                {"role": "user", "content": "my home_city is Guangzhou."},
                {"role": "user", "content": "my social_insurance_city is Guangzhou."},
                {"role": "assistant", "content": "Noted!\nAnything else: maybe?"},
                {"role": "user", "content": "my employer is Acme.\nmy home_address is Haizhu 1."},
            ]
        },
        {
            "date": "2026-02-10",
            "conversation": [{"role": "user", "content": "my home_city is Shanghai."}],
        },  # fmt: skip
        {"conversation": [{"role": "user", "content": "forget my home_address"}]},
    ],
    "before_questions": [
        {
            "question": "social_insurance_city?",
            "task_type": "cascade",
            "gold_answer": "Guangzhou",
            "position_after_session": 0,
        },  # fmt: skip
        {
            "question": "employer?",
            "task_type": "absence",
            "gold_answer": "Acme",
            "position_after_session": 0,
        },  # fmt: skip
        {
            "question": "home_address?",
            "task_type": "deletion",
            "gold_answer": "Haizhu 1",
            "position_after_session": 1,
        },  # fmt: skip
    ],
    "after_questions": [
        {
            "question": "social_insurance_city?",
            "task_type": "Cascade",
            "gold_answer": "Shanghai",
            "position_after_session": 1,
        },  # fmt: skip
        {
            "question": "employer?",
            "task_type": "absence",
            "gold_answer": "unknown",
            "position_after_session": 1,
        },  # fmt: skip
        {
            "question": "home_address?",
            "task_type": "deletion",
            "gold_answer": "I don't have that",
            "position_after_session": 2,
        },  # fmt: skip
        {
            "question": "home_city history",
            "task_type": "state tracking",
            "gold_answer": "Guangzhou -> Shanghai",
            "position_after_session": 2,
        },  # fmt: skip
        {
            "question": "what is my employer and home_city",
            "task_type": "aggregation",
            "gold_answer": ["Acme", "Shanghai"],
        },  # fmt: skip
    ],
}


def test_meme_episode_converts_to_a_valid_scenario() -> None:
    m = meme_to_scenario(MEME, rules=str(STORY_RULES))
    sc = scenario_from_mapping(m, "meme.json#1")
    assert sc.name == "ep-move-1" and sc.lang == "en"
    assert [s.date for s in sc.sessions] == ["2025-01-01", "2026-02-10", "2025-01-15"]
    assert sc.sessions[0].transcript.splitlines() == [
        "User: my home_city is Guangzhou.",
        "User: my social_insurance_city is Guangzhou.",
        "Assistant: Noted!",
        "    Anything else: maybe?",
        "User: my employer is Acme.",
        "    my home_address is Haizhu 1.",
    ]
    kinds = [(p.type, p.after) for p in sc.probes]
    assert kinds == [("recall", 1), ("recall", 1), ("recall", 2), ("cascade", 2), ("absence", 2),
                     ("deletion", 3), ("tracking", 3), ("aggregate", 3)]  # fmt: skip
    cascade, absence, deletion, tracking, aggregate = sc.probes[3:]
    assert cascade.expect == Expect(contains=("Shanghai",), absent=("Guangzhou",))
    assert absence.expect == Expect(contains=("Acme",), uncertain=True)
    assert deletion.expect == Expect(absent=("Haizhu 1",), removed=True)
    assert tracking.expect.order == ("Guangzhou", "Shanghai")
    assert aggregate.expect.contains == ("Acme", "Shanghai")
    assert scenario_from_mapping(json.loads(json.dumps(m)), "again") is not None
    assert "ep-move-1" in meme_to_yaml(MEME)


def test_meme_one_based_positions_and_chinese(tmp_path: Path) -> None:
    ep = {
        "sessions": [{"conversation": [{"role": "user", "content": "我住在广州。"}]}] * 2,
        "after_questions": [
            {
                "question": "我住哪？",
                "task_type": "recall",
                "gold_answer": "广州",
                "position_after_session": 1,
            }
        ],  # fmt: skip
    }
    m = meme_to_scenario(ep, name="x")
    assert m["lang"] == "zh" and m["name"] == "x" and m["probes"][0]["after"] == 1


def test_meme_files_run_through_eval(tmp_path: Path, fake_mdmem: None) -> None:
    path = tmp_path / "episodes.jsonl"
    broken = {"sessions": [{"conversation": [{"role": "user"}]}]}
    path.write_text(json.dumps(MEME) + "\n" + json.dumps(broken) + "\n", encoding="utf-8")
    assert len(load_meme(path)) == 2
    report = ev.evaluate([path], ingest=fake_ingest, answer=fake_answer)
    first, second = report.results
    assert first.error is None and second.error and "session 1" in second.error
    assert second.path.endswith("episodes.jsonl#2")
    # with the personal pack's name there is no cascade rule in this fake's world; the recall part runs
    assert first.probes and first.probes[0].passed


def test_eval_convert_writes_scenarios_that_load(tmp_path: Path) -> None:
    src = tmp_path / "ep.json"
    src.write_text(json.dumps({"episodes": [MEME]}), encoding="utf-8")
    out = CliRunner().invoke(app, ["eval-convert", str(src), "--out", str(tmp_path / "sc"), "--rules", str(STORY_RULES)])  # fmt: skip
    assert out.exit_code == 0, out.output
    written = tmp_path / "sc" / "ep-move-1.yaml"
    sc = parse_scenario(written.read_text(encoding="utf-8"), str(written))
    assert len(sc.probes) == 8
    again = CliRunner().invoke(app, ["eval-convert", str(src), "--out", str(tmp_path / "sc")])
    assert again.exit_code == 1 and "already exists" in again.stderr
    bad = tmp_path / "bad.json"
    bad.write_text("{nope", encoding="utf-8")
    out = CliRunner().invoke(app, ["eval-convert", str(bad)])
    assert out.exit_code == 1 and "bad.json:1: invalid JSON" in out.stderr


def test_wording_agrees_with_the_answers_ask_gives(story_vault: Vault) -> None:
    """The evaluator's 'uncertain' and 'removed' phrases are the ones ask.py's templates use."""
    words = ev.wording()
    story_vault.set("home_city", "Guangzhou", date="2025-08-15")
    story_vault.set("employer", "Acme", date="2025-08-15")
    story_vault.set("home_city", "Shanghai", date="2026-02-10")
    for question in ("Who is my employer?", "我的工作单位是哪家？"):
        text = ev.ask_text(story_vault, question)
        assert ev.says_any(text, words[0]) and not ev.says_any(text, words[1]), text
    story_vault.forget("employer")
    for question in ("Who is my employer?", "我的工作单位是哪家？"):
        text = ev.ask_text(story_vault, question)
        assert ev.says_any(text, words[1]) and "Acme" not in text, text
    text = ev.ask_text(story_vault, "Which city do I live in?")
    assert "Shanghai" in text and not ev.says_any(text, words[0] + words[1]), text


def test_numbers_match_as_whole_numbers_not_inside_dates() -> None:
    from mdmem.eval.evaluate import locate

    assert locate("was 20 until 2026-02-10", "20") == 4
    assert locate("since 2025-08-15", "20") == -1
    assert locate("since 2025-08-15", "25") == -1
    assert locate("about 25 minutes", "25 minutes") == 6
    assert locate("20分钟", "20") == 0
