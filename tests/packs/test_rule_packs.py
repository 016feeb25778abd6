"""The rule packs under rules/: their schema, their graph and what their patterns extract.

These tests read the YAML by hand, independently of mdmem.model.rules, so that a pack that ships
is checked even when the validator changes, and so that the packs can be written before it.
"""

from __future__ import annotations

import functools
import json
import re
import time
import unicodedata
from pathlib import Path
from typing import Any

import pytest
import yaml

from mdmem.model.rules_yaml import load_rules
from tests.conftest import LOCOMO, LOCOMO_DEV

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "rules"
TRANSCRIPTS = ROOT / "sample_vault" / "transcripts"
PACKS = ("personal", "software_project", "health")

TOP_KEYS = {"version", "vocab", "attributes", "topics", "dependencies", "grammar"}
ATTRIBUTE_KEYS = {
    "label",
    "aliases",
    "stability",
    "cardinality",
    "values",
    "extract",
    "invalidate",
}
TOPIC_KEYS = {"label", "aliases", "attributes"}
DEPENDENCY_KEYS = {"id", "when", "then", "action", "value", "lookup", "ask"}
ACTIONS = {"derive", "confirm", "expire"}
STABILITIES = {"low", "medium", "high"}
CARDINALITIES = {"one", "many"}
GROUPS = {"value", "date"}
PLACEHOLDER = re.compile(r"\{([^{}]*)\}")
CJK = re.compile(r"[\u4e00-\u9fff]|\\u4e00")
# What the extractor strips from a captured value.
STRIP = " \t,.;:!?，。；：！？、"


@functools.cache
def load(name: str) -> dict[str, Any]:
    """Parse one pack, as mdmem init would copy it, with its <<vocab>> placeholders expanded."""
    data = yaml.safe_load((RULES / f"{name}.yaml").read_text(encoding="utf-8"))
    assert isinstance(data, dict), f"{name}.yaml is not a mapping"
    expanded = load_rules(RULES / f"{name}.yaml").attributes
    for attr, spec in data["attributes"].items():
        for key in ("extract", "invalidate"):
            if spec.get(key):
                spec[key] = list(getattr(expanded[attr], f"{key}_patterns"))
    return data


@functools.cache
def compiled(name: str) -> dict[str, tuple[list[re.Pattern[str]], list[re.Pattern[str]]]]:
    """Every attribute's (extract, invalidate) patterns, compiled."""
    return {
        attr: (
            [re.compile(p) for p in spec.get("extract", [])],
            [re.compile(p) for p in spec.get("invalidate", [])],
        )
        for attr, spec in load(name)["attributes"].items()
    }


def is_slug(text: str) -> bool:
    return (
        isinstance(text, str)
        and unicodedata.normalize("NFC", text) == text
        and text == text.lower()
        and len(text) <= 64
        and re.fullmatch(r"[\w-]+", text) is not None
        and not text.startswith((".", "-"))
    )


def first_value(pack: str, attribute: str, sentence: str) -> str | None:
    """The value the attribute's first matching extract pattern captures, stripped."""
    for pattern in compiled(pack)[attribute][0]:
        match = pattern.search(sentence)
        if match:
            return match.group("value").strip(STRIP)
    return None


def invalidates(pack: str, attribute: str, sentence: str) -> bool:
    return any(p.search(sentence) for p in compiled(pack)[attribute][1])


# Like the extractor: a full stop ends a sentence only before a space ("lin.wei@example.cn",
# "Dr. Patel" stay whole); Chinese marks and line breaks always do.
SENTENCE_END = re.compile(
    r"(?<!\bDr\.)(?<!\bMr\.)(?<!\bMs\.)(?<!Mrs\.)(?<!\bSt\.)(?<=[.!?])\s+|(?<=[。！？；])|\n"
)


def split_sentences(message: str) -> list[str]:
    return [s.strip() for s in SENTENCE_END.split(message) if s and s.strip()]


def check_label(label: Any, where: str) -> None:
    assert isinstance(label, dict), f"{where}: label must be a mapping"
    assert set(label) == {"en", "zh"}, f"{where}: label needs exactly en and zh"
    for lang, text in label.items():
        assert isinstance(text, str) and text.strip(), f"{where}: empty {lang} label"
    assert CJK.search(label["zh"]), f"{where}: zh label has no Chinese"


def check_aliases(aliases: Any, where: str) -> None:
    assert isinstance(aliases, list) and aliases, f"{where}: aliases must be a non-empty list"
    assert all(isinstance(a, str) and a.strip() for a in aliases), f"{where}: empty alias"
    assert any(CJK.search(a) for a in aliases), f"{where}: no Chinese alias"
    assert any(a.isascii() for a in aliases), f"{where}: no English alias"


# --------------------------------------------------------------------------- schema


@pytest.mark.parametrize("pack", PACKS)
def test_top_level(pack: str) -> None:
    data = load(pack)
    assert set(data) <= TOP_KEYS, f"unknown keys {set(data) - TOP_KEYS}"
    assert data["version"] == 1
    assert isinstance(data["attributes"], dict) and len(data["attributes"]) >= 10


