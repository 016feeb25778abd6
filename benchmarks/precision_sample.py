"""A deterministic sample of written statements to judge by hand against their messages.

    .venv/bin/python benchmarks/locomo_qa.py --writes /tmp/writes.jsonl
    .venv/bin/python benchmarks/precision_sample.py /tmp/writes.jsonl [--n 100] [--judged FILE]

Every statement that changed a vault during the LoCoMo development run (benchmarks/locomo_qa.py
--writes) is a written fact; its message is the one its evidence link points at. The sample is
the first N by a hash of (conversation, source line, attribute, kind, value), so it does not
depend on the order of the run and stays the same while the writes do; all of them when there
are fewer. It prints a Markdown table with an empty verdict column; `--judged FILE` reads the
verdicts back from an earlier table (matched by the hash id) so a re-run keeps the judging.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from pathlib import Path
from typing import Any


def key(w: dict[str, Any]) -> str:
    raw = "\x1f".join(str(w.get(k)) for k in ("conversation", "source", "attribute", "kind", "value"))
    return hashlib.sha1(raw.encode("utf-8")).hexdigest()[:10]


def fact(w: dict[str, Any]) -> str:
    """The written fact in words: `speaker/attribute = value` with its kind, polarity and date."""
    if w["kind"] == "invalidate":
        what = "no longer known (ended)"
    elif w.get("form") in ("none", "unnamed"):
        what = w["form"]
    else:
        what = repr(w["value"])
    extra = [x for x in (w.get("polarity"), "tentative" if w.get("tentative") else "") if x]
    return f"{w['entity']}/{w['attribute']} = {what}{' (' + ', '.join(extra) + ')' if extra else ''} @ {w['at']}"


def judged(path: Path | None) -> dict[str, tuple[str, str]]:
    """Verdicts (ok/wrong) and notes from an earlier table, by id."""
    if path is None or not path.is_file():
        return {}
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 6 and re.fullmatch(r"[0-9a-f]{10}", cells[1]):
            out[cells[1]] = (cells[-2], cells[-1])
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("writes", type=Path)
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--judged", type=Path, help="an earlier sample whose verdicts to keep")
    args = ap.parse_args(argv)
    writes = [json.loads(line) for line in args.writes.read_text(encoding="utf-8").splitlines() if line]
    seen: dict[str, dict[str, Any]] = {}
    for w in writes:
        seen.setdefault(key(w), w)
    sample = sorted(seen.items())[: args.n]
    verdicts = judged(args.judged)
    print(f"{len(sample)} of {len(seen)} written statements (first {args.n} by id)\n")
    print("| # | id | fact | message (the evidence) | verdict | why |")
    print("|---|---|---|---|---|---|")
    for n, (k, w) in enumerate(sorted(sample, key=lambda kw: (kw[1]["conversation"], kw[1]["source"])), 1):
        msg = w["message"].replace("|", "/")
        verdict, why = verdicts.get(k, ("", ""))
        print(f"| {n} | {k} | {fact(w)} | {w['source'].split('/', 1)[1]}: {msg} | {verdict} | {why} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
