"""The vault's boundary (issue 23): no command reads or writes through a symbolic link that
leads out of the vault, and `check` names every link.

Each probe puts one link in a copy of a small vault (episodes, a year of episodes, facts, an
entity folder, a fact file, .mdmem and each file mdmem keeps there, rules.yaml); each command
then runs on it in-process. Whatever a command does (refuse, or work around what it cannot
read), nothing outside the vault may change, the outside file's secret must not be printed,
and no traceback may escape. By default each probe meets the commands most likely to go
through it; `-m slow` runs every probe with every command (RELIABILITY.md has the count).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mdmem import Vault, boundary
from mdmem.cli import app
from mdmem.edit.ingest import ingest_text
from mdmem.errors import SlugError
from tests.conftest import make_vault

SECRET = "TOPSECRET-7f3a"
OUTSIDE_FACT = f"---\nentity: user\nattribute: employer\nvalue: {SECRET}\nstatus: active\n---\n\n{SECRET}\n"
YEAR = "episodes/2026"
runner = CliRunner()


def _link(root: Path, rel: str, target: Path | str, *, replace: bool = True) -> None:
    path = root / rel
    if replace and path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif replace and (path.exists() or path.is_symlink()):
        path.unlink()
    path.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(target, path)


def _moved(root: Path, rel: str, out: Path) -> None:
    """rel moved out of the vault (to out/moved) and linked back: the vault still reads whole."""
    dest = out / "moved"
    shutil.move(str(root / rel), dest)
    os.symlink(dest, root / rel)


def _episode(root: Path) -> str:
    return next(p for p in sorted((root / YEAR).iterdir()) if p.suffix == ".md").name


# name -> (what it does to a vault copy, given the folder outside), the path `check` names
PROBES: dict[str, tuple[Callable[[Path, Path], None], str]] = {
    "episodes linked out": (lambda r, o: _moved(r, "episodes", o), "episodes"),
    "a year of episodes linked out": (lambda r, o: _moved(r, YEAR, o), YEAR),
    "an episode file linked out": (lambda r, o: _link(r, f"{YEAR}/{_episode(r)}", o / "secret.md"), YEAR + "/"),
    "episodes linked to an empty folder out": (lambda r, o: _link(r, "episodes", o / "empty"), "episodes"),
    "facts linked out": (lambda r, o: _moved(r, "facts", o), "facts"),
    "an entity folder linked out": (lambda r, o: _moved(r, "facts/user", o), "facts/user"),
    "a new entity's folder linked out": (lambda r, o: _link(r, "facts/bob", o / "empty"), "facts/bob"),
    "a fact file linked out": (lambda r, o: _link(r, "facts/user/employer.md", o / "secret.md"), "facts/user/employer.md"),
    "a fact file linked out by a relative path": (
        lambda r, o: _link(r, "facts/user/home_city.md", os.path.relpath(o / "secret.md", r / "facts/user")),
        "facts/user/home_city.md",
    ),
    "a new fact's file linked out": (lambda r, o: _link(r, "facts/user/pets.md", o / "pets.md"), "facts/user/pets.md"),
    ".mdmem linked out": (lambda r, o: _moved(r, ".mdmem", o), ".mdmem"),
    "the cache database linked out": (lambda r, o: _link(r, ".mdmem/index.sqlite", o / "index.sqlite"), ".mdmem/index.sqlite"),
    "the cache database's journal linked out": (
        lambda r, o: _link(r, ".mdmem/index.sqlite-journal", o / "index.sqlite-journal"),
        ".mdmem/index.sqlite-journal",
    ),
    "the passage index linked out": (lambda r, o: _link(r, ".mdmem/passages.sqlite", o / "passages.sqlite"), ".mdmem/passages.sqlite"),
    "the journal linked out": (lambda r, o: _moved(r, ".mdmem/journal.jsonl", o), ".mdmem/journal.jsonl"),
    "the manifest linked out": (lambda r, o: _moved(r, ".mdmem/written.json", o), ".mdmem/written.json"),
    "the lock linked out": (lambda r, o: _link(r, ".mdmem/lock", o / "lock"), ".mdmem/lock"),
    "the transaction record linked out": (lambda r, o: _link(r, ".mdmem/txn.json", o / "txn.json"), ".mdmem/txn.json"),
    "the last good rules linked out": (lambda r, o: _moved(r, ".mdmem/rules.good.yaml", o), ".mdmem/rules.good.yaml"),
    "the links digest linked out": (lambda r, o: _link(r, ".mdmem/links.digest", o / "links.digest"), ".mdmem/links.digest"),
    "rules.yaml linked out": (lambda r, o: _moved(r, "rules.yaml", o), "rules.yaml"),
}  # fmt: skip

COMMANDS: dict[str, list[str]] = {
    "check": ["check"],
    "ingest": ["ingest", "{transcript}"],
    "set": ["set", "home_city", "广州", "--date", "2026-03-01"],
    "set a new entity's fact": ["set", "bob/pets", "cat", "--new"],
    "set a new fact": ["set", "pets", "cat"],
    "sync": ["sync"],
    "ask": ["ask", "where do I live?"],
    "ask about what was said": ["ask", "what did I say about the dog?"],
    "show": ["show"],
    "show one": ["show", "employer"],
    "forget": ["forget", "home_city"],
    "fix": ["fix", "employer", "Acme"],
    "context": ["context"],
    "timeline": ["timeline"],
}
# What each probe meets in the default run: `check`, and the commands that go through it.
DEFAULT = {
    "episodes linked out": ["ingest", "ask about what was said", "forget"],
    "a year of episodes linked out": ["ingest", "ask about what was said"],
    "an episode file linked out": ["ingest", "ask about what was said", "forget"],
    "episodes linked to an empty folder out": ["ingest"],
    "facts linked out": ["set", "show"],
    "an entity folder linked out": ["set", "show", "ask"],
    "a new entity's folder linked out": ["set a new entity's fact"],
    "a fact file linked out": ["show", "show one", "ask", "set", "fix", "sync", "context"],
    "a fact file linked out by a relative path": ["show", "set"],
    "a new fact's file linked out": ["set a new fact"],
    ".mdmem linked out": ["show", "set"],
    "the cache database linked out": ["ask", "show", "set"],
    "the cache database's journal linked out": ["ask", "set"],
    "the passage index linked out": ["ask about what was said"],
    "the journal linked out": ["set", "timeline"],
    "the manifest linked out": ["set", "sync"],
    "the lock linked out": ["set"],
    "the transaction record linked out": ["set"],
    "the last good rules linked out": ["show", "set"],
    "the links digest linked out": ["set", "sync"],
    "rules.yaml linked out": ["show", "set"],
}


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small vault: the story's facts, and one session of episodes in 2026 about a dog."""
    root = tmp_path_factory.mktemp("boundary") / "vault"
    v = make_vault(root)
    for attr, value in (("home_city", "上海"), ("employer", "岭南科技"), ("home_address", "海珠区")):
        v.set(attr, value, date="2025-08-15")
    ingest_text(v, "## 2026-02-10\n\nUser: We walked the dog by the river.\n", source="chat.md")
    assert (root / YEAR).is_dir()
    return root


