"""Every speed figure BENCHMARKS.md states, each beside its floor in the same run.

    .venv/bin/python benchmarks/run.py                     # every case (about an hour at 100,000)
    .venv/bin/python benchmarks/run.py check cold --runs 7 # some cases
    .venv/bin/python benchmarks/run.py --sizes 10000       # a quick pass
    .venv/bin/python benchmarks/run.py --write             # and rewrite BENCHMARKS.md's block
    make bench                                             # the same as the first, then --write

Each figure runs as its own process beside its floor (harness.py: interleaved pairs, medians,
wall, CPU, peak memory, the CPU ratio to the floor, the load average before and after). Every
step checks that what it timed did the work (an `ask` answered with the expected text, an
index held every row, no file rewritten); one that did not stops the run. Results are merged
by case into `--json` (default benchmarks/results/latest.json); `--write` renders that file
into BENCHMARKS.md between its `bench:begin` and `bench:end` marks, with the figures of
`--before` (default benchmarks/results/before.json) beside them. `--code SRC` measures another
copy of the package (`git archive COMMIT mdmem rules | tar -x -C SRC`); `--work DIR` keeps the
generated vaults between runs (the default is a fresh temporary folder).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import cases_facts  # noqa: E402
import cases_write  # noqa: E402
import harness  # noqa: E402
from benchctx import Ctx  # noqa: E402
from harness import Row  # noqa: E402

CASES: dict[str, Callable[[Ctx], list[Row]]] = {
    "startup": cases_write.startup,
    "ask-command": cases_facts.ask_command,
    "ask-warm": cases_facts.ask_warm,
    "check": cases_facts.no_change,
    "cold": cases_facts.cold,
    "edit": cases_facts.edit_sync_ask,
    "adopt": cases_facts.adopt,
    "cascade": cases_write.cascade,
    "ingest": cases_write.ingest,
    "sessions": cases_write.ingest_sessions,
    "cron": cases_write.cron,
    "passages": cases_write.passages,
    "mcp": cases_write.mcp,
}
BEGIN, END = "<!-- bench:begin (written by benchmarks/run.py --write; do not edit by hand) -->", "<!-- bench:end -->"
RESULTS = HERE / "results"


def to_json(row: Row, smaller: dict[str, Row], code: str) -> dict:
    base = row.case.rsplit(", ", 1)[0]
    targets = [{"text": t.describe(), "met": row.met(t, smaller.get(base)), "got": row.counted(t)} for t in row.targets]
    return {
        "case": row.case, "figure": row.figure, "floor": row.floor, "runs": len(row.samples),
        "wall": row.med("wall"), "cpu": row.med("cpu"), "rss": row.med("rss"),
        "floor_wall": row.med("wall", True), "floor_cpu": row.med("cpu", True),
        "floor_rss": row.med("rss", True), "ratio": row.ratio, "wall_ratio": row.wall_ratio,
        "targets": targets, "note": row.note, "load": list(row.load), "code": code,
    }  # fmt: skip


def commit(src: Path) -> str:
    found = src / "COMMIT"
    if found.is_file():
        return found.read_text().strip()[:10]
    out = subprocess.run(["git", "-C", str(src), "rev-parse", "--short=10", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run(["git", "-C", str(src), "status", "--porcelain", "mdmem"], capture_output=True, text=True)
    return out.stdout.strip() + ("+changes" if dirty.stdout.strip() else "")


def _s(x: float | None) -> str:
    if x is None or x != x:
        return "—"
    return f"{x * 1000:.0f} ms" if x < 1 else f"{x:.2f} s"


def _x(ratio: float) -> str:
    return "—" if ratio != ratio else f"{ratio:.2f}×"


def render(results: dict, before: dict) -> str:
    """The Markdown block: one row per figure, the earlier figure beside it when known."""
    meta = results.get("meta", {})
    # Rows re-run later at other code say so; the header names the code most rows ran.
    codes = Counter(r.get("code", meta.get("code", "?")) for r in results.get("rows", []))
    code = codes.most_common(1)[0][0] if codes else meta.get("code", "?")
    lines = [
        BEGIN,
        f"Measured {meta.get('date', '?')} on {meta.get('machine', '?')}, code {code} (a row run at other code names it);"
        f" before: {before.get('meta', {}).get('code', '—')} ({before.get('meta', {}).get('date', '—')})."
        " Each figure is the median of interleaved runs beside its floor in the same run; the ratio is"
        " the median of the per-pair CPU ratios; load is the 1-minute average before → after the case.",
        "",
        "| figure | runs | wall | CPU | peak | floor | floor CPU | ratio (CPU) | before: CPU, peak, ratio | target | met | load |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]  # fmt: skip
    earlier = {r["case"]: r for r in before.get("rows", [])}
    for r in results.get("rows", []):
        b = earlier.get(r["case"])
        was = f"{_s(b['cpu'])}, {b['rss']:.0f} MiB, {_x(b['ratio'])}" if b else "—"
        met = ", ".join(("yes" if t["met"] else ("no" if t["met"] is False else "—"))
                        + (f" ({t['got']:.0f})" if t.get("got") is not None else "") for t in r["targets"])  # fmt: skip
        floor = r["floor"] or "—"
        note = f" ({r['note']})" if r["note"] else ""
        note += f" [code {r['code']}]" if r.get("code", code) != code else ""
        lines.append(
            f"| {r['case']}: {r['figure']}{note} | {r['runs']} | {_s(r['wall'])} | {_s(r['cpu'])} |"
            f" {r['rss']:.0f} MiB | {floor} | {_s(r['floor_cpu'])} |"
            f" {_x(r['ratio'])} |"
            f" {was} | {'; '.join(t['text'] for t in r['targets']) or '—'} | {met or '—'} |"
            f" {r['load'][0]:.1f} → {r['load'][1]:.1f} |"
        )  # fmt: skip
    lines.append(END)
    return "\n".join(lines)


def write_block(path: Path, block: str) -> None:
    text = path.read_text(encoding="utf-8")
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < 0:
        raise SystemExit(f"{path}: no {BEGIN!r} … {END!r} block to rewrite")
    path.write_text(text[:start] + block + text[end + len(END):], encoding="utf-8")


def merge(results: dict, rows: list[Row], ctx: Ctx, src: Path) -> dict:
    """The results with these rows put in (by case name: a case run again replaces its row)."""
    smaller = {r.case.rsplit(", ", 1)[0]: r for r in rows if r.case.endswith(f"{ctx.sizes[0]:,}")}
    fresh = {r.case: to_json(r, smaller, commit(src)) for r in rows}
    order = [r["case"] for r in results["rows"]]
    order += [c for c in fresh if c not in order]
    merged = {r["case"]: r for r in results["rows"]} | fresh
    meta = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "machine": f"{os.cpu_count()} cores, {platform.processor() or platform.machine()},"
                       f" Python {platform.python_version()}",
            "code": commit(src)}  # fmt: skip
    return {"meta": meta, "rows": [merged[c] for c in order]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cases", nargs="*", help=f"some of: {', '.join(CASES)} (default: all)")
    ap.add_argument("--sizes", default="10000,100000", help="fact vault sizes (default 10000,100000)")
    ap.add_argument("--runs", type=int, default=5, help="interleaved pairs per figure (default 5)")
    ap.add_argument("--heavy-runs", type=int, default=3, help="for figures of minutes a run (default 3)")
    ap.add_argument("--work", type=Path, help="keep generated vaults here between runs")
    ap.add_argument("--code", type=Path, help="measure this copy of the package instead")
    ap.add_argument("--json", type=Path, default=RESULTS / "latest.json")
    ap.add_argument("--before", type=Path, default=RESULTS / "before.json")
    ap.add_argument("--write", action="store_true", help="rewrite BENCHMARKS.md's block from --json")
    args = ap.parse_args()
    unknown = [c for c in args.cases if c not in CASES]
    if unknown:
        ap.error(f"unknown cases {unknown}; choose from {', '.join(CASES)}")
    # the code measured is this checkout's unless --code names another: never whichever copy
    # happens to be installed in the interpreter (an editable install of another worktree)
    harness.CODE = (args.code or HERE.parent).resolve()
    src = harness.CODE
    subprocess.run([harness.PY, "-m", "compileall", "-q", str(src / "mdmem")], capture_output=True)
    work = args.work or Path(tempfile.mkdtemp(prefix="mdmem-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    ctx = Ctx(work, [int(s) for s in args.sizes.split(",")], args.runs, args.heavy_runs)
    results = json.loads(args.json.read_text()) if args.json.is_file() else {"rows": []}
    chosen = args.cases or ([] if args.write else list(CASES))
    if chosen:
        print(f"load average {os.getloadavg()[0]:.1f}; code {commit(src)}; work {work}", flush=True)
        rows: list[Row] = []
        for name in chosen:  # saved after each case: a later one failing loses nothing
            rows += CASES[name](ctx)
            results = merge(results, rows, ctx, src)
            args.json.parent.mkdir(parents=True, exist_ok=True)
            args.json.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n")
        print(f"load average {os.getloadavg()[0]:.1f} at the end; results in {args.json}")
    if args.write:
        before = json.loads(args.before.read_text()) if args.before.is_file() else {}
        write_block(HERE.parent / "BENCHMARKS.md", render(results, before))
        print("BENCHMARKS.md rewritten")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
