"""Which files an ingest reads, and the name each is known by in the journal.

Files named on the command line are read whatever their name; a folder is walked in name order
for the transcript types, passing over hidden files and folders, editors' junk, the vault's own
files and what a `.mdmemignore` (gitignore syntax, in the folder or any folder below it) names.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from mdmem.store.vault import Vault

IGNORE_FILE = ".mdmemignore"
# Editors' swap, backup and temporary files left beside transcripts in a folder.
EDITOR_JUNK = (".swp", ".swo", ".swx", "~", ".tmp", ".bak", ".orig")
# What a folder is read for; anything else in it (a photo, a .docx) is passed over. A file
# named on its own is read whatever its name.
TRANSCRIPT_TYPES = (".md", ".txt", ".jsonl", ".json")

PassedOver = Callable[[Path, str], None]  # (path, why) of a folder's file not read


class SourceFile(NamedTuple):
    name: str  # the source name the journal knows it by
    path: Path | None  # None: standard input
    walked: bool = False  # found in a folder (not named on its own)


def transcript_files(paths: Sequence[str | Path], vault: Vault | None = None, *,
                     types: Iterable[str] = TRANSCRIPT_TYPES,
                     passed_over: PassedOver | None = None) -> list[SourceFile]:  # fmt: skip
    """The files to read, in order: files as given, folders' files of the transcript `types`
    in name order, '-' = stdin. A folder's other files are handed to `passed_over`."""
    out: list[SourceFile] = []
    suffixes = tuple(_suffix(t) for t in types)
    for raw in paths:
        if str(raw) == "-":
            out.append(SourceFile("<stdin>", None))
            continue
        path = Path(raw)
        if not path.is_dir():
            out.append(SourceFile(source_name(path, vault), path))
            continue
        for p, ignored, resolved in _folder(path, vault):
            if ignored:
                if passed_over is not None:
                    passed_over(p, f"named in {IGNORE_FILE}")
            elif p.name.lower().endswith(suffixes):
                out.append(SourceFile(source_name(p, vault, resolved), p, walked=True))
            elif passed_over is not None:
                passed_over(p, f"not a transcript type ({' '.join(suffixes)})")
    return out


# A file larger than this is hashed by its reader only: more likely an export (whose
# conversations are known by digests of their own) than a transcript ingested whole before.
WHOLE_MAX = 8 << 20


def whole_digest(path: Path) -> str | None:
    """The SHA-256 of a file's bytes, as a transcript read whole is known by in the journal
    (extract/importers: text, JSON messages); None for a file too large or not readable, which
    is read the ordinary way."""
    try:
        if path.stat().st_size > WHOLE_MAX:
            return None
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def source_name(path: Path, vault: Vault | None, resolved: Path | None = None) -> str:
    """The same name on every machine and from any working directory (a cron job's is `/`):
    relative to the vault (`../chats/a.md` beside it), else the path as given (`resolved`:
    the path resolved, when the caller has it)."""
    if vault is None:
        return path.as_posix()
    resolved = resolved or path.resolve()
    common = Path(os.path.commonpath([vault.root, resolved]))
    if common == Path(common.anchor):  # nothing shared but the root: no shorter honest name
        return path.as_posix()
    return Path(os.path.relpath(resolved, vault.root)).as_posix()


def _suffix(kind: str) -> str:
    """'md', '.md' or 'MD' → '.md'."""
    kind = kind.strip().lower()
    return kind if kind.startswith(".") else f".{kind}"


