"""`ingest --commit`: one git commit per ingest, holding only the files mdmem changed."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

from mdmem.edit.ingest_result import summary
from mdmem.engine.describe import change_line
from mdmem.errors import MdmemError

if TYPE_CHECKING:
    from mdmem.edit.ingest_result import IngestResult
    from mdmem.store.vault import Vault

JOURNAL = ".mdmem/journal.jsonl"


def _git(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            ["git", "-C", str(root), *args], capture_output=True, text=True, check=check
        )
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
    """Commit message: a summary line, then each source's changes (forgotten values never)."""
    done = [r for r in results if r.entry is not None]
    n = sum(len(r.plan.changes) for r in done)
    lines = [
        f"mdmem ingest: {len(done)} source{'s' * (len(done) != 1)}, {n} change{'s' * (n != 1)}",
        "",
    ]
    for r in done:
        lines.append(f"{r.source} (journal {r.entry['id'] if r.entry else '?'})")
        lines += [f"  {change_line(c)}" for c in r.plan.changes] or ["  no changes"]
    lines += ["", summary(results)]
    return "\n".join(lines) + "\n"


def commit_results(vault: Vault, results: list[IngestResult]) -> str | None:
    """Commit the fact files these results changed plus the journal; the new commit's id."""
    paths = sorted({f"facts/{c.key}.md" for r in results if r.entry for c in r.plan.changes})
    if not any(r.entry for r in results):
        return None
    paths.append(JOURNAL)
    if (vault.meta / ".gitignore").is_file():
        paths.append(".mdmem/.gitignore")
    root = vault.root
    _git(root, "add", "-A", "--", *paths)
    if _git(root, "diff", "--cached", "--quiet", "--", *paths, check=False).returncode == 0:
        return None  # nothing new to record
    ident: list[str] = []
    if not _git(root, "config", "user.email", check=False).stdout.strip():
        ident = ["-c", "user.name=mdmem", "-c", "user.email=mdmem@localhost"]
    # `commit -- paths` records only these paths, whatever else the person has staged.
    proc = subprocess.run(
        ["git", "-C", str(root), *ident, "commit", "-q", "-F", "-", "--", *paths],
        input=message(results), capture_output=True, text=True,
    )  # fmt: skip
    if proc.returncode != 0:
        raise MdmemError(f"git commit failed: {(proc.stderr or proc.stdout).strip()}")
    return _git(root, "rev-parse", "HEAD").stdout.strip()