@pytest.mark.parametrize("pack", PACKS)
def test_attributes(pack: str) -> None:
    for attr, spec in load(pack)["attributes"].items():
        where = f"{pack}:{attr}"
        assert is_slug(attr), f"{where}: not a slug"
        assert isinstance(spec, dict), where
        assert set(spec) <= ATTRIBUTE_KEYS, f"{where}: unknown keys {set(spec) - ATTRIBUTE_KEYS}"
        check_label(spec["label"], where)
        check_aliases(spec["aliases"], where)
        assert spec.get("stability", "low") in STABILITIES, where
        assert spec.get("cardinality", "one") in CARDINALITIES, where
        seen: dict[str, int] = {}
        for i, group in enumerate(spec.get("values", [])):
            assert isinstance(group, list) and group, f"{where}: values group {i} is empty"
            for spelling in group:
                assert isinstance(spelling, str) and spelling.strip(), f"{where}: bad spelling"
                key = spelling.casefold()
                assert key not in seen or seen[key] == i, f"{where}: {spelling!r} in two groups"
                seen[key] = i
        for key in ("extract", "invalidate"):
            patterns = spec.get(key, [])
            assert isinstance(patterns, list), f"{where}: {key} must be a list"
            assert all(isinstance(p, str) and p for p in patterns), f"{where}: empty {key}"
        # A slot the grammar fills (rules.md#grammar) needs no patterns of its own: one
        # with grammar words, a count another names, a person's `relation`, `habits`.
        grammar = load(pack).get("grammar") or {}
        worded = {a for d in ("names", "people", "activities", "skills", "things") for a in grammar.get(d) or {}}
        counts = set((grammar.get("counts") or {}).values())
        filled = attr in worded or attr in counts or attr in ("relation", "habits")
        assert spec.get("extract") or filled, f"{where}: no extract patterns"


@pytest.mark.parametrize("pack", PACKS)
def test_patterns_compile_with_a_value_group(pack: str) -> None:
    for attr, spec in load(pack)["attributes"].items():
        for key in ("extract", "invalidate"):
            for pattern in spec.get(key, []):
                where = f"{pack}:{attr}:{key}: {pattern[:60]}"
                try:
                    regex = re.compile(pattern)
                except re.error as exc:  # pragma: no cover - the assertion reports it
                    pytest.fail(f"{where}: {exc}")
                assert set(regex.groupindex) <= GROUPS, f"{where}: unknown named group"
                if key == "extract":
                    assert "value" in regex.groupindex, f"{where}: no `value` group"


@pytest.mark.parametrize("pack", PACKS)
def test_every_attribute_speaks_english_and_chinese(pack: str) -> None:
    for attr, spec in load(pack)["attributes"].items():
        for dim, words in (load(pack).get("grammar") or {}).items():
            if isinstance(words, dict) and isinstance(words.get(attr), dict):
                assert {"en", "zh"} <= set(words[attr]), f"{pack}:{attr}: grammar {dim} needs en and zh words"
        if "extract" not in spec:
            continue
        extract = spec["extract"]
        assert any(CJK.search(p) for p in extract), f"{pack}:{attr}: no Chinese pattern"
        assert any(p.startswith(("(?i)", "(?ix)")) for p in extract), (
            f"{pack}:{attr}: no English pattern"
        )


@pytest.mark.parametrize("pack", PACKS)
def test_topics(pack: str) -> None:
    data = load(pack)
    attributes = data["attributes"]
    topics = data.get("topics", {})
    assert isinstance(topics, dict) and topics
    for topic, spec in topics.items():
        where = f"{pack}:topic {topic}"
        assert is_slug(topic), where
        assert set(spec) <= TOPIC_KEYS, f"{where}: unknown keys {set(spec) - TOPIC_KEYS}"
        check_label(spec["label"], where)
        check_aliases(spec["aliases"], where)
        assert spec["attributes"], f"{where}: no attributes"
        for attr in spec["attributes"]:
            assert attr in attributes, f"{where}: undeclared attribute {attr}"


def edges(pack: str) -> list[tuple[str, str]]:
    return [(d["when"], d["then"]) for d in load(pack).get("dependencies", [])]


@pytest.mark.parametrize("pack", PACKS)
def test_dependencies(pack: str) -> None:
    data = load(pack)
    attributes = data["attributes"]
    declared = set(attributes)
    ids: set[str] = set()
    for i, dep in enumerate(data.get("dependencies", [])):
        where = f"{pack}:dependency {i} ({dep.get('id')})"
        assert set(dep) <= DEPENDENCY_KEYS, f"{where}: unknown keys {set(dep) - DEPENDENCY_KEYS}"
        assert dep["when"] in attributes, f"{where}: undeclared {dep['when']}"
        assert dep["then"] in attributes, f"{where}: undeclared {dep['then']}"
        assert dep["when"] != dep["then"], f"{where}: depends on itself"
        assert attributes[dep["then"]].get("stability") != "high", f"{where}: targets a stable fact"
        if "id" in dep:
            assert is_slug(dep["id"]) and dep["id"] not in ids, f"{where}: bad or duplicate id"
            ids.add(dep["id"])
        action = dep.get("action", "confirm")
        assert action in ACTIONS, where
        texts: list[str] = []
        if action == "derive":
            assert ("value" in dep) != ("lookup" in dep), f"{where}: derive needs value or lookup"
            if "value" in dep:
                texts.append(dep["value"])
            else:
                lookup = dep["lookup"]
                assert isinstance(lookup, dict) and lookup, f"{where}: empty lookup"
                assert all(isinstance(k, str) and isinstance(v, str) for k, v in lookup.items())
            assert "ask" not in dep, where
        elif action == "confirm":
            assert "value" not in dep and "lookup" not in dep, where
            if "ask" in dep:
                check_label(dep["ask"], where)
                texts += dep["ask"].values()
        else:
            assert not {"value", "lookup", "ask"} & set(dep), f"{where}: expire takes no value"
        for text in texts:
            for name in PLACEHOLDER.findall(text):
                assert name in declared, f"{where}: template names unknown {{{name}}}"
    assert len(set(edges(pack))) == len(edges(pack)), f"{pack}: duplicate edge"


