"""The model finder's prompt: chunks per session, context marked, a large pack's schema cut down."""

from __future__ import annotations

import json

from mdmem.extract.model_prompt import (
    SCHEMA_LIMIT,
    answer_schema,
    chunks,
    max_tokens,
    system_prompt,
    user_prompt,
)
from mdmem.extract.transcript import parse_transcript
from mdmem.model.rules_yaml import rules_from_mapping


def big_rules():
    attrs = {f"thing_{i}": {"label": {"en": f"thing {i}"}} for i in range(SCHEMA_LIMIT + 5)}
    attrs["home_city"] = {"label": {"en": "home city"}, "values": [["Shanghai", "上海"], ["Paris"]]}
    return rules_from_mapping({"attributes": attrs})


def msgs(text: str):
    return parse_transcript(text, source="t", default_time="2026-02-10")


def test_chunks_follow_sessions_and_size():
    text = "## 2026-02-10\n\n" + "".join(f"User: m{i}\nAssistant: ok\n" for i in range(10))
    text += "\n## 2026-02-11\n\nUser: next day\n"
    got = chunks(msgs(text), size=4, window=2)
    assert [len(c.targets) for c in got] == [4, 4, 2, 1]
    assert [m.text for m in got[1].shown][:2] == ["m3", "ok"]  # two earlier messages as context
    assert [m.text for m in got[3].shown] == ["next day"]  # another session is not context
    assert [len(c.targets) for c in chunks(msgs(text), targets={3, 5})] == [2]


def test_a_large_pack_shows_each_chunk_only_the_attributes_it_names():
    rules = big_rules()
    system = system_prompt(rules)
    assert "thing_1:" not in system and "home_city" not in system  # stable: no schema
    chunk = chunks(msgs("User: I moved to 上海 last week.\n"))[0]
    user = user_prompt(chunk, rules, {}, "2026-02-10")
    assert "- home_city: home city; one; e.g. Shanghai, Paris" in user and "thing_1" not in user


def test_a_small_pack_puts_its_whole_schema_in_the_stable_part(tmp_path):
    from mdmem.model.rules_yaml import load_rules
    from tests.conftest import ROOT

    rules = load_rules(ROOT / "rules" / "personal.yaml")
    system = system_prompt(rules)
    assert "- home_city: home city / 居住城市; one; e.g. 广州, 上海, 北京, 深圳" in system
    assert "/Guangzhou" not in system  # no slash-joined spellings to copy as a value
    assert "Example." in system and '"context": true' in system


def test_the_answer_schema_and_the_answer_cap():
    fmt = answer_schema()
    item = fmt["json_schema"]["schema"]["properties"]["facts"]["items"]
    assert fmt["type"] == "json_schema" and "message" in item["required"]
    json.dumps(fmt)  # serialisable as sent
    chunk = chunks(msgs("User: a\nUser: b\n"))[0]
    assert max_tokens(chunk) == 256 + 2 * 192
