"""ask: every state in both languages, the past, topics, stale premises, entities, --llm."""

from __future__ import annotations

import functools
import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mdmem import Vault
from mdmem.cli import app
from mdmem.errors import MdmemError
from mdmem.eval.evaluate import says_any
from mdmem.read.ask import REMOVED_WORDS, UNCERTAIN_WORDS, ask
from mdmem.read.model_answer import llm_prompt
from tests.conftest import make_vault

runner = CliRunner()


@pytest.fixture
def moved(tmp_path: Path) -> Vault:
    """The Guangzhou → Shanghai user with the personal pack, just after the move."""
    v = make_vault(tmp_path / "v", "personal")
    for attr, value, day in [
        ("home_city", "Guangzhou", "2024-01-01"),
        ("employer", "Lingnan Tech", "2024-01-01"),
        ("home_address", "Haizhu", "2024-01-01"),
        ("work_address", "Tianhe", "2024-01-01"),
        ("social_insurance_city", "Guangzhou", "2024-01-01"),
        ("commute_mode", "bike", "2024-01-02"),
        ("commute_minutes", "20", "2024-01-02"),
        ("home_city", "Shanghai", "2026-02-10"),
    ]:
        v.set(attr, value, date=day)
    return v


def text(v: Vault, q: str, **kw: str) -> str:
    return ask(v, q, **kw).text


# --- states, both languages --------------------------------------------------------------


def test_active_en(moved: Vault) -> None:
    a = ask(moved, "Where do I live?")
    assert a.lang == "en" and a.mode == "current"
    assert "Shanghai" in a.text and "since 2026-02-10" in a.text
    assert "Guangzhou" not in a.text  # the current value, not the drowned old one
    assert [f["key"] for f in a.facts] == ["user/home_city"]
    assert not says_any(a.text, UNCERTAIN_WORDS) and not says_any(a.text, REMOVED_WORDS)


def test_active_zh_uses_the_chinese_spelling(moved: Vault) -> None:
    a = ask(moved, "我住在哪个城市？")
    assert a.lang == "zh"
    assert "上海" in a.text and "2026-02-10起" in a.text
    assert "广州" not in a.text and "Guangzhou" not in a.text


@pytest.mark.parametrize(
    ("q", "want"),
    [
        ("Where do I pay social insurance?", "derived from your home city"),
        ("我的社保在哪交？", "根据你的居住城市推出"),
    ],
)
def test_derived_says_from_what(moved: Vault, q: str, want: str) -> None:
    t = text(moved, q)
    assert want in t
    assert ("Shanghai" in t or "上海" in t) and "Guangzhou" not in t and "广州" not in t


def test_uncertain_en(moved: Vault) -> None:
    t = text(moved, "Where do I work?")
    assert t.startswith(
        "Your employer is uncertain — previously Lingnan Tech, but your home city changed to Shanghai"
        " on 2026-02-10."
    )
    assert "Are you still working at Lingnan Tech?" in t  # the pending question
    assert says_any(t, UNCERTAIN_WORDS)


def test_uncertain_zh(moved: Vault) -> None:
    t = text(moved, "我现在在哪家公司上班？")
    assert "不确定" in t and "之前是Lingnan Tech" in t and "居住城市在2026-02-10变成了上海" in t
    assert "你现在还在Lingnan Tech工作吗" in t


@pytest.mark.parametrize(
    ("q", "new"),
    [
        ("Since I still work at Lingnan Tech, where is my office?", "changed to Shanghai"),
        ("我还在Lingnan Tech上班，对吧？", "变成了上海"),
    ],
)
def test_a_stale_premise_on_an_uncertain_fact_names_the_new_cause(
    moved: Vault, q: str, new: str
) -> None:
    """The doubt's cause is named with its new value: the answer to 'still at X?'."""
    t = text(moved, q)
    assert new in t and says_any(t, UNCERTAIN_WORDS)