def outside_tree(out: Path) -> dict[str, bytes | str]:
    return {p.relative_to(out).as_posix(): (p.read_bytes() if p.is_file() else "dir")
            for p in sorted(out.rglob("*"))}  # fmt: skip


def _setup(template: Path, tmp_path: Path, probe: str) -> tuple[Path, Path]:
    root, out = tmp_path / "vault", tmp_path / "outside"
    shutil.copytree(template, root, symlinks=True)
    out.mkdir()
    (out / "empty").mkdir()
    (out / "secret.md").write_text(OUTSIDE_FACT, encoding="utf-8")
    PROBES[probe][0](root, out)
    return root, out


def run(root: Path, tmp_path: Path, argv: list[str]) -> tuple[int, str]:
    transcript = tmp_path / "t.md"
    transcript.write_text("## 2026-02-11\n\nUser: The dog is called Biscuit.\n", encoding="utf-8")
    args = [a.replace("{transcript}", str(transcript)) for a in argv]
    result = runner.invoke(app, [*args, "--vault", str(root)], catch_exceptions=True)
    output = result.stdout + result.stderr
    exc = result.exception
    assert exc is None or isinstance(exc, SystemExit), f"{argv}: {exc!r}\n{output}"
    return result.exit_code, output


def probe_command(template: Path, tmp_path: Path, probe: str, command: str) -> None:
    root, out = _setup(template, tmp_path, probe)
    before = outside_tree(out)
    code, output = run(root, tmp_path, COMMANDS[command])
    assert outside_tree(out) == before, f"{command} changed something outside the vault: {output}"
    assert SECRET not in output, f"{command} printed what lies outside the vault"
    assert code in (0, 1), output
    if command == "check":
        assert code == 1 and PROBES[probe][1] in output, output


