import hashlib
import io
import json
import os
import sys
from datetime import date, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mdmem.errors import TranscriptError
from mdmem.extract.transcript import (
    Message,
    is_human_role,
    is_user_role,
    normalize_time,
    parse_transcript,
    read_transcript,
    role_for_speaker,
)


def said(messages: list[Message]) -> list[tuple[str, str]]:
    return [(m.speaker, m.text) for m in messages]


def write(tmp_path, name: str, content: str | bytes):
    path = tmp_path / name
    if isinstance(content, str):
        content = content.encode("utf-8")
    path.write_bytes(content)
    return path


# --- plain text and Markdown --------------------------------------------------------------


def test_speaker_lines_give_speakers_roles_and_lines():
    messages = parse_transcript("User: I moved to Shanghai.\nAssistant: Noted!\n")
    assert messages == [
        Message("User", "user", "I moved to Shanghai.", None, 1, None),
        Message("Assistant", "assistant", "Noted!", None, 2, None),
    ]


def test_a_message_runs_until_the_next_speaker_line():
    text = "Intro text that is not a message\n\nUser: first line\n  second line\n\nthird after a blank\n\nAssistant:\nreply on the next line\n"
    messages = parse_transcript(text)
    assert said(messages) == [
        ("User", "first line\n  second line\n\nthird after a blank"),
        ("Assistant", "reply on the next line"),
    ]
    assert [m.line for m in messages] == [3, 8]


def test_chinese_speakers_and_full_width_colon():
    messages = parse_transcript("用户：我搬到上海了。\n助手： 好的，已记下。\n用户:换了新工作\n")
    assert said(messages) == [
        ("用户", "我搬到上海了。"),
        ("助手", "好的，已记下。"),
        ("用户", "换了新工作"),
    ]
    assert [m.role for m in messages] == ["user", "assistant", "user"]


def test_bold_and_list_speaker_forms():
    text = "**User:** bold after\n**Assistant**: bold before\n- User: list item\n* 助手：星号列表\n"
    assert said(parse_transcript(text)) == [
        ("User", "bold after"),
        ("Assistant", "bold before"),
        ("User", "list item"),
        ("助手", "星号列表"),
    ]


def test_bold_text_at_message_start_is_kept():
    assert parse_transcript("User: **important** thing")[0].text == "**important** thing"


def test_label_lines_inside_a_message_do_not_start_a_new_one():
    text = (
        "User: here are my details\n"
        "City: Shanghai\n"
        "Employer: Acme\n"
        "Note: the build broke\n"
        "see https://example.com/a:b and 10:30 meeting\n"
        "localhost:8080 is down\n"
        "Assistant: Thanks.\n"
    )
    messages = parse_transcript(text)
    assert [m.speaker for m in messages] == ["User", "Assistant"]
    assert "City: Shanghai\nEmployer: Acme\nNote: the build broke" in messages[0].text
    assert messages[0].text.endswith("localhost:8080 is down")


def test_urls_and_clock_times_are_never_speakers_even_at_the_start():
    assert said(parse_transcript("User: ok\nhttps://example.com\n12:30: lunch\n")) == [
        ("User", "ok\nhttps://example.com\n12:30: lunch")
    ]


def test_a_named_person_who_speaks_twice_is_a_speaker_in_an_assistant_chat():
    text = "User: hi\nBob: hello\nAssistant: hi both\nBob: bye\n"
    messages = parse_transcript(text)
    assert said(messages) == [
        ("User", "hi"),
        ("Bob", "hello"),
        ("Assistant", "hi both"),
        ("Bob", "bye"),
    ]
    assert messages[1].role == "person"


def test_chat_between_named_people():
    text = "Caroline: I moved to Berlin.\nMelanie: Congrats!\nCaroline: Thanks.\n张三：你好\n"
    messages = parse_transcript(text)
    assert said(messages) == [
        ("Caroline", "I moved to Berlin."),
        ("Melanie", "Congrats!"),
        ("Caroline", "Thanks."),
        ("张三", "你好"),
    ]
    assert {m.role for m in messages} == {"person"}


def test_label_line_in_a_long_chat_between_named_people_is_absorbed():
    text = "Caroline: a\nMelanie: b\nCaroline: my list\nPS: one more\nMelanie: c\n"
    assert said(parse_transcript(text))[2] == ("Caroline", "my list\nPS: one more")


def test_numbers_and_long_phrases_are_not_speaker_names():
    text = "Caroline: my list\n1: bread\nThe one thing I want most: a bike\n"
    assert said(parse_transcript(text)) == [("Caroline", text.strip().removeprefix("Caroline: "))]