@pytest.mark.parametrize("pack", PACKS)
def test_dependency_graph_is_acyclic(pack: str) -> None:
    graph: dict[str, set[str]] = {a: set() for a in load(pack)["attributes"]}
    for when, then in edges(pack):
        graph[when].add(then)
    state: dict[str, int] = {}  # 1 visiting, 2 done

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycle = path[path.index(nxt) :] + [nxt] if nxt in path else [node, nxt]
                pytest.fail(f"{pack}: cycle {' -> '.join(cycle)}")
            if nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])


def test_personal_pack_tells_the_move_story() -> None:
    deps = {(d["when"], d["then"]): d for d in load("personal")["dependencies"]}
    expected = {
        ("home_city", "social_insurance_city"): "derive",
        ("home_city", "employer"): "confirm",
        ("home_city", "home_address"): "confirm",
        ("home_city", "work_city"): "confirm",
        ("employer", "work_address"): "confirm",
        ("employer", "job_title"): "confirm",
        ("home_address", "commute_mode"): "confirm",
        ("home_address", "commute_minutes"): "expire",
        ("work_address", "commute_minutes"): "expire",
    }
    for edge, action in expected.items():
        assert edge in deps and deps[edge]["action"] == action, edge
    assert deps[("home_city", "social_insurance_city")]["value"] == "{home_city}"
    attributes = load("personal")["attributes"]
    assert attributes["birthday"]["stability"] == "high"
    assert not any("birthday" in edge for edge in deps)
    # Doubt travels: nothing the employer or address hangs on may reach the derived
    # social-insurance city, or the move would leave it uncertain instead of Shanghai.
    upstream = {w for w, t in deps if t == "social_insurance_city"}
    assert upstream == {"home_city"}
    cities = {s for group in attributes["home_city"]["values"] for s in group}
    assert {"广州", "Guangzhou", "上海", "Shanghai", "北京", "Beijing"} <= cities
    assert {"深圳", "Shenzhen", "杭州", "Hangzhou", "Berlin", "London", "New York"} <= cities


def test_software_pack_edges() -> None:
    deps = {(d["when"], d["then"]): d["action"] for d in load("software_project")["dependencies"]}
    assert deps[("team_lead", "code_reviewer")] == "confirm"
    assert deps[("team_lead", "weekly_report_recipient")] == "confirm"
    assert deps[("package_manager", "runbook")] == "confirm"


def test_health_pack_edges() -> None:
    deps = {(d["when"], d["then"]): d["action"] for d in load("health")["dependencies"]}
    assert deps[("condition", "medication")] == "confirm"
    assert deps[("condition", "diet")] == "confirm"
    assert deps[("medication", "dosage")] == "expire"


# --------------------------------------------------------------------------- extraction

