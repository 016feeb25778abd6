"""`mdmem batch`: JSON lines on stdout, failures and a summary on stderr, exit codes for a scheduler."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from mdmem.commands import load
from tests.batch.helpers import SAID, ingests, job, make_vaults, manifest_bytes

RUNNER = CliRunner()


def _batch(*args: str, stdin: bytes | None = None) -> tuple[int, list[dict], str]:
    result = RUNNER.invoke(load("batch"), ["batch", *args], input=stdin)
    return result.exit_code, [json.loads(t) for t in result.stdout.splitlines()], result.stderr


def test_results_stream_as_json_lines_with_a_summary_and_exit_1_on_a_failure(
    tmp_path: Path,
) -> None:
    vaults = make_vaults(tmp_path, ["a", "b"])
    (tmp_path / "m.jsonl").write_bytes(manifest_bytes(job("a"), "{nope", job("b")))
    code, lines, err = _batch("m.jsonl", "--root", str(tmp_path), "-w", "1")
    assert code == 1
    assert [(line["line"], line["status"]) for line in lines[:-1]] == [
        (1, "ok"),
        (2, "failed"),
        (3, "ok"),
    ]
    assert lines[-1]["summary"]["exit_code"] == 1 and lines[-1]["summary"]["ok"] == 2
    assert "line 2 (no vault): failed: manifest line 2: not JSON" in err
    assert "batch: 3 lines in " in err and "2 ok, 1 failed" in err
    assert all(len(ingests(v)) == 1 for v in vaults.values())


def test_all_done_exits_0_and_a_second_run_skips_what_was_ingested(tmp_path: Path) -> None:
    make_vaults(tmp_path, ["a"])
    manifest = manifest_bytes(job("a"))
    code, lines, _ = _batch("-", "--root", str(tmp_path), "-w", "1", stdin=manifest)
    assert code == 0 and lines[0]["journal_ids"] and lines[0]["skipped"] == 0
    code, lines, err = _batch("-", "--root", str(tmp_path), "-w", "1", "--quiet", stdin=manifest)
    assert code == 0 and lines[0]["journal_ids"] == [] and lines[0]["skipped"] == 1 and err == ""


def test_retry_failed_takes_the_results_a_run_printed(tmp_path: Path) -> None:
    make_vaults(tmp_path, ["a", "b"])
    (tmp_path / "chats/b.md").unlink()
    (tmp_path / "m.jsonl").write_bytes(manifest_bytes(job("a"), job("b")))
    code, lines, _ = _batch("m.jsonl", "--root", str(tmp_path), "-w", "1")
    assert code == 1
    (tmp_path / "r.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    (tmp_path / "chats/b.md").write_text(SAID, encoding="utf-8")
    code, lines, _ = _batch(
        "m.jsonl", "--root", str(tmp_path), "-w", "1", "--retry-failed", "r.jsonl"
    )
    assert code == 0 and [line.get("line") for line in lines] == [2, None]


def test_a_run_that_cannot_start_exits_2_and_says_why(tmp_path: Path) -> None:
    (tmp_path / "m.jsonl").write_bytes(manifest_bytes(job("a")))
    (tmp_path / "r.jsonl").write_text("hello\n")
    cases = [
        (["m.jsonl", "--root", "nowhere"], "is not a folder; give --root the folder"),
        (["m.jsonl", "--root", ".", "--init", "--rules", "nopack"], "no rule pack 'nopack'"),
        (["m.jsonl", "--root", ".", "--engine", "ray"], "no engine 'ray'"),
        (
            ["m.jsonl", "--root", ".", "--retry-failed", "r.jsonl"],
            "r.jsonl:1: not a line of `mdmem batch` results",
        ),
        (["missing.jsonl", "--root", "."], "missing.jsonl: cannot be read"),
        (
            ["m.jsonl", "--root", ".", "--dask-resources", "VAULTS=1"],
            "Dask resources are for --engine dask",
        ),
        (["m.jsonl", "--root", ".", "--dask-resources", "VAULTS"], "'VAULTS' is not NAME=N"),
    ]
    for args, says in cases:
        code, lines, err = _batch(*args)
        assert (code, lines) == (2, []), args
        assert says in err, (args, err)
    assert not (tmp_path / "a").exists()


def test_only_the_dask_engine_imports_dask(tmp_path: Path) -> None:
    from tests.perf_correctness.test_lazy_cli import _modules_after

    make_vaults(tmp_path, ["a"])
    (tmp_path / "m.jsonl").write_bytes(manifest_bytes(job("a")))
    for args in (["--help"], ["batch", "--help"], ["batch", str(tmp_path / "m.jsonl"), "--root", str(tmp_path), "-w", "1"]):  # fmt: skip
        mods = {m.split(".")[0] for m in _modules_after(*args)}
        assert not {"dask", "distributed"} & mods, args
    assert len(ingests(tmp_path / "a")) == 1  # the local run above did run
