"""How report lines are shown: paths as the person can open them, prose wrapped at whole
words on a terminal. No typer here: the plain forms of `check` and `sync` (plain.py) print
through these too, so both roads print the same lines."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mdmem.store.vault import Vault

__all__ = ["fit", "here", "here_line"]


def fit(text: str, stream: Any) -> str:
    """`text` wrapped at whole words to the width of the terminal `stream` is, so that the
    terminal never breaks a word in two; in a pipe or a log, as it is (one line, for grep)."""
    import shutil
    import textwrap

    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):
        tty = False
    width = shutil.get_terminal_size().columns
    if not tty or all(len(line) <= width for line in text.split("\n")):
        return text
    return "\n".join(
        textwrap.fill(line, width, subsequent_indent="  ", break_long_words=False,
                      break_on_hyphens=False) if len(line) > width else line
        for line in text.split("\n")
    )  # fmt: skip


def here_line(vault: Vault, line: str) -> str:
    """A report line that starts with a vault path (`facts/user/a.md:3: …`), that path as
    `here` shows it."""
    path, sep, rest = line.partition(":")
    if sep and path.split("/", 1)[0] in ("facts", "episodes", "rules.yaml", ".mdmem"):
        return here(vault, path) + sep + rest
    return line


def here(vault: Vault, rel: str) -> str:
    """A vault-relative path (a fact file, a source name like `../chats/a.md`) as the person
    can open it from the current folder; a source kept as given (it shares nothing with the
    vault but `/`) and anything else (`chatgpt:…`, `<stdin>`) as it is."""
    import os

    if not rel or rel.startswith("<") or Path(rel).is_absolute() or ":" in rel.split("/", 1)[0]:
        return rel
    full = os.path.normpath(vault.root / rel)
    if not os.path.lexists(full) and os.path.lexists(rel):
        return rel  # a source that shares nothing with the vault is named as given, from here
    try:
        shown = os.path.relpath(full)
    except ValueError:  # another drive (Windows)
        return full
    return full if shown.count("..") > 2 and len(shown) > len(full) else shown
