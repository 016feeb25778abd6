"""LoCoMo question answering and observation recall on the development conversations.

    .venv/bin/python benchmarks/locomo_qa.py [--corpus PATH] [--conv conv-30 ...] [--json] [--vaults DIR]

Each development conversation goes into a fresh vault with the `personal` pack, one session
at a time in order (one transcript per session, with its dated header, as a cron job would
ingest a day's chat). Then every question of categories 1–4 is asked with `ask`, and scored
three ways:

- **F1**, LoCoMo's own QA metric, on the answer's FIRST LINE: token F1 against the gold answer
  after the paper's normalisation (lower case, punctuation, commas and the words a/an/the/and
  dropped) and Porter stemming; a multi-hop gold answer is split on commas and each part scored
  against the best comma-separated part of the first line, then averaged; an open-domain gold
  answer is cut at its first ';' (as the paper's evaluation code does).
- **containment** (the figure reported before answer-first): the WHOLE answer contains the gold
  answer or a whole sentence (four words or more) of one of its evidence turns, both compared
  case- and punctuation-insensitively.
- **wrong person**: the question names one or more of the conversation's people and the first
  line states a fact of someone it does not name: it was taken from a fact of another person's
  entity, or from a passage another person said. Goal 0.

The first line's median length (characters) is reported beside them.

Observation recall is a proxy for what ingest keeps: LoCoMo's per-session `observation`
annotations name the turns they were drawn from; the figure is the share of observations whose
evidence turn wrote at least one fact (correctness is checked by hand on a sample, see
BENCHMARKS.md); `--missed OUT` lists the observations it misses with their turns.

Only the seven development conversations listed in DEV are run; the corpus's other
conversations are kept for independent checks, so the script refuses them.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import string
import sys
import tempfile
import time
import unicodedata
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any

import snowballstemmer  # the dev extra's Porter stemmer (the paper used NLTK's Porter)

ROOT = Path(__file__).resolve().parent.parent
# Beside the checkout, or beside the folder of worktrees that holds it.
CORPUS = next(
    (p / "shared" / "corpora" / "locomo" / "locomo10.json" for p in (ROOT.parent, ROOT.parent.parent)
     if (p / "shared" / "corpora" / "locomo" / "locomo10.json").is_file()),
    ROOT.parent / "shared" / "corpora" / "locomo" / "locomo10.json",
)  # fmt: skip
DEV = ["conv-30", "conv-41", "conv-42", "conv-43", "conv-48", "conv-49", "conv-50"]
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_PORTER = snowballstemmer.stemmer("porter")
_ARTICLES = re.compile(r"\b(a|an|the|and)\b")
_PUNCT = frozenset(string.punctuation)


def norm(text: str) -> str:
    """Case-, width- and punctuation-insensitive form for containment checks."""
    text = unicodedata.normalize("NFKC", str(text)).casefold()
    text = re.sub(r"[^\w\s]", " ", text)
    return " ".join(text.split())


def qa_tokens(text: str) -> list[str]:
    """LoCoMo's normalize_answer, then Porter stems: commas go, lower case, punctuation, the
    words a/an/the/and, runs of white space."""
    text = str(text).replace(",", "").lower()
    text = "".join(c for c in text if c not in _PUNCT)
    return [_PORTER.stemWord(w) for w in _ARTICLES.sub(" ", text).split()]


def f1_score(prediction: str, gold: str) -> float:
    """Token F1 of two texts (stemmed, normalised as LoCoMo does)."""
    pred, truth = qa_tokens(prediction), qa_tokens(gold)
    same = sum((Counter(pred) & Counter(truth)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(pred), same / len(truth)
    return 2 * precision * recall / (precision + recall)


def qa_f1(prediction: str, gold: Any, category: int) -> float:
    """LoCoMo's score of one answer: multi-hop (category 1) splits both on commas and averages,
    over the gold parts, each part's best F1; open-domain (3) keeps the gold up to ';'."""
    gold = str(gold)
    if category == 3:
        gold = gold.split(";")[0].strip()
    if category != 1:
        return f1_score(prediction, gold)
    preds = [p.strip() for p in prediction.split(",")]
    golds = [g.strip() for g in gold.split(",")]
    return sum(max(f1_score(p, g) for p in preds) for g in golds) / len(golds)


def first_line(text: str) -> str:
    return text.strip().split("\n", 1)[0].strip() if text.strip() else ""