@pytest.mark.parametrize(
    ("q", "want"),
    [
        (
            "How long is my commute?",
            "Your home city changed to Shanghai on 2026-02-10."
            " Your commute time (minutes) is unknown — was 20 until 2026-02-10.",
        ),
        (
            "我的通勤时间是多少？",
            "你的居住城市在2026-02-10变成了上海。你的通勤时间（分钟）现在未知——到2026-02-10为止是20。",
        ),
    ],
)
def test_expired(moved: Vault, q: str, want: str) -> None:
    # An expired value's sentence cannot say why it ended: the change upstream leads it.
    assert text(moved, q) == want


@pytest.mark.parametrize(
    ("q", "want"), [("Who is my partner?", "Sam, unconfirmed"), ("我的对象是谁？", "Sam，尚未确认")]
)
def test_tentative(moved: Vault, q: str, want: str) -> None:
    moved.set("partner", "Sam", date="2026-01-05", tentative=True)
    t = text(moved, q)
    assert want in t and "2026-01-05" in t
    assert not says_any(t, REMOVED_WORDS)


@pytest.mark.parametrize(
    ("q", "want"),
    [
        ("Where is my office?", "No information — your work address was removed at your request."),
        ("我的办公地点在哪？", "没有相关信息——你的工作地点已按你的要求删除。"),
    ],
)
def test_deleted(moved: Vault, q: str, want: str) -> None:
    moved.forget("work_address")
    a = ask(moved, q)
    assert a.text == want
    assert "Tianhe" not in json.dumps(a.to_json()) and "天河" not in a.text
    assert says_any(a.text, REMOVED_WORDS)


@pytest.mark.parametrize(
    ("q", "want"),
    [
        ("What is my favourite colour?", "I don't know: nothing in memory answers that."),
        ("我最喜欢什么颜色？", "不知道：记忆里没有这方面的记录。"),
    ],
)
def test_nothing_found_never_guesses(moved: Vault, q: str, want: str) -> None:
    a = ask(moved, q)
    assert a.text == want and a.mode == "none" and a.facts == []
    assert not says_any(a.text, REMOVED_WORDS)  # unknown is not "removed"


def test_empty_vault(story_vault: Vault) -> None:
    assert ask(story_vault, "Where do I live?").mode == "none"


# --- as of a date ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("day", "city"),
    [("2025-06-01", "Guangzhou"), ("2026-02-09", "Guangzhou"), ("2026-02-10", "Shanghai"),
     ("2026-02-11", "Shanghai"), ("2024-01-01", "Guangzhou")],
)  # fmt: skip
def test_as_of_boundaries(moved: Vault, day: str, city: str) -> None:
    a = ask(moved, "Where did I live?", as_of=day)
    assert a.mode == "as_of"
    assert a.text.startswith(f"On {day}, your home city was {city} (")
    other = {"Guangzhou", "Shanghai"} - {city}
    assert not any(o in a.text for o in other)


def test_as_of_before_anything_known(moved: Vault) -> None:
    t = text(moved, "Where did I live?", as_of="2023-12-31")
    assert "I don't know your home city on 2023-12-31" in t and "starts on 2024-01-01" in t


def test_as_of_after_expiry_and_zh(moved: Vault) -> None:
    assert text(moved, "How long was my commute?", as_of="2025-01-01").startswith(
        "On 2025-01-01, your commute time (minutes) was 20 (2024-01-02 – 2026-02-10)."
    )
    assert "unknown — it was 20 until 2026-02-10" in text(
        moved, "How long is my commute?", as_of="2026-02-20"
    )
    assert text(moved, "我住在哪个城市？", as_of="2025-06-01").startswith(
        "2025-06-01，你的居住城市是广州（2024-01-01至2026-02-10）"
    )


def test_as_of_rejects_a_non_date(moved: Vault) -> None:
    with pytest.raises(Exception, match="not a date"):
        ask(moved, "Where do I live?", as_of="last year")


# --- the past: history in order ----------------------------------------------------------


@pytest.fixture
def three_cities(tmp_path: Path) -> Vault:
    v = make_vault(tmp_path / "v3", "personal")
    v.set("home_city", "Shenzhen", date="2023-03-01")
    v.set("home_city", "Shanghai", date="2026-02-10")
    v.set("home_city", "Guangzhou", date="2020-05-01")  # said later, about earlier: backfilled
    return v


