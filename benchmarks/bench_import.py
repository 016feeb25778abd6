"""Import a large ChatGPT export: read it (streamed) and ingest it; print time and peak memory.

    .venv/bin/python benchmarks/bench_import.py [--mb 200] [--read-only] [--whole]

A synthetic `conversations.json` of about `--mb` megabytes is written to a temporary folder: a
few thousand conversations in the export's shape (mapping trees with an edited branch, hidden
system turns, long assistant answers, short user turns, some of which state facts). Each step
runs in a fresh process, so its peak RSS (ru_maxrss) is its own:

- read: every conversation through `read_conversations` (the streamed reader), nothing kept;
- read whole: the same bytes through `json.load`, what a reader that holds the file costs
  (`--whole`; the figure streaming is measured against);
- ingest: `mdmem ingest` of the file into a fresh vault with the personal pack, then again
  (the second run skips every conversation: next month's re-import of an unchanged export).
"""

from __future__ import annotations

import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FACTS = [
    "I live in {city} now.", "I work at {company}.", "My dog is called {pet}.",
    "I cycle {n} minutes to work.", "My birthday is {day} March.", "I moved to {city}.",
]  # fmt: skip
CITIES = ["Lisbon", "Porto", "Berlin", "Oslo", "Madrid", "Vienna", "Prague", "Dublin"]
COMPANIES = ["Globex", "Initech", "Umbrella", "Hooli", "Acme", "Stark Industries"]
PETS = ["Rex", "Max", "Luna", "Bella"]


def _node(nid: str, parent: str | None, children: list[str], role: str | None, text: str | None, t: float, hidden: bool = False) -> dict:  # fmt: skip
    msg = None
    if role is not None:
        msg = {"id": nid, "author": {"role": role, "name": None, "metadata": {}}, "create_time": t,
               "update_time": None, "content": {"content_type": "text", "parts": [text or ""]},
               "status": "finished_successfully", "end_turn": role == "assistant", "weight": 1.0,
               "metadata": {"is_visually_hidden_from_conversation": True} if hidden else {},
               "recipient": "all"}  # fmt: skip
    return {"id": nid, "message": msg, "parent": parent, "children": children}


def conversation(n: int, rng: random.Random, answer_chars: int) -> dict:
    """One conversation; the person's facts change rarely (a move every few hundred chats)."""
    t = 1700000000 + n * 3600.0
    era = n // 400  # the city, employer and pet of this stretch of the person's life
    persona = {"city": CITIES[era % len(CITIES)], "company": COMPANIES[era % len(COMPANIES)],
               "pet": PETS[era % len(PETS)], "n": 15 + era, "day": 14}  # fmt: skip
    turns = rng.randint(6, 24)
    mapping = {"root": _node("root", None, ["sys"], None, None, t),
               "sys": _node("sys", "root", ["u0"], "system", "", t, hidden=True)}  # fmt: skip
    parent = "sys"
    for i in range(turns):
        uid, aid = f"u{i}", f"a{i}"
        fact = rng.choice(FACTS).format(**persona)
        said = fact if rng.random() < 0.1 else f"Can you help me with question {n}.{i} about my project?"
        mapping[parent]["children"] = [uid]
        mapping[uid] = _node(uid, parent, [aid], "user", said, t + 60 * i)
        answer = "".join(rng.choice("abcdefghij klmnop qrstuvwxyz. ") for _ in range(answer_chars))
        mapping[aid] = _node(aid, uid, [], "assistant", answer, t + 60 * i + 30)
        parent = aid
    if turns > 2:  # an edited message: the old branch stays in the tree, current_node avoids it
        mapping["a0"]["children"].append("old")
        mapping["old"] = _node("old", "a0", [], "user", "I live in Atlantis.", t + 59)
    return {"title": f"Chat {n}", "create_time": t, "update_time": t + 60 * turns, "mapping": mapping,
            "moderation_results": [], "current_node": parent, "conversation_id": f"{n:08x}-0000-8000-0000-000000000000",
            "id": f"{n:08x}-0000-8000-0000-000000000000", "default_model_slug": "gpt-4o"}  # fmt: skip


def write_export(path: Path, megabytes: int) -> int:
    rng = random.Random(1)
    target, n = megabytes * 1_000_000, 0
    with path.open("w", encoding="utf-8") as f:
        f.write("[")
        while f.tell() < target:
            f.write(("," if n else "") + "\n" + json.dumps(conversation(n, rng, 1500), ensure_ascii=False))
            n += 1
        f.write("\n]\n")
    return n


def _child(code: str, *args: str) -> dict:
    """Run code in a fresh Python; it prints one JSON line; add its wall time and peak RSS."""
    wrapper = (
        "import json, resource, sys, time\nt0 = time.perf_counter()\n" + code +
        "\nout['seconds'] = round(time.perf_counter() - t0, 2)\n"
        "out['peak_rss_mib'] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)\n"
        "print(json.dumps(out))\n"
    )  # fmt: skip
    env = {**os.environ, "MDMEM_NOW": "2026-03-01T12:00:00Z", "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", wrapper, *args], capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        raise SystemExit(proc.stderr)
    return json.loads(proc.stdout.strip().splitlines()[-1])


READ = """
from mdmem.extract.transcript import read_conversations
convs = msgs = 0
for c in read_conversations(sys.argv[1]):
    convs += 1; msgs += len(c.messages)
out = {'conversations': convs, 'messages_kept': msgs}
"""
WHOLE = """
data = json.load(open(sys.argv[1], encoding='utf-8'))
out = {'conversations': len(data)}
"""
INGEST = """
from mdmem.edit.ingest import ingest_paths
from mdmem.edit.ingest_result import summary
from mdmem.store.vault import Vault
results = ingest_paths(Vault(sys.argv[2]), [sys.argv[1]])
out = {'summary': summary(results), 'sources': len(results)}
"""


def main() -> int:
    args = sys.argv[1:]
    mb = int(args[args.index("--mb") + 1]) if "--mb" in args else 200
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "conversations.json"
        t0 = time.perf_counter()
        n = write_export(path, mb)
        size = path.stat().st_size / 1e6
        print(f"export: {size:.0f} MB, {n} conversations (written in {time.perf_counter() - t0:.1f} s)")
        print(f"load average: {os.getloadavg()[0]:.1f}, rss of an empty python: {_child('out = {}')['peak_rss_mib']} MiB")
        print("read (streamed):", _child(READ, str(path)))
        if "--whole" in args:
            print("read whole (json.load):", _child(WHOLE, str(path)))
        if "--read-only" in args:
            return 0
        from mdmem.store.vault import Vault

        vault = Path(tmp) / "vault"
        Vault.create(vault, "personal")
        print("ingest:", _child(INGEST, str(path), str(vault)))
        print("ingest again (nothing new):", _child(INGEST, str(path), str(vault)))
        journal = vault / ".mdmem" / "journal.jsonl"
        episodes = sum(1 for _ in (vault / "episodes").rglob("*.md"))
        print(f"journal {journal.stat().st_size / 1e6:.1f} MB, {episodes} episode files, "
              f"{sum(1 for _ in (vault / 'facts').rglob('*.md'))} fact files")
    print(f"(peak RSS of this process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