def test_single_message_from_an_unknown_name():
    assert said(parse_transcript("Caroline: I moved to Berlin.")) == [
        ("Caroline", "I moved to Berlin.")
    ]


def test_fenced_code_is_message_text():
    text = "Assistant: try this\n```\nUser: not a turn\n## 2026-02-10\n```\nUser: thanks\n"
    messages = parse_transcript(text)
    assert said(messages) == [
        ("Assistant", "try this\n```\nUser: not a turn\n## 2026-02-10\n```"),
        ("User", "thanks"),
    ]
    assert messages[1].session is None


def test_an_unclosed_fence_is_ignored():
    assert [m.speaker for m in parse_transcript("User: ```\nAssistant: b\n")] == [
        "User",
        "Assistant",
    ]


@pytest.mark.parametrize(
    ("name", "role"),
    [
        ("User", "user"),
        ("human", "user"),
        ("Me", "user"),
        ("用户", "user"),
        ("我", "user"),
        ("Assistant", "assistant"),
        ("AI", "assistant"),
        ("bot", "assistant"),
        ("助手", "assistant"),
        ("ChatGPT", "assistant"),
        ("Claude", "assistant"),
        ("System", "assistant"),
        ("model", "assistant"),
        ("Caroline", "person"),
        ("张三", "person"),
    ],
)
def test_role_for_speaker(name, role):
    assert role_for_speaker(name) == role
    assert is_user_role(role) == (role == "user")
    assert is_human_role(role) == (role != "assistant")


# --- session headers and times --------------------------------------------------------------


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("## 2026-02-10", "2026-02-10"),
        ("# Session 3 — 2026-02-10 09:00", "2026-02-10T09:00:00"),
        ("## Session 2 (2026-02-10)", "2026-02-10"),
        ("### 2026年2月10日", "2026-02-10"),
        ("### 2026年2月10日 9:05", "2026-02-10T09:05:00"),
        ("--- 2026-02-10 ---", "2026-02-10"),
        ("=== 2026/2/10 ===", "2026-02-10"),
    ],
)
def test_session_header_dates_apply_to_following_messages(header, expected):
    messages = parse_transcript(
        f"{header}\nUser: a\nmore\nAssistant: b\n", default_time="2000-01-01"
    )
    assert [(m.time, m.session) for m in messages] == [(expected, 1), (expected, 1)]


def test_sessions_are_numbered_and_undated_headings_are_ignored():
    text = (
        "# My chats\n"
        "User: before any session\n"
        "## 2026-02-10\n"
        "User: one\n"
        "Assistant: reply\n"
        "## Notes\n"
        "kept in the reply\n"
        "## Session 2\n"
        "User: two\n"
        "## 2026-03-01\n"
        "User: three\n"
    )
    messages = parse_transcript(text, default_time="2020-01-01")
    assert [(m.text, m.time, m.session) for m in messages] == [
        ("before any session", "2020-01-01", None),
        ("one", "2026-02-10", 1),
        ("reply\n## Notes\nkept in the reply", "2026-02-10", 1),
        ("two", "2020-01-01", 2),
        ("three", "2026-03-01", 3),
    ]


def test_a_plain_horizontal_rule_is_message_text():
    assert parse_transcript("User: a\n---\nb\n")[0].text == "a\n---\nb"


def test_message_time_beats_header_beats_default():
    text = (
        "User: no header yet\n"
        "## 2026-02-10 08:00\n"
        "[2026-02-11 09:12] User: own bracket time\n"
        "User (2026-02-12 10:00): own paren time\n"
        "[09:30] Assistant: clock only, day from the header\n"
        "User: header time\n"
    )
    assert [m.time for m in parse_transcript(text, default_time="2026-01-01")] == [
        "2026-01-01",
        "2026-02-11T09:12:00",
        "2026-02-12T10:00:00",
        "2026-02-10T09:30:00",
        "2026-02-10T08:00:00",
    ]


def test_clock_only_time_without_any_date_gives_no_time():
    assert parse_transcript("[09:30] User: hi")[0].time is None
    assert (
        parse_transcript("[09:30] User: hi", default_time="2026-05-01")[0].time
        == "2026-05-01T09:30:00"
    )