@pytest.mark.parametrize(
    "q",
    [
        "List all the cities I've lived in, from earliest to latest.",
        "How has my home city changed over time?",
    ],
)
def test_over_time_lists_every_value_in_order(three_cities: Vault, q: str) -> None:
    a = ask(three_cities, q)
    assert a.mode == "history"
    t = a.text
    assert t.index("Guangzhou") < t.index("Shenzhen") < t.index("Shanghai")
    assert "Guangzhou (2020-05-01 – 2023-03-01)" in t
    assert "Shenzhen (2023-03-01 – 2026-02-10)" in t
    assert "Shanghai (since 2026-02-10, current)" in t


def test_over_time_zh(three_cities: Vault) -> None:
    t = text(three_cities, "我住过的城市按时间顺序有哪些变化？")
    assert t.index("广州") < t.index("深圳") < t.index("上海")
    assert "上海（2026-02-10起，至今）" in t


@pytest.mark.parametrize(
    "q", ["Where did I live before?", "Where did I use to live? I used to live somewhere else."]
)
def test_before_names_the_previous_values(moved: Vault, q: str) -> None:
    a = ask(moved, q)
    assert a.mode == "past"
    assert (
        a.text
        == "Your home city was Guangzhou (2024-01-01 – 2026-02-10); since 2026-02-10 it has been Shanghai."
    )


def test_before_zh(moved: Vault) -> None:
    assert (
        text(moved, "我以前住在哪？")
        == "你的居住城市以前是广州（2024-01-01至2026-02-10）；2026-02-10起是上海。"
    )


def test_past_of_an_uncertain_fact_says_so(moved: Vault) -> None:
    moved.set("employer", "Orbit Labs", date="2025-05-01")
    moved.set("home_city", "Beijing", date="2026-02-20")
    t = text(moved, "Where did I work before?")
    assert "Lingnan Tech (2024-01-01 – 2025-05-01)" in t and "it is uncertain now" in t


def test_no_earlier_value(moved: Vault) -> None:
    moved.set("hobby", "climbing", date="2025-01-01")
    t = text(moved, "What hobbies did I have before?")
    assert t.startswith("I have no earlier hobbies on record.") and "climbing" in t


# --- broad questions: a whole topic ------------------------------------------------------


def test_topic_returns_every_fact_of_it(moved: Vault) -> None:
    a = ask(moved, "Tell me everything about my commute")
    assert a.mode == "topic" and a.topic == "commute"
    assert [f["attribute"] for f in a.facts] == [
        "commute_mode",
        "commute_minutes",
        "home_address",
        "work_address",
    ]
    for value in ("bike", "20", "Haizhu", "Tianhe"):
        assert value in a.text


def test_topic_zh(moved: Vault) -> None:
    a = ask(moved, "我的工作情况")
    assert a.mode == "topic" and a.topic == "work"
    assert {f["attribute"] for f in a.facts} == {
        "employer",
        "work_address",
        "social_insurance_city",
    }
    assert a.text.startswith("关于工作，我记得这些：\n- ")


def test_topic_from_inline_rules(tmp_path: Path) -> None:
    rules = tmp_path / "oncall.yaml"
    rules.write_text(
        "version: 1\nattributes:\n  oncall_tool: {label: {en: paging tool}}\n"
        "  oncall_rotation: {label: {en: on-call rotation}}\n  editor: {}\n"
        "topics:\n  oncall: {label: {en: on-call setup, zh: 值班}, aliases: [on-call, pager, 值班安排],"
        " attributes: [oncall_tool, oncall_rotation]}\n",
        encoding="utf-8",
    )
    v = make_vault(tmp_path / "team", rules)
    v.set("oncall_tool", "PagerDuty", entity="team", date="2025-01-01")
    v.set("oncall_rotation", "weekly, Monday 10:00", entity="team", date="2025-01-01")
    v.set("editor", "vim", entity="team", date="2025-01-01")
    a = ask(v, "Tell me everything about our on-call setup for the team")
    assert a.mode == "topic" and "PagerDuty" in a.text and "weekly, Monday 10:00" in a.text
    assert "vim" not in a.text
    assert "Team's paging tool is PagerDuty" in a.text
    assert ask(v, "团队的值班安排都有什么？").mode == "topic"


