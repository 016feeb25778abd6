"""An opened transcript: its head for telling the format, then its whole text or, for an export
too large to hold, its JSON array one element at a time.

The bytes are read in chunks and decoded as they come (UTF-8, or UTF-16/UTF-32 with a
byte-order mark), so a 200 MB `conversations.json` is read with memory bounded by its largest
conversation, not by the file. Errors name the file and the line, as `encoding.decode` does.
"""

from __future__ import annotations

import codecs
import contextlib
import hashlib
import json
import re
from collections.abc import Iterator
from typing import IO, Any

from mdmem.errors import TranscriptError
from mdmem.extract.encoding import BOMS, binary_error, decode

HEAD = 1 << 16  # bytes read to tell the format
CHUNK = 1 << 20  # bytes read at a time after that
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:,]')
_BLANK = re.compile(r"[ \t\n\r]*")


class Input:
    """A transcript's bytes, read once, in order: `head()`, then `text()` or `elements()`."""

    def __init__(self, stream: IO[bytes], source: str) -> None:
        self.source = source
        self._stream = stream
        self._raw = stream.read(HEAD)
        self._more = len(self._raw) == HEAD
        self._encoding = next((enc for bom, enc in BOMS if self._raw.startswith(bom)), "utf-8")
        self._head: str | None = None
        self._used = False

    # --- the format -------------------------------------------------------------------------

    def head(self) -> str:
        """The first 64 KB as text (less a partial character at its end), BOM and CR dropped."""
        if self._head is None:
            raw = self._raw
            if self._encoding == "utf-8" and b"\x00" in raw:
                decode(raw, self.source)  # raises the binary or UTF-16-without-BOM error
            text = codecs.getincrementaldecoder(self._encoding)(errors="replace").decode(raw)
            self._head = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
        return self._head

    def first_keys(self) -> set[str]:
        """The keys of the first object in the head: the whole head a JSON object (one JSONL
        line, `{"messages": …}`), or the first element of a JSON array. Keys written after a
        value longer than the head are not seen; the formats are told by keys that come early."""
        keys: set[str] = set()
        depth, want, last = 0, 1, ""
        text = self.head().lstrip()
        if text.startswith("["):
            want = 2
        elif not text.startswith("{"):
            return keys
        for m in _TOKEN.finditer(text):
            tok = m[0]
            if tok in "{[":
                depth += 1
            elif tok in "}]":
                depth -= 1
                if depth < want:
                    break
            elif tok == ":" and depth == want and last.startswith('"'):
                with contextlib.suppress(ValueError):  # a key with a bad escape: not one of ours
                    keys.add(json.loads(last))
            last = tok
        return keys

    def array_keys(self) -> set[str]:
        """The keys of the first element, when the head is a JSON array of objects."""
        return self.first_keys() if self.head().lstrip().startswith("[") else set()

    # --- reading it all ---------------------------------------------------------------------

    def data(self) -> bytes:
        """Every byte (for the formats read whole: transcripts, not exports)."""
        self._take()
        rest = self._stream.read() if self._more else b""
        return self._raw + rest

    def text(self) -> tuple[str, str]:
        """The whole text, decoded as `encoding.decode` does, and the SHA-256 of the bytes."""
        data = self.data()
        return decode(data, self.source), hashlib.sha256(data).hexdigest()

    # --- streaming an export ----------------------------------------------------------------

    def elements(self) -> Iterator[tuple[int, Any]]:
        """(line, value) of each element of the top-level JSON array, parsed one at a time."""
        self._take()
        self.head()  # a binary file is refused before any element is parsed
        r = _Reader(self._chunks())
        if r.peek() != "[":
            raise TranscriptError("is not a JSON array: an export is a list of conversations",
                                  path=self.source, line=r.line_at(r.pos))  # fmt: skip
        r.pos += 1
        decoder = json.JSONDecoder()
        first = True
        while (c := r.peek()) != "]":
            if not first:
                if c != ",":
                    raise self._bad(r, "expected ',' or ']' between elements" if c else
                                    "the array is not closed with ']'")  # fmt: skip
                r.pos += 1
                r.peek()
            first = False
            while True:
                try:
                    value, end = decoder.raw_decode(r.buf, r.pos)
                except json.JSONDecodeError as e:
                    if r.eof:
                        r.pos = e.pos
                        raise self._bad(r, e.msg) from None
                    r.more(grow=True)
                    continue
                except RecursionError:
                    raise TranscriptError("nests JSON too deeply to read", path=self.source,
                                          line=r.line_at(r.pos)) from None  # fmt: skip
                if end == len(r.buf) and not r.eof and not isinstance(value, dict | list):
                    r.more(grow=True)  # a number cut by the chunk's end reads as a shorter one
                    continue
                break
            yield r.line_at(r.pos), value
            r.pos = end

    def _bad(self, r: _Reader, why: str) -> TranscriptError:
        return TranscriptError(
            f"is not valid JSON ({why}): the export is cut short or was changed by hand; "
            "export it again",
            path=self.source,
            line=r.line_at(r.pos),
        )

    def _chunks(self) -> Iterator[str]:
        """The text in pieces of about CHUNK bytes; a NUL or an invalid byte is an error."""
        dec = codecs.getincrementaldecoder(self._encoding)()
        raw, offset, lines, first = self._raw, 0, 1, True
        while raw:
            if self._encoding == "utf-8" and (nul := raw.find(b"\x00")) >= 0:
                raise binary_error(self.source, lines + raw.count(b"\n", 0, nul))
            try:
                text = dec.decode(raw)
            except UnicodeDecodeError as e:
                raise TranscriptError(
                    f"is not valid {self._encoding.upper()} (at byte offset {offset + e.start}): "
                    "save the file as UTF-8",
                    path=self.source,
                    line=lines + raw.count(b"\n", 0, e.start),
                ) from None
            if first:
                text, first = text.removeprefix("\ufeff"), False
            lines += raw.count(b"\n")
            offset += len(raw)
            yield text
            raw = self._stream.read(CHUNK) if self._more else b""
            self._more = bool(raw)
        try:
            tail = dec.decode(b"", final=True)
        except UnicodeDecodeError:
            raise TranscriptError(f"ends inside a character: it is not valid {self._encoding.upper()}",
                                  path=self.source) from None  # fmt: skip
        if tail:
            yield tail

    def _take(self) -> None:
        if self._used:
            raise RuntimeError("an Input is read once")
        self._used = True