def test_brackets_that_are_not_times_are_text():
    assert said(parse_transcript("User: see\n[1] Note: a footnote\n")) == [
        ("User", "see\n[1] Note: a footnote")
    ]


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("2026-02-10", "2026-02-10"),
        ("2026-2-3", "2026-02-03"),
        ("2026-02-10T09:12", "2026-02-10T09:12:00"),
        ("2026-02-10 09:12:33.123456", "2026-02-10T09:12:33"),
        ("2026-02-10T09:12:00Z", "2026-02-10T09:12:00"),
        ("2026-02-10T09:12:00+08:00", "2026-02-10T01:12:00"),
        ("2026-02-10T01:00:00-0500", "2026-02-10T06:00:00"),
        ("2026-02-10T23:30:00-01:00", "2026-02-11T00:30:00"),
        ("2026/02/10 9:05 UTC", "2026-02-10T09:05:00"),
    ],
)
def test_normalize_time(raw, expected):
    assert normalize_time(raw) == expected


@pytest.mark.parametrize(
    "raw", ["yesterday", "2026-02-30", "2026-02-10T25:00", "10 Feb 2026", "2026-02-10T10:00+25:00"]
)
def test_normalize_time_refuses_non_dates(raw):
    with pytest.raises(ValueError, match="YYYY-MM-DD|not a valid"):
        normalize_time(raw)


def test_crlf_and_bom_are_accepted_and_line_numbers_hold():
    messages = parse_transcript("\ufeffUser: a\r\n\r\nAssistant: b\r\nline two\r\n")
    assert said(messages) == [("User", "a"), ("Assistant", "b\nline two")]
    assert [m.line for m in messages] == [1, 3]


# --- JSONL and JSON -------------------------------------------------------------------------


def test_jsonl_messages():
    lines = [
        {"role": "user", "content": "I moved.", "timestamp": "2026-02-10T09:00:00+08:00"},
        {"role": "assistant", "content": "  Noted.\n Two lines. ", "time": "2026-02-10T01:00:05Z"},
        {"speaker": "Caroline", "text": "Me too", "date": "2026-02-11"},
        {"name": "Bob", "content": "hi", "created_at": "2026-02-12 08:00"},
        {"role": "user", "name": "Alice", "content": "named user"},
    ]
    text = "\n".join(json.dumps(x, ensure_ascii=False) for x in lines[:2]) + "\n\n"
    text += "\n".join(json.dumps(x) for x in lines[2:]) + "\n"
    messages = parse_transcript(text, default_time="2026-03-01")
    assert messages == [
        Message("user", "user", "I moved.", "2026-02-10T01:00:00", 1, None),
        Message("assistant", "assistant", "Noted.\n Two lines.", "2026-02-10T01:00:05", 2, None),
        Message("Caroline", "person", "Me too", "2026-02-11", 4, None),
        Message("Bob", "person", "hi", "2026-02-12T08:00:00", 5, None),
        Message("Alice", "user", "named user", "2026-03-01", 6, None),
    ]


@pytest.mark.parametrize(
    ("role", "expected"),
    [
        ("user", "user"),
        ("human", "user"),
        ("Assistant", "assistant"),
        ("ai", "assistant"),
        ("bot", "assistant"),
        ("system", "assistant"),
        ("model", "assistant"),
        ("Caroline", "person"),
    ],
)
def test_json_roles(role, expected):
    [message] = parse_transcript(json.dumps({"role": role, "content": "x"}))
    assert (message.speaker, message.role) == (role, expected)


def test_jsonl_skips_empty_content_and_reads_content_parts():
    text = (
        '{"role": "assistant", "content": null}\n'
        '{"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "image"}, "b"]}\n'
    )
    assert [(m.text, m.line) for m in parse_transcript(text)] == [("a\nb", 2)]


def test_epoch_timestamps_are_utc():
    text = '{"role": "user", "content": "x", "timestamp": 1770681600}\n{"role": "user", "content": "y", "timestamp": 1770681600000}'
    assert [m.time for m in parse_transcript(text)] == ["2026-02-10T00:00:00"] * 2


@pytest.mark.parametrize("wrap", [lambda xs: xs, lambda xs: {"messages": xs}])
def test_json_array_lines_are_element_indexes(wrap):
    items = [
        {"role": "user", "content": "a"},
        {"role": "assistant", "content": ""},
        {"role": "assistant", "content": "c", "timestamp": "2026-02-10"},
    ]
    text = json.dumps(wrap(items), indent=2)
    messages = parse_transcript(text, default_time="2026-01-01")
    assert [(m.speaker, m.text, m.line, m.time) for m in messages] == [
        ("user", "a", 1, "2026-01-01"),
        ("assistant", "c", 3, "2026-02-10"),
    ]


