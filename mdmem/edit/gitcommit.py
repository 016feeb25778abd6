"""`ingest --commit`: one git commit per ingest, holding every file it wrote and nothing else:
the fact files, the episodes their evidence links point at, the journal."""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from mdmem.edit.ingest_result import summary
from mdmem.errors import MdmemError

if TYPE_CHECKING:
    from mdmem.edit.ingest_result import IngestResult
    from mdmem.store.vault import Vault

JOURNAL = ".mdmem/journal.jsonl"


def _git(root: Path, *args: str, check: bool = True, stdin: str | None = None) -> subprocess.CompletedProcess[str]:  # fmt: skip
    try:
        return subprocess.run(
            ["git", "-C", str(root), *args], capture_output=True, text=True, check=check,
            input=stdin,
        )  # fmt: skip
    except FileNotFoundError:
        raise MdmemError("--commit needs git, which is not installed or not on PATH") from None
    except subprocess.CalledProcessError as e:
        raise MdmemError(f"git {args[0]} failed: {(e.stderr or e.stdout).strip()}") from None


def check_repo(root: Path) -> None:
    """Refuse --commit early when the vault is not inside a git work tree."""
    if _git(root, "rev-parse", "--is-inside-work-tree", check=False).returncode != 0:
        raise MdmemError(
            f"{root} is not in a git repository; run `git init` there, or drop --commit"
        )


def message(results: list[IngestResult]) -> str:
    """Commit message: a summary line, then each source's facts as its table shows them (one
    line per fact, in its final state; forgotten values never)."""
    done = [r for r in results if r.entry is not None]
    n = sum(len(r.rows()) for r in done)
    lines = [
        f"mdmem ingest: {len(done)} source{'s' * (len(done) != 1)}, {n} fact{'s' * (n != 1)} changed",
        "",
    ]
    for r in done:
        title = f" “{r.title}”" if r.title else ""
        lines.append(f"{r.source}{title} (journal {r.entry['id'] if r.entry else '?'})")
        rows = [f"  {row.decision} {row.key}: {row.change}"
                + (f" (because {', '.join(row.causes)} changed)" if row.causes else "")
                for row in r.rows()]  # fmt: skip
        lines += rows or ["  no changes"]
    lines += ["", summary(results)]
    return "\n".join(lines) + "\n"


def written(results: list[IngestResult]) -> list[str]:
    """Every vault file these results wrote: facts, episodes, and the journal."""
    paths = {f"facts/{c.key}.md" for r in results if r.entry for c in r.plan.changes}
    paths |= {rel for r in results if r.entry for rel in r.episodes}
    return sorted(paths) + [JOURNAL]


def commit_results(vault: Vault, results: list[IngestResult]) -> str | None:
    """Commit what these results wrote (`written`); the new commit's id."""
    if not any(r.entry for r in results):
        return None
    paths = written(results)
    if (vault.meta / ".gitignore").is_file():
        paths.append(".mdmem/.gitignore")
    root = vault.root
    listed = "".join(f":(literal){p}\0" for p in paths)  # any number of paths, as written
    _git(root, "add", "-A", "--pathspec-from-file=-", "--pathspec-file-nul", stdin=listed)
    staged = set(_git(root, "diff", "--cached", "--name-only", "-z").stdout.split("\0"))
    if not staged & set(paths):
        return None  # nothing new to record
    ident: list[str] = []
    if not _git(root, "config", "user.email", check=False).stdout.strip():
        ident = ["-c", "user.name=mdmem", "-c", "user.email=mdmem@localhost"]
    # Only these paths are committed, whatever else the person has staged; the message goes
    # through a file, since stdin carries the paths.
    with tempfile.NamedTemporaryFile("w", encoding="utf-8", suffix=".txt", delete=False) as f:
        f.write(message(results))
    try:
        proc = subprocess.run(
            ["git", "-C", str(root), *ident, "commit", "-q", "-F", f.name,
             "--pathspec-from-file=-", "--pathspec-file-nul"],
            input=listed, capture_output=True, text=True,
        )  # fmt: skip
    finally:
        os.unlink(f.name)
    if proc.returncode != 0:
        raise MdmemError(f"git commit failed: {(proc.stderr or proc.stdout).strip()}")
    return _git(root, "rev-parse", "HEAD").stdout.strip()