def _folder(folder: Path, vault: Vault | None) -> Iterator[tuple[Path, bool, Path]]:
    """(file, ignored, the file resolved) in name order; an ignored folder is not entered."""
    skip = (
        {vault.root / "facts", vault.root / "episodes", vault.meta, vault.root / "rules.yaml"}
        if vault else set()
    )  # fmt: skip
    found: list[tuple[str, Path, bool, Path]] = []
    rules: dict[str, Ignore] = {}
    for here, dirs, files in os.walk(folder):
        base = Path(here)
        real = base.resolve()  # once a folder: its entries that are no links resolve inside it
        rel_dir = base.relative_to(folder).as_posix()
        rel_dir = "" if rel_dir == "." else rel_dir
        if (base / IGNORE_FILE).is_file():
            rules[rel_dir] = Ignore.read(base / IGNORE_FILE)
        active = [(d, r) for d, r in rules.items() if d == "" or rel_dir == d or rel_dir.startswith(d + "/")]  # fmt: skip
        kept = []
        for name in sorted(dirs):
            rel = f"{rel_dir}/{name}" if rel_dir else name
            p = base / name
            if name.startswith(".") or _inside(_resolved(p, real), skip):
                continue
            if _ignored(active, rel, True):
                found.append((rel, p, True, _resolved(p, real)))
            else:
                kept.append(name)
        dirs[:] = kept
        for name in files:
            rel = f"{rel_dir}/{name}" if rel_dir else name
            p = base / name
            if name.startswith(".") or name.endswith(EDITOR_JUNK):
                continue
            resolved = _resolved(p, real)
            if not _inside(resolved, skip) and p.is_file():
                found.append((rel, p, _ignored(active, rel, False), resolved))
    for _, p, ignored, resolved in sorted(found, key=lambda f: f[0]):
        yield p, ignored, resolved


def _resolved(p: Path, real: Path) -> Path:
    """`p.resolve()` for an entry of the folder that resolves to `real`: a link is followed."""
    return p.resolve() if p.is_symlink() else real / p.name


def _inside(resolved: Path, skip: set[Path]) -> bool:
    """The vault's own files are not transcripts (`resolved`: the file, resolved): one of the
    skipped paths or below one (compared as text, as `s in resolved.parents` compares parts)."""
    r = str(resolved)
    return any(r == (t := str(s)) or r.startswith(t.rstrip(os.sep) + os.sep) for s in skip)


def _ignored(active: list[tuple[str, Ignore]], rel: str, is_dir: bool) -> bool:
    verdict = False
    for base, ignore in active:  # the folder's own file first, deeper ones after: the last says
        inner = rel[len(base) + 1 :] if base else rel
        said = ignore.verdict(inner, is_dir)
        if said is not None:
            verdict = said
    return verdict


class Ignore:
    """The patterns of one ignore file, in gitignore syntax: `*`, `?`, `[abc]`, `**`, a
    leading `/` (or any `/` but a trailing one) anchors to the file's folder, a trailing `/`
    matches folders only, `!` takes a path back, `#` starts a comment, `\\` escapes."""

    def __init__(self, lines: Iterable[str]) -> None:
        self.rules: list[tuple[re.Pattern[str], bool, bool]] = []  # (regex, negated, dirs only)
        for raw in lines:
            line = raw.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            line = re.sub(r"(?<!\\)\s+$", "", line)
            negated = line.startswith("!")
            line = line[1:] if negated else line
            line = line[1:] if line.startswith("\\") and line[1:2] in ("#", "!") else line
            dirs_only = line.endswith("/")
            line = line.rstrip("/")
            if not line:
                continue
            anchored = "/" in line
            body = _regex(line.lstrip("/"))
            rx = re.compile(("^" if anchored else "^(?:.*/)?") + body + "$")
            self.rules.append((rx, negated, dirs_only))

    @classmethod
    def read(cls, path: Path) -> Ignore:
        try:
            return cls(path.read_text(encoding="utf-8", errors="replace").splitlines())
        except OSError:
            return cls([])

    def verdict(self, rel: str, is_dir: bool) -> bool | None:
        """True: ignored; False: taken back by a `!` pattern; None: no pattern says."""
        out = None
        for rx, negated, dirs_only in self.rules:
            if dirs_only and not is_dir:
                continue
            if rx.match(rel):
                out = not negated
        return out


def _regex(pattern: str) -> str:
    out, i, n = [], 0, len(pattern)
    while i < n:
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("/**", i) and i + 3 == n:
            out.append("/.*")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[" and (end := pattern.find("]", i + 2)) > 0:
            inner = pattern[i + 1 : end]
            inner = "^" + inner[1:] if inner.startswith("!") else inner
            out.append("[" + inner.replace("\\", "\\\\") + "]")
            i = end + 1
        elif pattern[i] == "\\" and i + 1 < n:
            out.append(re.escape(pattern[i + 1]))
            i += 2
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return "".join(out)