def test_text_starting_with_a_bracket_time_is_not_json():
    assert said(parse_transcript("[2026-02-10 09:12] User: hi\n[2026-02-10 09:13] AI: yo")) == [
        ("User", "hi"),
        ("AI", "yo"),
    ]


# --- errors ---------------------------------------------------------------------------------


def error_of(tmp_path, name: str, content: str | bytes) -> str:
    path = write(tmp_path, name, content)
    with pytest.raises(TranscriptError) as info:
        read_transcript(path)
    assert info.value.path == str(path)
    return str(info.value)


def test_invalid_utf8_names_file_and_line(tmp_path):
    message = error_of(tmp_path, "t.md", b"User: a\nUser: b\nUser: caf\xe9\n")
    assert f"{tmp_path / 't.md'}:3: is not valid UTF-8" in message
    assert "save the file as UTF-8" in message


def test_binary_file_is_refused(tmp_path):
    message = error_of(tmp_path, "t.bin", b"User: a\n\x89PNG\x00\x00\xff")
    assert f"{tmp_path / 't.bin'}:2: looks like a binary file" in message


def test_nul_in_text_is_refused():
    with pytest.raises(TranscriptError, match=r"^x\.md:2: looks like a binary"):
        parse_transcript("User: a\nb\x00", source="x.md")


@pytest.mark.parametrize(
    ("line3", "fragment"),
    [
        ("[1, 2]", "not a message: expected a JSON object"),
        ('"just a string"', "got str"),
        ('{"role": "user"}', "got keys role"),
        ('{"content": "no speaker"}', 'with "role"'),
        ('{"role": 5, "content": "x"}', "must be strings"),
        ('{"role": "user", "content": 5}', '"content" must be text'),
        (
            '{"role": "user", "content": "x", "timestamp": "yesterday"}',
            "timestamp 'yesterday' is not a date",
        ),
        ('{"role": "user", "content": "x", "timestamp": "2026-02-30"}', "not a valid date"),
        ('{"role": "user", "content": ', "is not valid JSON"),
    ],
)
def test_bad_jsonl_line_names_file_and_line(tmp_path, line3, fragment):
    good = '{"role": "user", "content": "ok"}\n'
    message = error_of(tmp_path, "t.jsonl", good + good + line3 + "\n" + good)
    assert message.startswith(f"{tmp_path / 't.jsonl'}:3: ")
    assert fragment in message


def test_bad_json_array_item_names_the_item(tmp_path):
    message = error_of(tmp_path, "t.json", json.dumps([{"role": "user", "content": "a"}, {"x": 1}]))
    assert message.startswith(f"{tmp_path / 't.json'}: item 2 of the JSON array is not a message")


def test_broken_json_array_names_line(tmp_path):
    message = error_of(tmp_path, "t.json", '[\n  {"role": "user", "content": "a"},\n  {"role": \n]')
    assert message.startswith(f"{tmp_path / 't.json'}:4: is not valid JSON")


@pytest.mark.parametrize(
    ("doc", "expected"),
    [
        ('{"messages": "x"}', ': "messages" is not a JSON array'),
        ('["a"]', ": item 1 of the JSON array is not a message"),
        ("[1]", ": no messages found"),  # "[1" reads as text, like "[09:30] User: hi"
        ('{"foo": 1}', ":1: not a message: expected a JSON object"),
        ('"text"', ": no messages found"),
    ],
)
def test_json_that_is_not_messages(tmp_path, doc, expected):
    assert error_of(tmp_path, "t.json", doc).startswith(str(tmp_path / "t.json") + expected)


@pytest.mark.parametrize("content", ["", "\ufeff", " \n\r\n\t"])
def test_empty_file(tmp_path, content):
    message = error_of(tmp_path, "t.md", content)
    assert message.startswith(f"{tmp_path / 't.md'}: is empty: expected lines like 'User: …'")


@pytest.mark.parametrize(
    "content", ["just some prose\nwith no speakers\n", "# 2026-02-10\nUser:\n", "[]"]
)
def test_no_messages(tmp_path, content):
    message = error_of(tmp_path, "t.md", content)
    assert message.startswith(
        f"{tmp_path / 't.md'}: no messages found: expected lines like 'User: …'"
    )


def test_invalid_header_date_names_line(tmp_path):
    message = error_of(tmp_path, "t.md", "User: a\n## 2026-02-30\nUser: b\n")
    assert message.startswith(f"{tmp_path / 't.md'}:2: '2026-02-30' is not a valid date")


