"""Figures that write or start up: `init`, `--help`, a cascade over 1,000 dependents, ingesting
LoCoMo's development conversations (one process; one file per session; a nightly cron over
a year of daily files), passages, and `mdmem mcp` to its first answer."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import floors
from benchctx import Ctx
from harness import Row, Sample, Step, Target, mdmem, mdmem_counting, measure, script, spawn, step
from vaults import PLANTED, daily_files, locomo_session_files, locomo_texts, passage_vault

HERE = Path(__file__).resolve().parent


def _facts(root: Path) -> int:
    return sum(1 for _ in (root / "facts").rglob("*.md")) if (root / "facts").exists() else 0


def _entries(root: Path) -> int:
    return (root / ".mdmem/journal.jsonl").read_text(encoding="utf-8").count("\n")


def startup(ctx: Ctx) -> list[Row]:
    """`mdmem --help` and `mdmem init`, beside `python -c pass`."""
    target = ctx.work / "init-vault"
    helped = step("`mdmem --help`", mdmem("--help"),
                  check=lambda s: None if "Commands:" in s.out else "no command list printed")  # fmt: skip
    init = step("`mdmem init` (regexes compiled: counted)", mdmem_counting("init", str(target)),
                prepare=lambda: shutil.rmtree(target, ignore_errors=True),
                check=lambda s: None if (target / "rules.yaml").is_file() else "no rules.yaml made")  # fmt: skip
    one = ctx.work / "one-message"

    def fresh() -> None:
        shutil.rmtree(one, ignore_errors=True)
        spawn(mdmem("init", str(one / "v")))
        (one / "chat.md").write_text("User: I moved to Shanghai last week.\n", encoding="utf-8")

    ingest_one = step("one-message `mdmem ingest` in a new vault (regexes compiled: counted)",
                      mdmem_counting("ingest", str(one / "chat.md"), "--vault", str(one / "v")),
                      prepare=fresh, check=lambda s: None if "ADD" in s.out else "the message added no fact")  # fmt: skip
    pack = Target("count:compiles", 250, "≤ 250 regexes compiled (the pack's 243 patterns, plus those of the modules: none of the pack's but a message's candidates)")  # fmt: skip
    return [measure("--help", helped, floors.pass_(), ctx.runs, [Target("cpu", 0.15)]),
            measure("init", init, floors.pass_(), ctx.runs, [Target("count:compiles", 100, "≤ 100 regexes compiled (none of the pack's)")]),
            measure("one-message ingest", ingest_one, floors.pass_(), ctx.runs, [pack])]  # fmt: skip


def cascade(ctx: Ctx, n: int = 1000) -> list[Row]:
    """`mdmem set` over n dependents as a command, beside temp+rename of the same files."""
    sys.path.insert(0, str(HERE))
    from bench_cascade import at_rest, build

    root = ctx.work / "cascade"

    def fresh() -> None:
        shutil.rmtree(root, ignore_errors=True)
        build(root, n, False)
        at_rest(root)
        spawn(mdmem("check", "--vault", str(root)))  # the code under test's caches

    def cascaded(sample: Sample) -> str | None:
        text = (root / "facts/user/dep_00000.md").read_text(encoding="utf-8")
        return None if "Shanghai #0" in text else "the derived dependent was not written"

    figure = step(f"`mdmem set` over {n:,} dependents",
                  mdmem("set", "home_city", "Shanghai", "--date", "2026-02-10", "--vault", str(root)),
                  prepare=fresh, check=cascaded)  # fmt: skip
    floor = floors.temp_rename(str(root / "facts/user/*.md"), n + 1)
    fresh()  # the floor's files
    return [measure(f"cascade over {n:,} dependents", figure, floor, ctx.runs, [Target("ratio", 1.5)])]


INGEST_DEV = """
from pathlib import Path
from mdmem.edit.ingest import ingest_paths
from mdmem.store.vault import Vault
n = 0
for folder in sorted(Path({work!r}).iterdir()):
    if folder.is_dir():
        results = ingest_paths(Vault(folder), [folder.parent / (folder.name + '.md')])
        n += sum(len(r.plan.changes) for r in results if r.plan is not None)
