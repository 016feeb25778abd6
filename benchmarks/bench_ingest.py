"""Ingest LoCoMo's development conversations with the default extractor; print turns per second
and peak memory.

    .venv/bin/python benchmarks/bench_ingest.py [path/to/locomo10.json]

The corpus is read from ../shared/corpora/locomo/locomo10.json (CC BY-NC 4.0: never copied
into this repository). Each of the seven development conversations (DEV in locomo_qa.py; the
others are kept unread for independent checks) goes into its own temporary vault with
the `personal` rule pack, as one transcript (one journal entry), exactly as `mdmem ingest`
would do it: parse, extract, decide, write the fact files and the journal.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from locomo_qa import CORPUS as DEFAULT  # noqa: E402  beside the checkout, or beside its worktrees


def locomo_text(conversation: dict) -> tuple[str, int]:
    """One conversation as a Markdown transcript with dated session headers, and its turns."""
    cv, out, n, turns = conversation["conversation"], [], 1, 0
    while f"session_{n}" in cv:
        when = datetime.strptime(cv[f"session_{n}_date_time"], "%I:%M %p on %d %B, %Y")
        out.append(f"## {when:%Y-%m-%d %H:%M}\n")
        out += [f"{t['speaker']}: {t['text']}" for t in cv[f"session_{n}"]]
        turns += len(cv[f"session_{n}"])
        out.append("")
        n += 1
    return "\n".join(out) + "\n", turns


def main() -> int:
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT
    if not path.is_file():
        print(f"LoCoMo not found at {path}; pass its path", file=sys.stderr)
        return 2
    os.environ.setdefault("MDMEM_NOW", "2026-03-01T12:00:00Z")
    from locomo_qa import DEV  # the development conversations; the others are kept unread

    from mdmem.edit.ingest import ingest_text
    from mdmem.edit.ingest_result import summary
    from mdmem.extract.rule_finder import extract
    from mdmem.extract.transcript import parse_transcript
    from mdmem.store.vault import Vault

    data = [c for c in json.loads(path.read_text(encoding="utf-8")) if c["sample_id"] in DEV]
    texts = [(c["sample_id"], *locomo_text(c)) for c in data]
    turns = sum(t for _, _, t in texts)
    with tempfile.TemporaryDirectory() as tmp:
        vaults = [Vault.create(Path(tmp) / sid, "personal") for sid, _, _ in texts]
        t0, c0 = time.perf_counter(), time.process_time()
        results = [
            ingest_text(v, text, source=f"locomo/{sid}.md")
            for v, (sid, text, _) in zip(vaults, texts, strict=True)
        ]
        total, cpu = time.perf_counter() - t0, time.process_time() - c0
        facts = sum(len(v.scan(refresh=True)[0]) for v in vaults)
        # Extraction alone (parse + extract, no decisions or writes), warm.
        rules = vaults[0].rules
        t1, c1 = time.perf_counter(), time.process_time()
        statements = 0
        for sid, text, _ in texts:
            msgs = parse_transcript(text, source=sid)
            statements += len(
                extract(msgs, rules, {}, source=sid, default_date="2026-03-01").statements
            )
        extract_only, extract_cpu = time.perf_counter() - t1, time.process_time() - c1
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    print(
        f"LoCoMo: {len(texts)} conversations, {turns} turns, {statements} statements, {facts} fact files"
    )
    # CPU beside wall: on a shared machine the wall time is the other users' as much as ours.
    print(f"ingest (parse+extract+decide+write): {total:.2f} s  = {turns / total:,.0f} turns/s  (CPU {cpu:.2f} s)")
    print(
        f"extract only (warm):                 {extract_only:.2f} s  = {turns / extract_only:,.0f} turns/s"
        f"  (CPU {extract_cpu:.2f} s)"
    )
    print(f"load average (1 min):                {os.getloadavg()[0]:.1f}")
    print(f"peak memory (RSS):                   {peak:.0f} MiB")
    print(summary(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
