"""Structured recall and precision of ingest against the hand-written LoCoMo gold facts.

    .venv/bin/python benchmarks/gold_facts.py [--gold FILE] [--judged FILE] [--unjudged OUT]
                                              [--misses] [--json]

The gold set (benchmarks/gold/locomo-dev-facts.yaml, README beside it) lists the durable facts of
sessions 1–5 of the seven LoCoMo development conversations, each with its speaker, subject,
kind, evidence turns (dia_ids) and 1–3 keywords. Each conversation goes into a fresh vault with
the `personal` pack, sessions 1–5 one at a time in order, as `benchmarks/locomo_qa.py` does.

**Structured recall.** A gold fact is recalled when some statement the ingest made
(a) came from one of the fact's evidence turns (its source line is that turn),
(b) is about the fact's subject: the entity of the subject's name (`Jon` → `jon`), or, for a
    subject such as `Deborah's mother` or `Deborah's neighbour Anna`, the owner (`deborah`),
    an entity the owner's speech made (`deborah-…`) or the named person (`anna`),
(c) still has a fact in the vault at the end (not forgotten), and
(d) holds every keyword, case-insensitively, as a substring of its text: the entity and the
    attribute as words, the attribute's English label, the value (for a statement with no value
    of its own, such as an ending, the values the fact holds and held in its history) and any
    other text field a statement carries (an event's or plan's fields included). The statements
    one turn made of one fact are read together: "I enjoy chocolate and mixed berry flavours"
    stores two items of one list, and the list holds both keywords.
A statement that found the value already held (NOOP) counts: the fact is stored, and that turn
said it. Dates are not part of recall; the report counts how many of the recalled gold facts
with a resolved date got a statement dated within ±7 days of it (a month or a year: within it).

**Precision.** Every statement on those sessions that changed the vault (decision other than
NOOP) either matches a gold fact by (a), (b) and (d), or is judged by hand. Hand judgements live
in `--judged` (default benchmarks/gold/judged.tsv): one row per written statement, by a stable
id (a hash of conversation, turn, entity, attribute, kind, form, polarity and value), verdict
`ok` (true of that entity, said by that turn, worth keeping) or `wrong`, and a note. A re-run
reuses them; `--unjudged OUT` writes the rows still to judge, ready to fill in and append.
Precision is (matched + ok) / (matched + ok + wrong); statements still unjudged are counted
apart, and the figure is final only when none are.

The three held-out conversations are never read: only those in the gold file, which are dev
conversations (the script refuses any other).
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import hashlib
import json
import os
import re
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from locomo_qa import CORPUS, DEV, sessions, transcript  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
GOLD = ROOT / "benchmarks" / "gold" / "locomo-dev-facts.yaml"
JUDGED = ROOT / "benchmarks" / "gold" / "judged.tsv"
SESSIONS = 5
# Statement fields that say where and when, not what: never searched for keywords.
_NOT_TEXT = {"source", "body", "evidence", "at", "until", "depends_on", "tentative", "change", "kind", "entity", "attribute"}  # fmt: skip


def slug(name: str) -> str:
    from mdmem.model.slug import slugify

    return slugify(name) or name.lower()


def subject_entities(subject: str) -> tuple[str, ...]:
    """The entities a gold subject may be stored under: `Jon` → (jon,); `Deborah's neighbour
    Anna` → (deborah, deborah-*, anna, deborah-anna); the `*` stands for any of the owner's."""
    m = re.match(r"^(?P<owner>[A-Z][\w-]*)['’]s\s+(?P<rest>.+)$", subject)
    if m is None:
        return (slug(subject),)
    owner = slug(m["owner"])
    names = re.findall(r"\b[A-Z][\w-]*", m["rest"])
    return (owner, f"{owner}-*", *(slug(n) for n in names))


def entity_fits(entity: str, allowed: tuple[str, ...]) -> bool:
    return any(entity == a or (a.endswith("*") and entity.startswith(a[:-1])) for a in allowed)


def _strings(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in _strings(v)]
    return [str(value)]


def fact_values(fact: Any) -> list[str]:
    """Every value a fact holds or held: current value, list items, history entries."""
    out = _strings(fact.value)
    for h in fact.history:
        out += _strings(h.get("value"))
    return out


def statement_text(st: Any, fact: Any, rules: Any) -> str:
    """The words a statement stored, for keyword matching (see the module docstring)."""
    parts = [st.entity.replace("-", " "), st.attribute.replace("_", " ")]
    attr = rules.attributes.get(st.attribute)
    if attr is not None:
        parts.append(attr.label_for("en"))
    own = _strings(st.value)
    parts += own or (fact_values(fact) if fact is not None else [])
    for f in dataclasses.fields(st):
        if f.name not in _NOT_TEXT and f.name != "value":
            parts += _strings(getattr(st, f.name))
    return " ".join(parts).casefold()


