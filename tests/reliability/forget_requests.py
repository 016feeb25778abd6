"""Score the blind forget-request set (tests/data/forget_requests/cases.yaml).

Each case's transcript is ingested into a fresh vault (personal rules), a question is asked so
the passage index is built, and then:
- every `gone` substring must appear nowhere in the vault's files (facts, episodes, journal,
  indexes, snapshot, model cache; the rules are not the person's data), matched as words and
  numbers: a number does not count inside a longer number, nor inside an id or a hash;
- every `kept` substring must still be in a fact or an episode;
- a `negative` or `sweeping` case must redact nothing, and a `sweeping` one must be reported.

`python -m tests.reliability.forget_requests` prints the table (and each failure) for
RELIABILITY.md.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import yaml

from tests.conftest import RULES_FILES, holds

CASES = Path(__file__).resolve().parents[1] / "data" / "forget_requests" / "cases.yaml"
DATE = "2026-02-10"


@dataclass
class Outcome:
    id: str
    lang: str
    kind: str
    missed: list[str]  # `gone` words still somewhere
    lost: list[str]  # `kept` words gone
    redacted: bool  # anything cut or forgotten
    reported: bool  # a sweeping request was told to the person

    @property
    def verdict(self) -> str:
        if self.kind == "request":
            return "missed" if self.missed else "over-redacted" if self.lost else "correct"
        if self.lost or self.redacted:
            return "over-redacted"
        if self.kind == "sweeping" and not self.reported:
            return "missed"  # ignored silently
        return "correct"


def vault_text(root: Path, *, only: tuple[str, ...] = ()) -> str:
    out = []
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if not p.is_file() or rel in RULES_FILES or (only and not rel.startswith(only)):
            continue
        out.append(p.read_bytes().decode("utf-8", "replace"))
    return "\n".join(out)


def run_case(case: dict, workdir: Path) -> Outcome:
    from mdmem import Vault
    from mdmem.edit.ingest import ingest_text
    from mdmem.read.ask import ask

    empty = workdir / ".empty"
    if not empty.exists():  # one fresh vault, copied for each case (its rules read once)
        Vault(Vault.create(empty, "personal").root).rules  # noqa: B018 - caches the parsed rules
    shutil.copytree(empty, workdir / case["id"])
    vault = Vault(workdir / case["id"], now=f"{DATE}T12:00:00Z")
    result = ingest_text(vault, case["transcript"], source="chat.md", date=DATE)
    vault = Vault(vault.root, now=f"{DATE}T12:00:00Z")
    ask(vault, "what did I tell you?")  # builds the passage and fact indexes
    everything = vault_text(vault.root)
    said = vault_text(vault.root, only=("facts/", "episodes/"))
    redacted = "[forgotten]" in said or any(f.status == "deleted" for f in vault.facts.values())
    told = " ".join(result.warnings + result.notes)
    return Outcome(
        case["id"], case["lang"], case["kind"],
        missed=[w for w in case.get("gone") or [] if holds(everything, w)],
        lost=[w for w in case.get("kept") or [] if not holds(said, w)],
        redacted=redacted, reported="forget --all" in told,
    )  # fmt: skip


def score(cases: list[dict] | None = None) -> list[Outcome]:
    cases = cases if cases is not None else yaml.safe_load(CASES.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as tmp:
        return [run_case(c, Path(tmp)) for c in cases]


def table(outcomes: list[Outcome]) -> str:
    rows = ["| language | cases | redacted correctly | missed | over-redacted |", "|---|---|---|---|---|"]
    for lang in ("en", "zh"):
        mine = [o for o in outcomes if o.lang == lang]
        c = Counter(o.verdict for o in mine)
        rows.append(f"| {lang} | {len(mine)} | {c['correct']} | {c['missed']} | {c['over-redacted']} |")
    return "\n".join(rows)


def main() -> int:
    import os

    os.environ.setdefault("MDMEM_NOW", f"{DATE}T12:00:00Z")
    outcomes = score()
    print(table(outcomes))
    for o in outcomes:
        if o.verdict != "correct":
            print(f"{o.id} ({o.kind}): {o.verdict}; still there: {o.missed}; lost: {o.lost};"
                  f" redacted: {o.redacted}; reported: {o.reported}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
