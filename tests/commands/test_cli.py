"""The core commands from outside, through CliRunner: what a person sees."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mdmem.cli import app
from tests.conftest import STORY, STORY_RULES

runner = CliRunner()


def mdmem(*args: str, env: dict[str, str] | None = None):
    return runner.invoke(app, list(args), env=env, catch_exceptions=False)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    path = tmp_path / "v"
    assert mdmem("init", str(path), "--rules", str(STORY_RULES)).exit_code == 0
    for attr, value in STORY:
        assert (
            mdmem("set", attr, value, "--date", "2025-08-15", "--vault", str(path)).exit_code == 0
        )
    return path


def show(vault: Path) -> dict[str, dict]:
    out = mdmem("show", "--json", "--vault", str(vault))
    assert out.exit_code == 0
    return {f"{f['entity']}/{f['attribute']}": f for f in json.loads(out.stdout)}


def test_move_story_from_outside(vault: Path) -> None:
    result = mdmem("set", "home_city", "上海", "--date", "2026-02-10", "--vault", str(vault))
    assert result.exit_code == 0
    assert "UPDATE" in result.stdout and "DERIVE" in result.stdout
    facts = show(vault)
    assert facts["user/social_insurance_city"]["value"] == "上海"
    assert facts["user/social_insurance_city"]["status"] == "active"
    assert facts["user/employer"]["status"] == "uncertain"
    assert facts["user/employer"]["uncertain_because"]["new"] == "上海"
    assert facts["user/home_address"]["status"] == "uncertain"
    assert facts["user/commute_minutes"]["status"] == "expired"
    assert facts["user/birthday"]["status"] == "active"
    assert facts["user/home_city"]["history"][0]["value"] == "广州"
    assert facts["user/home_city"]["history"][0]["valid_to"] == "2026-02-10"
    pending = json.loads(mdmem("pending", "--json", "--vault", str(vault)).stdout)["pending"]
    assert {p["fact"] for p in pending} >= {"user/employer", "user/home_address"}
    assert all(p["ask"] for p in pending)  # the shape of the MCP tool
    text = mdmem("pending", "--vault", str(vault)).stdout
    assert "你现在还在岭南科技工作吗" in text
    hint = mdmem("pending", "--vault", str(vault)).stderr  # several questions: no one key named
    assert "Answer each, as listed above, with `mdmem confirm FACT VALUE`" in hint


def test_one_fact_as_json_is_the_frontmatter_mapping(vault: Path) -> None:
    out = mdmem("show", "home_city", "--json", "--vault", str(vault))
    data = json.loads(out.stdout)
    assert list(data)[:4] == ["entity", "attribute", "value", "status"]
    assert mdmem("show", "nope", "--vault", str(vault)).exit_code == 1


def test_git_diff_shows_only_the_changed_files(vault: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=vault, check=True)
    subprocess.run(["git", "add", "-A"], cwd=vault, check=True)
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base"],
        cwd=vault,
        check=True,
    )
    mdmem("set", "home_city", "上海", "--date", "2026-02-10", "--vault", str(vault))
    changed = subprocess.run(
        ["git", "status", "--porcelain"], cwd=vault, capture_output=True, text=True
    ).stdout
    files = sorted(line[3:] for line in changed.splitlines())
    assert files == [
        ".mdmem/journal.jsonl",
        "facts/user/commute_minutes.md",
        "facts/user/commute_mode.md",
        "facts/user/employer.md",
        "facts/user/home_address.md",
        "facts/user/home_city.md",
        "facts/user/social_insurance_city.md",
    ]
    subprocess.run(["git", "add", "-A"], cwd=vault, check=True)
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "move"],
        cwd=vault,
        check=True,
    )
    again = mdmem("set", "home_city", "上海", "--date", "2026-02-10", "--vault", str(vault))
    assert "NOOP" in again.stdout
    assert (
        subprocess.run(
            ["git", "status", "--porcelain"], cwd=vault, capture_output=True, text=True
        ).stdout
        == ""
    )


def test_check_names_a_cycle_and_exits_1(vault: Path) -> None:
    rules = vault / "rules.yaml"
    rules.write_text(
        rules.read_text(encoding="utf-8") + "  - {when: commute_mode, then: home_city}\n",
        encoding="utf-8",
    )
    out = mdmem("check", "--vault", str(vault))
    assert out.exit_code == 1
    assert (
        "cycle" in out.stdout
        and "commute_mode → home_city → home_address → commute_mode" in out.stdout
    )
    assert "rules.yaml:" in out.stdout
    data = json.loads(mdmem("check", "--json", "--vault", str(vault)).stdout)
    assert data[0]["path"] == "rules.yaml" and data[0]["line"]


def test_check_is_clean_and_exit_0(vault: Path) -> None:
    assert mdmem("check", "--vault", str(vault)).exit_code == 0


def test_vault_found_upward_and_by_env(vault: Path, monkeypatch) -> None:
    sub = vault / "facts" / "user"
    monkeypatch.chdir(sub)
    assert mdmem("show", "home_city", "--json").exit_code == 0
    monkeypatch.chdir(vault.parent)
    assert mdmem("show", "home_city", "--json", env={"MDMEM_VAULT": str(vault)}).exit_code == 0
    out = mdmem("show")
    assert out.exit_code == 1 and "no rules.yaml" in out.stderr


def test_exit_codes(vault: Path) -> None:
    assert (
        mdmem("set", "home_city", "x", "--date", "tomorrow", "--vault", str(vault)).exit_code == 2
    )
    bad = mdmem("set", "../evil", "x", "--vault", str(vault))
    assert bad.exit_code == 1 and "Error:" in bad.stderr
    assert mdmem("confirm", "employer", "--keep", "--vault", str(vault)).exit_code == 1
    assert mdmem("init", str(vault)).exit_code == 1  # refuses to overwrite


def test_second_writer_exits_75(vault: Path) -> None:
    from mdmem import Vault

    holder = Vault(vault)
    with holder.lock:
        out = mdmem("set", "home_city", "上海", "--wait", "0.1", "--vault", str(vault))
    assert out.exit_code == 75
    assert "locked" in out.stderr


def test_forget_dry_run_and_purge(vault: Path) -> None:
    dry = mdmem("forget", "home_address", "--dry-run", "--vault", str(vault))
    assert "DELETE" in dry.stdout and "dry run" in dry.stdout
    assert show(vault)["user/home_address"]["value"] == "海珠区"
    assert mdmem("forget", "home_address", "--purge", "--vault", str(vault)).exit_code == 0
    for cmd in (["show"], ["show", "--json"], ["pending"], ["graph"], ["check"]):
        assert "海珠区" not in mdmem(*cmd, "--vault", str(vault)).stdout


def test_graph_formats(vault: Path) -> None:
    tree = mdmem("graph", "--vault", str(vault)).stdout
    assert "home_city" in tree and "social_insurance_city" in tree and "(derive)" in tree
    mermaid = mdmem("graph", "--format", "mermaid", "--vault", str(vault)).stdout
    assert mermaid.startswith("graph TD") and "-->|expire|" in mermaid
    dot = mdmem("graph", "--format", "dot", "--vault", str(vault)).stdout
    assert '"home_address" -> "commute_minutes" [label="expire"];' in dot


def test_every_command_has_help() -> None:
    for name in ("init", "set", "forget", "show", "pending", "confirm", "graph", "check"):
        out = mdmem(name, "--help")
        assert out.exit_code == 0 and "Usage" in out.stdout


def test_help_does_not_import_litellm() -> None:
    code = "import sys, mdmem.cli; sys.exit('litellm' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0
