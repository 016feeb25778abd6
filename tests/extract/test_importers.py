"""The readers of exports: ChatGPT, Claude, `llm logs --json`; told by content; streamed."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest

from mdmem.errors import TranscriptError
from mdmem.extract.importers import registry, source
from mdmem.extract.importers.source import Input
from mdmem.extract.transcript import NoMessages, parse_transcript, read_conversations
from tests.conftest import DATA

IMPORTS = DATA / "imports"


def convs(path: Path, **kw: object) -> list:
    return list(read_conversations(path, **kw))  # type: ignore[arg-type]


def said(conv) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    return [(m.role, m.text) for m in conv.messages]


# --- ChatGPT ----------------------------------------------------------------------------------


def test_chatgpt_keeps_the_branch_of_current_node_and_only_words_people_said() -> None:
    lisbon, empty, birthday = convs(IMPORTS / "chatgpt-conversations.json")
    assert lisbon.key == "chatgpt:67c4a1b0-0c1e-8000-9a5e-1d2f3a4b5c6d"
    assert lisbon.title == "Settling in Lisbon" and lisbon.day == "2025-03-02"
    assert said(lisbon) == [
        ("user", "I moved to Lisbon last month, still unpacking boxes."),
        ("assistant", "Welcome to Lisbon! How is the new job going?"),
        # The message was edited: the kept version, never the one left on the old branch.
        ("user", "I work at Globex now."),
        # The browsing call and its result are tool turns: not said by anyone.
        ("assistant", "Globex has a big office there. Any pets?"),
        ("user", "My dog is called Rex."),  # the photo beside the words is passed over
        ("assistant", "Rex looks happy!"),
        # The last message was a photo alone: no words, no message.
    ]
    assert "Acme" not in json.dumps([m.text for m in lisbon.messages])
    assert [m.time for m in lisbon.messages][:3] == [
        "2025-03-02T07:20:10", "2025-03-02T07:20:20", "2025-03-02T07:20:50",
    ]  # fmt: skip
    assert [m.line for m in lisbon.messages] == [1, 2, 3, 4, 5, 6]
    assert empty.messages == [] and empty.error is None  # opened, never written in
    assert birthday.day == "2025-03-10" and birthday.key != lisbon.key


def test_chatgpt_without_current_node_follows_the_newest_child() -> None:
    data = json.loads((IMPORTS / "chatgpt-conversations.json").read_text("utf-8"))
    del data[0]["current_node"]
    text = json.dumps(data[:1])
    (conv,) = [c for c in _from_text(text) if c.messages]
    assert ("user", "I work at Globex now.") in said(conv)
    assert ("user", "I work at Acme now.") not in said(conv)


def test_a_conversation_of_another_shape_is_reported_and_the_others_are_read() -> None:
    data = json.loads((IMPORTS / "chatgpt-conversations.json").read_text("utf-8"))
    data.insert(1, {"title": "broken", "mapping": "not an object"})
    got = _from_text(json.dumps(data, indent=1))
    assert [c.error is not None for c in got] == [False, True, False, False]
    assert 'no "mapping" object' in (got[1].error or "") and got[1].line is not None
    assert got[3].messages  # read after the bad one


# --- Claude and llm ---------------------------------------------------------------------------


def test_claude_keeps_the_edited_message_and_not_attachments_or_thinking() -> None:
    run, empty = convs(IMPORTS / "claude-conversations.json")
    assert run.key == "claude:0b6e7c1a-1111-4c2b-9d3e-aaaaaaaaaaaa"
    assert run.title == "Half marathon training" and run.day == "2025-04-05"
    assert said(run) == [
        ("user", "I live in Porto these days."),
        ("assistant", "Porto is hilly, good for training!"),
        ("user", "I work at Umbrella."),  # edited from "My employer is Initech."
        ("assistant", "Umbrella, noted."),  # its thinking block is not the answer
    ]
    assert run.messages[0].time == "2025-04-05T08:00:05"
    assert "Hooli" not in json.dumps(said(run))  # an attached file's text is not what was said
    assert empty.messages == [] and empty.title is None


def test_llm_logs_are_grouped_by_conversation_in_time_order_in_utc() -> None:
    commute, maths = convs(IMPORTS / "llm-logs.json")
    assert commute.key == "llm:01j1conv" and commute.title == "Commute"
    assert said(commute) == [
        ("user", "I live in Valencia and I cycle 15 minutes to work."),
        ("assistant", "Sounds like a nice commute."),
        ("user", "My birthday is 2 June."),
        ("assistant", "Noted."),
    ]
    assert commute.messages[0].time == "2025-05-01T09:00:00" and commute.day == "2025-05-01"
    assert maths.key == "llm:01j2conv"


# --- telling the format -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, fmt",
    [("chatgpt-conversations.json", "chatgpt"), ("claude-conversations.json", "claude"),
     ("llm-logs.json", "llm")],
)  # fmt: skip
def test_the_format_is_told_by_content_not_by_name(tmp_path: Path, name: str, fmt: str) -> None:
    odd = tmp_path / "export.txt"
    odd.write_bytes((IMPORTS / name).read_bytes())
    with odd.open("rb") as f:
        assert registry.detect(Input(f, str(odd))).name == fmt
    assert [c.key for c in convs(odd)] == [c.key for c in convs(IMPORTS / name)]


@pytest.mark.parametrize(
    "text, fmt",
    [('[{"role": "user", "content": "hi"}]', "json"), ('{"role": "user", "content": "hi"}\n', "jsonl"),
     ('{"messages": [{"role": "user", "content": "hi"}]}', "json"), ("User: hi\n", "text"),
     ("[09:30] User: hi\n", "text")],
)  # fmt: skip
def test_transcript_formats_are_entries_of_the_same_registry(text: str, fmt: str) -> None:
    import io

    assert registry.detect(Input(io.BytesIO(text.encode()), "t")).name == fmt
    assert [m.text for m in parse_transcript(text)] == ["hi"]


def test_a_forced_format_reads_as_that_format_or_says_why_not(tmp_path: Path) -> None:
    path = IMPORTS / "chatgpt-conversations.json"
    got = convs(path, fmt="claude")
    assert len(got) == 3 and all("is not a Claude conversation" in (c.error or "") for c in got)
    chat = tmp_path / "chat.md"
    chat.write_text("User: I live in Oslo.\n", encoding="utf-8")
    with pytest.raises(TranscriptError, match="is not a JSON array"):
        convs(chat, fmt="chatgpt")
    with pytest.raises(TranscriptError, match="choose one of chatgpt, claude, llm"):
        convs(chat, fmt="gemini")


def test_an_export_given_as_one_text_says_to_ingest_the_file() -> None:
    text = (IMPORTS / "chatgpt-conversations.json").read_text("utf-8")
    with pytest.raises(TranscriptError, match="holds 2 conversations"):
        parse_transcript(text)


def test_an_export_with_only_empty_conversations_holds_no_messages(tmp_path: Path) -> None:
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([{"uuid": "u", "name": "", "chat_messages": []}]), encoding="utf-8")
    with pytest.raises(NoMessages):
        convs(path)


# --- streaming --------------------------------------------------------------------------------


def _from_text(text: str) -> list:
    import io

    from mdmem.extract.transcript import _conversations

    return list(_conversations(io.BytesIO(text.encode("utf-8")), "x.json", None, None))


def _big_export(path: Path, conversations: int, filler: int) -> None:
    """A ChatGPT export of many conversations, each with long assistant answers."""
    with path.open("w", encoding="utf-8") as f:
        f.write("[")
        for n in range(conversations):
            conv = {
                "title": f"chat {n}", "create_time": 1740900000 + n * 60,
                "mapping": {
                    "r": {"id": "r", "message": None, "parent": None, "children": ["u"]},
                    "u": {"id": "u", "parent": "r", "children": ["a"], "message": {
                        "author": {"role": "user"}, "create_time": 1740900000 + n * 60 + 1,
                        "content": {"content_type": "text", "parts": [f"Message {n}: I like tea."]}}},
                    "a": {"id": "a", "parent": "u", "children": [], "message": {
                        "author": {"role": "assistant"}, "create_time": 1740900000 + n * 60 + 2,
                        "content": {"content_type": "text", "parts": ["é" + "x" * filler]}}},
                },
                "current_node": "a", "conversation_id": f"c{n:06d}",
            }  # fmt: skip
            f.write(("," if n else "") + "\n" + json.dumps(conv, ensure_ascii=False))
        f.write("\n]\n")


def test_a_large_export_is_streamed_with_memory_bounded_by_one_conversation(tmp_path: Path) -> None:
    path = tmp_path / "conversations.json"
    _big_export(path, conversations=400, filler=40_000)  # 16 MB; the 200 MB run is in benchmarks/
    assert path.stat().st_size > 15_000_000
    tracemalloc.start()
    try:
        count = 0
        for conv in read_conversations(path):
            assert conv.messages[0].text == f"Message {count}: I like tea."
            count += 1
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert count == 400
    assert peak < 8_000_000, f"peak {peak / 1e6:.1f} MB while reading a 16 MB export"


def test_elements_across_chunk_boundaries_parse_as_the_whole_file_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(source, "CHUNK", 97)  # every element spans several chunks
    monkeypatch.setattr(source, "HEAD", 64)
    path = tmp_path / "conversations.json"
    _big_export(path, conversations=7, filler=300)
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))  # and CRLF between them
    whole = json.loads(path.read_text("utf-8"))
    with path.open("rb") as f:
        assert [v for _, v in Input(f, "x").elements()] == whole
    with path.open("rb") as f:
        lines = [line for line, _ in Input(f, "x").elements()]
    assert lines == [n + 2 for n in range(7)]  # each element starts on its own line


@pytest.mark.parametrize(
    "text, line, why",
    [('[{"a": 1},\n{"b": 2}\n{"c": 3}]', 3, "expected ','"), ('[{"a": 1},\n{"b": ', 2, "not valid JSON"),
     ('[{"a": 1},\n{"b": 2}\n', 3, "not closed")],
)  # fmt: skip
def test_a_broken_or_cut_export_names_the_line(text: str, line: int, why: str) -> None:
    import io

    with pytest.raises(TranscriptError, match=why) as e:
        list(Input(io.BytesIO(text.encode()), "conversations.json").elements())
    assert e.value.line == line and "conversations.json" in str(e.value)


def test_a_binary_or_badly_encoded_export_is_refused_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "conversations.json"
    path.write_bytes(b'[{"mapping": {}},\n{"mapping": {"x": "\xff"}}]')
    with pytest.raises(TranscriptError, match="not valid UTF-8") as e:
        convs(path)
    assert e.value.line == 2
    path.write_bytes(b'[{"mapping": {}},\n\x00]')
    with pytest.raises(TranscriptError, match="binary"):
        convs(path)


def test_a_utf16_export_with_a_bom_is_read(tmp_path: Path) -> None:
    path = tmp_path / "conversations.json"
    path.write_bytes((IMPORTS / "claude-conversations.json").read_text("utf-8").encode("utf-16"))
    assert [c.key for c in convs(path)][0] == "claude:0b6e7c1a-1111-4c2b-9d3e-aaaaaaaaaaaa"


@pytest.mark.parametrize(
    "conv",
    [{"mapping": {"a": [], "b": None, "c": {"parent": "c", "children": "x", "message": []}}, "current_node": "c"},
     {"mapping": {"a": {"parent": None, "children": ["a", 3, None]}}},
     {"mapping": {"a": {"message": {"author": "user", "content": {"content_type": "text", "parts": [1, None]}}}}, "current_node": "a"},
     {"mapping": {"a": {"message": {"author": {"role": "user"}, "create_time": 1e30,
                                    "content": {"content_type": "text", "parts": ["I live in Oslo."]}}}}, "current_node": "a"}],
)  # fmt: skip
def test_odd_chatgpt_shapes_never_crash_the_reader(conv: dict) -> None:
    ok = {"title": "ok", "current_node": "u", "mapping": {"u": {"message": {
        "author": {"role": "user"}, "content": {"content_type": "text", "parts": ["hi"]}}}}}
    got = _from_text(json.dumps([{"title": "t", **conv}, ok]))
    assert len(got) == 2 and all(c.error is None for c in got) and said(got[1]) == [("user", "hi")]
    for c in got:
        assert all(isinstance(m.text, str) and m.text for m in c.messages)


def test_ingest_format_help_names_every_reader_of_the_registry() -> None:
    from typer.testing import CliRunner

    from mdmem.cli import app

    text = " ".join(CliRunner().invoke(app, ["ingest", "--help"]).stdout.split())
    assert f"({', '.join(registry.names())})" in text