class _Reader:
    """A window on the text: what is parsed next starts at `pos`; what came before is
    dropped as it is passed, its lines counted (once: `line_at` counts on from where it last
    counted, so an export of many elements is not counted over and over)."""

    def __init__(self, chunks: Iterator[str]) -> None:
        self.chunks = chunks
        self.buf, self.pos, self.lines, self.eof = "", 0, 1, False
        self._at, self._line = 0, 1  # position in buf up to which lines are counted, and its line

    def line_at(self, pos: int) -> int:
        if pos < self._at:
            return self.lines + self.buf.count("\n", 0, pos)
        self._line += self.buf.count("\n", self._at, pos)
        self._at = pos
        return self._line

    def more(self, *, grow: bool = False) -> None:
        """Read on; `grow`: at least as much again as the unparsed part, so an element
        longer than a chunk is parsed again only log-many times."""
        self.lines = self.line_at(self.pos)
        rest = self.buf[self.pos :]
        want, got, parts = (max(len(rest), 1) if grow else 1), 0, [rest]
        while got < want:
            piece = next(self.chunks, None)
            if piece is None:
                self.eof = True
                break
            parts.append(piece)
            got += len(piece)
        self.buf, self.pos = "".join(parts), 0
        self._at, self._line = 0, self.lines

    def peek(self) -> str:
        """The next character that is not blank ('' at the end), reading on as needed."""
        while True:
            m = _BLANK.match(self.buf, self.pos)
            self.pos = m.end() if m else self.pos
            if self.pos < len(self.buf) or self.eof:
                return self.buf[self.pos : self.pos + 1]
            self.more()
