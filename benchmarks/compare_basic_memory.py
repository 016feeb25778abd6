"""Side by side with basic-memory, driving its real current commands, on the same files.

    .venv/bin/python benchmarks/compare_basic_memory.py            # 1,000 and 10,000 notes
    .venv/bin/python benchmarks/compare_basic_memory.py 1000 --runs 3

basic-memory needs Python >= 3.12: the script makes a venv for it with the first `python3.12`
(or newer) it finds on PATH or under pyenv, and installs basic-memory from PyPI there (kept in
benchmarks/.basic-memory-venv/, not in the repository); it never becomes a dependency of mdmem.
basic-memory runs with its own HOME in a temporary folder (its config, its database, no
update check).

Both tools get the same generated notes, one per fact, each body saying its value in words
(`Lives in Shanghai.`), so a keyword search of either finds them: mdmem reads them as its
vault, basic-memory as a project. Measured, as separate processes, one of each in turn
(harness.py: wall, CPU and peak memory of each process, medians, the ratio of CPU times):

- index: from nothing to searchable (`bm project index`; mdmem's first `ask`, which builds
  its snapshot and index);
- resync, nothing changed (`bm project index` again; `mdmem sync`);
- search as a command (`bm tool search-notes WORD`; `mdmem ask "Who lives in WORD?"`);
- in a running server: the MCP tool calls of one session of each (`search_notes`; `ask`),
  spoken to over stdio by the MCP SDK's client, as an agent would.

Every step checks it found the planted note.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import harness  # noqa: E402
from harness import Row, Sample, Step, mdmem, measure, script, step  # noqa: E402

VENV = HERE / ".basic-memory-venv"
WORD = "Reykjavik"  # the planted note's city: one note holds it
CITIES = ["Shanghai", "Beijing", "Shenzhen", "Berlin", "London", "Lisbon", "Osaka", "Lagos"]


def python312() -> str:
    """A Python >= 3.12 interpreter that runs (a pyenv shim of a version not selected does
    not), from PATH or pyenv's versions, or exit saying none was found."""
    root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    found = [shutil.which(name) for name in ("python3.13", "python3.12")]
    found += [str(v / "bin" / "python3") for v in sorted(root.glob("3.1[2-9]*"), reverse=True)]
    for cand in filter(None, found):
        ok = subprocess.run([cand, "-c", "import sys; sys.exit(sys.version_info < (3, 12))"],
                            capture_output=True, check=False)  # fmt: skip
        if ok.returncode == 0:
            return cand
    sys.exit("basic-memory needs Python >= 3.12 and none was found (PATH, pyenv): skipped")


def basic_memory() -> tuple[str, str]:
    """(the basic-memory command, its version), installing it into VENV first if needed."""
    bm = VENV / "bin" / "basic-memory"
    if not bm.exists():
        subprocess.run([python312(), "-m", "venv", str(VENV)], check=True)
        subprocess.run([str(VENV / "bin" / "pip"), "install", "-q", "basic-memory"], check=True)
    out = subprocess.run([str(VENV / "bin" / "pip"), "show", "basic-memory"], capture_output=True, text=True)
    version = next((line.split()[1] for line in out.stdout.splitlines() if line.startswith("Version:")), "?")
    return str(bm), version


def make_notes(root: Path, n: int) -> None:
    """n fact files (personal pack) with the user's home city WORD, each body its value."""
    from mdmem import Vault
    from mdmem.files import sha256
    from mdmem.model.factfile import Fact, render

    vault = Vault.create(root, "personal", now=harness.BASE_ENV["MDMEM_NOW"])
    attrs = sorted(vault.rules.attributes)
    written = {}
    for i in range(n):
        entity, attr = ("user" if i < len(attrs) else f"person{i // len(attrs):05d}"), attrs[i % len(attrs)]
        value = WORD if (entity, attr) == ("user", "home_city") else (
            CITIES[i % len(CITIES)] if attr.endswith("city") else f"{attr.replace('_', ' ')} {i}")  # fmt: skip
        fact = Fact(entity, attr, value, valid_from="2024-06-01", recorded_at="2024-06-01T00:00:00Z",
                    source="cli", body=f"{attr.replace('_', ' ').capitalize()}: {value}.")  # fmt: skip
        folder = root / "facts" / entity
        folder.mkdir(parents=True, exist_ok=True)
        text = render(fact)
        (folder / f"{attr}.md").write_text(text, encoding="utf-8")
        written[f"facts/{entity}/{attr}.md"] = sha256(text)
    vault.manifest.data.update(written)
    vault.manifest.save()