# --- stale premises ----------------------------------------------------------------------


def test_stale_premise_on_an_expired_fact(moved: Vault) -> None:
    a = ask(moved, "Is my bike ride to Tianhe still 20 minutes?")
    # Both facts the premise rests on are corrected: the ride's length and its mode.
    assert (
        "That is out of date. Your commute time (minutes) is unknown — was 20 until 2026-02-10."
        in a.text
    )
    assert "Your commute mode is uncertain — previously bike" in a.text
    assert {f["key"] for f in a.facts} == {"user/commute_minutes", "user/commute_mode"}
    # What changed upstream of both is said once, before the first of them.
    assert a.text.count("Your home city changed to Shanghai on 2026-02-10.") == 1
    assert a.text.startswith(
        "That may no longer hold. Your home city changed to Shanghai on 2026-02-10."
    )


@pytest.mark.parametrize(
    ("q", "want", "old"),
    [("Do I still live in Guangzhou?", "That is out of date. Your home city is Shanghai (since 2026-02-10).", "Guangzhou"),
     ("我还住在广州吗？", "这个信息已经过时了。你的居住城市是上海（2026-02-10起）。", "广州")],
)  # fmt: skip
def test_stale_premise_is_corrected_with_the_current_value(
    moved: Vault, q: str, want: str, old: str
) -> None:
    t = text(moved, q)
    assert t == want and old not in t


def test_premise_on_an_uncertain_fact(moved: Vault) -> None:
    t = text(moved, "Do I still work at Lingnan Tech?")
    assert t.startswith("That may no longer hold. Your employer is uncertain")


def test_true_premise_is_confirmed(moved: Vault) -> None:
    assert text(moved, "Do I live in Shanghai?").startswith("Yes. Your home city is Shanghai")
    assert text(moved, "我住在上海吗？").startswith("是的。你的居住城市是上海")


# --- entities, JSON, rules without aliases -----------------------------------------------


def test_other_entity_by_name_and_by_option(moved: Vault) -> None:
    moved.set("employer", "Acme", entity="alice", date="2025-01-01")
    a = ask(moved, "Where does Alice work?")
    assert a.text == "Alice's employer is Acme (since 2025-01-01)."
    assert [f["key"] for f in a.facts] == ["alice/employer"]
    assert "Acme" in text(moved, "Who is the employer?", entity="alice")
    assert "Lingnan" in text(moved, "Who is my employer?")


def test_json_has_facts_scores_and_states(moved: Vault) -> None:
    data = ask(moved, "Where do I work?").to_json()
    assert set(data) >= {"question", "answer", "lang", "mode", "facts", "as_of"}
    [fact] = data["facts"]
    assert fact["key"] == "user/employer" and fact["status"] == "uncertain"
    assert fact["score"] >= 1 and fact["uncertain_because"]["fact"] == "user/home_city"


def test_labels_work_without_aliases(story_vault: Vault) -> None:
    story_vault.set("social_insurance_city", "广州", date="2024-01-01")
    story_vault.set("home_city", "广州", date="2024-01-01")
    story_vault.set("home_city", "上海", date="2026-02-10")
    t = text(story_vault, "我的社保城市是哪里？")
    assert "上海" in t and "广州" not in t


def test_the_answer_follows_a_hand_edit(moved: Vault) -> None:
    ask(moved, "Where do I live?")  # builds the index
    path = moved.root / "facts/user/home_city.md"
    path.write_text(
        path.read_text(encoding="utf-8").replace("value: Shanghai", "value: Hangzhou"),
        encoding="utf-8",
    )
    assert "Hangzhou" in text(moved, "Where do I live?")


# --- the model path ----------------------------------------------------------------------