CASES = [
    # personal, English
    ("I moved to Shanghai for a new job", "personal", "home_city", "Shanghai"),
    ("I moved to Shanghai last week!", "personal", "home_city", "Shanghai"),
    ("We've just relocated to New York City", "personal", "home_city", "New York City"),
    ("I live in Guangzhou, in Haizhu district", "personal", "home_city", "Guangzhou"),
    ("I live in Haizhu, Guangzhou", "personal", "home_city", "Guangzhou"),
    ("I'm based in Berlin now", "personal", "home_city", "Berlin"),
    ("I live in Guangzhou, in Haizhu district", "personal", "home_address", "Haizhu"),
    ("I live in Haizhu District", "personal", "home_address", "Haizhu"),
    ("I live on Jiangnan Road", "personal", "home_address", "Jiangnan Road"),
    ("I work in Tianhe at Lingnan Tech", "personal", "work_address", "Tianhe"),
    ("My office is in Tianhe", "personal", "work_address", "Tianhe"),
    ("I work in Shanghai", "personal", "work_city", "Shanghai"),
    ("I work in Tianhe, Guangzhou", "personal", "work_city", "Guangzhou"),
    ("I work in Tianhe at Lingnan Tech", "personal", "employer", "Lingnan Tech"),
    ("I work for Bank of China", "personal", "employer", "Bank of China"),
    ("I joined ByteDance last month", "personal", "employer", "ByteDance"),
    ("I'm a product designer at Lingnan Tech", "personal", "job_title", "product designer"),
    ("I got promoted to senior designer", "personal", "job_title", "senior designer"),
    ("I'm a point guard for the Rivertown Hawks", "personal", "job_title", "point guard"),
    ("I'm a professional tennis player", "personal", "job_title", "professional tennis player"),
    (
        "I pay social insurance in Guangzhou through Lingnan Tech",
        "personal",
        "social_insurance_city",
        "Guangzhou",
    ),
    ("My social insurance is paid in Shanghai", "personal", "social_insurance_city", "Shanghai"),
    ("I cycle 20 minutes to work", "personal", "commute_mode", "cycle"),
    ("I take the metro to work now", "personal", "commute_mode", "metro"),
    ("I usually go to work by bus", "personal", "commute_mode", "bus"),
    ("I cycle 20 minutes to work", "personal", "commute_minutes", "20"),
    ("It takes me 35 minutes to get to work", "personal", "commute_minutes", "35"),
    ("My commute is about 45 minutes", "personal", "commute_minutes", "45"),
    ("Oh, and my birthday is 14 March", "personal", "birthday", "14 March"),
    ("I was born on March 14, 1990", "personal", "birthday", "March 14, 1990"),
    ("My wife Anna and I went hiking", "personal", "partner", "Anna"),
    ("I'm married to Tom Smith", "personal", "partner", "Tom Smith"),
    ("We adopted another kitten called Maple", "personal", "pets", "Maple"),
    (
        "I'm allergic to peanuts and shellfish",
        "personal",
        "allergies",
        "peanuts and shellfish",
    ),  # a list: split into items
    ("I'm vegetarian", "personal", "diet", "vegetarian"),
    ("I've taken up rock climbing", "personal", "hobby", "rock climbing"),
    ("My favourite food is hot pot", "personal", "favourite_food", "hot pot"),
    ("I grew up in Chaozhou", "personal", "hometown", "Chaozhou"),
    ("I graduated from Sun Yat-sen University", "personal", "university", "Sun Yat-sen University"),
    ("I drive a Tesla Model 3", "personal", "car", "Tesla Model 3"),
    ("My phone number is 138 1234 5678", "personal", "phone", "138 1234 5678"),
    ("My doctor is Dr Chen", "personal", "doctor", "Dr Chen"),
    # personal, Chinese
    ("我搬到上海了，换了份新工作", "personal", "home_city", "上海"),
    ("我上个月搬去了深圳", "personal", "home_city", "深圳"),
    ("我搬到了柳州", "personal", "home_city", "柳州"),
    ("我住在广州海珠，在天河上班，骑车通勤20分钟", "personal", "home_city", "广州"),
    ("我住在广州海珠，在天河上班，骑车通勤20分钟", "personal", "home_address", "海珠"),
    ("我住在广州海珠，在天河上班，骑车通勤20分钟", "personal", "work_address", "天河"),
    ("我住在广州海珠，在天河上班，骑车通勤20分钟", "personal", "commute_mode", "骑车"),
    ("我住在广州海珠，在天河上班，骑车通勤20分钟", "personal", "commute_minutes", "20"),
    # an unknown district keeps its 区
    ("我住在佛山市禅城区", "personal", "home_address", "禅城区"),
    ("我住在江南西路", "personal", "home_address", "江南西路"),
    ("我家在天河", "personal", "home_address", "天河"),
    ("公司在珠江新城", "personal", "work_address", "珠江新城"),
    ("我在上海上班", "personal", "work_city", "上海"),
    ("我在岭南科技上班，是一名产品设计师", "personal", "employer", "岭南科技"),
    ("我在岭南科技上班，是一名产品设计师", "personal", "job_title", "产品设计师"),
    ("我在腾讯工作", "personal", "employer", "腾讯"),
    ("我入职了字节跳动", "personal", "employer", "字节跳动"),
    ("我在岭南科技当设计师", "personal", "job_title", "设计师"),
    ("社保是通过岭南科技在广州交的", "personal", "social_insurance_city", "广州"),
    ("我在上海交社保", "personal", "social_insurance_city", "上海"),
    ("现在坐地铁上班，挤是挤了点", "personal", "commute_mode", "地铁"),
    ("通勤方式是开车", "personal", "commute_mode", "开车"),
    ("我每天骑自行车上班", "personal", "commute_mode", "自行车"),
    ("骑车20分钟就到公司了", "personal", "commute_minutes", "20"),
    ("坐地铁上班要40分钟", "personal", "commute_minutes", "40"),
    ("对了，我的生日是3月14号", "personal", "birthday", "3月14号"),
    ("我是1990年3月14日出生的", "personal", "birthday", "1990年3月14日"),
    ("我老婆叫小雨，她是老师", "personal", "partner", "小雨"),
    ("我养了一只猫叫年糕", "personal", "pets", "年糕"),
    ("我对花生过敏", "personal", "allergies", "花生"),
    ("我花粉过敏", "personal", "allergies", "花粉"),
    ("我现在吃素了", "personal", "diet", "吃素"),
    ("我最近迷上了攀岩", "personal", "hobby", "攀岩"),
    ("我是潮州人", "personal", "hometown", "潮州"),
    ("我是中山大学毕业的", "personal", "university", "中山大学"),
    ("我在一兆韦德健身房办了卡", "personal", "gym", "一兆韦德健身房"),
    ("我买了辆比亚迪海豹", "personal", "car", "比亚迪海豹"),
    # software_project, English
    ("Our team lead is Seokjin Kang", "software_project", "team_lead", "Seokjin Kang"),
    ("Seokjin Kang is our new team lead", "software_project", "team_lead", "Seokjin Kang"),
    (
        "Code reviews go to Seoyun Choi — Seokjin Kang assigned it; if the team lead changes, this assignment would change",
        "software_project",
        "code_reviewer",
        "Seoyun Choi",
    ),
    (
        "The weekly report goes to James Lee",
        "software_project",
        "weekly_report_recipient",
        "James Lee",
    ),
    ("Priya is on call this week", "software_project", "on_call", "Priya"),
    ("Our package manager is pnpm", "software_project", "package_manager", "pnpm"),
    ("We switched to yarn", "software_project", "package_manager", "yarn"),
    ("We've just migrated from npm to pnpm", "software_project", "package_manager", "pnpm"),
    ("We renamed master to main", "software_project", "default_branch", "main"),
    ("Alerts go to #ops-alerts", "software_project", "alert_channel", "#ops-alerts"),
    (
        "We moved our CI from Jenkins to GitHub Actions",
        "software_project",
        "ci_system",
        "GitHub Actions",
    ),
    ("We deploy to Kubernetes", "software_project", "deploy_target", "Kubernetes"),
    ("The backend is written in Go", "software_project", "language", "Go"),
    ("We track issues in Jira", "software_project", "issue_tracker", "Jira"),
    ("We release every Thursday", "software_project", "release_day", "Thursday"),
    # software_project, Chinese
    ("我们的包管理器换成了pnpm", "software_project", "package_manager", "pnpm"),
    ("我们改用yarn了", "software_project", "package_manager", "yarn"),
    ("组长是张伟", "software_project", "team_lead", "张伟"),
    ("我们组长换成李娜了", "software_project", "team_lead", "李娜"),
    ("新来的王芳是组长", "software_project", "team_lead", "王芳"),
    ("代码评审交给李明", "software_project", "code_reviewer", "李明"),
    ("李明负责代码评审", "software_project", "code_reviewer", "李明"),
    ("周报发给李明", "software_project", "weekly_report_recipient", "李明"),
    ("这周值班的是王芳", "software_project", "on_call", "王芳"),
    ("这周王芳值班", "software_project", "on_call", "王芳"),
    ("默认分支改成了main", "software_project", "default_branch", "main"),
    ("告警都推到运维值班群", "software_project", "alert_channel", "运维值班群"),
    ("我们的CI迁移到了GitLab CI", "software_project", "ci_system", "GitLab CI"),
    ("我们部署在阿里云上", "software_project", "deploy_target", "阿里云"),
    ("项目是用Go写的", "software_project", "language", "Go"),
    ("数据库换成了PostgreSQL", "software_project", "database", "PostgreSQL"),
    ("每周四发版", "software_project", "release_day", "周四"),
    ("产品经理是赵敏", "software_project", "product_manager", "赵敏"),
    # health, English
    ("I was diagnosed with gastritis last month", "health", "condition", "gastritis"),
    ("I have type 2 diabetes", "health", "condition", "type 2 diabetes"),
    ("I'm on metformin", "health", "medication", "metformin"),
    ("I take 500 mg of metformin twice a day", "health", "dosage", "500 mg"),
    ("My doctor put me on a low-sugar diet", "health", "diet", "low-sugar"),
    ("I swim twice a week", "health", "exercise_plan", "swim twice a week"),
    ("My blood pressure was 130/85 this morning", "health", "blood_pressure", "130/85"),
    ("I weigh 65 kg", "health", "weight", "65 kg"),
    # health, Chinese
    ("我有胃炎", "health", "condition", "胃炎"),
    ("医生说我有高血压", "health", "condition", "高血压"),
    ("我在吃二甲双胍", "health", "medication", "二甲双胍"),
    ("医生给我开了奥美拉唑", "health", "medication", "奥美拉唑"),
    ("每次500毫克，一天两次", "health", "dosage", "500毫克"),
    ("医生让我低盐饮食", "health", "diet", "低盐"),
    ("我每天跑步5公里", "health", "exercise_plan", "每天跑步5公里"),
    ("我的主治医生是陈医生", "health", "doctor", "陈医生"),
    ("我在中山一院复查", "health", "hospital", "中山一院"),
    ("血压130/85", "health", "blood_pressure", "130/85"),
    ("我是O型血", "health", "blood_type", "O"),
    ("下次复查约在3月3号", "health", "next_appointment", "3月3号"),
    # said in passing, in longer turns
    (
        "I cycle to work, it takes about 20 minutes door to door",
        "personal",
        "commute_minutes",
        "20",
    ),
    ("I work at Fernwood Bank, it's a 30 minute drive", "personal", "commute_minutes", "30"),
    ("I work at Fernwood Bank, it's a 30 minute drive", "personal", "commute_mode", "drive"),
    (
        "I joined Northwind as a staff engineer last Monday",
        "personal",
        "job_title",
        "staff engineer",
    ),
    ("My partner is Alex, we've been together five years", "personal", "partner", "Alex"),
    ("My cat Mochi knocked my coffee off the desk again", "personal", "pets", "Mochi"),
    (
        "My new number is +44 7700 900456, and please forget my address",
        "personal",
        "phone",
        "+44 7700 900456",
    ),
    (
        "Oh, and my email is nora.k@example.org if you need it",
        "personal",
        "email",
        "nora.k@example.org",
    ),
    ("I joined a gym: I go to Iron Temple on Hill Street", "personal", "gym", "Iron Temple"),
    ("我每天骑车上班，大概25分钟", "personal", "commute_minutes", "25"),
    ("我在微光科技做后端开发，公司在天河", "personal", "employer", "微光科技"),
    ("我在微光科技做后端开发，公司在天河", "personal", "job_title", "后端开发"),
    (
        "跟你说个消息，我从微光科技离职了，现在在北风网络当架构师",
        "personal",
        "employer",
        "北风网络",
    ),
    (
        "我的手机号是13812345678，邮箱是lin.wei@example.cn",
        "personal",
        "email",
        "lin.wei@example.cn",
    ),
    ("我生日是1990年3月3日，老家是湖南长沙的", "personal", "hometown", "湖南长沙"),
    ("新年新气象，我办了张健身卡，在乐刻健身，每周去四次", "personal", "gym", "乐刻"),
    ("医生说我蛋白质不够，改成正常饮食了", "personal", "diet", "正常饮食"),
    ("社保在北京交的，时区是东八区", "personal", "timezone", "东八区"),
    ("对了忘了跟你说，我九月份搬到深圳了", "personal", "home_city", "深圳"),
    (
        "The runbook lives at wiki/ops/runbook-v2, that's what on-call should follow",
        "software_project",
        "runbook",
        "wiki/ops/runbook-v2",
    ),
    ("We use npm for the frontend", "software_project", "package_manager", "npm"),
    (
        "The API is written in Go, and the frontend is React",
        "software_project",
        "framework",
        "React",
    ),
    (
        "Our repo is https://git.internal.example/payments/api and CI is GitHub Actions",
        "software_project",
        "repo_url",
        "https://git.internal.example/payments/api",
    ),
    (
        "Our repo is https://git.internal.example/payments/api and CI is GitHub Actions",
        "software_project",
        "ci_system",
        "GitHub Actions",
    ),
    (
        "运维手册在wiki/ops/手册-v3，值班的人按这个来",
        "software_project",
        "runbook",
        "wiki/ops/手册-v3",
    ),
    ("周报每周五发给王强", "software_project", "weekly_report_recipient", "王强"),
    ("哦不对，他请病假了，现在是赵磊值班", "software_project", "on_call", "赵磊"),
    ("终于搞定了，我们上个迭代换成pnpm了", "software_project", "package_manager", "pnpm"),
    ("以后改成周二发版了", "software_project", "release_day", "周二"),
    ("My doctor is Dr. Patel, she's lovely", "health", "doctor", "Dr. Patel"),
    ("I'm now treated at Riverside Clinic instead", "health", "hospital", "Riverside Clinic"),
    (
        "For my diabetes I take metformin, 500 mg twice a day with meals",
        "health",
        "dosage",
        "500 mg",
    ),
    ("My endocrinologist switched me to insulin last week", "health", "medication", "insulin"),
    ("I've been diagnosed with type 2 diabetes as well", "health", "condition", "type 2 diabetes"),
    ("Weigh-in day: I'm 75 kg now", "health", "weight", "75 kg"),
    ("我有慢性胃炎，每天早饭前吃奥美拉唑", "health", "medication", "奥美拉唑"),
    ("我在中山一院看病，主治医生是李主任，人很好", "health", "doctor", "李主任"),
    ("上周内分泌科医生把我的药换成胰岛素了", "health", "medication", "胰岛素"),
    ("又去医院了，我被确诊了2型糖尿病", "health", "condition", "2型糖尿病"),
    ("今天称了一下，体重73公斤了", "health", "weight", "73公斤"),
    # job changes, Chinese job phrases, offices, loose commutes, birthdays, children, hobbies
    ("I quit Lumen Labs and started at Northwind last Monday", "personal", "employer", "Northwind"),
    ("I left Lumen Labs for Northwind", "personal", "employer", "Northwind"),
    ("I'm at Northwind now", "personal", "employer", "Northwind"),
    ("I was working at a tiny startup called Bench then", "personal", "employer", "Bench"),
    ("我在美团做后端开发", "personal", "employer", "美团"),
    ("在华为做测试", "personal", "employer", "华为"),
    ("现在在阿里上班，刚入职两周", "personal", "employer", "阿里"),
    ("my office is in Canary Wharf", "personal", "work_address", "Canary Wharf"),
    ("our office is at Broadgate in London", "personal", "work_city", "London"),
    ("我在张江软件园上班", "personal", "work_address", "张江软件园"),
    ("I take the tube in, about 30 min", "personal", "commute_mode", "tube"),
    ("I take the tube in, about 30 min", "personal", "commute_minutes", "30"),
    ("it's more like 55 minutes door to door", "personal", "commute_minutes", "55"),
    ("现在只能坐地铁上班了，要四十分钟", "personal", "commute_mode", "地铁"),
    ("现在只能坐地铁上班了，要四十分钟", "personal", "commute_minutes", "四十"),
    ("坐地铁上班要半小时", "personal", "commute_minutes", "半小时"),
    ("我叫小王，生日是1992年7月3号", "personal", "birthday", "1992年7月3号"),
    ("大宝叫乐乐，二宝叫安安", "personal", "children", "乐乐"),
    ("my eldest son is called Leo", "personal", "children", "Leo"),
    (
        "I'm into bouldering and sourdough baking",
        "personal",
        "hobby",
        "bouldering and sourdough baking",
    ),
    ("I also play chess", "personal", "hobby", "chess"),
    ("我的爱好是摄影和徒步", "personal", "hobby", "摄影和徒步"),
    ("我住在成都高新区", "personal", "home_address", "高新区"),
    ("I live in Walthamstow", "personal", "home_address", "Walthamstow"),
    ("I live in Leytonstone, London", "personal", "home_address", "Leytonstone"),
    ("I lived in Calgary till 2023", "personal", "home_city", "Calgary"),
    ("我在卡尔加里住到2023年", "personal", "home_city", "卡尔加里"),
    (
        "代码仓库在 https://git.example.cn/infra/gateway",
        "software_project",
        "repo_url",
        "https://git.example.cn/infra/gateway",
    ),
    ("CI用的GitLab CI", "software_project", "ci_system", "GitLab CI"),
]