def named_people(question: str, people: list[str]) -> set[str]:
    """The conversation's people whose first name the question uses."""
    said = set(norm(question.replace("`", "'")).split())
    return {p for p in people if norm(p).split()[0] in said}


def wrong_person(answer: dict[str, Any], named: set[str], people: list[str]) -> bool:
    """Whether the answer's first line states a fact of a person the question does not name:
    the facts or passages it was taken from (`basis` in the answer's JSON; before answer-first,
    the first fact, or the first passage of a quoted answer) belong to someone else."""
    if not named:
        return False
    basis = answer.get("basis")
    if basis is None:  # the shape before answer-first: the first thing said is the first line
        if answer.get("mode") == "said" and answer.get("evidence"):
            basis = [{"speaker": answer["evidence"][0]["speaker"]}]
        elif answer.get("facts"):
            basis = [{"entity": answer["facts"][0]["entity"]}]
        else:
            basis = []
    slugs = {re.sub(r"\W+", "-", norm(p)).strip("-"): p for p in people}
    for b in basis:
        if "speaker" in b:
            whose = b["speaker"]
        else:  # an entity: a person's own slug, or what they own ('caroline-dog')
            entity = str(b.get("entity", ""))
            whose = next((p for s, p in slugs.items() if entity == s or entity.startswith(s + "-")), entity)
        if whose not in named:
            return True
    return False


def sessions(conv: dict[str, Any]) -> list[tuple[int, str, list[dict[str, Any]]]]:
    """(number, ISO date-time, turns) per session, in order."""
    cv, out, n = conv["conversation"], [], 1
    while f"session_{n}" in cv:
        when = datetime.strptime(cv[f"session_{n}_date_time"], "%I:%M %p on %d %B, %Y")
        out.append((n, f"{when:%Y-%m-%d %H:%M}", cv[f"session_{n}"]))
        n += 1
    return out


def transcript(when: str, turns: list[dict[str, Any]]) -> tuple[str, dict[str, int]]:
    """A session as a Markdown transcript, and the 1-based line of each turn (by dia_id)."""
    lines, where = [f"## {when}", ""], {}
    for t in turns:
        text = " ".join(str(t.get("text", "")).split())
        where[t["dia_id"]] = len(lines) + 1
        lines.append(f"{t['speaker']}: {text}")
    return "\n".join(lines) + "\n", where


def passes(answer: str, gold: Any, evidence: list[str], turns: dict[str, str]) -> bool:
    said = norm(answer)
    if norm(gold) and norm(gold) in said:
        return True
    for dia in evidence:
        for sentence in _SENTENCE.split(turns.get(dia, "")):
            s = norm(sentence)
            if len(s.split()) >= 4 and s in said:
                return True
    return False


