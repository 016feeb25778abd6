"""The floors: what any tool doing the same job must pay, as plain Python processes.

- `stat_walk`: list every entity folder and stat every fact file (any freshness check);
- `read_fts`: read every fact file and insert its text into an FTS5 table on disk, one
  transaction (any full-text index of these files);
- `fts_query`: open an index database and run one FTS5 query (any search as a command);
- `pass_`: `python -c pass` (interpreter start-up);
- `temp_rename`: write N files through a temporary file and a rename each, one `os.sync()`.
"""

from __future__ import annotations

from pathlib import Path

from harness import PY, Check, Sample, Step, floor_env, script, step

STAT_WALK = """
root = {root!r} + '/facts'
n = 0
for ent in sorted(os.listdir(root)):
    fd = os.open(root + '/' + ent, os.O_RDONLY | os.O_DIRECTORY)
    with os.scandir(fd) as it:
        for name in sorted(e.name for e in it):
            os.stat(name, dir_fd=fd); n += 1
    os.close(fd)
print(n)
"""

READ_FTS = """
import sqlite3
path = {db!r}
for p in (path, path + '-journal'):
    if os.path.exists(p): os.unlink(p)
db = sqlite3.connect(path, isolation_level=None)
db.execute("CREATE VIRTUAL TABLE fts USING fts5(data)")
db.execute('BEGIN')
root, n = {root!r} + '/facts', 0
for ent in sorted(os.listdir(root)):
    folder = root + '/' + ent
    for name in sorted(os.listdir(folder)):
        with open(folder + '/' + name, 'rb') as f:
            db.execute('INSERT INTO fts VALUES(?)', (f.read().decode(),)); n += 1
db.execute('COMMIT')
db.close()
os.unlink(path)
print(n)
"""

FTS_QUERY = """
import sqlite3
db = sqlite3.connect({db!r})
print(db.execute("SELECT count(*) FROM (SELECT rowid FROM fts WHERE fts MATCH ? LIMIT 40)", ({word!r},)).fetchone()[0])
"""

TEMP_RENAME = """
import glob
paths = sorted(glob.glob({pattern!r}))[:{n}]
texts = [(p, open(p, 'rb').read() + b'\\n') for p in paths]
for p, data in texts:
    d, name = os.path.split(p)
    tmp = os.path.join(d, '.' + name + '.floor.tmp')
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    os.write(fd, data); os.close(fd)
    os.replace(tmp, p)
os.sync()
print(len(texts))
"""


def _count(expected: int) -> Check:
    def check(sample: Sample) -> str | None:
        got = sample.out.strip().split("\n")[-1]
        return None if got == str(expected) else f"floor did {got!r} files, expected {expected}"

    return check


def stat_walk(root: Path, n: int) -> Step:
    return step("stat walk", script(STAT_WALK.format(root=str(root))), check=_count(n), env=floor_env)


def read_fts(root: Path, n: int, db: Path) -> Step:
    return step("read + FTS5 insert", script(READ_FTS.format(root=str(root), db=str(db))),
                check=_count(n), env=floor_env)  # fmt: skip


def fts_query(db: Path, word: str) -> Step:
    def check(sample: Sample) -> str | None:
        return None if sample.out.strip() not in ("", "0") else "the FTS5 query found nothing"

    return step("FTS5 query process", script(FTS_QUERY.format(db=str(db), word=word)), check=check,
                env=floor_env)  # fmt: skip


def pass_() -> Step:
    return step("python -c pass", [PY, "-c", "pass"], env=floor_env)


def temp_rename(pattern: str, n: int) -> Step:
    return step(f"temp+rename ×{n:,} + os.sync", script(TEMP_RENAME.format(pattern=pattern, n=n)),
                check=_count(n), env=floor_env)  # fmt: skip