def test_case_table_is_big_and_bilingual() -> None:
    chinese = [c for c in CASES if CJK.search(c[0])]
    assert len(CASES) >= 60
    assert len(chinese) * 2 >= len(CASES)
    for pack in PACKS:
        assert any(c[1] == pack for c in CASES)


@pytest.mark.parametrize(("sentence", "pack", "attribute", "expected"), CASES)
def test_extract(sentence: str, pack: str, attribute: str, expected: str) -> None:
    assert first_value(pack, attribute, sentence) == expected


NOT_EXTRACTED = [
    # an attribute's patterns that must stay silent on a near miss
    ("My friend just moved to Berlin", "personal", "home_city"),
    ("以前我住在广州", "personal", "home_city"),
    ("他住在北京", "personal", "home_city"),
    ("我爸妈住在北京", "personal", "home_city"),
    ("I live in Haizhu District", "personal", "home_city"),
    ("I work in Marketing", "personal", "work_city"),
    ("I joined Caroline at the park", "personal", "employer"),
    ("我在家工作", "personal", "employer"),
    ("我在上海上班", "personal", "employer"),
    ("I drive to Caroline's place on Sundays", "personal", "commute_mode"),
    ("我周末骑车去公园", "personal", "commute_mode"),
    ("I'm a big fan of the manager", "personal", "job_title"),
    (
        "If the team lead changes, the weekly report recipient will be James Lee",
        "software_project",
        "weekly_report_recipient",
    ),
    ("如果组长换了，周报就发给李明", "software_project", "weekly_report_recipient"),
    ("我有点头痛", "health", "condition"),
    ("我每天骑车上班", "health", "exercise_plan"),
    ("我住在成都的时候很开心", "personal", "home_city"),
    ("My doctor is Dr", "health", "doctor"),
    ("I live in Walthamstow", "personal", "home_city"),
    ("I left London for Berlin", "personal", "employer"),
    ("I'm at Heathrow now", "personal", "employer"),
    ("I'm at the airport now", "personal", "employer"),
    ("我入职快一年了", "personal", "employer"),
    ("我在外面做销售", "personal", "employer"),
    ("I'm into it", "personal", "hobby"),
    ("周末我喜欢在家睡觉", "personal", "hobby"),
]


