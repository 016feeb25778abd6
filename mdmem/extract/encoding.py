"""A transcript file's bytes to text: UTF-8, or UTF-16/UTF-32 with a byte-order mark.

Windows tools (PowerShell's `>`, Notepad's "Unicode") save UTF-16 with a BOM; such a file is
text, not binary. A NUL byte anywhere else still means a binary file, with its own error.
"""

from __future__ import annotations

import codecs

from mdmem.errors import TranscriptError


def binary_error(source: str, line: int) -> TranscriptError:
    """The error for a file with NUL bytes, at the line of the first."""
    return TranscriptError(
        "looks like a binary file (it contains NUL bytes): "
        "give a text transcript (.md, .txt, .jsonl or .json) encoded as UTF-8",
        path=source,
        line=line,
    )


# Byte-order marks of the encodings Windows tools save text in; UTF-32's before UTF-16's,
# whose little-endian mark is a prefix of UTF-32's.
BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"),
)  # fmt: skip


def decode(data: bytes, source: str) -> str:
    """A transcript's text: UTF-8, or UTF-16/UTF-32 when the file starts with their BOM."""
    encoding = next((enc for bom, enc in BOMS if data.startswith(bom)), None)
    if encoding is not None:  # the codec reads and drops the mark itself
        try:
            return data.decode(encoding)
        except UnicodeDecodeError as e:
            raise TranscriptError(
                f"starts with a {encoding.upper()} byte-order mark but is not valid "
                f"{encoding.upper()} (at byte offset {e.start}): save the file as UTF-8",
                path=source,
            ) from None
    if (nul := data.find(b"\x00")) >= 0:
        if _utf16_without_bom(data):
            raise TranscriptError(
                "looks like UTF-16 text without a byte-order mark: save the file as UTF-8 "
                "(or as UTF-16 with a BOM)",
                path=source,
            )
        raise binary_error(source, data.count(b"\n", 0, nul) + 1)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise TranscriptError(
            f"is not valid UTF-8 (byte 0x{data[e.start]:02x} at offset {e.start}): "
            "save the file as UTF-8",
            path=source,
            line=data.count(b"\n", 0, e.start) + 1,
        ) from None


def _utf16_without_bom(data: bytes) -> bool:
    """Mostly-ASCII UTF-16: a NUL in every other byte of the head, and in no other byte."""
    head = data[:512] if len(data) % 2 == 0 else b""
    for zeros, others in ((head[1::2], head[0::2]), (head[0::2], head[1::2])):
        if zeros and zeros.count(0) >= 0.9 * len(zeros) and 0 not in others:
            return True
    return False