def run_conversation(conv: dict[str, Any], tmp: Path, reuse: bool = False) -> dict[str, Any]:
    """Ingest one conversation into tmp/<id> and ask its questions. `reuse`: a vault this
    function built there before (with its ingest record beside it) is asked again, not rebuilt."""
    from mdmem.edit.ingest import ingest_text
    from mdmem.read.ask import ask
    from mdmem.store.vault import Vault

    sid = conv["sample_id"]
    people = [conv["conversation"]["speaker_a"], conv["conversation"]["speaker_b"]]
    record = tmp / f"{sid}.ingest.json"
    if reuse and record.is_file() and (tmp / sid).is_dir():
        return _ask_again(conv, Vault(tmp / sid), json.loads(record.read_text(encoding="utf-8")), people)
    vault = Vault.create(tmp / sid, "personal")
    turns: dict[str, str] = {}
    line_of: dict[str, tuple[str, int]] = {}  # dia_id -> (source, line)
    written: set[tuple[str, int]] = set()  # (source, line) that wrote a fact
    stated: set[tuple[str, int]] = set()  # (source, line) that stated one (NOOP: already held)
    writes: list[dict[str, Any]] = []  # every statement that changed the vault, with its message
    said: dict[tuple[str, int], str] = {}
    t0 = time.perf_counter()
    for n, when, session in sessions(conv):
        text, where = transcript(when, session)
        source = f"locomo/{sid}/session_{n:02d}.md"
        for t in session:
            turns[t["dia_id"]] = str(t.get("text", ""))
            line_of[t["dia_id"]] = (source, where[t["dia_id"]])
            said[(source, where[t["dia_id"]])] = f"{t['speaker']}: {' '.join(str(t.get('text', '')).split())}"
        result = ingest_text(vault, text, source=source, date=when[:10])
        for st, decision in result.plan.decisions:
            if st.source and "#L" in st.source:
                stated.add((source, int(st.source.rsplit("#L", 1)[1])))
            if decision != "NOOP" and st.source and "#L" in st.source:
                line = int(st.source.rsplit("#L", 1)[1])
                written.add((source, line))
                writes.append({"conversation": sid, "source": st.source, "date": when[:10],
                               "entity": st.entity, "attribute": st.attribute, "kind": st.kind,
                               "value": st.value, "form": st.form, "polarity": st.polarity,
                               "tentative": st.tentative, "at": st.at, "decision": decision,
                               "evidence": st.evidence, "message": said.get((source, line), "")})  # fmt: skip
    ingest_s = time.perf_counter() - t0
    probes, ask_s = _probes(conv, vault, ask, turns, people)
    observed = kept = held = 0
    missed: list[dict[str, Any]] = []  # observations whose evidence turn wrote nothing, with the turn
    for by_speaker in (conv.get("observation") or {}).values():
        for speaker, items in by_speaker.items():
            for item in items:
                ids = item[1] if isinstance(item[1], list) else [item[1]]
                observed += 1
                wrote = any(line_of.get(str(i)) in written for i in ids)
                kept += wrote
                held += any(line_of.get(str(i)) in stated for i in ids)
                if not wrote:
                    missed.append({"conversation": sid, "speaker": speaker, "observation": item[0], "evidence": ids,
                                   "turns": [said.get(line_of.get(str(i), ("", 0)), "") for i in ids]})  # fmt: skip
    facts = len(vault.scan(refresh=True)[0])
    done = {"conversation": sid, "probes": probes, "observations": observed,
            "observations_kept": kept, "observations_stated": held, "facts": facts, "ingest_s": ingest_s,
            "ask_s": ask_s, "writes": writes, "missed": missed}  # fmt: skip
    if reuse:  # what ingest found, for the runs that ask this vault again
        keep = {k: v for k, v in done.items() if k not in ("probes", "ask_s")}
        record.write_text(json.dumps(keep, ensure_ascii=False), encoding="utf-8")
    return done


def _probes(conv: dict[str, Any], vault: Any, ask: Any, turns: dict[str, str],
            people: list[str]) -> tuple[list[dict[str, Any]], float]:  # fmt: skip
    """Every question of categories 1-4 asked and scored, and the seconds asking took."""
    probes: list[dict[str, Any]] = []
    t1 = time.perf_counter()
    for qa in conv["qa"]:
        if qa.get("category") not in CATEGORIES or "answer" not in qa:
            continue
        got = ask(vault, qa["question"])
        answer = got.text
        data = got.to_json()
        first = first_line(answer)
        ok = passes(answer, qa["answer"], qa.get("evidence") or [], turns)
        named = named_people(qa["question"], people)
        probes.append({"category": qa["category"], "question": qa["question"],
                       "gold": qa["answer"], "answer": answer, "passed": ok,
                       "f1": qa_f1(first, qa["answer"], qa["category"]), "first_chars": len(first),
                       "wrong_person": wrong_person(data, named, people),
                       "type": data.get("type"), "source": data.get("source")})  # fmt: skip
    return probes, time.perf_counter() - t1


def _ask_again(conv: dict[str, Any], vault: Any, record: dict[str, Any], people: list[str]) -> dict[str, Any]:
    """A vault built by an earlier run asked again: the questions are asked and scored anew,
    ingest's figures are the record that run left."""
    from mdmem.read.ask import ask

    turns = {t["dia_id"]: str(t.get("text", "")) for _, _, session in sessions(conv) for t in session}
    probes, ask_s = _probes(conv, vault, ask, turns, people)
    return {**record, "probes": probes, "ask_s": ask_s}