done(changes=n)
"""


def ingest(ctx: Ctx) -> list[Row]:
    """The seven development conversations, one process, one vault each (as bench_ingest)."""
    work = ctx.work / "ingest-dev"
    texts = locomo_texts()
    expect: dict[str, float] = {}

    def fresh() -> None:
        shutil.rmtree(work, ignore_errors=True)
        (work / "v").mkdir(parents=True)
        for sid, text, _ in texts:
            (work / "v" / f"{sid}.md").write_text(text, encoding="utf-8")
            spawn(mdmem("init", str(work / "v" / sid)))

    def wrote(sample: Sample) -> str | None:
        got = sample.inner.get("changes", 0)
        if not got:
            return "no fact written"
        if expect.setdefault("changes", got) != got:
            return f"{got} changes, another run made {expect['changes']}: not deterministic"
        return None

    figure = Step("ingest 7 dev conversations, fresh process",
                  lambda: [script(INGEST_DEV.format(work=str(work / "v")))], prepare=fresh, check=wrote)  # fmt: skip
    turns = sum(t for _, _, t in texts)
    row = measure("ingest, 7 dev conversations", figure, floors.pass_(), ctx.runs, [Target("cpu", 2.0)],
                  note=f"{turns:,} turns")  # fmt: skip
    return [row]


def ingest_sessions(ctx: Ctx) -> list[Row]:
    """The development conversations as one file per session, one `mdmem ingest FOLDER`."""
    work = ctx.work / "ingest-sessions"
    files, turns = locomo_session_files(work / "chats")

    def fresh() -> None:
        shutil.rmtree(work / "v", ignore_errors=True)
        spawn(mdmem("init", str(work / "v")))

    def all_in(sample: Sample) -> str | None:
        entries = (work / "v/.mdmem/journal.jsonl").read_text(encoding="utf-8").count("\n")
        return None if entries >= files and _facts(work / "v") else f"{entries} journal entries for {files} files"

    ingest = mdmem("ingest", str(work / "chats"), "--vault", str(work / "v"))
    figure = step(f"`mdmem ingest` of {files} session files", ingest, prepare=fresh, check=all_in)
    rows = [measure("ingest, session files", figure, floors.pass_(), ctx.heavy_runs, [Target("wall", 3.0)],
                    note=f"{files} files, {turns:,} turns (development conversations only)")]  # fmt: skip
    # The first read after that ingest: the passages were indexed by it (item 4), or the ask
    # builds the index from every episode file; beside the same ask with the index warm.
    ask = mdmem("ask", "What did they say about the weekend?", "--vault", str(work / "v"))

    def answered(sample: Sample) -> str | None:
        return None if sample.out.strip() else "the ask printed nothing"

    def ingested() -> None:
        fresh()
        spawn(ingest)

    def warmed() -> None:
        if not (work / "v" / ".mdmem").is_dir():
            ingested()
        spawn(ask)

    first = step("first `mdmem ask` after the ingest", ask, prepare=ingested, check=answered)
    warm = step("the same `ask` again (index warm)", ask, prepare=warmed, check=answered)
    rows.append(measure("first ask after ingesting session files", first, warm, ctx.heavy_runs,
                        [Target("ratio", 1.5, "≤ 1.5× the same ask warm (no index build)")]))  # fmt: skip
    return rows


def cron(ctx: Ctx, early: int = 10, late: int = 300) -> list[Row]:
    """A nightly `mdmem ingest FOLDER` of daily files: night late+k beside night early+k."""
    rows = []
    steps: list[Step] = []
    for days in (early, late):
        work = ctx.work / f"cron-{days}"
        if not (work / ".complete").exists():
            shutil.rmtree(work, ignore_errors=True)
            daily_files(work / "chats", days)
            spawn(mdmem("init", str(work / "v")))
            spawn(mdmem("ingest", str(work / "chats"), "--vault", str(work / "v")))
            (work / ".complete").write_text("")
        state = {"day": len(list((work / "chats").glob("*.md"))), "entries": 0}  # an earlier run's nights too

        def add_day(work: Path = work, state: dict[str, int] = state) -> None:
            state["day"] += 1
            daily_files(work / "chats", state["day"])  # today's file (the others are as they were)
            state["entries"] = _entries(work / "v")

        def took(sample: Sample, work: Path = work, state: dict[str, int] = state) -> str | None:
            grew = _entries(work / "v") - state["entries"]
            return None if grew == 1 else f"the journal grew by {grew} entries, not one"

        steps.append(step(f"nightly `mdmem ingest` after {days} days",
                          mdmem("ingest", str(work / "chats"), "--vault", str(work / "v")),
                          prepare=add_day, check=took))  # fmt: skip
    rows.append(measure(f"cron, night {late} vs night {early}", steps[1], steps[0], ctx.runs,
                        [Target("ratio", 1.2, "≤ 1.2× an early night (no slow-down)")]))  # fmt: skip
    return rows


PASSAGE_ASK = """
import statistics
from mdmem import Vault
from mdmem.read.ask import ask
v = Vault({root!r})
qs = {questions!r}
answers = [ask(v, q).text for q, _ in qs]
walls, cpus = [], []
for _ in range(10):
    for q, _ in qs:
        w, c = time.perf_counter(), time.process_time()
        ask(v, q)
        walls.append(time.perf_counter() - w); cpus.append(time.process_time() - c)