MCP_SESSION = """
import anyio, statistics
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
params = StdioServerParameters(command={command!r}, args={args!r}, env={env!r})
async def session():
    async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
        await s.initialize()
        first = await s.call_tool({tool!r}, {arguments!r})
        text = ' '.join(getattr(c, 'text', '') for c in first.content)
        walls = []
        for _ in range(12):
            w, c = time.perf_counter(), time.process_time()
            await s.call_tool({tool!r}, {arguments!r})
            walls.append(time.perf_counter() - w)
    return text, statistics.median(walls)
text, wall = anyio.run(session)
print(text)
done(wall=wall, cpu=wall)  # a call's wall time: the server's CPU is another process's
"""


def _found(sample: Sample) -> str | None:
    return None if WORD in sample.out else f"{WORD!r} not found in what it printed"


def compare(n: int, runs: int, bm: str, work: Path) -> list[Row]:
    vault = work / f"vault-{n}"
    make_notes(vault, n)
    home = work / f"bm-home-{n}"
    env = {**harness.BASE_ENV, "HOME": str(home)}
    project = f"bench{n}"

    def bm_env() -> dict[str, str]:
        return env

    subprocess.run([bm, "config", "set", "auto_update", "false"], env=env, capture_output=True)
    subprocess.run([bm, "project", "add", project, str(vault / "facts"), "--no-wait"], env=env,
                   capture_output=True, check=True)  # fmt: skip
    db = vault / ".mdmem" / "index.sqlite"
    rows = []

    def cold_mdmem() -> None:
        for p in (db, db.with_name(db.name + "-journal")):
            p.unlink(missing_ok=True)

    ours = step("mdmem: first `ask` (builds snapshot and index)", mdmem("ask", f"Who lives in {WORD}?", "--vault", str(vault)),
                prepare=cold_mdmem, check=_found)  # fmt: skip
    theirs = step("basic-memory: `bm project index`", [bm, "project", "index", project], env=bm_env)
    rows.append(measure(f"vs basic-memory, index, {n:,}", theirs, ours, 1))
    ours = step("mdmem: `sync`, nothing changed", mdmem("sync", "--vault", str(vault)))
    rows.append(measure(f"vs basic-memory, resync, {n:,}", theirs, ours, runs))
    ours = step("mdmem: `ask`", mdmem("ask", f"Who lives in {WORD}?", "--vault", str(vault)), check=_found)
    theirs = step("basic-memory: `bm tool search-notes`", [bm, "tool", "search-notes", WORD, "--project", project, "--json"],
                  env=bm_env, check=_found)  # fmt: skip
    rows.append(measure(f"vs basic-memory, search command, {n:,}", theirs, ours, runs))
    mine = MCP_SESSION.format(command=harness.PY, args=["-c", "from mdmem.cli import main; main()", "mcp", "--vault", str(vault)],
                              env=harness.mdmem_env(), tool="ask", arguments={"question": f"Who lives in {WORD}?"})  # fmt: skip
    bm_server = MCP_SESSION.format(command=bm, args=["mcp", "--project", project], env=env, tool="search_notes",
                                   arguments={"query": WORD, "project": project})  # fmt: skip
    ours = Step("mdmem: `ask` tool call in a running server (median of 12)", lambda: [script(mine)], check=_found)
    theirs = Step("basic-memory: `search_notes` tool call in a running server (median of 12)",
                  lambda: [script(bm_server)], check=_found)  # fmt: skip
    rows.append(measure(f"vs basic-memory, server call, {n:,}", theirs, ours, max(1, runs // 2)))
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sizes", nargs="*", type=int, default=[1000, 10000])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--json", type=Path, default=HERE / "results" / "basic_memory.json")
    args = ap.parse_args()
    bm, version = basic_memory()
    print(f"basic-memory {version} ({bm}); load average {os.getloadavg()[0]:.1f}", flush=True)
    rows: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="mdmem-vs-bm-") as tmp:
        for n in args.sizes:
            for r in compare(n, args.runs, bm, Path(tmp)):
                # here the "floor" is mdmem: the ratio is how many times basic-memory's CPU mdmem's is
                rows.append({"case": r.case, "basic_memory": r.figure, "mdmem": r.floor,
                             "bm_wall": r.med("wall"), "bm_cpu": r.med("cpu"), "bm_rss": r.med("rss"),
                             "mdmem_wall": r.med("wall", True), "mdmem_cpu": r.med("cpu", True),
                             "mdmem_rss": r.med("rss", True), "ratio": r.ratio, "wall_ratio": r.wall_ratio,
                             "runs": len(r.samples), "load": list(r.load)})  # fmt: skip
                args.json.parent.mkdir(parents=True, exist_ok=True)
                args.json.write_text(json.dumps({"basic_memory": version, "rows": rows}, indent=1) + "\n")
    print(f"results in {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