def written_id(conv: str, dia: str, st: Any) -> str:
    raw = "\x1f".join(str(x) for x in (conv, dia, st.entity, st.attribute, st.kind, st.form,
                                         st.polarity, json.dumps(st.value, ensure_ascii=False)))  # fmt: skip
    return hashlib.sha1(raw.encode("utf-8")).hexdigest()[:10]


def describe(st: Any) -> str:
    if st.kind == "invalidate":
        what = "ended"
    elif st.form in ("none", "unnamed"):
        what = f"{st.form} ({st.value})" if st.value else st.form  # an unnamed one's noun
    else:
        what = repr(st.value)
    extra = [x for x in (st.form if st.form not in ("none", "unnamed") else "", st.polarity,
                         "tentative" if st.tentative else "") if x]  # fmt: skip
    more = ", ".join(extra)
    return f"{st.entity}/{st.attribute} = {what}{f' ({more})' if more else ''} @ {st.at}"


def run_conversation(conv: dict[str, Any], tmp: Path) -> dict[str, Any]:
    """Sessions 1–5 into a fresh vault: every statement with its turn and decision, and the facts."""
    from mdmem.edit.ingest import ingest_text
    from mdmem.store.vault import Vault

    sid = conv["sample_id"]
    vault = Vault.create(tmp / sid, "personal")
    said: list[dict[str, Any]] = []
    text_of: dict[str, str] = {}
    for n, when, turns in sessions(conv)[:SESSIONS]:
        text, where = transcript(when, turns)
        dia_at = {line: dia for dia, line in where.items()}
        for t in turns:
            text_of[t["dia_id"]] = f"{t['speaker']}: {' '.join(str(t.get('text', '')).split())}"
        source = f"locomo/{sid}/session_{n:02d}.md"
        result = ingest_text(vault, text, source=source, date=when[:10])
        for st, decision in result.plan.decisions:
            if not st.source or "#L" not in st.source:
                continue
            dia = dia_at.get(int(st.source.rsplit("#L", 1)[1]))
            if dia is not None:
                said.append({"st": st, "decision": decision, "dia": dia, "session": n})
    facts = vault.scan(refresh=True)[0]
    together: dict[tuple[str, str], list[str]] = {}  # (turn, fact): what its statements said
    for s in said:
        fact = facts.get(s["st"].key)
        s["held"] = fact is not None and fact.status != "deleted"
        together.setdefault((s["dia"], s["st"].key), []).append(statement_text(s["st"], fact, vault.rules))
    for s in said:
        s["text"] = " ".join(together[(s["dia"], s["st"].key)])
    return {"conversation": sid, "said": said, "turns": text_of, "facts": len(facts)}


def matches(g: dict[str, Any], s: dict[str, Any]) -> bool:
    """Whether statement `s` stores gold fact `g` by (a), (b) and (d) of the docstring."""
    return (
        s["dia"] in g["evidence"]
        and entity_fits(s["st"].entity, subject_entities(g["subject"]))
        and all(str(k).casefold() in s["text"] for k in g["keywords"])
    )


def _date_ok(gold: str, at: str) -> bool:
    if not at:
        return False
    if len(gold) == 4 or len(gold) == 7:
        return at.startswith(gold)
    delta = abs(dt.date.fromisoformat(gold[:10]) - dt.date.fromisoformat(at[:10]))
    return delta <= dt.timedelta(days=7)


def load_judged(path: Path) -> dict[str, tuple[str, str]]:
    out: dict[str, tuple[str, str]] = {}
    if not path.is_file():
        return out
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        cells = line.split("\t")
        if len(cells) < 3 or cells[1] not in ("ok", "wrong", ""):
            raise SystemExit(f"{path}:{n}: expected 'id<TAB>ok|wrong<TAB>note…', got {line[:60]!r}")
        if cells[1]:
            out[cells[0]] = (cells[1], cells[2] if len(cells) > 2 else "")
    return out


