"""The vaults and corpora the benchmarks run on, generated (nothing here is committed).

- `facts_vault`: N fact files with the personal pack, as mdmem writes them (canonical bytes,
  `upstream` links, the manifest of what mdmem wrote), files an hour old;
- `foreign_vault`: the same facts as another program writes them (a generator, a git clone
  of someone else's notes): rules.yaml and facts/ only, no `upstream`, no `.mdmem/`;
- `passage_vault`: episode files holding N passages of Zipf-distributed chat, with a few
  planted messages a question can be answered from;
- `locomo_texts`: LoCoMo's development conversations as transcripts (the conversations kept
  for independent checks are never read).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import sys
import time
from datetime import date, datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_ask import _fact  # noqa: E402
from locomo_qa import CORPUS as LOCOMO  # noqa: E402  found beside the checkout or its worktrees
from locomo_qa import DEV  # noqa: E402  the development conversations only

NOW = "2026-03-01T12:00:00Z"
# What `ask` must answer on facts_vault (the user's home city is always this).
HOME = "Chengdu"


def _age(paths: list[Path], seconds: float = 3600) -> None:
    """Files as a vault at rest has them: not modified within the last moments (a file written
    a moment ago is re-read by every scan until it is older, as git does)."""
    old = time.time() - seconds
    for p in paths:
        os.utime(p, (old, old))


def facts_vault(root: Path, n: int, seed: int = 7) -> Path:
    """A vault of n fact files written as mdmem writes them; see the module docstring."""
    from mdmem import Vault
    from mdmem.files import sha256
    from mdmem.model.factfile import render
    from mdmem.store import links

    rng = random.Random(seed)
    vault = Vault.create(root, "personal", now=NOW)
    rules = vault.rules
    attrs = sorted(rules.attributes)
    written: dict[str, str] = {}
    paths: list[Path] = []
    i = 0
    for p in range(max(1, -(-n // len(attrs)))):
        entity = "user" if p == 0 else f"person{p:05d}"
        folder = root / "facts" / entity
        folder.mkdir(parents=True, exist_ok=True)
        for attr in attrs:
            if i >= n:
                break
            fact = _fact(entity, attr, rng)
            if entity == "user" and attr == "home_city":
                fact.value, fact.status, fact.uncertain_because = HOME, "active", None
            fact.upstream = links.upstream(fact, rules)
            text = render(fact)
            path = folder / f"{attr}.md"
            path.write_bytes(text.encode())
            written[f"facts/{entity}/{attr}.md"] = sha256(text)
            paths.append(path)
            i += 1
    vault.manifest.data.update(written)
    vault.manifest.save()
    _age(paths)
    return root


def foreign_vault(root: Path, own: Path) -> Path:
    """The facts of `own` as another program wrote them: no upstream links, no .mdmem/."""
    if root.exists():
        shutil.rmtree(root)
    (root / "facts").mkdir(parents=True)
    shutil.copyfile(own / "rules.yaml", root / "rules.yaml")
    paths = []
    for folder in sorted((own / "facts").iterdir()):
        out = root / "facts" / folder.name
        out.mkdir()
        for f in sorted(folder.iterdir()):
            lines = f.read_text(encoding="utf-8").split("\n")
            kept, skip = [], False
            for line in lines:  # drop the `upstream:` block (mdmem's own layout: `- ` items)
                if line == "upstream:" or line.startswith("upstream: "):
                    skip = line == "upstream:"
                    continue
                if skip and line.startswith("- "):
                    continue
                skip = False
                kept.append(line)
            (out / f.name).write_text("\n".join(kept), encoding="utf-8")
            paths.append(out / f.name)
    _age(paths)
    return root


def signatures(root: Path) -> dict[str, tuple[int, int]]:
    """(inode, mtime_ns) of every fact file: a file rewritten gets another."""
    out = {}
    for folder in (root / "facts").iterdir():
        for f in folder.iterdir():
            st = f.stat()
            out[f"{folder.name}/{f.name}"] = (st.st_ino, st.st_mtime_ns)
    return out


# --- passages --------------------------------------------------------------------------------

PER_DAY = 50
EVERYDAY = ["hike", "camping", "lake", "sunrise", "painting", "dog", "cat", "guitar", "concert", "pottery", "support", "group", "school", "counselor", "adoption", "beach", "bakery", "frosting", "coconut", "lemon", "cake", "novel", "screenplay", "marathon", "charity", "race", "bowling", "eagles", "museum", "library", "garden", "tomato", "violin", "jazz", "friend", "sister", "brother", "mother", "father", "kids", "husband", "wife", "office", "studio", "gallery"]  # fmt: skip
# Planted messages and the question each answers: `ask` must quote them.
PLANTED = [
    ("Ana", "My grandmother taught me to bake the pandan chiffon in Lisbon.",
     "What did Ana say about the pandan chiffon?", "Lisbon"),
    ("Ben", "We went kayaking on Lake Tahoe with my cousin Ravi last summer.",
     "When did Ben go kayaking with his cousin?", "Tahoe"),
]  # fmt: skip


def passage_vault(root: Path, n: int, seed: int = 7) -> Path:
    """A personal-pack vault whose episodes hold n passages (50 a day); see PLANTED."""
    from mdmem import Vault
    from mdmem.model.episode import Episode, Said, episode_path, render

    Vault.create(root, "personal", now=NOW)
    rng = random.Random(seed)
    vocab = EVERYDAY + [f"w{i}x" for i in range(20_000)]
    weights = [1 / (rank + 1) for rank in range(len(vocab))]
    day = date(2020, 1, 1)
    plant_at = {n // 3: PLANTED[0], (2 * n) // 3: PLANTED[1]}
    pos = 0
    for start in range(0, n, PER_DAY):
        said = []
        for i in range(min(PER_DAY, n - start)):
            speaker = rng.choice(("Ana", "Ben"))
            text = " ".join(rng.choices(vocab, weights, k=rng.randint(8, 30))) + "."
            if pos in plant_at:
                speaker, text = plant_at[pos][0], plant_at[pos][1]
            said.append(Said(f"m{i + 1}", speaker, f"{day.isoformat()}T10:{i % 60:02d}:00", text))
            pos += 1
        ep = Episode(f"gen/{day.isoformat()}.md", "0" * 64, day.isoformat(), ["Ana", "Ben"], None, said)
        path = root / episode_path(day.isoformat(), f"gen/{day.isoformat()}.md")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render(ep), encoding="utf-8")
        day += timedelta(days=1)
    return root


# --- LoCoMo ----------------------------------------------------------------------------------


def locomo_dev() -> list[dict]:
    """The development conversations (never the ones kept for independent checks)."""
    data = json.loads(LOCOMO.read_text(encoding="utf-8"))
    return [c for c in data if c["sample_id"] in DEV]


def _sessions(conversation: dict) -> list[tuple[datetime, list[dict]]]:
    cv, out, n = conversation["conversation"], [], 1
    while f"session_{n}" in cv:
        when = datetime.strptime(cv[f"session_{n}_date_time"], "%I:%M %p on %d %B, %Y")
        out.append((when, cv[f"session_{n}"]))
        n += 1
    return out


def session_text(when: datetime, turns: list[dict]) -> str:
    lines = [f"## {when:%Y-%m-%d %H:%M}\n"] + [f"{t['speaker']}: {t['text']}" for t in turns]
    return "\n".join(lines) + "\n"


def locomo_texts() -> list[tuple[str, str, int]]:
    """(id, one transcript of the whole conversation, turns) per development conversation."""
    out = []
    for c in locomo_dev():
        sessions = _sessions(c)
        text = "\n".join(session_text(w, t) for w, t in sessions)
        out.append((c["sample_id"], text, sum(len(t) for _, t in sessions)))
    return out


def locomo_session_files(folder: Path) -> tuple[int, int]:
    """One transcript file per session of each development conversation: (files, turns)."""
    folder.mkdir(parents=True, exist_ok=True)
    files = turns = 0
    for c in locomo_dev():
        for k, (when, t) in enumerate(_sessions(c), 1):
            (folder / f"{c['sample_id']}-s{k:02d}.md").write_text(session_text(when, t), encoding="utf-8")
            files += 1
            turns += len(t)
    return files, turns


def daily_files(folder: Path, days: int, start: date = date(2025, 1, 1)) -> list[Path]:
    """A year of a nightly chat log: one file a day, each a LoCoMo development session with
    that day's date (the sessions in turn)."""
    sessions = [t for c in locomo_dev() for _, t in _sessions(c)]
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for d in range(days):
        day = start + timedelta(days=d)
        path = folder / f"{day.isoformat()}.md"
        when = datetime(day.year, day.month, day.day, 21, 0)
        path.write_text(session_text(when, sessions[d % len(sessions)]), encoding="utf-8")
        out.append(path)
    return out