print('\\n'.join(answers))
print('BENCH ' + _json.dumps({{'wall': statistics.median(walls), 'cpu': statistics.median(cpus)}}))
"""

PASSAGE_FTS = """
import sqlite3, statistics
db = sqlite3.connect({db!r})
walls, cpus = [], []
for _ in range(10):
    for q in ('pandan OR chiffon', 'kayaking OR cousin'):
        w, c = time.perf_counter(), time.process_time()
        db.execute("SELECT rowid FROM fts WHERE fts MATCH ? ORDER BY rank LIMIT 40", (q,)).fetchall()
        walls.append(time.perf_counter() - w); cpus.append(time.process_time() - c)
print('BENCH ' + _json.dumps({{'wall': statistics.median(walls), 'cpu': statistics.median(cpus)}}))
"""


def passages(ctx: Ctx) -> list[Row]:
    """`ask` over N passages in one process (answered from the planted messages), beside one
    FTS5 query in process; and the build of the passage index beside read + FTS5."""
    n = ctx.sizes[-1]
    root = ctx.work / f"passages-{n}"
    if not (root / ".complete").exists():
        shutil.rmtree(root, ignore_errors=True)
        passage_vault(root, n)
        (root / ".complete").write_text("")
    questions = [(q, a) for _, _, q, a in PLANTED]
    db = root / ".mdmem" / "passages.sqlite"

    def answered(sample: Sample) -> str | None:
        missing = [a for _, a in questions if a not in sample.out]
        return f"answers do not quote {missing}" if missing else None

    build = step("first `mdmem ask` (builds the passage index)",
                 mdmem("ask", questions[0][0], "--vault", str(root)),
                 prepare=lambda: [p.unlink(missing_ok=True) for p in (db, db.with_name(db.name + "-journal"))],
                 check=lambda s: None if questions[0][1] in s.out else "not answered from the passages")  # fmt: skip
    rows = [measure(f"passage index build, {n:,} passages", build, None, ctx.heavy_runs, [])]
    figure = Step(f"`ask` over {n:,} passages in process (median)",
                  lambda: [script(PASSAGE_ASK.format(root=str(root), questions=questions))], check=answered)  # fmt: skip
    floor = Step("one FTS5 query in process", lambda: [script(PASSAGE_FTS.format(db=str(db)))], env=floors.floor_env)
    rows.append(measure(f"ask over passages, {n:,}", figure, floor, max(3, ctx.runs // 2), [Target("ms", 50)]))
    return rows


MCP_START = """
import anyio, resource
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
params = StdioServerParameters(command=sys.executable,
    args=['-c', 'from mdmem.cli import main; main()', 'mcp', '--vault', {root!r}], env=dict(os.environ))
def kids():
    r = resource.getrusage(resource.RUSAGE_CHILDREN); return r.ru_utime + r.ru_stime
async def once():
    cpu, t = kids(), time.perf_counter()
    async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
        await s.initialize()
        result = await s.call_tool('ask', {{'question': {question!r}}})
        first = time.perf_counter() - t
        text = ' '.join(getattr(c, 'text', '') for c in result.content)
    return first, kids() - cpu, text
first, cpu, text = anyio.run(once)
print(text)
print('BENCH ' + _json.dumps({{'wall': first, 'cpu': cpu}}))
"""


def mcp(ctx: Ctx) -> list[Row]:
    """`mdmem mcp`: spawn to the first `ask` answer over stdio (the SDK's client), beside
    `python -c pass`; the figure's CPU is the server's."""
    sample = ctx.work / "sample_vault"
    if not sample.exists():
        shutil.copytree(HERE.parent / "sample_vault", sample)
    spawn(mdmem("ask", "Where do I live?", "--vault", str(sample)))
    figure = Step("`mdmem mcp` start → first `ask` answer",
                  lambda: [script(MCP_START.format(root=str(sample), question="Where do I live?"))],
                  check=lambda s: None if "Shanghai" in s.out else "the first answer does not name Shanghai")  # fmt: skip
    return [measure("mcp start → first answer", figure, floors.pass_(), ctx.runs,
                    [Target("wall", 0.5), Target("cpu", 0.5)])]  # fmt: skip
