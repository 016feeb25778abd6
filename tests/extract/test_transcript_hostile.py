"""Malformed and unusual transcript files: a clear error per file, or the text read right."""

from __future__ import annotations

import codecs
import contextlib
import json
import time

import pytest

from mdmem.errors import TranscriptError
from mdmem.extract.model_finder import parse_answer
from mdmem.extract.transcript import parse_transcript, read_transcript
from mdmem.llm import LLMError

DEEP = "[" * 100_000 + "]" * 100_000
BIG_STAMP = '{"role": "user", "content": "I moved to Lima.", "timestamp": ' + "9" * 5001 + "}\n"


def test_deep_nesting_is_a_clear_error_not_a_recursion_error():
    with pytest.raises(TranscriptError, match=r"^x\.json: nests JSON arrays or objects too deeply"):
        parse_transcript(DEEP, source="x.json")
    with pytest.raises(TranscriptError, match=r"^x\.jsonl:2: nests JSON arrays"):
        parse_transcript('{"role": "user", "content": "hi"}\n{"a": ' + DEEP + "}", source="x.jsonl")


def test_a_five_thousand_digit_timestamp_is_a_clear_error():
    with pytest.raises(TranscriptError, match=r"^x\.jsonl: holds a JSON value that cannot be read"):
        parse_transcript(BIG_STAMP, source="x.jsonl")
    two = '{"role": "user", "content": "hi"}\n' + BIG_STAMP
    with pytest.raises(TranscriptError, match=r"^x\.jsonl:2: holds a JSON value"):
        parse_transcript(two, source="x.jsonl")
    array = '[{"role": "user", "content": "hi", "time": ' + "9" * 5001 + "}]"
    with pytest.raises(TranscriptError, match=r"^x\.json: holds a JSON value"):
        parse_transcript(array, source="x.json")


@pytest.mark.parametrize("stamp", ["1e400", "-1e400", "NaN", "Infinity", "99999999999999999999"])
def test_absurd_numeric_timestamps_are_clear_errors(stamp):
    with pytest.raises(TranscriptError, match=r"timestamp"):
        parse_transcript('{"role": "user", "content": "hi", "timestamp": ' + stamp + "}")


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-32"])
def test_utf16_and_utf32_with_a_byte_order_mark_are_read(tmp_path, encoding):
    bom = {"utf-16-le": codecs.BOM_UTF16_LE, "utf-16-be": codecs.BOM_UTF16_BE}.get(encoding, b"")
    path = tmp_path / "t.md"
    path.write_bytes(bom + "User: I moved to Berlin.\nAssistant: 好的\n".encode(encoding))
    messages, digest = read_transcript(path)
    assert [(m.role, m.text) for m in messages] == [
        ("user", "I moved to Berlin."),
        ("assistant", "好的"),
    ]
    assert len(digest) == 64


def test_utf16_without_a_mark_is_named_not_called_binary(tmp_path):
    path = tmp_path / "t.md"
    path.write_bytes("User: I moved to Berlin.\n".encode("utf-16-le"))
    with pytest.raises(TranscriptError, match="looks like UTF-16 text without a byte-order mark"):
        read_transcript(path)


def test_a_truncated_utf16_file_is_a_clear_error(tmp_path):
    path = tmp_path / "t.md"
    path.write_bytes("User: hi\n".encode("utf-16")[:-1])
    with pytest.raises(TranscriptError, match="byte-order mark but is not valid UTF-16"):
        read_transcript(path)


def test_a_binary_file_is_still_binary(tmp_path):
    path = tmp_path / "t.bin"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    with pytest.raises(TranscriptError, match="looks like a binary file"):
        read_transcript(path)


@pytest.mark.parametrize(
    "line",
    ["Alice" + " " * 100_000, "User: hi" + " " * 100_000 + "x", "---" + "-" * 100_000 + " x",
     "# " + " " * 100_000 + "x", "**" + "*" * 100_000, "[" + "1" * 100_000],
)  # fmt: skip
def test_long_lines_parse_in_linear_time(line):
    # "Alice" and 100k spaces took minutes: three greedy blank runs in a row are cubic.
    start = time.monotonic()
    with contextlib.suppress(TranscriptError):
        parse_transcript("User: hi\n" + line)
    assert time.monotonic() - start < 5


def test_a_json_transcript_with_nested_content_parts_keeps_the_text():
    doc = [{"role": "user", "content": [{"type": "text", "text": "I moved to Lima."}, [[1]]]}]
    [m] = parse_transcript(json.dumps(doc))
    assert m.text == "I moved to Lima."


@pytest.mark.parametrize(
    "answer", ['{"facts": ' + "[" * 100_000 + "]" * 100_000 + "}", '{"facts": [' + "9" * 5001 + "]}"]
)
def test_a_deeply_nested_or_huge_model_answer_is_a_malformed_answer(answer):
    with pytest.raises(LLMError, match=r"malformed answer \(nested too deeply, or a number too long\)"):
        parse_answer(answer)