@pytest.mark.parametrize(("sentence", "pack", "attribute"), NOT_EXTRACTED)
def test_near_misses(sentence: str, pack: str, attribute: str) -> None:
    assert first_value(pack, attribute, sentence) is None


INVALIDATIONS = [
    ("我搬到上海了，换了份新工作", "personal", "employer"),
    ("I moved to Shanghai for a new job", "personal", "employer"),
    ("I got a new job", "personal", "employer"),
    ("我辞职了", "personal", "employer"),
    ("I was laid off", "personal", "employer"),
    ("We moved last week", "personal", "home_address"),
    ("我们搬家了", "personal", "home_address"),
    ("I moved out of Guangzhou", "personal", "home_city"),
    ("我离开了广州", "personal", "home_city"),
    ("I work from home now", "personal", "commute_mode"),
    ("我现在在家办公", "personal", "commute_mode"),
    ("We broke up", "personal", "partner"),
    ("I stopped taking my meds", "health", "medication"),
    ("我停药了", "health", "medication"),
    ("I left Lumen Labs", "personal", "employer"),
    ("跟你说个消息，我从微光科技离职了", "personal", "employer"),
    ("Our team lead has left", "software_project", "team_lead"),
    ("组长离职了", "software_project", "team_lead"),
]


@pytest.mark.parametrize(("sentence", "pack", "attribute"), INVALIDATIONS)
def test_invalidate(sentence: str, pack: str, attribute: str) -> None:
    assert invalidates(pack, attribute, sentence)