def report(results: list[dict[str, Any]]) -> dict[str, Any]:
    total: Counter[str] = Counter()
    passed: Counter[str] = Counter()
    f1: Counter[str] = Counter()
    wrong: Counter[str] = Counter()
    chars: dict[str, list[int]] = {c: [] for c in CATEGORIES.values()}
    for r in results:
        for p in r["probes"]:
            name = CATEGORIES[p["category"]]
            total[name] += 1
            passed[name] += p["passed"]
            f1[name] += p["f1"]
            wrong[name] += p["wrong_person"]
            chars[name].append(p["first_chars"])
    n, k = sum(total.values()), sum(passed.values())
    every = [c for v in chars.values() for c in v]

    def figures(c: str | None) -> dict[str, Any]:
        t = total[c] if c else n
        lens = chars[c] if c else every
        return {"probes": t, "f1": round((f1[c] if c else sum(f1.values())) / t, 3) if t else None,
                "passed": passed[c] if c else k,
                "accuracy": round((passed[c] if c else k) / t, 3) if t else None,
                "first_line_median": statistics.median(lens) if lens else None,
                "wrong_person": wrong[c] if c else sum(wrong.values())}  # fmt: skip

    observed = sum(r["observations"] for r in results)
    kept = sum(r["observations_kept"] for r in results)
    held = sum(r["observations_stated"] for r in results)
    return {
        "conversations": [r["conversation"] for r in results],
        "by_category": {c: figures(c) for c in CATEGORIES.values()},
        "overall": figures(None),
        "observation_recall": {"observations": observed, "kept": kept,
                               "share": round(kept / observed, 3) if observed else None,
                               "stated": held},
        "facts": sum(r["facts"] for r in results),
        "writes": sum(len(r["writes"]) for r in results),
        "ingest_s": round(sum(r["ingest_s"] for r in results), 2),
        "ask_ms_per_question": round(1000 * sum(r["ask_s"] for r in results) / max(n, 1), 1),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", type=Path, default=CORPUS)
    ap.add_argument("--conv", nargs="*", default=DEV, choices=DEV, help="dev conversation ids")
    ap.add_argument("--json", action="store_true", help="print the report as JSON")
    ap.add_argument("--probes", type=Path, help="write every probe and answer to this JSONL")
    ap.add_argument("--writes", type=Path, help="write every statement that changed a vault, "
                    "with its message, to this JSONL (benchmarks/precision_sample.py reads it)")
    ap.add_argument("--missed", type=Path, help="write every observation whose evidence turn wrote no fact, "
                    "with the turn's words, to this JSONL (what the recall proxy misses)")
    ap.add_argument("--vaults", type=Path, help="build the vaults in this folder and keep them; a later "
                    "run with the same folder asks them again without ingesting (for changes to read/ only)")
    args = ap.parse_args(argv)
    if not args.corpus.is_file():
        print(f"LoCoMo not found at {args.corpus}; pass --corpus", file=sys.stderr)
        return 2
    os.environ.setdefault("MDMEM_NOW", "2026-03-01T12:00:00Z")
    data = {c["sample_id"]: c for c in json.loads(args.corpus.read_text(encoding="utf-8"))}
    if args.vaults:
        args.vaults.mkdir(parents=True, exist_ok=True)
        results = [run_conversation(data[c], args.vaults, reuse=True) for c in args.conv]
    else:
        with tempfile.TemporaryDirectory() as tmp:
            results = [run_conversation(data[c], Path(tmp)) for c in args.conv]
    if args.probes:
        with args.probes.open("w", encoding="utf-8") as f:
            for r in results:
                for p in r["probes"]:
                    f.write(json.dumps({"conversation": r["conversation"], **p}, ensure_ascii=False) + "\n")
    if args.writes:
        with args.writes.open("w", encoding="utf-8") as f:
            for r in results:
                for w in r["writes"]:
                    f.write(json.dumps(w, ensure_ascii=False) + "\n")
    if args.missed:
        with args.missed.open("w", encoding="utf-8") as f:
            for r in results:
                for m in r["missed"]:
                    f.write(json.dumps(m, ensure_ascii=False) + "\n")
    rep = report(results)
    if args.json:
        print(json.dumps(rep, indent=1, ensure_ascii=False))
        return 0
    print(f"LoCoMo QA, categories 1-4, conversations: {', '.join(rep['conversations'])} (development)")
    print(f"  {'':<12} {'F1':>6}  {'containment':>16}  {'1st line median':>15}  {'wrong person':>12}")
    for c, v in [*rep["by_category"].items(), ("overall", rep["overall"])]:
        contained = f"{v['passed']}/{v['probes']} {v['accuracy']}"
        print(f"  {c:<12} {v['f1']:>6}  {contained:>16}  {v['first_line_median']:>15}  {v['wrong_person']:>12}")
    r = rep["observation_recall"]
    print(f"observation recall (evidence turn wrote a fact): {r['kept']}/{r['observations']} = {r['share']}")
    print(f"  (evidence turn stated a fact, written or already held: {r['stated']}/{r['observations']})")
    print(f"facts written: {rep['facts']} files from {rep['writes']} statements; ingest {rep['ingest_s']} s; ask {rep['ask_ms_per_question']} ms/question")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
