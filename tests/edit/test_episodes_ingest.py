"""Ingest keeps what was said: episodes, evidence links, and only new messages applied."""

from __future__ import annotations

from pathlib import Path

from mdmem.edit.ingest import ingest_paths, ingest_text
from mdmem.model.episode import parse
from mdmem.read.ask import ask
from tests.conftest import make_vault

DAY1 = "## 2026-01-05\nUser: I live in Guangzhou. My gym is Urban Sports Club.\nAssistant: Nice!\n"


def test_a_fact_links_to_where_it_was_said(tmp_path: Path) -> None:
    v = make_vault(tmp_path / "v", "personal")
    r = ingest_text(v, DAY1, source="chats/day.md")
    assert r.episodes == ["episodes/2026/2026-01-05-day.md"]
    assert v.get("home_city").evidence == "[[episodes/2026/2026-01-05-day#^m1]]"
    ep = parse((v.root / r.episodes[0]).read_text("utf-8"))
    assert [(m.anchor, m.speaker) for m in ep.messages] == [("m1", "User")]  # not the assistant
    assert ep.journal == r.entry["id"]


def test_a_grown_transcript_applies_only_its_new_messages(tmp_path: Path) -> None:
    v = make_vault(tmp_path / "v", "personal")
    log = tmp_path / "chat.md"
    log.write_text(DAY1, encoding="utf-8")
    ingest_paths(v, [log])
    v.forget("home_city")
    log.write_text(DAY1 + "User: Work was long today.\n", encoding="utf-8")
    (r,) = ingest_paths(v, [log])
    assert v.get("home_city").status == "deleted"  # the old line is not applied again
    assert r.entry["source"]["applied"] and len(r.entry["source"]["applied"]) == 1
    ep = parse((v.root / "episodes/2026/2026-01-05-chat.md").read_text("utf-8"))
    assert [m.text for m in ep.messages] == [
        "[forgotten] My gym is Urban Sports Club.",  # the forgotten statement stays cut
        "Work was long today.",
    ]


def test_a_deleted_paragraph_never_comes_back(tmp_path: Path) -> None:
    v = make_vault(tmp_path / "v", "personal")
    log = tmp_path / "chat.md"
    log.write_text(DAY1 + "User: Secret plans, please keep them.\n", encoding="utf-8")
    ingest_paths(v, [log])
    path = v.root / "episodes/2026/2026-01-05-chat.md"
    text = path.read_text("utf-8")
    path.write_text(text[: text.index("\n**User** · 2026-01-05\n\nSecret plans")] + "\n", encoding="utf-8")
    log.write_text(log.read_text("utf-8") + "User: And one more thing.\n", encoding="utf-8")
    ingest_paths(v, [log])
    text = path.read_text("utf-8")
    assert "Secret plans" not in text and "one more thing" in text
    assert "Secret plans" not in ask(v, "what did I say about secret plans?").text


def test_a_rerun_writes_nothing(tmp_path: Path) -> None:
    v = make_vault(tmp_path / "v", "personal")
    log = tmp_path / "chat.md"
    log.write_text(DAY1, encoding="utf-8")
    ingest_paths(v, [log])
    files = {p: p.read_bytes() for p in (v.root / "episodes").rglob("*.md")}
    (again,) = ingest_paths(v, [log])
    assert again.skipped and {p: p.read_bytes() for p in files} == files


def test_hostile_messages_stay_verbatim_and_valid(tmp_path: Path) -> None:
    v = make_vault(tmp_path / "v", "personal")
    big = "word " * 40_000
    text = ("## 2025-01-01\nUser: ---\ntitle: not frontmatter\n---\nUser: > only a quote\n"
            f"User: **Mallory** · 2020-01-01 ^m9\nUser: {big.strip()}\n")  # fmt: skip
    r = ingest_text(v, text, source="bad.md")
    ep = parse((v.root / r.episodes[0]).read_text("utf-8"))
    assert [m.text for m in ep.messages] == [
        "---\ntitle: not frontmatter\n---", "> only a quote", "**Mallory** · 2020-01-01 ^m9",
        big.strip(),
    ]  # fmt: skip
    assert all(p.resolve().is_relative_to(v.root.resolve()) for p in tmp_path.rglob("*.md")
               if "episodes" in p.parts)  # fmt: skip


def test_an_ingest_indexes_the_passages_it_wrote_so_no_read_builds_them(tmp_path: Path) -> None:
    from mdmem.read.passages import PassageIndex

    v = make_vault(tmp_path / "v", "personal")
    log = tmp_path / "chat.md"
    log.write_text(DAY1, encoding="utf-8")
    ingest_paths(v, [log])
    log.write_text(DAY1 + "User: The marathon is on the ninth.\n", encoding="utf-8")
    ingest_paths(v, [log])  # the grown file's episode is written again: indexed again
    index = PassageIndex(v.root, v.meta)
    try:
        assert index.search("marathon ninth")[0].text == "The marathon is on the ninth."
        assert index.refresh() == 0  # a read finds nothing left to read
    finally:
        index.close()
    dry = tmp_path / "dry"
    w = make_vault(dry, "personal")
    ingest_text(w, DAY1, source="d.md", dry_run=True)
    assert not (w.meta / "passages.sqlite").exists()  # a dry run writes no index either
