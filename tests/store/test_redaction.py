"""Redaction by statement: a statement's span, what protects another fact's words, the journal
purge and the caches' marker."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mdmem import Vault
from mdmem.edit.forget import forget
from mdmem.edit.ingest import ingest_text
from mdmem.model.episode import parse
from mdmem.model.rules_yaml import load_rules
from mdmem.store import scrub
from mdmem.store.statements import Reader, evidence_place, sentence_spans, subtract, word_spans
from tests.conftest import make_vault

ROOT = Path(__file__).resolve().parents[2]
READER = Reader(load_rules(ROOT / "rules" / "personal.yaml"))


def spans(text: str) -> dict[str, str]:
    return {s.key: text[s.span[0] : s.span[1]] for s in READER.statements(text, "user")}


@pytest.mark.parametrize(
    ("text", "key", "span"),
    [
        ("I live in Berlin and my social insurance is paid in Berlin too.", "user/social_insurance_city",
         "my social insurance is paid in Berlin too"),
        ("I live in Berlin and my social insurance is paid in Berlin too.", "user/home_city", "I live in Berlin"),
        ("My hometown is Berlin as well.", "user/hometown", "My hometown is Berlin as well."),
        ("Oh, and my birthday is 14 March, remind me to book a table.", "user/birthday", "my birthday is 14 March"),
        ("我住在柏林，社保也在柏林交。", "user/home_city", "我住在柏林"),
    ],
)  # fmt: skip
def test_a_statement_is_its_clause_and_the_sentence_when_it_fills_it(text: str, key: str, span: str) -> None:
    assert spans(text)[key] == span


def test_sentences_subtraction_words_and_links() -> None:
    text = "I moved. Mr. Smith said hi!\n第二句。第三句"
    assert [text[a:b] for a, b in sentence_spans(text)] == ["I moved.", "Mr.", "Smith said hi!", "第二句。", "第三句"]
    assert subtract([(0, 10), (5, 20)], [(8, 12)]) == [(0, 8), (12, 20)]
    assert word_spans("Berliner in Berlin", "berlin") == [(12, 18)]
    assert word_spans("住在柏林市", "柏林") == [(2, 4)]
    assert evidence_place("[[episodes/2026/2026-02-10-en#^m3]]") == ("episodes/2026/2026-02-10-en.md", "m3")
    assert evidence_place("cli") is None


def test_a_repeated_statement_goes_too_and_the_same_word_elsewhere_stays(tmp_path: Path) -> None:
    v = make_vault(tmp_path / "v", "personal")
    ingest_text(v, "## 2025-08-15\nUser: My locker code is 4417.\n", source="a.md")
    ingest_text(v, "## 2025-09-01\nUser: Again: my locker code is 4417. Room 4417 is my office.\n",
                source="b.md")  # fmt: skip
    v = Vault(v.root)
    v.forget("locker_code")
    text = "".join(p.read_text("utf-8") for p in sorted((v.root / "episodes").rglob("*.md")))
    assert "my locker code is 4417" not in text.lower()
    assert "Room 4417 is my office." in text  # the same number, meaning something else


def test_a_derived_value_goes_and_its_doubt_is_asked_without_it(tmp_path: Path) -> None:
    v = make_vault(tmp_path / "v", "personal")
    ingest_text(v, "## 2025-08-15\nUser: I live in Guangzhou. My social insurance is paid in Guangzhou. I work at Acme.\n",
                source="a.md")  # fmt: skip
    ingest_text(v, "## 2026-02-10\nUser: I moved to Hangzhou.\n", source="b.md")
    v = Vault(v.root)
    assert v.facts["user/social_insurance_city"].value == "Hangzhou"
    result = v.forget("home_city", dry_run=True)
    assert {c.key: c.decision for c in result.plan.changes}["user/social_insurance_city"] == "FORGET"
    assert [(c.episode, c.anchor, c.text) for c in result.cuts] == [
        ("episodes/2025/2025-08-15-a.md", "m1", "I live in Guangzhou."),
        ("episodes/2026/2026-02-10-b.md", "m1", "I moved to Hangzhou."),
    ]
    v.forget("home_city")
    v = Vault(v.root)
    insurance = v.facts["user/social_insurance_city"]
    assert insurance.value is None and [h["value"] for h in insurance.history] == ["Guangzhou"]
    for fact in v.facts.values():
        assert "Hangzhou" not in json.dumps(fact.to_mapping(), ensure_ascii=False), fact.key


def test_purge_touches_only_the_forgotten_facts_records(tmp_path: Path) -> None:
    v = make_vault(tmp_path / "v", "personal")
    ingest_text(v, "## 2025-08-15\nUser: I live in Berlin. My hometown is Berlin.\n", source="a.md")
    before = (v.meta / "journal.jsonl").read_text("utf-8").splitlines()
    Vault(v.root).forget("hometown", purge=True)
    lines = (v.meta / "journal.jsonl").read_text("utf-8").splitlines()
    first = json.loads(lines[0])
    kept = [c for c in first["changes"] if c["fact"] == "user/home_city"]
    assert kept == [c for c in json.loads(before[0])["changes"] if c["fact"] == "user/home_city"]
    assert all(c.get("purged") for c in first["changes"] if c["fact"] == "user/hometown")


def test_a_marker_left_by_a_kill_makes_the_next_command_drop_the_caches(tmp_path: Path) -> None:
    v = make_vault(tmp_path / "v", "personal")
    ingest_text(v, "## 2025-08-15\nUser: My birthday is 14 March.\n", source="a.md")
    (v.meta / "index.sqlite").write_bytes(b"14 March")
    (v.meta / "passages.sqlite-wal").write_bytes(b"14 March")
    (v.meta / "llm-cache" / "ab").mkdir(parents=True)
    (v.meta / "llm-cache" / "ab" / "abc.json").write_text('{"answer": "14 March"}', "utf-8")
    (v.meta / scrub.MARK).write_text('{"pid": 0, "purge": {}}', "utf-8")  # a killed forget's
    v = Vault(v.root)
    assert v.facts["user/birthday"].value == "14 March"  # a read: it finishes the forget's scrub
    assert scrub.marked(v.meta) is None
    assert not (v.meta / "passages.sqlite-wal").exists() and not (v.meta / "llm-cache").exists()
    # The planted snapshot is gone; the read may have filled a new one (the live fact is in it).
    snapshot = v.meta / "index.sqlite"
    assert not snapshot.exists() or snapshot.read_bytes().startswith(b"SQLite format 3\x00")
    assert any("interrupted forget" in n for n in v.notes)


def test_the_model_cache_loses_every_answer_that_holds_a_forgotten_value(tmp_path: Path) -> None:
    folder = tmp_path / "llm-cache" / "ab"
    folder.mkdir(parents=True)
    (folder / "a.json").write_text(json.dumps({"answer": "生日 3月14日"}), "utf-8")  # escaped
    (folder / "b.json").write_text(json.dumps({"answer": "Berlin"}), "utf-8")
    assert scrub.scrub_model_cache(tmp_path, ["3月14日"]) == 1
    assert [p.name for p in folder.iterdir()] == ["b.json"]


def test_the_examples_of_docs_episodes_md(tmp_path: Path) -> None:
    cases = [
        ("User: I live in Berlin and my social insurance is paid in Berlin too.\nUser: My hometown is"
         " Berlin as well.\nUser: Again: my locker code is 4417. Room 4417 is my office.\n",
         ["social_insurance_city", "locker_code"],
         ["I live in Berlin and [forgotten].", "My hometown is Berlin as well.",
          "Again: [forgotten]. Room 4417 is my office."]),
        ("用户：我住在柏林，社保也在柏林交。\n", ["social_insurance_city"], ["我住在柏林，[forgotten]。"]),
    ]  # fmt: skip
    for n, (chat, attributes, left) in enumerate(cases):
        v = make_vault(tmp_path / f"v{n}", "personal")
        ingest_text(v, "## 2026-02-10\n" + chat, source="en.md")
        for attribute in attributes:
            forget(Vault(v.root), attribute)
        [path] = (v.root / "episodes").rglob("*.md")
        assert [m.text for m in parse(path.read_text("utf-8")).messages] == left


def test_a_fact_that_holds_no_value_is_forgotten_with_its_statement(tmp_path: Path) -> None:
    v = make_vault(tmp_path / "v", "personal")
    ingest_text(v, "## 2026-02-10\nUser: I don't have any pets. I live in Leeds.\n", source="a.md")
    v = Vault(v.root)
    assert v.facts["user/pets"].kind == "none"
    assert [d for _, d in v.forget("pets").plan.decisions] == ["DELETE"]
    [path] = (v.root / "episodes").rglob("*.md")
    assert [m.text for m in parse(path.read_text("utf-8")).messages] == ["[forgotten] I live in Leeds."]