def score(gold: list[dict[str, Any]], runs: dict[str, dict[str, Any]], judged: dict[str, tuple[str, str]]) -> dict[str, Any]:  # fmt: skip
    by_kind: Counter[str] = Counter()
    hit_kind: Counter[str] = Counter()
    missed, dated, dated_ok, ended_current = [], 0, 0, []
    for g in gold:
        run = runs[g["conv"]]
        by_kind[g["kind"]] += 1
        found = [s for s in run["said"] if s["held"] and matches(g, s)]
        if not found:
            missed.append(g)
            continue
        hit_kind[g["kind"]] += 1
        date = (g.get("when") or {}).get("date")
        if date:
            dated += 1
            dated_ok += any(_date_ok(str(date), s["st"].at) for s in found)
        if g.get("ended") and all(s["st"].kind == "assert" and not s["st"].until for s in found):
            ended_current.append(g["id"])
    written = matched = ok = wrong = 0
    unjudged, wrongs = [], []
    for conv, run in sorted(runs.items()):
        golds = [g for g in gold if g["conv"] == conv]
        seen: set[str] = set()
        for s in run["said"]:
            if s["decision"] == "NOOP":
                continue
            wid = written_id(conv, s["dia"], s["st"])
            if wid in seen:
                continue
            seen.add(wid)
            written += 1
            if any(matches(g, s) for g in golds):
                matched += 1
                continue
            verdict = judged.get(wid)
            if verdict is None:
                unjudged.append((wid, conv, s))
            elif verdict[0] == "ok":
                ok += 1
            else:
                wrong += 1
                wrongs.append((wid, conv, s, verdict[1]))
    n, k = len(gold), sum(hit_kind.values())
    judged_n = matched + ok + wrong
    return {
        "gold": n, "recalled": k, "recall": round(k / n, 3) if n else None,
        "by_kind": {c: {"gold": by_kind[c], "recalled": hit_kind[c]} for c in sorted(by_kind)},
        "dated": dated, "dated_within": dated_ok, "ended_stored_as_current": ended_current,
        "written": written, "matched_gold": matched, "judged_ok": ok, "judged_wrong": wrong,
        "unjudged": len(unjudged),
        "precision": round((matched + ok) / judged_n, 3) if judged_n else None,
        "_missed": missed, "_unjudged": unjudged, "_wrong": wrongs,
    }  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gold", type=Path, default=GOLD)
    ap.add_argument("--corpus", type=Path, default=CORPUS)
    ap.add_argument("--judged", type=Path, default=JUDGED, help="hand judgements (TSV) to reuse")
    ap.add_argument(
        "--unjudged", type=Path, help="write the written statements still to judge here"
    )
    ap.add_argument("--misses", action="store_true", help="list the gold facts not recalled")
    ap.add_argument("--wrong", action="store_true", help="list the statements judged wrong")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if not args.corpus.is_file():
        print(f"LoCoMo not found at {args.corpus}; pass --corpus", file=sys.stderr)
        return 2
    gold = yaml.safe_load(args.gold.read_text(encoding="utf-8"))
    convs = sorted({g["conv"] for g in gold})
    if not set(convs) <= set(DEV):
        print(
            f"refusing conversations outside the dev set: {sorted(set(convs) - set(DEV))}",
            file=sys.stderr,
        )
        return 2
    os.environ.setdefault("MDMEM_NOW", "2026-03-01T12:00:00Z")
    data = {c["sample_id"]: c for c in json.loads(args.corpus.read_text(encoding="utf-8"))}
    with tempfile.TemporaryDirectory() as tmp:
        runs = {c: run_conversation(data[c], Path(tmp)) for c in convs}
    rep = score(gold, runs, load_judged(args.judged))
    if args.unjudged:
        with args.unjudged.open("w", encoding="utf-8") as f:
            f.write("# id\tverdict (ok|wrong)\tnote\tfact\tturn\tmessage\n")
            for wid, conv, s in rep["_unjudged"]:
                msg = runs[conv]["turns"].get(s["dia"], "").replace("\t", " ")
                f.write(f"{wid}\t\t\t{describe(s['st'])}\t{conv} {s['dia']}\t{msg}\n")
    if args.json:
        print(json.dumps({k: v for k, v in rep.items() if not k.startswith("_")}, indent=1))
        return 0
    print(f"gold facts: {rep['gold']} over {', '.join(convs)} (sessions 1-{SESSIONS})")
    print(f"structured recall: {rep['recalled']}/{rep['gold']} = {rep['recall']}")
    for kind, v in rep["by_kind"].items():
        print(f"  {kind:<11} {v['recalled']:>4}/{v['gold']}")
    print(
        f"  dated gold facts recalled: {rep['dated']}, dated within tolerance: {rep['dated_within']}"
    )
    if rep["ended_stored_as_current"]:
        print(
            f"  ended gold facts stored only as current: {', '.join(rep['ended_stored_as_current'])}"
        )
    print(f"precision: {rep['precision']} over {rep['written']} written statements: "
          f"{rep['matched_gold']} match gold, {rep['judged_ok']} judged ok, "
          f"{rep['judged_wrong']} judged wrong, {rep['unjudged']} not judged yet")  # fmt: skip
    if args.misses:
        for g in rep["_missed"]:
            print(
                f"  miss {g['id']} {g['kind']} {g['subject']}: {g['value']} {g['keywords']} {g['evidence']}"
            )
    if args.wrong:
        for wid, conv, s, note in rep["_wrong"]:
            print(f"  wrong {wid} {conv} {s['dia']} {describe(s['st'])}: {note}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
