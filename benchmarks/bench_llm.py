"""The model path: calls and prompt size (offline), or a live run against a real server.

    .venv/bin/python benchmarks/bench_llm.py [--corpus PATH] [--chunk N] [--json]
    MDMEM_LIVE_MODEL=openai/qwen MDMEM_LIVE_API_BASE=http://127.0.0.1:8080/v1 \\
        .venv/bin/python benchmarks/bench_llm.py --live

Offline (no model): builds the prompts `ingest --llm` would send for the LoCoMo dev
conversations (DEV in locomo_qa.py; the others are never read), one transcript per
session as benchmarks/locomo_qa.py ingests them, and counts calls per conversation and prompt
tokens per call (litellm's counter for gpt-4o-mini: cl100k-like, an estimate for other
models). Before batching it was one call per person's message with a ~2,100-token prompt.

--live: ingests the two sample transcripts and four suite scenarios with the model named by
MDMEM_LIVE_MODEL (at MDMEM_LIVE_API_BASE), beside the rule finder, and prints what each wrote,
the refusals and the usage. Starting a local server: docs/decisions.md#a-local-model.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT))

from locomo_qa import CORPUS, DEV, sessions, transcript  # noqa: E402


def offline(corpus: Path, chunk: int) -> dict[str, Any]:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    from mdmem.extract.model_finder import LLMConfig, ModelFinder
    from mdmem.extract.transcript import is_human_role, parse_transcript
    from mdmem.model.rules_yaml import load_rules

    rules = load_rules(ROOT / "rules" / "personal.yaml")
    finder = ModelFinder(LLMConfig("gpt-4o-mini", chunk=chunk))
    data = {c["sample_id"]: c for c in json.loads(corpus.read_text(encoding="utf-8"))}
    rows, tokens, answer_caps = [], [], []
    for sid in DEV:
        calls = messages = 0
        for n, when, turns in sessions(data[sid]):
            text, _ = transcript(when, turns)
            msgs = parse_transcript(text, source=f"{sid}/{n}", default_time=when[:10])
            messages += sum(is_human_role(m.role) for m in msgs)
            for req in finder.requests(msgs, rules, {}, when[:10]):
                calls += 1
                tokens.append(litellm.token_counter(model="gpt-4o-mini", messages=req.messages))
                answer_caps.append(req.options["max_tokens"])
        rows.append({"conversation": sid, "messages": messages, "calls": calls})
    system = litellm.token_counter(model="gpt-4o-mini", messages=[
        {"role": "system", "content": finder.requests(msgs, rules, {}, "2023-01-01")[0].messages[0]["content"]}])  # fmt: skip
    return {
        "chunk": chunk, "conversations": rows,
        "calls_per_conversation": round(statistics.mean(r["calls"] for r in rows), 1),
        "messages_per_conversation": round(statistics.mean(r["messages"] for r in rows), 1),
        "prompt_tokens_per_call": {"mean": round(statistics.mean(tokens)), "median": round(statistics.median(tokens)),
                                   "max": max(tokens), "stable_system_part": system},
        "max_tokens_per_call": {"mean": round(statistics.mean(answer_caps)), "max": max(answer_caps)},
    }  # fmt: skip


def live() -> dict[str, Any]:
    from mdmem.edit.ingest import ingest_text
    from mdmem.eval.scenario import load_scenario
    from mdmem.extract.model_finder import LLMConfig, ModelFinder
    from mdmem.store.vault import Vault

    model = os.environ.get("MDMEM_LIVE_MODEL")
    if not model:
        raise SystemExit("set MDMEM_LIVE_MODEL (and MDMEM_LIVE_API_BASE for a local server)")
    cfg = LLMConfig(model, api_base=os.environ.get("MDMEM_LIVE_API_BASE"))
    finder = ModelFinder(cfg)
    texts: list[tuple[str, list[tuple[str, str]]]] = [
        ("sample", [((ROOT / "sample_vault/transcripts" / f).read_text(encoding="utf-8"), f[:10])
                    for f in ("2025-08-15-en.md", "2026-02-10-en.md")])]  # fmt: skip
    for name in ("zh-change-and-forget", "zh-allergies-aggregate", "en-change-and-forget", "en-pets-aggregate"):
        sc = load_scenario(ROOT / f"tests/data/suite/personal/{name}.yaml")
        texts.append((name, [(s.transcript, s.date[:10]) for s in sc.sessions]))
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, runs in texts:
            got = {}
            for which, extractor in (("model", finder), ("rules", None)):
                v = Vault.create(Path(tmp) / f"{name}-{which}", "personal")
                notes, errors = [], []
                for text, date in runs:
                    v._now = f"{date}T12:00:00Z"
                    r = ingest_text(v, text, date=date, extractor=extractor)
                    notes += r.notes
                    errors += r.errors
                facts = {k: f.value if f.status != "deleted" else "(forgotten)" for k, f in v.scan(refresh=True)[0].items()}
                got[which] = {"facts": facts, "notes": notes, "errors": errors}
            out.append({"name": name, **got})
    return {"model": model, "results": out, "usage": cfg.usage.to_json()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, default=CORPUS)
    ap.add_argument("--chunk", type=int, default=8, help="people's messages per call")
    ap.add_argument("--live", action="store_true", help="run against MDMEM_LIVE_MODEL")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if args.live:
        result = live()
    elif not args.corpus.is_file():
        print(f"LoCoMo not found at {args.corpus}; pass --corpus", file=sys.stderr)
        return 2
    else:
        result = offline(args.corpus, args.chunk)
    if args.json or args.live:
        print(json.dumps(result, ensure_ascii=False, indent=1))
        return 0
    print(f"chunk {result['chunk']}: {result['calls_per_conversation']} calls per LoCoMo dev conversation "
          f"(was {result['messages_per_conversation']}, one per message)")  # fmt: skip
    for row in result["conversations"]:
        print(f"  {row['conversation']}: {row['messages']} messages -> {row['calls']} calls")
    t = result["prompt_tokens_per_call"]
    print(f"prompt tokens per call: mean {t['mean']}, median {t['median']}, max {t['max']} "
          f"(stable system part {t['stable_system_part']}); max_tokens mean {result['max_tokens_per_call']['mean']}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