@pytest.mark.parametrize(
    ("probe", "command"), [(p, c) for p, cs in DEFAULT.items() for c in ["check", *cs]]
)
def test_a_link_out_of_the_vault_is_never_gone_through(template, tmp_path, probe, command) -> None:
    probe_command(template, tmp_path, probe, command)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("probe", "command"), [(p, c) for p in PROBES for c in COMMANDS if c not in ["check", *DEFAULT[p]]]
)
def test_every_probe_with_every_command(template, tmp_path, probe, command) -> None:
    probe_command(template, tmp_path, probe, command)


def test_the_issue_cases(template, tmp_path) -> None:
    """The three escapes issue 23 found: each refused now, and `check` names the link."""
    root, out = _setup(template, tmp_path, "episodes linked to an empty folder out")
    code, output = run(root, tmp_path, COMMANDS["ingest"])
    assert code == 1 and "episodes is a symbolic link" in output and "outside the vault" in output
    assert list((out / "empty").iterdir()) == []
    root, out = _setup(template, tmp_path / "b", "the cache database linked out")
    code, output = run(root, tmp_path, COMMANDS["ask"])
    assert code == 1 and ".mdmem/index.sqlite is a symbolic link" in output
    assert not (out / "index.sqlite").exists()
    root, out = _setup(template, tmp_path / "c", "a fact file linked out")
    code, output = run(root, tmp_path, COMMANDS["show one"])
    assert code == 1 and "outside the vault" in output and SECRET not in output


def test_a_link_inside_the_vault_is_followed_and_reported(template, tmp_path) -> None:
    root = tmp_path / "vault"
    shutil.copytree(template, root, symlinks=True)
    (root / "kept").mkdir()
    shutil.move(str(root / "facts/user"), root / "kept/user")
    os.symlink("../kept/user", root / "facts/user")  # the entity folder kept elsewhere in the vault
    v = Vault(root)
    assert v.facts["user/home_city"].value == "上海"
    v.set("home_city", "广州", date="2026-03-01")
    assert "广州" in (root / "kept/user/home_city.md").read_text(encoding="utf-8")
    code, output = run(root, tmp_path, ["check"])
    assert code == 1 and "facts/user: is a symbolic link to ../kept/user (inside the vault)" in output


def test_the_walk_opens_each_folder_without_following_a_link(tmp_path, monkeypatch) -> None:
    """Checked at the open, not by a look before it: a folder swapped for a link after any
    earlier look is still refused, because the open itself does not follow it."""
    root, out = tmp_path / "vault", tmp_path / "out"
    (root / "facts" / "user").mkdir(parents=True)
    out.mkdir()
    boundary.register(str(root.resolve()))
    shutil.rmtree(root / "facts" / "user")
    os.symlink(out, root / "facts" / "user")  # swapped after "mdmem looked"
    from mdmem.files import atomic_write, current

    with pytest.raises(SlugError, match="outside the vault"):
        atomic_write(root.resolve() / "facts/user/home_city.md", "x")
    with pytest.raises(SlugError, match="outside the vault"):
        current(root.resolve() / "facts/user/home_city.md")
    assert list(out.iterdir()) == []


def test_dotdot_and_link_loops_are_refused(tmp_path) -> None:
    root = tmp_path / "vault"
    (root / "facts").mkdir(parents=True)
    base = str(root.resolve())
    boundary.register(base)
    os.symlink("loop2", root / "facts" / "loop1")
    os.symlink("loop1", root / "facts" / "loop2")
    from mdmem.files import current

    with pytest.raises(SlugError, match="too many symbolic links"):
        current(f"{base}/facts/loop1/x.md")
    with pytest.raises(SlugError, match="climbs out"):
        current(f"{base}/facts/../../etc/passwd")
