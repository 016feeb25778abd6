"""A fast block-YAML emitter that writes the same bytes as PyYAML's for mdmem's own fields.

PyYAML's pure-Python emitter is most of the time of a cascade (about 0.5 ms a file), and its C
emitter writes different bytes for some values. This module renders the subset mdmem writes
(str, None, bool, int, lists and mappings with text keys) exactly as `yaml_text.dump_yaml`'s
PyYAML settings do: insertion order, allow_unicode, no line folding, no anchors, indentless
sequences in mappings, `|` for multi-line text. The style rules below are a port of
yaml/emitter.py (analyze_scalar, choose_scalar_style and the writers) restricted to those
settings; tests/model/test_emitter.py checks the bytes against PyYAML with hypothesis.
Anything outside the subset raises Unsupported and the caller falls back to PyYAML.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache
from typing import Any

_BREAKS = "\n\x85\u2028\u2029"
_SPACE_OR_BREAK = "\0 \t\r\n\x85\u2028\u2029"
_ESCAPES = {
    "\0": "0", "\x07": "a", "\x08": "b", "\x09": "t", "\x0a": "n", "\x0b": "v", "\x0c": "f",
    "\x0d": "r", "\x1b": "e", '"': '"', "\\": "\\", "\x85": "N", "\xa0": "_", "\u2028": "L",
    "\u2029": "P",
}  # fmt: skip
# Text that is plain in every position: word characters and a few harmless marks, not starting
# with a digit or an indicator, no ': ' or ' #', no leading/trailing space. The slow path
# decides the rest (and gives the same answer for these; only slower).
@cache
def _simple() -> re.Pattern[str]:  # compiled on first use: `ask` never renders
    # \w, not ranges of code points: a class spanning tens of thousands of characters takes
    # the regex compiler ~10 ms, paid by every command that writes.
    return re.compile(r"(?!\d)\w[\w./@+\-]*(?: [\w./@+\-]+)*")

# PyYAML's implicit resolvers (yaml/resolver.py), which SafeDumper consults to decide whether a
# plain scalar would read back as text; copied so that rendering does not need yaml loaded.
@cache
def _implicit() -> list[tuple[str, re.Pattern[str]]]:
    return [
        ("yYnNtTfFoO", re.compile(
            r"^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$")),
        ("-+0123456789.", re.compile(
            r"""^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?
            |\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?
            |[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*
            |[-+]?\.(?:inf|Inf|INF)
            |\.(?:nan|NaN|NAN))$""", re.X)),
        ("-+0123456789", re.compile(
            r"""^(?:[-+]?0b[0-1_]+
            |[-+]?0[0-7_]+
            |[-+]?(?:0|[1-9][0-9_]*)
            |[-+]?0x[0-9a-fA-F_]+
            |[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$""", re.X)),
        ("<", re.compile(r"^(?:<<)$")),
        ("~nN", re.compile(r"^(?: ~|null|Null|NULL| )$", re.X)),
        ("0123456789", re.compile(
            r"""^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]
            |[0-9][0-9][0-9][0-9] -[0-9][0-9]? -[0-9][0-9]?
            (?:[Tt]|[ \t]+)[0-9][0-9]?
            :[0-9][0-9] :[0-9][0-9] (?:\.[0-9]*)?
            (?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$""", re.X)),
        ("=", re.compile(r"^(?:=)$")),
        ("!&*", re.compile(r"^(?:!|&|\*)$")),
    ]  # fmt: skip


class Unsupported(Exception):
    """A value outside the emitter's subset: render it with PyYAML instead."""


def _resolves_to_text(value: str) -> bool:
    if not value:
        return False  # '' reads back as null
    first = value[0]
    return not any(first in chars and rx.match(value) for chars, rx in _implicit())


def _printable_unicode(ch: str) -> bool:
    return (
        ch == "\x85" or "\xa0" <= ch <= "\ud7ff" or "\ue000" <= ch <= "\ufffd"
        or "\U00010000" <= ch < "\U0010ffff"
    ) and ch != "\ufeff"  # fmt: skip


# What makes PyYAML's analysis take its slow branches: a line break, or a character it would
# escape (tab, CR, NUL and the other controls are among them, so ' ' is the only white space).
# Listed as the few ranges outside the printable ones: cheap to compile.
@cache
def _unusual() -> re.Pattern[str]:
    return re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff\U0010ffff]")


def _analyze(s: str) -> tuple[bool, bool, bool, bool]:
    """(multiline, allow_block_plain, allow_single_quoted, allow_block), as PyYAML's analysis."""
    if not s:
        return False, True, True, False
    if not _unusual().search(s):  # one line of printable text: the indicators decide
        indicator = (
            s.startswith(("---", "...")) or s[0] in "#,[]{}&*!|>'\"%@`"
            or (s[0] in "?-" and (len(s) == 1 or s[1] == " "))
            or ": " in s or s.endswith(":") or " #" in s
        )  # fmt: skip
        edge_space = s[0] == " " or s[-1] == " "
        return False, not (edge_space or indicator), True, s[-1] != " "
    block_ind = s.startswith(("---", "..."))
    line_breaks = special = False
    leading_space = leading_break = trailing_space = trailing_break = False
    break_space = space_break = previous_space = previous_break = False
    preceded_ws = True
    n = len(s)
    followed_ws = n == 1 or s[1] in _SPACE_OR_BREAK
    for i, ch in enumerate(s):
        if i == 0:
            if ch in "#,[]{}&*!|>'\"%@`" or (ch in "?:-" and followed_ws):
                block_ind = True
        elif (ch == ":" and followed_ws) or (ch == "#" and preceded_ws):
            block_ind = True
        if ch in _BREAKS:
            line_breaks = True
        if not (ch == "\n" or "\x20" <= ch <= "\x7e") and not _printable_unicode(ch):
            special = True
        if ch == " ":
            leading_space = leading_space or i == 0
            trailing_space = trailing_space or i == n - 1
            break_space = break_space or previous_break
            previous_space, previous_break = True, False
        elif ch in _BREAKS:
            leading_break = leading_break or i == 0
            trailing_break = trailing_break or i == n - 1
            space_break = space_break or previous_space
            previous_space, previous_break = False, True
        else:
            previous_space = previous_break = False
        preceded_ws = ch in _SPACE_OR_BREAK
        followed_ws = i + 2 >= n or s[i + 2] in _SPACE_OR_BREAK
    plain = single = block = True
    if leading_space or leading_break or trailing_space or trailing_break:
        plain = False
    if trailing_space:
        block = False
    if break_space:
        plain = single = False
    if space_break or special:
        plain = single = block = False
    if line_breaks or block_ind:
        plain = False
    return line_breaks, plain, single, block


def _single(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


def _double(s: str) -> str:
    out = ['"']
    for ch in s:
        if ch in '"\\\x85\u2028\u2029\ufeff' or not (
            "\x20" <= ch <= "\x7e" or "\xa0" <= ch <= "\ud7ff" or "\ue000" <= ch <= "\ufffd"
        ):
            if ch in _ESCAPES:
                out.append("\\" + _ESCAPES[ch])
            elif ch <= "\xff":
                out.append(f"\\x{ord(ch):02X}")
            elif ch <= "\uffff":
                out.append(f"\\u{ord(ch):04X}")
            else:
                out.append(f"\\U{ord(ch):08X}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _literal(s: str, indent: int) -> tuple[str, bool]:
    """A `|` block (text after the indicator's space, through its last line break)."""
    hints = "2" if s[0] in " " + _BREAKS else ""
    if s[-1] not in _BREAKS:
        hints += "-"
    elif len(s) == 1 or s[-2] in _BREAKS:
        hints += "+"
    pad = " " * indent
    out = ["|" + hints, "\n"]
    for piece in re.split(r"(\n)", s):  # only '\n' here: the other breaks force double quotes
        if piece == "\n":
            out.append("\n")
        elif piece:
            out.append(pad + piece)
    if s[-1] not in _BREAKS:
        out.append("\n")
    return "".join(out), hints.endswith("+")


@lru_cache(maxsize=4096)
def scalar(s: str, indent: int, key: bool = False) -> tuple[str, bool]:
    """One text scalar as PyYAML writes it with mdmem's representer: (text, ends open)."""
    if key and (not s or len(s) + 5 >= 128 or any(c in _BREAKS for c in s)):
        raise Unsupported("a complex mapping key")  # PyYAML would write '? key'
    if _simple().fullmatch(s) and _resolves_to_text(s):
        return s, False
    requested = '"' if any(c in s for c in "\x85\u2028\u2029") else ("|" if "\n" in s else "")
    multiline, plain, single, block = _analyze(s)
    if requested == '"':
        return _double(s), False
    if not requested and plain and _resolves_to_text(s) and not (key and (not s or multiline)):
        return s, False
    if requested == "|" and not key and block:
        return _literal(s, indent)
    if not requested and single and not (key and multiline):
        return _single(s), False
    return _double(s), False


def _atom(value: Any, indent: int) -> tuple[str, bool] | None:
    """A scalar's text, an empty collection's flow form, or None for a non-empty collection."""
    if isinstance(value, str):
        return scalar(value, indent)
    if value is None:
        return "null", False
    if value is True or value is False:
        return ("true" if value else "false"), False
    if type(value) is int:
        return str(value), False
    if isinstance(value, (list, dict)):
        if not value:
            return ("[]" if isinstance(value, list) else "{}"), False
        return None
    raise Unsupported(type(value).__name__)


def _mapping(d: dict[str, Any], indent: int, out: list[str], inline: bool) -> bool:
    open_end = False
    for n, (k, v) in enumerate(d.items()):
        if not isinstance(k, str):
            raise Unsupported("a mapping key that is not text")
        if not (inline and n == 0):
            out.append(" " * indent)
        out.append(scalar(k, indent, key=True)[0] + ":")
        open_end = _value(v, indent, out, in_mapping=True)
    return open_end


def _sequence(items: list[Any], indent: int, out: list[str], inline: bool) -> bool:
    open_end = False
    for n, item in enumerate(items):
        if not (inline and n == 0):
            out.append(" " * indent)
        out.append("-")
        open_end = _value(item, indent, out, in_mapping=False)
    return open_end


def _value(v: Any, indent: int, out: list[str], *, in_mapping: bool) -> bool:
    if type(v) is str:  # most values: straight to the cached scalar
        text, open_end = scalar(v, indent + 2)
        out.append(" " + text if text.endswith("\n") else " " + text + "\n")
        return open_end
    atom = _atom(v, indent + 2)
    if atom is not None:
        out.append(" " + atom[0])
        if not atom[0].endswith("\n"):
            out.append("\n")
        return atom[1]
    if isinstance(v, dict):
        if in_mapping:
            out.append("\n")
            return _mapping(v, indent + 2, out, inline=False)
        out.append(" ")
        return _mapping(v, indent + 2, out, inline=True)
    if in_mapping:  # PyYAML's sequences in a mapping are not indented
        out.append("\n")
        return _sequence(v, indent, out, inline=False)
    out.append(" ")
    return _sequence(v, indent + 2, out, inline=True)


def entry(key: str, value: Any) -> tuple[str, bool]:
    """One top-level `key: value` entry of a block mapping: (text, ends with an open `|+`)."""
    if type(value) is str:  # `_mapping` for a one-line entry, without building a list
        text, open_end = scalar(value, 2)
        head = scalar(key, 0, key=True)[0]
        return f"{head}: {text}" if text.endswith("\n") else f"{head}: {text}\n", open_end
    out: list[str] = []
    open_end = _mapping({key: value}, 0, out, inline=False)
    return "".join(out), open_end
