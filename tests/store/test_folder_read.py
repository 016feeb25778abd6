"""FolderReader reads (and removes) exactly what files.current (and files.unlink) would: the
usual file through one descriptor of its folder, anything unusual the whole boundary's way."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mdmem import boundary
from mdmem.files import current
from mdmem.store.folder_read import FolderReader


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "v"
    (root / "facts" / "user").mkdir(parents=True)
    (root / "facts" / "user" / "a.md").write_bytes(b"---\nentity: user\n---\n")
    (root / "facts" / "user" / "b.md").write_bytes(b"bee " * 5000)  # more than one read's worth
    (root / "facts" / "user" / "dir.md").mkdir()
    (root / "facts" / "user" / "in.md").symlink_to("a.md")  # a link inside the vault
    outside = tmp_path / "outside.md"
    outside.write_bytes(b"SECRET")
    (root / "facts" / "user" / "out.md").symlink_to(outside)  # a link out of it
    (root / "facts" / "bob").symlink_to("user")  # an entity folder that is a link inside
    boundary.register(str(root.resolve()))
    return root.resolve()


def _either(fn, *args):  # noqa: ANN001, ANN202 - what a call gives, or the exception's type
    try:
        return fn(*args)
    except (OSError, boundary.OutsideVault) as e:
        return type(e)


@pytest.mark.parametrize("rel", ["facts/user/a.md", "facts/user/b.md", "facts/user/missing.md",
                                 "facts/user/dir.md", "facts/user/in.md", "facts/user/out.md",
                                 "facts/bob/a.md", "facts/nobody/a.md"])  # fmt: skip
def test_reads_what_current_reads(vault: Path, rel: str) -> None:
    with FolderReader(vault) as reader:
        got = _either(reader.read, rel)
    assert got == _either(current, f"{vault}/{rel}")
    if rel == "facts/user/out.md":
        assert got is boundary.OutsideVault  # never the outside file's bytes
    if rel == "facts/user/b.md":
        assert got == b"bee " * 5000


def test_one_reader_goes_folder_to_folder(vault: Path) -> None:
    (vault / "facts" / "ann").mkdir()
    (vault / "facts" / "ann" / "x.md").write_bytes(b"ann")
    with FolderReader(vault) as reader:
        got = [reader.read(r) for r in ("facts/user/a.md", "facts/ann/x.md", "facts/user/a.md")]
    assert got == [b"---\nentity: user\n---\n", b"ann", b"---\nentity: user\n---\n"]


def test_a_vault_not_registered_is_read_as_current_reads_it(tmp_path: Path) -> None:
    (tmp_path / "facts" / "user").mkdir(parents=True)
    (tmp_path / "facts" / "user" / "a.md").write_bytes(b"plain")
    with FolderReader(tmp_path / "nowhere") as reader:
        assert reader.read("facts/user/a.md") is None
    with FolderReader(tmp_path) as reader:
        assert reader.read("facts/user/a.md") == b"plain"


def test_unlink_removes_a_file_and_goes_the_whole_way_for_a_link(vault: Path) -> None:
    user = vault / "facts" / "user"
    with FolderReader(vault) as reader:
        assert reader.unlink("facts/user/a.md") is True
        assert reader.unlink("facts/user/a.md") is False  # gone already
        with pytest.raises(boundary.OutsideVault):
            reader.unlink("facts/user/out.md")  # as files.unlink: never through a link out
    assert not (user / "a.md").exists()
    assert (user / "out.md").is_symlink() and os.path.exists(user / "out.md")