def test_invalid_message_time_names_line():
    with pytest.raises(TranscriptError, match=r"^x:2: '2026-13-01 10:00' is not a valid"):
        parse_transcript("User: a\n[2026-13-01 10:00] User: b\n", source="x")


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(TranscriptError, match=r"nope\.md: cannot be read \(No such file"):
        read_transcript(tmp_path / "nope.md")
    with pytest.raises(TranscriptError, match=r"cannot be read \(Is a directory\)"):
        read_transcript(tmp_path)


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root reads anything")
def test_unreadable_file(tmp_path):
    path = write(tmp_path, "t.md", "User: a")
    path.chmod(0)
    with pytest.raises(TranscriptError, match="cannot be read"):
        read_transcript(path)


def test_bad_default_time():
    with pytest.raises(TranscriptError, match="default time 'soon' is not a date"):
        parse_transcript("User: a", default_time="soon")


# --- reading files and stdin ----------------------------------------------------------------


def test_read_returns_sha256_of_the_bytes(tmp_path):
    data = "\ufeff用户：你好\r\n".encode()
    messages, digest = read_transcript(
        str(write(tmp_path, "t.md", data)), default_time="2026-02-10"
    )
    assert digest == hashlib.sha256(data).hexdigest()
    assert said(messages) == [("用户", "你好")]


def test_file_mtime_is_the_last_fallback(tmp_path):
    path = write(tmp_path, "t.md", "## 2026-02-10\nUser: a\n")
    path2 = write(tmp_path, "u.md", "User: b\n")
    stamp = datetime(2025, 8, 15, 12, 0).timestamp()
    os.utime(path2, (stamp, stamp))
    assert read_transcript(path)[0][0].time == "2026-02-10"
    assert (
        read_transcript(path2)[0][0].time == date.fromtimestamp(stamp).isoformat() == "2025-08-15"
    )
    assert read_transcript(path2, default_time="2026-01-01")[0][0].time == "2026-01-01"


def test_stdin(monkeypatch):
    data = b'{"role": "user", "content": "from a pipe"}\n'
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    messages, digest = read_transcript("-")
    assert said(messages) == [("user", "from a pipe")]
    assert messages[0].time is None
    assert digest == hashlib.sha256(data).hexdigest()


def test_stdin_errors_name_stdin(monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"\xff")))
    with pytest.raises(TranscriptError, match=r"^<stdin>:1: is not valid UTF-8"):
        read_transcript("-")


# --- round trips ----------------------------------------------------------------------------

PLAIN = "abcdefXYZ 0123 你好世界搬家上海工作 ,.!?'\"()"
WITH_COLONS = PLAIN + ":：/*"
# A line stays text when it has no colon, or when punctuation comes before its first colon,
# so no generated line can read as a speaker line; leading markup characters are avoided.
safe_line = st.one_of(
    st.text(PLAIN, max_size=30),
    st.builds(
        lambda a, sep, b: a + sep + b,
        st.text(PLAIN, max_size=10),
        st.sampled_from([", ", ". ", "? ", "，", "。"]),
        st.text(WITH_COLONS, max_size=20),
    ),
)
message_text = (
    st.lists(safe_line, min_size=1, max_size=4).map("\n".join).filter(lambda t: t.strip())
)
ROLE_NAMES = ["User", "Assistant", "用户", "助手", "Human", "AI"]
PEOPLE = ["Caroline", "Melanie", "张三", "李四", "Mary Jane"]


@st.composite
def conversations(draw):
    if draw(st.booleans()):
        speakers = draw(st.lists(st.sampled_from(ROLE_NAMES), min_size=1, max_size=8))
    else:  # every named person speaks at least twice, as in a real chat
        people = draw(st.lists(st.sampled_from(PEOPLE), min_size=1, max_size=4))
        speakers = people + draw(st.permutations(people))
    return [(s, draw(message_text)) for s in speakers]


@given(conversations(), st.sampled_from([": ", "：", "： "]), st.sampled_from(["\n", "\r\n"]))
def test_text_round_trip(conversation, colon, newline):
    rendered = "".join(f"{s}{colon}{t}\n" for s, t in conversation).replace("\n", newline)
    assert said(parse_transcript(rendered)) == [(s, t.strip()) for s, t in conversation]


@given(conversations())
def test_jsonl_round_trip(conversation):
    rendered = "\n".join(
        json.dumps({"speaker": s, "content": t}, ensure_ascii=False) for s, t in conversation
    )
    messages = parse_transcript(rendered)
    assert said(messages) == [(s, t.strip()) for s, t in conversation]
    assert [m.line for m in messages] == list(range(1, len(conversation) + 1))
