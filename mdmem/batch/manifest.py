"""The batch manifest: one JSON job a line, read as a stream, each line checked on its own.

A line is `{"vault": PATH, "inputs": [PATH, …], "date": "YYYY-MM-DD"}` (`date` optional: the
date of messages that carry none). Relative paths are taken from the root. A line that is not
such a job, names a vault outside the root, or names a vault an earlier line named, becomes a
`Refused` line with its error; every other line is a `Job`. Nothing here touches the vaults:
whether a vault or an input exists is for the worker that runs the job to see (on a cluster, the
driver may not even mount them).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from mdmem.errors import MdmemError

KEYS = ("vault", "inputs", "date")
DAY_RE = re.compile(r"\d{4}-\d{2}-\d{2}")
MAX_LINE = 1 << 20  # bytes: a longer line is refused, not read into memory whole
# What a run left undone, for --retry-failed: a vault that failed or stayed busy.
NOT_DONE = ("failed", "busy")


@dataclass(frozen=True, slots=True)
class Job:
    """One vault's ingest: its manifest line, the vault's absolute path, inputs and date."""

    line: int
    vault: str
    inputs: tuple[str, ...]
    date: str | None = None


@dataclass(frozen=True, slots=True)
class Refused:
    """A manifest line that is not run: its status ('failed', or 'duplicate' for a line that
    repeats an earlier one exactly) and why."""

    line: int
    vault: str | None
    status: str
    error: str


def inside(path: str, root: str) -> bool:
    """Whether `path` is strictly below `root` (both absolute and normalised)."""
    return path != root and path.startswith(root.rstrip(os.sep) + os.sep)


def absolute(path: str, root: str) -> str:
    """A manifest path made absolute from the root and normalised, without touching the disk."""
    if path.startswith("~"):
        path = os.path.expanduser(path)
    return os.path.normpath(os.path.join(root, path))


def parse_line(text: str, number: int, root: str) -> Job | Refused:
    """One manifest line as a Job, or Refused with the fix in its error."""

    def refuse(why: str, vault: str | None = None) -> Refused:
        return Refused(number, vault, "failed", f"manifest line {number}: {why}")

    try:
        data = json.loads(text)
    except ValueError as e:
        return refuse(f"not JSON ({e}); each line is one object like "
                      '{"vault": "users/ana", "inputs": ["chats/ana.jsonl"]}')  # fmt: skip
    if not isinstance(data, dict):
        return refuse(f"a JSON {type(data).__name__}, not an object with vault and inputs")
    unknown = sorted(set(data) - set(KEYS))
    if unknown:
        return refuse(f"unknown key {unknown[0]!r}; a line has {', '.join(KEYS)}")
    vault = data.get("vault")
    if not isinstance(vault, str) or not vault.strip():
        return refuse('give the vault\'s path as a non-empty string under "vault"')
    path = absolute(vault, root)
    if not inside(path, root):
        return refuse(f"vault {vault} is outside the root {root}; jobs may only name vaults"
                      " under --root (pass a --root that holds it)", path)  # fmt: skip
    inputs = data.get("inputs")
    if not isinstance(inputs, list) or not inputs:
        return refuse('give "inputs" as a non-empty list of transcript paths', path)
    if not all(isinstance(p, str) and p.strip() for p in inputs):
        return refuse('every entry of "inputs" must be a non-empty path string', path)
    if "-" in inputs:
        return refuse('"-" (standard input) cannot be a batch input; give a file', path)
    day = data.get("date")
    if day is not None and not (isinstance(day, str) and DAY_RE.fullmatch(day)):
        return refuse(f'"date" must be a date like 2026-02-10, not {str(day)[:40]!r}', path)
    return Job(number, path, tuple(absolute(p, root) for p in inputs), day)


def _lines(stream: IO[bytes]) -> Iterator[tuple[int, str | None]]:
    """(line number, text) per non-blank line; text None for a line too long or not UTF-8."""
    number = 0
    while chunk := stream.readline(MAX_LINE + 1):
        number += 1
        if len(chunk) > MAX_LINE and not chunk.endswith(b"\n"):
            while (rest := stream.readline(MAX_LINE)) and not rest.endswith(b"\n"):
                pass  # the rest of the long line, read a bounded piece at a time
            yield number, None
            continue
        try:
            text = chunk.decode("utf-8")
        except UnicodeDecodeError:
            yield number, None
            continue
        if text.strip():
            yield number, text


def read_jobs(stream: IO[bytes], root: str | Path, *, only: Undone | None = None) -> Iterator[Job | Refused]:  # fmt: skip
    """Every line of a manifest, in order, as it is read: a Job, or a Refused line.

    A vault named again is run once: the later line is a 'duplicate' when it repeats the first
    exactly, else refused (its inputs would be lost without a word). `only` keeps the lines a
    previous run left undone (--retry-failed). Memory: about 150 bytes per distinct vault."""
    base = os.path.abspath(os.path.expanduser(str(root)))
    seen: dict[int, int] = {}  # vault digest → its first line << 64 | the digest of its job
    for number, text in _lines(stream):
        if text is None:
            yield Refused(number, None, "failed", f"manifest line {number}: not UTF-8, or longer"
                          f" than {MAX_LINE} bytes; each line is one short JSON object")  # fmt: skip
            continue
        item = parse_line(text, number, base)
        if only is not None and not only.wants(item):
            continue
        if isinstance(item, Job):
            job = _digest("\0".join((*item.inputs, item.date or "")), 8)
            first = seen.setdefault(_digest(item.vault, 16), number << 64 | job)
            if first >> 64 != number:
                yield _duplicate(item, first >> 64, same=first & (2**64 - 1) == job)
                continue
        yield item


def _duplicate(job: Job, first: int, *, same: bool) -> Refused:
    if same:
        return Refused(job.line, job.vault, "duplicate", f"manifest line {job.line}: the same"
                       f" job as line {first}, which runs it; run once")  # fmt: skip
    return Refused(job.line, job.vault, "failed", f"manifest line {job.line}: line {first} already"
                   " names this vault with other inputs or date; not run. Give each vault one"
                   " line with all its inputs")  # fmt: skip


def _digest(text: str, size: int) -> int:
    data = text.encode("utf-8", "surrogateescape")
    return int.from_bytes(hashlib.blake2b(data, digest_size=size).digest())


@dataclass
class Undone:
    """What a results file says was not done: vaults that failed or stayed busy, and the
    numbers of failed lines that named no vault (so a line fixed since is run)."""

    vaults: set[str]
    lines: set[int]

    def wants(self, item: Job | Refused) -> bool:
        if isinstance(item, Refused) and item.status == "failed":
            return True  # still wrong in the manifest: still reported
        return item.vault in self.vaults or item.line in self.lines


def undone(results: Iterable[str], name: str = "results") -> Undone:
    """Read a results stream (`mdmem batch`'s stdout) for --retry-failed."""
    vaults: set[str] = set()
    lines: set[int] = set()
    for number, text in enumerate(results, 1):
        if not text.strip():
            continue
        try:
            row: Any = json.loads(text)
        except ValueError:
            row = None
        if not isinstance(row, dict) or ("summary" not in row and "status" not in row):
            raise MdmemError("not a line of `mdmem batch` results; give the file its standard"
                             " output was saved to", path=name, line=number)  # fmt: skip
        if row.get("status") not in NOT_DONE:
            continue
        if isinstance(row.get("vault"), str):
            vaults.add(row["vault"])
        elif isinstance(row.get("line"), int):
            lines.add(row["line"])
    return Undone(vaults, lines)
