"""Episode files built from applied messages: merged with the person's edits, redacted on forget."""

from __future__ import annotations

from pathlib import Path

from mdmem.extract.transcript import parse_transcript
from mdmem.model.episode import parse
from mdmem.model.rules_yaml import load_rules
from mdmem.store.episodes import build_episodes, message_id, redact_text
from mdmem.store.redaction import Cutter
from mdmem.store.statements import Reader

CHAT = """## 2023-05-08 13:56
Caroline: I went to a support group yesterday.
Assistant: How was it?
Caroline: Powerful.
> a quote

with a second paragraph
## 2023-05-09
Melanie: Our log drain endpoint is stream.velturis.io/aurora.
"""


ROOT = Path(__file__).resolve().parents[2]


def _build(root: Path, text: str = CHAT, **kw: object):  # type: ignore[no-untyped-def]
    msgs = parse_transcript(text, source="chat.md")
    return build_episodes(
        list(enumerate(msgs, 1)), source="chat.md", digest="d" * 64, default_date="2023-05-01",
        journal_id="j1", existing=lambda rel: (root / rel).read_text("utf-8") if (root / rel).exists() else None,
        **kw,
    )  # fmt: skip


def _write(root: Path, ops: list[tuple[str, str]]) -> None:
    for rel, text in ops:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")


def test_one_file_per_session_day_with_only_the_peoples_words(tmp_path: Path) -> None:
    out = _build(tmp_path)
    assert [rel for rel, _ in out.ops] == [
        "episodes/2023/2023-05-08-chat.md",
        "episodes/2023/2023-05-09-chat.md",
    ]
    first = parse(out.ops[0][1])
    assert [(s.anchor, s.speaker) for s in first.messages] == [
        ("m1", "Caroline"),
        ("m3", "Caroline"),
    ]
    assert first.messages[1].text == "Powerful.\n> a quote\n\nwith a second paragraph"
    assert "How was it?" not in out.ops[0][1]  # the assistant's turns are not kept
    assert first.journal == "j1" and first.speakers == ["Caroline"]


def test_a_rerun_writes_nothing_and_a_deleted_paragraph_stays_deleted(tmp_path: Path) -> None:
    _write(tmp_path, _build(tmp_path).ops)
    assert _build(tmp_path).ops == []  # the same messages again: already there
    path = tmp_path / "episodes/2023/2023-05-08-chat.md"
    kept = path.read_text("utf-8").split("\n**Caroline** · 2023-05-08T13:56:00\n\nPowerful.")[0]
    path.write_text(kept, "utf-8")
    # The transcript grew by one message: only that one is passed (ingest knows which it applied).
    grown = CHAT + "Melanie: And the channel is #aurora-core.\n"
    msgs = list(enumerate(parse_transcript(grown, source="chat.md"), 1))
    out = build_episodes(msgs[-1:], source="chat.md", digest="f" * 64, default_date="2023-05-01",
                         journal_id="j2", existing=lambda rel: (tmp_path / rel).read_text("utf-8"))  # fmt: skip
    ((rel, text),) = out.ops
    assert rel == "episodes/2023/2023-05-09-chat.md" and "#aurora-core" in text
    assert "Powerful" not in path.read_text("utf-8")


def test_a_broken_episode_is_left_alone_and_reported(tmp_path: Path) -> None:
    path = tmp_path / "episodes/2023/2023-05-08-chat.md"
    path.parent.mkdir(parents=True)
    path.write_text("my own notes, no frontmatter\n", "utf-8")
    out = _build(tmp_path)
    assert [rel for rel, _ in out.ops] == ["episodes/2023/2023-05-09-chat.md"]
    assert "2023-05-08-chat.md" in out.notes[0] and "fix the file by hand" in out.notes[0]


def test_another_source_on_the_same_day_gets_its_own_file(tmp_path: Path) -> None:
    _write(tmp_path, _build(tmp_path).ops)
    msgs = parse_transcript("## 2023-05-08\nBob: hi there\n", source="x/chat.md")
    out = build_episodes(list(enumerate(msgs, 1)), source="x/chat.md", digest="e" * 64,
                         default_date="2023-05-08", journal_id=None,
                         existing=lambda rel: (tmp_path / rel).read_text("utf-8") if (tmp_path / rel).exists() else None)  # fmt: skip
    ((rel, text),) = out.ops
    assert rel.startswith("episodes/2023/2023-05-08-chat-") and parse(text).source == "x/chat.md"


def test_forget_text_cuts_every_mention_and_a_rebuild_adds_nothing(tmp_path: Path) -> None:
    _write(tmp_path, _build(tmp_path).ops)
    reader = Reader(load_rules(ROOT / "rules" / "personal.yaml"))
    out = Cutter(tmp_path, reader, [], {}, ["stream.velturis.io/aurora"]).run()
    ((rel, text),) = out.ops
    assert "velturis" not in text and "Our log drain endpoint is [forgotten]." in text
    assert (
        redact_text("Urban Sports Club and URBAN SPORTS", ["Urban Sports"])
        == "[forgotten] Club and [forgotten]"
    )
    _write(tmp_path, out.ops)
    assert _build(tmp_path).ops == []  # a forget's cuts never bring messages back


def test_message_ids_name_position_and_content() -> None:
    a, b = parse_transcript("User: one\nUser: two\n", source="s")
    assert message_id(1, a) != message_id(1, b) and message_id(1, a).startswith("1:")
