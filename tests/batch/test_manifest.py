"""The manifest: each line checked on its own, with its number and the fix; read as a stream."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from mdmem.batch.manifest import MAX_LINE, Job, Refused, read_jobs, undone
from mdmem.errors import MdmemError
from tests.batch.helpers import manifest_bytes

ROOT = "/srv/vaults"


def _read(*rows: dict | str | bytes, root: str = ROOT) -> list[Job | Refused]:
    data = b"".join(r if isinstance(r, bytes) else manifest_bytes(r) for r in rows)
    return list(read_jobs(io.BytesIO(data), root))


def test_a_job_line_is_made_absolute_from_the_root() -> None:
    [job] = _read(
        {"vault": "users/ana", "inputs": ["chats/a.md", "/data/b.jsonl"], "date": "2026-03-01"}
    )
    assert job == Job(
        1, "/srv/vaults/users/ana", ("/srv/vaults/chats/a.md", "/data/b.jsonl"), "2026-03-01"
    )


@pytest.mark.parametrize(
    ("row", "says"),
    [
        ("{not json", "not JSON"),
        ('["a", "b"]', "a JSON list, not an object"),
        ({"vault": "a", "inputs": ["x"], "inptus": []}, "unknown key 'inptus'"),
        ({"inputs": ["x"]}, 'non-empty string under "vault"'),
        ({"vault": "", "inputs": ["x"]}, 'non-empty string under "vault"'),
        ({"vault": "a"}, 'give "inputs" as a non-empty list'),
        ({"vault": "a", "inputs": []}, 'give "inputs" as a non-empty list'),
        ({"vault": "a", "inputs": "x.md"}, 'give "inputs" as a non-empty list'),
        ({"vault": "a", "inputs": ["x", 3]}, "non-empty path string"),
        ({"vault": "a", "inputs": ["-"]}, "standard input"),
        ({"vault": "a", "inputs": ["x"], "date": "01/03/2026"}, "a date like 2026-02-10"),
        ({"vault": "../elsewhere", "inputs": ["x"]}, "outside the root /srv/vaults"),
        ({"vault": "a/../../etc", "inputs": ["x"]}, "outside the root"),
        ({"vault": "/etc/passwd", "inputs": ["x"]}, "outside the root"),
        ({"vault": "/srv/vaults-other/a", "inputs": ["x"]}, "outside the root"),
        ({"vault": ".", "inputs": ["x"]}, "outside the root"),  # the root itself is no vault
    ],
)
def test_a_bad_line_is_refused_with_its_number_and_the_fix(row: dict | str, says: str) -> None:
    good = {"vault": "ok", "inputs": ["x"]}
    items = _read(good, row, good | {"vault": "ok2"})
    assert [type(i) for i in items] == [Job, Refused, Job]  # the lines around it still run
    bad = items[1]
    assert isinstance(bad, Refused) and bad.status == "failed" and bad.line == 2
    assert bad.error.startswith("manifest line 2: ") and says in bad.error


def test_an_absolute_vault_under_the_root_is_fine_and_blank_lines_are_skipped() -> None:
    items = _read("", {"vault": "/srv/vaults/a", "inputs": ["x"]}, "   ")
    assert items == [Job(2, "/srv/vaults/a", ("/srv/vaults/x",))]


def test_root_slash_allows_any_vault() -> None:
    [job] = _read({"vault": "/home/ana/memory", "inputs": ["x"]}, root="/")
    assert isinstance(job, Job) and job.vault == "/home/ana/memory"


def test_a_line_too_long_or_not_utf8_is_one_refused_line() -> None:
    huge = b'{"vault": "a", "inputs": ["' + b"x" * (MAX_LINE + 10) + b'"]}\n'
    items = _read(huge, b'{"vault": "\xff", "inputs": ["x"]}\n', {"vault": "b", "inputs": ["x"]})
    assert [(type(i), i.line) for i in items] == [(Refused, 1), (Refused, 2), (Job, 3)]
    assert "not UTF-8, or longer than" in items[0].error  # type: ignore[union-attr]


def test_a_vault_named_twice_runs_once() -> None:
    same = {"vault": "a", "inputs": ["x"]}
    items = _read(same, {"vault": "b", "inputs": ["y"]}, same, {"vault": "./a", "inputs": ["z"]})
    assert [type(i) for i in items] == [Job, Job, Refused, Refused]
    dup, other = items[2], items[3]
    assert (
        isinstance(dup, Refused) and dup.status == "duplicate" and "same job as line 1" in dup.error
    )
    # Other inputs for a vault already named would be lost without a word: refused, said why.
    assert isinstance(other, Refused) and other.status == "failed"
    assert (
        "line 1 already names this vault" in other.error
        and "one line with all its inputs" in other.error
    )


# Run in a fresh interpreter, so that its peak memory is the reader's: 100,000 distinct jobs,
# read from a file in step with the consumer, and what that cost in resident memory.
_STREAM = """
import json, sys
from mdmem.batch.manifest import Job, read_jobs

