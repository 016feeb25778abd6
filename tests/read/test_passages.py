"""Passages from episode files: indexed, found, quoted, and kept in step with hand edits."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mdmem.model.episode import Episode, Said, episode_path, render
from mdmem.read.compose import from_passages
from mdmem.read.match import naming
from mdmem.read.passages import MAX_CHARS, PassageIndex, named_speaker, split_passages
from mdmem.read.question import Question, named_period
from mdmem.read.said import quote
from mdmem.read.spans import when_text


def _write(root: Path, date: str, source: str, *messages: tuple[str, str]) -> Path:
    ep = Episode(source, "0" * 64, date, sorted({w for w, _ in messages}), None,
                 [Said(f"m{i + 1}", w, None, t) for i, (w, t) in enumerate(messages)])  # fmt: skip
    path = root / episode_path(date, source)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render(ep), encoding="utf-8")
    return path


@pytest.fixture
def root(tmp_path: Path) -> Path:
    _write(tmp_path, "2023-05-08", "chat-1.md",
           ("Caroline", "I went to a LGBTQ support group yesterday. It was powerful."),
           ("Melanie", "That's great! I painted a lake sunrise last year."),
           ("Caroline", "Our log drain endpoint is stream.velturis.io/aurora."))  # fmt: skip
    _write(tmp_path, "2023-06-01", "chat-2.md",
           ("Melanie", "We're thinking about going kayaking next month."),
           ("Caroline", "Lovely, I adopted a dog named Pixie."))  # fmt: skip
    return tmp_path


def test_search_finds_the_message_and_says_where_it_is(root: Path) -> None:
    idx = PassageIndex(root, root / ".mdmem")
    assert idx.refresh() == 2
    best = idx.search("What's our log drain endpoint?")[0]
    assert best.text == "Our log drain endpoint is stream.velturis.io/aurora."
    assert (best.speaker, best.date, best.anchor) == ("Caroline", "2023-05-08", "m3")
    assert best.link == "[[episodes/2023/2023-05-08-chat-1#^m3]]"
    assert idx.refresh() == 0  # nothing changed: nothing re-read


def test_a_named_speaker_ranks_first(root: Path) -> None:
    idx = PassageIndex(root, root / ".mdmem")
    idx.refresh()
    who = named_speaker("What did Melanie paint?", idx.speakers())
    assert who == "Melanie"
    assert idx.search("What did Melanie paint?", speaker=who)[0].speaker == "Melanie"
    assert named_speaker("What did we say?", idx.speakers()) is None


def test_hand_edits_and_deletions_are_seen_by_the_next_refresh(root: Path) -> None:
    idx = PassageIndex(root, root / ".mdmem")
    idx.refresh()
    path = root / "episodes/2023/2023-06-01-chat-2.md"
    text = path.read_text(encoding="utf-8").replace("a dog named Pixie", "a cat named Miso")
    path.write_text(text, encoding="utf-8")
    os.utime(path, ns=(1, 1))  # even with an old mtime: size and inode change the signature
    idx.refresh()
    assert idx.search("Pixie") == []
    assert "Miso" in idx.search("cat named Miso")[0].text
    path.unlink()
    idx.refresh()
    assert idx.search("Miso") == []


def test_a_broken_episode_is_reported_not_fatal(root: Path) -> None:
    (root / "episodes/2023/2023-07-01-bad.md").write_text("no frontmatter\n", encoding="utf-8")
    idx = PassageIndex(root, root / ".mdmem")
    idx.refresh()
    assert [p.path for p in idx.problems] == ["episodes/2023/2023-07-01-bad.md"]
    assert idx.search("Pixie")


def test_long_messages_are_split_and_a_huge_line_is_cut() -> None:
    text = " ".join(f"Sentence number {i} is here." for i in range(200))
    parts = split_passages(text)
    assert len(parts) > 1 and all(len(p) <= MAX_CHARS for p in parts)
    assert " ".join(parts) == text
    huge = "x" * 1_000_000
    cut = split_passages(huge)
    assert "".join(cut) == huge and max(map(len, cut)) == MAX_CHARS


def test_when_questions_resolve_relative_dates_against_the_session() -> None:
    assert when_text("I went to a support group yesterday.", "2023-05-08", "en") == "7 May 2023"
    assert when_text("I painted a lake sunrise last year.", "2023-05-08", "en") == "2022"
    assert when_text("昨天我去了", "2023-05-08", "zh") == "2023年5月7日"
    # A day gone by that is not named: a span before the day said, never a made-up day.
    assert when_text("I saw a heron the other night.", "2023-05-08", "en") == "a few days before 8 May 2023"
    assert when_text("I recently took up archery.", "2023-05-08", "en") == "the weeks before 8 May 2023"
    # No time words: what it tells happened by the day it was said.
    assert when_text("I like lakes.", "2023-05-08", "en") == "8 May 2023"
    assert Question.of("When did Caroline go to the support group?").type == "when"
    assert Question.of("卡罗琳什么时候去的？").type == "when"
    assert Question.of("Where does Caroline live?").type != "when"


def test_quotes_are_verbatim_with_date_and_speaker(root: Path) -> None:
    idx = PassageIndex(root, root / ".mdmem")
    idx.refresh()
    q = "When did Caroline go to the LGBTQ support group?"
    found = idx.search(q, limit=1)
    assert quote(found[0], "en") == (
        "On 8 May 2023 Caroline said: “I went to a LGBTQ support group yesterday. It was powerful.”"
    )
    # The date the words tell, resolved against the session, is the answer's first line.
    answered = from_passages(naming(Question.of(q), [], idx.speakers()), found, "en")
    assert answered is not None and answered.first == "7 May 2023"
    assert answered.quotes == [quote(found[0], "en")]
    assert Question.of("Recite the exact error log I shared").said
    assert Question.of("我跟你说过什么？").said
    assert not Question.of("Where do I live?").said


def test_a_period_named_outright_ranks_passages_said_then() -> None:
    assert named_period("What cake did Joanna make in May 2022?") == ("2022-04-24", "2022-06-07")
    assert named_period("Why did she reschedule on September 8, 2023?") == (
        "2023-09-01",
        "2023-09-15",
    )
    assert named_period("What did she finish last Friday?") is None  # relative: no anchor
    assert named_period("我2021年说过什么？") == ("2020-12-25", "2022-01-07")


def test_search_prefers_the_named_period(tmp_path: Path) -> None:
    _write(tmp_path, "2022-05-02", "a.md", ("Joanna", "I made a cake with coconut frosting."))
    _write(tmp_path, "2023-01-10", "b.md", ("Joanna", "I made a cake with lemon frosting."))
    idx = PassageIndex(tmp_path, tmp_path / ".mdmem")
    idx.refresh()
    q = "What frosting was on the cake"
    assert "coconut" in idx.search(q, near=("2022-04-24", "2022-06-07"))[0].text
    assert "lemon" in idx.search(q, near=("2023-01-01", "2023-01-31"))[0].text


def test_context_query_adds_what_was_said_after_the_facts(tmp_path: Path) -> None:
    import json
    import shutil

    from typer.testing import CliRunner

    from mdmem.cli import app
    from tests.conftest import ROOT

    shutil.copytree(ROOT / "sample_vault", tmp_path / "s", ignore=shutil.ignore_patterns(".mdmem"))
    runner = CliRunner()
    args = ["context", "--vault", str(tmp_path / "s"), "--query", "the noodle place downstairs"]
    text = runner.invoke(app, args).output
    facts, said = text.split("## Answer")
    assert "Shanghai" in facts and "noodle place downstairs" in said
    data = json.loads(runner.invoke(app, [*args, "--json"]).output)
    assert "noodle place" in data["passages"][0]["text"]
    assert data["answer"]["answer"] == said.strip().splitlines()[0]
    assert "passages" not in json.loads(runner.invoke(app, args[:3] + ["--json"]).output)


def test_a_large_index_leaves_out_words_most_passages_hold(tmp_path: Path) -> None:
    msgs = [("Ana", f"pottery class number {i}") for i in range(2100)] + [("Ben", "pottery kiln")]
    _write(tmp_path, "2023-01-01", "big.md", *msgs)
    idx = PassageIndex(tmp_path, tmp_path / ".mdmem")
    idx.refresh()
    assert idx._informative(["pottery", "kiln"]) == ["kiln"]
    assert idx._informative(["pottery"]) == ["pottery"]  # nothing else left: kept
    assert idx.search("the pottery kiln")[0].text == "pottery kiln"


def test_an_index_of_another_layout_is_rebuilt_whole(root: Path) -> None:
    import sqlite3

    (root / ".mdmem").mkdir()
    db = sqlite3.connect(root / ".mdmem" / "passages.sqlite")
    db.executescript(
        "CREATE TABLE meta(k TEXT PRIMARY KEY, v TEXT NOT NULL); INSERT INTO meta VALUES('schema', '2');"
        " CREATE VIRTUAL TABLE fts USING fts5(body, context);"
    )
    db.commit()
    db.close()
    idx = PassageIndex(root, root / ".mdmem")
    assert idx.refresh() == 2  # the old columns went with the old tables
    assert idx.search("log drain endpoint")[0].anchor == "m3"


def test_a_passage_said_later_of_the_named_period_ranks_too(tmp_path: Path) -> None:
    _write(tmp_path, "2023-04-20", "chat.md",
           ("John", "My colleagues and I went to a convention together last month."),
           ("John", "My colleagues and I love a convention, any convention."))  # fmt: skip
    idx = PassageIndex(tmp_path, tmp_path / ".mdmem")
    idx.refresh()
    q = "What did John attend with his colleagues in March 2023?"
    best = idx.search(q, near=named_period(q))[0]
    assert "last month" in best.text  # said in April, of March


def test_a_derived_form_of_a_word_finds_the_passage(tmp_path: Path) -> None:
    _write(tmp_path, "2023-03-02", "chat.md",
           ("Dana", "Talking to my aunt led to a big realization about my career."),
           ("Eli", "We stayed connected through letters for years."),
           ("Dana", "Nice weather for it."))  # fmt: skip
    idx = PassageIndex(tmp_path, tmp_path / ".mdmem")
    idx.refresh()
    assert "realization" in idx.search("What did Dana realize?")[0].text
    assert "letters" in idx.search("What kept Eli's connection alive?")[0].text
    assert idx._stems(["realiz", "realization", "connect"]) == ["realiz", "realiz", "connect"]


def test_chinese_passages_are_found_as_before_the_stemmer(tmp_path: Path) -> None:
    _write(tmp_path, "2023-03-02", "chat.md",
           ("小王", "我上个月搬到杭州了，在西湖边租了房子。"),
           ("小李", "我最近在学做蛋糕。"))  # fmt: skip
    idx = PassageIndex(tmp_path, tmp_path / ".mdmem")
    idx.refresh()
    assert "杭州" in idx.search("小王搬到哪里了？")[0].text
    assert "蛋糕" in idx.search("小李在学什么？")[0].text
    assert idx._stems(["杭州", "蛋糕", "学"]) == ["杭州", "蛋糕", "学"]