def test_invalidations_need_a_plain_statement() -> None:
    # "I moved to Shanghai" states a new city; only a move with no place named expires.
    assert not invalidates("personal", "home_address", "I moved to Shanghai last week")
    assert not invalidates("personal", "home_city", "I moved the couch to the other room")
    assert not invalidates("personal", "employer", "I left London in 2020")
    # "if I change jobs, this would change" teaches a dependency; it ends no job.
    assert not invalidates("personal", "employer", "不过车位是跟着工作的，如果我换工作，这个也会变")


@pytest.mark.parametrize(
    ("sentence", "value", "date"),
    [
        ("Random memory: I lived in Wuhan back in 2018, the noodles were great", "Wuhan", "2018"),
        ("2019年我住在成都的时候，几乎每周都吃", "成都", "2019年"),
    ],
)
def test_the_past_is_extracted_only_with_its_date(sentence: str, value: str, date: str) -> None:
    for pattern in compiled("personal")["home_city"][0]:
        match = pattern.search(sentence)
        if match:
            assert (match.group("value"), match.groupdict().get("date")) == (value, date)
            return
    pytest.fail("no pattern matched")


CHIT_CHAT = [
    "my favourite part is when the music starts",
    "the thing is, I don't know",
    "That sounds like a lot of fun",
    "Haha yeah, I know what you mean",
    "I went to a support group yesterday and it was so powerful",
    "We should totally get coffee sometime",
    "Thanks for asking, I'm doing okay",
    "It was a long week but I made it through",
    "I took my kids to the beach last weekend",
    "I moved the couch to the other room",
    "I work best in the morning",
    "I live for moments like this",
    "I'm at the park with the dog",
    "The weather in Shanghai is lovely today",
    "My friend just moved to Berlin",
    "I switched to a new notebook app and I love it",
    "Concerts are what I live for",
    "I'm on my way, see you soon",
    "哈哈，我也是这么想的",
    "今天天气真不错",
    "那部电影我看了两遍",
    "我觉得你说得对",
    "周末我们去爬山吧",
    "我昨天吃了一碗牛肉面，超好吃",
    "我在想要不要剪个头发",
    "我在家看书",
    "我在路上了，马上到",
    "他住在隔壁",
    "其实我也不太清楚",
    "音乐响起来的那一刻我最喜欢",
    "我周末骑车去公园转了一圈",
    "他们组最近挺忙的",
    "I'm at the park now, it's lovely",
    "I'm into that idea",
    "I'm a team player, you know",
    "我入职快一年了，还挺开心",
    "周末我喜欢在家睡觉",
]