def peak_kib():  # this process's own high-water mark (ru_maxrss carries a parent's over exec)
    with open("/proc/self/status") as status:
        return next(int(l.split()[1]) for l in status if l.startswith("VmHWM:"))

class Counting:
    def __init__(self, f):
        self.f, self.read = f, 0
    def readline(self, size=-1):
        self.read += 1
        return self.f.readline(size)

with open(sys.argv[1], "rb") as f:
    stream = Counting(f)
    before = peak_kib()
    jobs = 0
    for n, item in enumerate(read_jobs(stream, "/srv/vaults"), 1):
        assert isinstance(item, Job) and stream.read == n, (n, stream.read)  # no read-ahead
        jobs += 1
    grew = peak_kib() - before
print(json.dumps({"jobs": jobs, "grew_kib": grew}))
"""


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads Linux's VmHWM")
def test_100000_lines_are_read_as_a_stream_in_bounded_memory(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    with path.open("w", encoding="utf-8") as f:
        for i in range(100_000):
            f.write(
                json.dumps({"vault": f"users/u{i:06d}", "inputs": [f"chats/u{i:06d}.jsonl"]}) + "\n"
            )
    out = subprocess.run(
        [sys.executable, "-c", _STREAM, str(path)], capture_output=True, text=True, check=True
    )
    got = json.loads(out.stdout)
    assert got["jobs"] == 100_000
    # What grows is the duplicate check: ~150 bytes a vault (15 MB here). The file is 7.5 MB;
    # its lines held as jobs, or their results, would take several times that.
    assert 0 < got["grew_kib"] < 32 * 1024, got


def test_undone_collects_failed_and_busy_vaults_and_lines_without_one(tmp_path: Path) -> None:
    rows = [
        {"line": 1, "vault": "/r/a", "status": "ok"},
        {"line": 2, "vault": "/r/b", "status": "failed"},
        {"line": 3, "vault": "/r/c", "status": "busy"},
        {"line": 4, "vault": None, "status": "failed"},
        {"line": 5, "vault": "/r/a", "status": "duplicate"},
        {"summary": {"ok": 1}},
    ]
    got = undone([json.dumps(r) for r in rows] + [""])
    assert (got.vaults, got.lines) == ({"/r/b", "/r/c"}, {4})
    assert got.wants(Job(9, "/r/b", ("x",))) and not got.wants(Job(1, "/r/a", ("x",)))
    assert got.wants(Job(4, "/r/new", ("x",)))  # the line that was malformed, fixed since
    assert got.wants(Refused(7, None, "failed", "still wrong"))  # a bad line is always told


def test_a_results_file_that_is_not_one_is_an_error_naming_its_line() -> None:
    with pytest.raises(MdmemError, match=r"r\.jsonl:2: not a line of `mdmem batch` results"):
        undone(['{"line": 1, "vault": "/a", "status": "ok"}', "hello"], "r.jsonl")