def test_llm_gets_the_same_facts(moved: Vault) -> None:
    moved.forget("work_address")
    template = ask(moved, "Tell me everything about my commute").text
    a = ask(moved, "Tell me everything about my commute", llm="gpt-4o-mini",
            llm_options={"mock_response": "You used to cycle; I'm not sure how you commute now."})  # fmt: skip
    # The model dropped what memory says (the 20 minutes, Haizhu, the removal): the template stands.
    assert a.text == template and a.model is None
    messages = llm_prompt(a)
    payload = json.loads(messages[1]["content"])
    assert [f["key"] for f in payload["facts"]] == [f["key"] for f in a.facts]
    assert "Tianhe" not in messages[1]["content"]  # a forgotten value never reaches a model
    assert "never reveal" in messages[0]["content"]


def test_llm_cli_flag(moved: Vault, monkeypatch: pytest.MonkeyPatch) -> None:
    import litellm

    real = litellm.completion
    monkeypatch.setattr(litellm, "completion", functools.partial(real, mock_response="Shanghai."))
    r = runner.invoke(
        app, ["ask", "Where do I live?", "--llm", "gpt-4o-mini", "--vault", str(moved.root)]
    )
    assert r.exit_code == 0, r.output
    assert r.stdout.strip() == "Shanghai."


