"""What the lifecycle did on real chat: every change but a first value, over whole conversations.

    .venv/bin/python benchmarks/lifecycle.py [--corpus PATH] [--conv conv-30 ...] [--out FILE.md] [--json]

Each development conversation goes into a fresh vault with the `personal` pack, one session at a
time in order, as `locomo_qa.py` does. Every change an ingest made is counted by decision
(UPDATE, EXPIRE, UNCERTAIN, DERIVE, CONFIRM, BACKFILL; ADD and NOOP aside), and by what it did to
a life: plans made, fulfilled, turned uncertain (their day passed with no word), called off;
events told; jobs and hobbies ended; names filled (an unnamed one named). `--out` writes each of
those changes with the message that caused it, to be judged by hand (the judgement goes in
docs/eval.md, never the messages: the file stays outside the repository).

Uses only what every mdmem version has (ingest_text, the plan it returns), so it also measures
an older checkout: `PYTHONPATH=/path/to/checkout .venv/bin/python benchmarks/lifecycle.py`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from locomo_qa import CORPUS, DEV, sessions, transcript  # noqa: E402

COUNTED = ("UPDATE", "EXPIRE", "UNCERTAIN", "DERIVE", "CONFIRM", "BACKFILL", "CORRECT")
ENDED = ("employer", "job_title", "hobby", "hobbies", "gym", "diet", "instrument")


def _shape(fact: Any) -> str:
    if fact is None:
        return "—"
    value = fact.value if fact.value is not None else (fact.history[-1].get("value") if fact.history else None)
    shown = ", ".join(value) if isinstance(value, list) else str(value)
    if value is None and fact.mentioned_as:  # an unnamed one: the nouns said
        shown = f"({', '.join(fact.mentioned_as)})"
    return f"{shown} [{fact.status}{'/' + fact.kind if fact.kind else ''}]"


def _life(change: Any) -> str | None:
    """What a change did to a life, or None."""
    key, after, before = change.key, change.after, change.before
    attr = key.split("/", 1)[1]
    if attr.startswith("plan-"):
        if change.decision == "ADD":
            return "plan made"
        if change.decision == "CONFIRM" and after is not None and getattr(after, "fulfilled_by", None):
            return "plan fulfilled"
        if change.decision == "UNCERTAIN":
            return "plan turned uncertain"
        if change.decision == "EXPIRE":
            return "plan called off"
        return None
    if attr.startswith("event-"):
        return "event told" if change.decision == "ADD" else None
    if change.decision == "EXPIRE" and attr in ENDED:
        return "job or hobby ended"
    if before is not None and before.kind == "unnamed" and after is not None and after.value is not None:
        return "name filled"
    return None


def run_conversation(conv: dict[str, Any], tmp: Path) -> list[dict[str, Any]]:
    from mdmem.edit.ingest import ingest_text
    from mdmem.store.vault import Vault

    sid = conv["sample_id"]
    vault = Vault.create(tmp / sid, "personal")
    out: list[dict[str, Any]] = []
    said: dict[str, str] = {}  # source#Lline → the message, over the whole conversation
    for n, when, session in sessions(conv):
        text, where = transcript(when, session)
        source = f"locomo/{sid}/session_{n:02d}.md"
        said |= {f"{source}#L{where[t['dia_id']]}": f"{t['speaker']}: {' '.join(str(t.get('text', '')).split())}"
                 for t in session}  # fmt: skip
        result = ingest_text(vault, text, source=source, date=when[:10])
        heads = {st.key: st.source for st, _ in result.plan.decisions}
        for c in result.plan.changes:
            life = _life(c)
            if c.decision not in COUNTED and life is None:
                continue
            src = (c.after.source if c.after is not None and c.after.source in said else None) or heads.get(c.cause or c.key) or heads.get(c.key) or ""
            out.append({"conversation": sid, "session": n, "date": when[:10], "decision": c.decision,
                        "fact": c.key, "cause": c.cause, "life": life, "before": _shape(c.before),
                        "after": _shape(c.after), "source": src, "message": said.get(src, "")})  # fmt: skip
    return out


def summary(changes: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "decisions": dict(sorted(Counter(c["decision"] for c in changes if c["decision"] in COUNTED).items())),
        "life": dict(sorted(Counter(c["life"] for c in changes if c["life"]).items())),
        "changes": len(changes),
    }


def to_markdown(changes: list[dict[str, Any]]) -> str:
    lines = ["# Lifecycle changes, to judge by hand", ""]
    for c in changes:
        if c["decision"] == "ADD" and c["life"] == "event told":
            continue  # first values: judged by the gold set, not here
        lines.append(f"- [ ] {c['conversation']} s{c['session']} {c['date']} **{c['decision']}** "
                     f"`{c['fact']}`{' ← ' + c['cause'] if c['cause'] else ''} ({c['life'] or '-'}): "
                     f"{c['before']} → {c['after']}")  # fmt: skip
        if c["message"]:
            lines.append(f"  > {c['message']}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", type=Path, default=CORPUS)
    ap.add_argument("--conv", nargs="*", default=DEV, choices=DEV, help="dev conversation ids")
    ap.add_argument("--out", type=Path, help="write every change with its message here (Markdown)")
    ap.add_argument("--json", action="store_true", help="print the summary as JSON")
    args = ap.parse_args(argv)
    if not args.corpus.is_file():
        print(f"LoCoMo not found at {args.corpus}; pass --corpus", file=sys.stderr)
        return 2
    os.environ.setdefault("MDMEM_NOW", "2026-03-01T12:00:00Z")
    data = {c["sample_id"]: c for c in json.loads(args.corpus.read_text(encoding="utf-8"))}
    changes: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for c in args.conv:
            changes += run_conversation(data[c], Path(tmp))
    if args.out:
        args.out.write_text(to_markdown(changes), encoding="utf-8")
    rep = summary(changes)
    if args.json:
        print(json.dumps(rep, indent=1))
        return 0
    print(f"Lifecycle over all sessions of {', '.join(args.conv)}:")
    print("  decisions: " + (", ".join(f"{k} {v}" for k, v in rep["decisions"].items()) or "none"))
    print("  life:      " + (", ".join(f"{k} {v}" for k, v in rep["life"].items()) or "none"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