def test_chit_chat_table_is_big_and_bilingual() -> None:
    assert len(CHIT_CHAT) >= 20
    assert sum(bool(CJK.search(s)) for s in CHIT_CHAT) >= 10


@pytest.mark.parametrize("sentence", CHIT_CHAT)
def test_chit_chat_extracts_nothing(sentence: str) -> None:
    for pack in PACKS:
        for attr, (extract, invalidate) in compiled(pack).items():
            for pattern in extract + invalidate:
                match = pattern.search(sentence)
                assert match is None, f"{pack}:{attr} matched {match.group(0)!r}"


# --------------------------------------------------------------------------- sample transcripts

SPEAKER = re.compile(r"^(User|Assistant|用户|助手):\s*(.*)$")


def transcript_facts(path: Path) -> dict[str, str]:
    """What the personal pack extracts from the person's turns of one transcript."""
    lines = path.read_text(encoding="utf-8").splitlines()
    assert re.fullmatch(r"## \d{4}-\d{2}-\d{2}", lines[0]), f"{path.name}: no dated header"
    facts: dict[str, str] = {}
    for line in lines[1:]:
        match = SPEAKER.match(line)
        assert match or not line.strip(), f"{path.name}: not a speaker line: {line!r}"
        if not match or match.group(1) not in ("User", "用户"):
            continue
        for sentence in split_sentences(match.group(2)):
            for attr in compiled("personal"):
                value = first_value("personal", attr, sentence)
                if value is not None:
                    assert facts.get(attr, value) == value, f"{path.name}: {attr} said twice"
                    facts[attr] = value
                if invalidates("personal", attr, sentence):
                    facts.setdefault(attr, "<invalidated>")
    return facts


TRANSCRIPT_FACTS = {
    "2025-08-15-en.md": {
        "home_city": "Guangzhou",
        "home_address": "Haizhu",
        "work_address": "Tianhe",
        "employer": "Lingnan Tech",
        "job_title": "product designer",
        "commute_mode": "cycle",
        "commute_minutes": "20",
        "social_insurance_city": "Guangzhou",
        "birthday": "14 March",
    },
    "2026-02-10-en.md": {
        "home_city": "Shanghai",
        "employer": "<invalidated>",
        "commute_mode": "metro",
    },
    "2025-08-15-zh.md": {
        "home_city": "广州",
        "home_address": "海珠",
        "work_address": "天河",
        "employer": "岭南科技",
        "job_title": "产品设计师",
        "commute_mode": "骑车",
        "commute_minutes": "20",
        "social_insurance_city": "广州",
        "birthday": "3月14号",
    },
    "2026-02-10-zh.md": {
        "home_city": "上海",
        "employer": "<invalidated>",
        "commute_mode": "地铁",
    },
}


@pytest.mark.parametrize("name", sorted(TRANSCRIPT_FACTS))
def test_sample_transcripts_tell_the_story_and_nothing_else(name: str) -> None:
    assert transcript_facts(TRANSCRIPTS / name) == TRANSCRIPT_FACTS[name]


# --------------------------------------------------------------------------- speed

ADVERSARIAL = [
    "I " + "moved to " * 300 + "a",
    "I live in " + "Aa " * 1500 + "!",
    "I work at " + "Lingnan Tech " * 400 + "in",
    "my " + "favourite " * 500,
    "我" * 3000,
    "我住在" + "广州海珠" * 500 + "x",
    "社保" + "在" * 2000,
    "组长是" + "张" * 2000,
    "I'm a " + "senior " * 800 + "x",
    "a" * 10000,
    "1" * 5000 + " minutes",
]


@pytest.mark.parametrize("pack", PACKS)
def test_patterns_do_not_backtrack_catastrophically(pack: str) -> None:
    for attr, (extract, invalidate) in compiled(pack).items():
        for pattern in extract + invalidate:
            for text in ADVERSARIAL:
                start = time.perf_counter()
                pattern.search(text)
                took = time.perf_counter() - start
                assert took < 0.5, f"{pack}:{attr} took {took:.2f}s: {pattern.pattern[:80]}"


@pytest.mark.slow
@pytest.mark.skipif(not LOCOMO.exists(), reason="LoCoMo corpus not available")
def test_locomo_chit_chat_rarely_matches() -> None:
    """Over thousands of sentences of real conversation the packs stay fast and quiet."""
    sentences = [
        sentence
        for conversation in json.loads(LOCOMO.read_text(encoding="utf-8"))
        if conversation["sample_id"] in LOCOMO_DEV
        for key, turns in conversation["conversation"].items()
        if key.startswith("session_") and isinstance(turns, list)
        for turn in turns
        for sentence in split_sentences(turn["text"])
    ]
    assert len(sentences) > 10_000
    for pack in PACKS:
        start = time.perf_counter()
        hits = 0
        for sentence in sentences:
            for extract, invalidate in compiled(pack).values():
                hits += any(p.search(sentence) for p in extract + invalidate)
        took = time.perf_counter() - start
        # A broad pattern shows up as hundreds of hits; the packs produce about ten.
        assert hits < 60, f"{pack}: {hits} matches in chit-chat"
        assert took < 60, f"{pack}: {took:.1f}s"