def test_read_commands_do_not_import_litellm(moved: Vault) -> None:
    code = (
        "import sys\nfrom typer.testing import CliRunner\nfrom mdmem.cli import app\n"
        f"root = {str(moved.root)!r}\n"
        "for args in (['ask', 'Where do I live?'], ['context'], ['timeline'], ['timeline', '--format', 'svg']):\n"
        "    r = CliRunner().invoke(app, [*args, '--vault', root])\n"
        "    assert r.exit_code == 0, r.output\n"
        "print('litellm' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# --- the CLI -----------------------------------------------------------------------------


def test_cli_ask_text_json_and_as_of(moved: Vault) -> None:
    root = str(moved.root)
    r = runner.invoke(app, ["ask", "Where do I live?", "--vault", root])
    assert r.exit_code == 0 and r.stdout == "Your home city is Shanghai (since 2026-02-10).\n"
    r = runner.invoke(
        app, ["ask", "Where did I live?", "--as-of", "2025-06-01", "--json", "--vault", root]
    )
    data = json.loads(r.stdout)
    assert data["as_of"] == "2025-06-01" and "Guangzhou" in data["answer"]
    r = runner.invoke(app, ["ask", "Where do I live?", "--as-of", "2025-13", "--vault", root])
    assert r.exit_code == 2 and "--as-of" in r.output and "no month 13" in r.output


# --- a forgotten value appears in no output of any command --------------------------------

SECRETS = ("rosewood", "maple", "玫瑰")


def _all_outputs(root: str) -> list[tuple[list[str], str]]:
    runs = [
        ["ask", "Where do I live?"], ["ask", "What is my address?"], ["ask", "我住在哪？"],
        ["ask", "我的地址是什么？"], ["ask", "Where did I live before?"],
        ["ask", "How has my address changed over time?"], ["ask", "我以前的住址"],
        ["ask", "Tell me everything about my commute"], ["ask", "Tell me everything about my home"],
        ["ask", "What was my address?", "--as-of", "2025-01-01"], ["ask", "What is my address?", "--json"],
        ["context"], ["context", "--format", "json"], ["context", "--max-chars", "400"],
        ["timeline"], ["timeline", "--format", "md"], ["timeline", "--format", "json"],
        ["timeline", "--format", "mermaid"], ["timeline", "--format", "svg"],
        ["timeline", "home_address", "--format", "md"], ["show"], ["show", "--json"],
        ["show", "home_address"], ["show", "commute_minutes", "--json"], ["graph"],
        ["graph", "--format", "mermaid"], ["graph", "--format", "dot"], ["pending"], ["pending", "--json"],
    ]  # fmt: skip
    out = []
    for args in runs:
        r = runner.invoke(app, [*args, "--vault", root])
        assert r.exit_code in (0, 1), (args, r.output)
        out.append((args, r.output + (r.stderr if r.stderr_bytes else "")))
    return out


@pytest.mark.parametrize("purge", [False, True])
def test_forgotten_value_appears_nowhere(tmp_path: Path, purge: bool) -> None:
    v = make_vault(tmp_path / "v", "personal")
    v.set("home_city", "Guangzhou", date="2024-01-01")
    v.set("home_address", "Rosewood Lane 12", date="2024-01-01")
    v.set("commute_mode", "bike", date="2024-01-02")
    v.set("commute_minutes", "20", date="2024-01-02")
    v.set("home_address", "Maple Court 7 玫瑰园", date="2025-06-01")  # dependents now quote both
    v.set("home_city", "Shanghai", date="2026-02-10")
    root = str(v.root)
    before = "\n".join(o for _, o in _all_outputs(root)).casefold()
    assert "rosewood" in before and "maple" in before  # the test can see them while they exist
    r = runner.invoke(
        app, ["forget", "home_address", "--vault", root, *(["--purge"] if purge else [])]
    )
    assert r.exit_code == 0, r.output
    for args, output in _all_outputs(root):
        for secret in SECRETS:
            assert secret not in output.casefold(), (args, secret, output)
    assert "removed at your request" in text(Vault(root), "What is my address?")
    index = b"".join(p.read_bytes() for p in (v.root / ".mdmem").glob("index.sqlite*"))
    assert not any(s.encode() in index.lower() for s in SECRETS)
    journal = (v.root / ".mdmem/journal.jsonl").read_text(encoding="utf-8").casefold()
    assert ("rosewood" in journal) is not purge  # unpurged, only the journal still has it


def test_a_model_that_cannot_answer_is_a_clear_error(moved: Vault) -> None:
    with pytest.raises(MdmemError, match="could not answer"):
        ask(moved, "Where do I live?", llm="no-such-provider-model-xyz")


# --- matching: which attribute a question is about ----------------------------------------


def test_the_attribute_that_explains_more_of_the_question_wins(moved: Vault) -> None:
    assert [f["key"] for f in ask(moved, "Which district do I live in?").facts] == [
        "user/home_address"
    ]
    moved.set("work_city", "广州", date="2024-01-01")
    moved.set("work_city", "北京", date="2025-01-01")
    assert ask(moved, "我在哪个城市上班？").facts[0]["key"] == "user/work_city"


def test_chinese_aliases_match_with_a_gap(moved: Vault) -> None:
    # 怎么上班 (an alias of the commute mode) in 我怎么去上班, 上班方式 in 上班的方式
    assert ask(moved, "我怎么去上班？").facts[0]["key"] == "user/commute_mode"
    assert ask(moved, "我上班的方式是怎么变化的？").facts[0]["key"] == "user/commute_mode"


def test_a_stale_place_in_the_question_brings_its_fact(moved: Vault) -> None:
    moved.set("home_address", "Panyu", date="2026-02-15")
    a = ask(moved, "Is it still a 20-minute bike ride from Haizhu to my office?")
    assert "user/home_address" in [f["key"] for f in a.facts]
    assert "Your home address is Panyu (since 2026-02-15)." in a.text
    assert a.text.count("That is out of date.") == 1  # said once for all the stale facts


def test_a_question_naming_a_topic_gets_the_topic(moved: Vault) -> None:
    moved.set("phone", "13700001111", date="2025-01-01")
    moved.set("email", "me@example.cn", date="2025-01-01")
    a = ask(moved, "我的联系方式有哪些？")
    assert a.mode == "topic" and "13700001111" in a.text and "me@example.cn" in a.text
    assert ask(moved, "What is my phone number?").mode == "current"


def test_verbatim_notes_are_found_by_asking_for_them(moved: Vault) -> None:
    moved.set("note", "helm rollback payments 42 --namespace=Prod-CN", date="2025-07-01")
    moved.set("note_2", "妈妈的航班14:35落地T2，B7出口。", date="2025-07-02")
    assert "helm rollback payments 42 --namespace=Prod-CN" in text(
        moved, "我让你记的回滚命令是什么？"
    )
    assert text(moved, "妈妈的航班信息原话是什么？").count("妈妈的航班14:35落地T2，B7出口。") == 1


def test_note_slot_agrees_with_ingest() -> None:
    from mdmem.extract.rule_finder import VERBATIM_SLOT
    from mdmem.read.retrieve import NOTE_SLOT

    assert NOTE_SLOT == VERBATIM_SLOT


def test_someone_else_answers_when_the_person_has_nothing(moved: Vault) -> None:
    moved.set("employer", "Acme", entity="team", date="2025-01-01")
    moved.set("gym", "Pure Fitness", entity="alice", date="2025-01-01")
    a = ask(moved, "Which gym?")  # the user has no gym: alice's is the only one
    assert [f["key"] for f in a.facts] == ["alice/gym"]
    assert "Lingnan" in text(moved, "Who is the employer?")  # the user's own comes first


# --- verbatim notes by their words, upstream changes, one lead-in, labels -----------------


@pytest.fixture
def noted(tmp_path: Path) -> Vault:
    """A project vault with release facts and three kept notes."""
    v = make_vault(tmp_path / "p", "software_project")
    v.set("ci", "GitHub Actions", date="2025-01-01", new=True)
    v.set("default_branch", "main", date="2025-01-01")
    v.set("note", "发版前必须跑完整回归测试，并且在群里@值班同学确认。", date="2025-02-01")
    v.set("note_2", "Bin day is Tuesday night; green bin every other week.", date="2025-02-02")
    v.set("note_3", "helm rollback payments 42 --namespace=Prod-CN", date="2025-02-03")
    return v


NOTES = (
    "发版前必须跑完整回归测试，并且在群里@值班同学确认。",
    "Bin day is Tuesday night; green bin every other week.",
    "helm rollback payments 42 --namespace=Prod-CN",
)


@pytest.mark.parametrize(
    ("q", "want"),
    [
        ("发版前的检查要求原话是什么？", 0),
        ("what was the exact text about bin day?", 1),
        ("What's the note about the green bin, word for word?", 1),
        ("Give me the helm rollback command verbatim", 2),
        ("我让你记的回滚payments命令原样是什么？", 2),
    ],
)
def test_a_note_asked_for_by_its_words_is_answered_verbatim(
    noted: Vault, q: str, want: int
) -> None:
    a = ask(noted, q)
    assert [f["key"] for f in a.facts] == [f"user/{('note', 'note_2', 'note_3')[want]}"]
    assert NOTES[want] in a.text  # exactly as kept: no re-spelling, nothing glued on
    assert all(n not in a.text for i, n in enumerate(NOTES) if i != want)
    assert "GitHub Actions" not in a.text and "main" not in a.text.replace(NOTES[want], "")


def test_a_multiline_note_keeps_its_lines(noted: Vault) -> None:
    log = "ERROR 42\n  at pay.py:10\n  at main.py:3"
    noted.set("note_4", log, date="2025-02-04")
    t = text(noted, "What was the exact text of the ERROR 42 log?")
    assert t.endswith(":\n" + log)


def test_exact_alone_still_answers_a_fact(moved: Vault) -> None:
    moved.set("note", "Bin day is Tuesday night.", date="2025-02-02")
    a = ask(moved, "What is my exact home address?")
    assert a.facts[0]["key"] == "user/home_address" and "Bin day" not in a.text


def test_notes_in_chinese_have_a_readable_label(noted: Vault) -> None:
    from mdmem.read.answer import label

    rules = noted.rules
    assert label(rules, "note", "zh") == label(rules, "note_12", "zh") == "记下的原话"
    assert label(rules, "note_2", "en") == "note"
    assert label(rules, "pet_name", "zh") == "pet name"  # undeclared: the slug in words
    assert label(rules, "notes_app", "zh") == "notes app"  # not a note slot
    t = text(noted, "发版前的检查要求原话是什么？")
    assert t.startswith("你让我记下的原话（2025-02-01）：") and "note" not in t
    noted.set("pet_name", "豆豆", date="2025-03-01", new=True)
    assert "你的pet name是豆豆" in text(noted, "我的pet name是什么？")
    hist = text(noted, "我记下的原话有哪些变化？")
    assert "note" not in hist


def test_a_doubt_from_upstream_names_the_change_that_caused_it(tmp_path: Path) -> None:
    v = make_vault(tmp_path / "v", "personal")
    for attr, value, day in [
        ("home_city", "广州", "2024-01-01"),
        ("employer", "Lingnan Tech", "2024-01-01"),
        ("work_address", "珠江新城", "2024-01-01"),
        ("home_city", "杭州", "2026-02-10"),
    ]:
        v.set(attr, value, date=day)
    assert v.get("work_address").status == "uncertain"
    t = text(v, "我每天坐地铁去珠江新城要多久来着？")
    assert "你的居住城市在2026-02-10变成了杭州。" in t
    assert "你的工作地点不确定——之前是珠江新城" in t
    t = text(v, "How long is my metro ride to 珠江新城?")  # English, naming a Chinese place
    assert "Your home city changed to Hangzhou on 2026-02-10." in t
    assert "Your work address is uncertain" in t
    # A question that does not assume the old value gets no correction.
    assert "changed to" not in text(v, "What is my work address?")


def test_out_of_date_is_said_once_on_the_sample_vault(tmp_path: Path) -> None:
    import shutil

    from tests.conftest import ROOT

    shutil.copytree(ROOT / "sample_vault", tmp_path / "s", ignore=shutil.ignore_patterns(".mdmem"))
    t = ask(Vault(tmp_path / "s"), "Is my bike ride to Tianhe still 20 minutes?").text
    assert t.count("That is out of date.") == 1
    assert "was 20 until 2026-02-10" in t and "metro" in t


def test_quotes_for_a_fact_of_a_named_month_are_about_the_fact_not_the_month(tmp_path: Path) -> None:
    """'in March 2025' picks the day; it is no word to quote by: the birthday said as '14 March'
    has nothing to do with where the person worked."""
    import shutil

    from tests.conftest import ROOT

    shutil.copytree(ROOT / "sample_vault", tmp_path / "s", ignore=shutil.ignore_patterns(".mdmem"))
    t = ask(Vault(tmp_path / "s"), "Where did I work in March 2025?").text
    assert t.startswith("I don't know your employer on 2025-03-31")
    assert "birthday" not in t and "Lingnan Tech" in t


@pytest.mark.parametrize(
    ("q", "lang"),
    [("How long is my metro ride to 珠江新城?", "en"), ("我在Lingnan Tech工作吗？", "zh"),
     ("我住在哪里？", "zh"), ("Where do I live?", "en"), ("Is my office in 天河?", "en")],
)  # fmt: skip
def test_the_language_is_the_one_the_question_is_asked_in(q: str, lang: str) -> None:
    from mdmem.lang.detect import detect_lang

    assert detect_lang(q) == lang


# --- a reader does not pay for the extractors ---------------------------------------------


def test_a_reader_does_not_compile_the_packs_regexes(moved: Vault) -> None:
    from mdmem.model.rules_yaml import load_rules

    assert moved.get("home_city") is not None  # the vault's rules validated once already
    fresh = Vault(moved.root)
    assert "Shanghai" in ask(fresh, "Where do I live?").text
    attrs = fresh.rules.attributes.values()
    assert not any("extract" in a.__dict__ or "invalidate" in a.__dict__ for a in attrs)
    eager = load_rules(moved.root / "rules.yaml")  # validated now: compiled now
    assert all("extract" in a.__dict__ for a in eager.attributes.values())
    for a in attrs:  # compiled on first use, the same patterns
        assert a.extract == eager.attributes[a.name].extract
        assert a.invalidate == eager.attributes[a.name].invalidate
    assert any(a.extract for a in attrs)


def test_a_lazily_loaded_bad_regex_still_fails_with_the_file() -> None:
    from mdmem.errors import RulesError
    from mdmem.model.rules_yaml import rules_from_mapping

    data = {"attributes": {"pet": {"extract": ["(?P<value>[a-z"]}}}
    with pytest.raises(RulesError, match="invalid regex"):
        rules_from_mapping(data)
    lazy = rules_from_mapping(data, "x/rules.yaml", lazy=True)  # trusted: not compiled yet
    with pytest.raises(RulesError, match=r"x/rules\.yaml.*'pet': invalid regex #1 in 'extract'"):
        _ = lazy.attributes["pet"].extract
