"""files.swap: a compare-and-swap that an editor's save cannot slip through (issue 15); the
same inside a registered vault, where every path is opened through `boundary` (issue 23)."""

import os
from pathlib import Path

import pytest

import mdmem.files as files
from mdmem import boundary
from mdmem.files import WriteConflict, atomic_write, release, remove, restore, swap

OLD, NEW, THEIRS = b"mdmem wrote this\n", b"mdmem writes this\n", b"a person saved this\n"


@pytest.fixture(params=["exchange", "rename and link"], autouse=True)
def mode(request, monkeypatch) -> str:
    """Every test runs with the atomic exchange (Linux) and with the rename-and-link fallback."""
    if request.param == "exchange":
        if files._renameat2() is None:
            pytest.skip("no renameat2 here")
        monkeypatch.setattr(files, "_EXCHANGE", [])
    else:
        monkeypatch.setattr(files, "_EXCHANGE", [None])
    return request.param


@pytest.fixture(params=["plain", "in a vault"], autouse=True)
def where(request, tmp_path) -> str:
    """Every test also runs with tmp_path a vault's root: its paths anchored at checked folders."""
    if request.param == "in a vault":
        boundary.register(str(tmp_path.resolve()))
    return request.param


def same(path: object, f: Path) -> bool:
    """Whether path (plain, or anchored at its checked folder) is the file f."""
    return os.path.basename(os.fspath(path)) == f.name and os.path.samefile(os.path.dirname(os.fspath(path)), f.parent)  # fmt: skip


def temps(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_swap_sets_the_old_file_aside_until_released(tmp_path) -> None:
    f = tmp_path / "a.md"
    f.write_bytes(OLD)
    aside = swap(f, NEW, OLD)
    assert f.read_bytes() == NEW and aside is not None and Path(aside).read_bytes() == OLD
    assert release(aside, OLD) and temps(tmp_path) == []


def test_a_save_by_rename_just_before_the_swap_is_kept(tmp_path, monkeypatch, mode) -> None:
    """The editor's rename lands after mdmem's last look at the file, before its own rename."""
    f = tmp_path / "a.md"
    f.write_bytes(OLD)

    def save_by_rename() -> None:
        (tmp_path / "a.md~").write_bytes(THEIRS)
        os.replace(tmp_path / "a.md~", f)

    if mode == "exchange":
        real_exchange = files._exchange
        monkeypatch.setattr(files, "_exchange", lambda a, b: (same(b, f) and save_by_rename(), real_exchange(a, b))[1])  # fmt: skip
    else:
        real_rename = os.rename
        monkeypatch.setattr(files.os, "rename", lambda a, b: (same(a, f) and save_by_rename(), real_rename(a, b))[1])  # fmt: skip
    with pytest.raises(WriteConflict, match="a.md was saved by someone else"):
        atomic_write(f, NEW, expect=OLD)
    assert f.read_bytes() == THEIRS and temps(tmp_path) == []


def test_a_save_landing_while_the_path_is_empty_is_kept(tmp_path, monkeypatch, mode) -> None:
    if mode == "exchange":
        pytest.skip("an exchange never leaves the path empty")
    f = tmp_path / "a.md"
    f.write_bytes(OLD)
    real = os.link

    def editor_between(src, dst):
        if same(dst, f):
            f.write_bytes(THEIRS)  # the editor writes its file where mdmem set the old one aside
        return real(src, dst)

    monkeypatch.setattr(files.os, "link", editor_between)
    with pytest.raises(WriteConflict):
        atomic_write(f, NEW, expect=OLD)
    assert f.read_bytes() == THEIRS and temps(tmp_path) == []


def test_a_save_over_ours_right_after_the_swap_stays(tmp_path) -> None:
    f = tmp_path / "a.md"
    f.write_bytes(OLD)
    aside = swap(f, NEW, OLD)
    f.write_bytes(THEIRS)  # in place, into mdmem's new file: an edit of what mdmem wrote
    assert aside is not None and release(aside, OLD)
    assert f.read_bytes() == THEIRS and temps(tmp_path) == []


def test_the_path_is_never_empty_with_an_exchange(tmp_path, monkeypatch, mode) -> None:
    if mode != "exchange":
        pytest.skip("rename and link leave the path empty for a moment")
    f = tmp_path / "a.md"
    f.write_bytes(OLD)
    seen: list[bool] = []
    real = files._read
    monkeypatch.setattr(files, "_read", lambda p: (seen.append(f.exists()), real(p))[1])
    swap(f, NEW, OLD)
    assert seen and all(seen)


def test_a_save_written_into_the_old_file_after_the_swap_is_put_back(tmp_path) -> None:
    """An editor had the file open before mdmem moved it aside and writes after the rename."""
    f = tmp_path / "a.md"
    f.write_bytes(OLD)
    with open(f, "r+b") as editor:  # opened before the swap, written after it
        aside = swap(f, NEW, OLD)
        editor.write(THEIRS)
    assert aside is not None and not release(aside, OLD)
    restore(f, aside, NEW, OLD)
    assert f.read_bytes() == THEIRS and temps(tmp_path) == []


def test_atomic_write_with_expect_checks_the_old_file_last(tmp_path, monkeypatch) -> None:
    f = tmp_path / "a.md"
    f.write_bytes(OLD)
    real = files._release

    def editor_writes_into_it(aside, expect):
        Path(aside).write_bytes(THEIRS)  # in place, into the file mdmem had just set aside
        return real(aside, expect)

    monkeypatch.setattr(files, "_release", editor_writes_into_it)
    with pytest.raises(WriteConflict):
        atomic_write(f, NEW, expect=OLD)
    assert f.read_bytes() == THEIRS and temps(tmp_path) == []


def test_two_saves_racing_keep_both(tmp_path) -> None:
    f = tmp_path / "a.md"
    f.write_bytes(OLD)
    aside = swap(f, NEW, OLD)
    assert aside is not None
    Path(aside).write_bytes(THEIRS)  # one save lands in the old file
    f.write_bytes(b"another save\n")  # and another over mdmem's new one
    kept = restore(f, aside, NEW, OLD)
    assert f.read_bytes() == b"another save\n"
    assert kept == "a.md.conflict" and (tmp_path / kept).read_bytes() == THEIRS


def test_create_never_replaces_a_file_made_meanwhile(tmp_path) -> None:
    f = tmp_path / "a.md"
    f.write_bytes(THEIRS)
    with pytest.raises(WriteConflict):
        swap(f, NEW, None)
    assert f.read_bytes() == THEIRS and temps(tmp_path) == []


def test_remove_with_expect(tmp_path) -> None:
    f = tmp_path / "a.md"
    f.write_bytes(THEIRS)
    with pytest.raises(WriteConflict):
        remove(f, expect=OLD)
    assert f.read_bytes() == THEIRS
    assert remove(f, expect=THEIRS) and not f.exists() and temps(tmp_path) == []


def test_the_file_mode_is_kept(tmp_path) -> None:
    f = tmp_path / "a.md"
    f.write_bytes(OLD)
    f.chmod(0o640)
    atomic_write(f, NEW, expect=OLD)
    assert f.stat().st_mode & 0o777 == 0o640


def test_a_write_into_a_missing_folder_makes_it_and_leaves_no_temp(tmp_path) -> None:
    f = tmp_path / "facts" / "alice" / "home_city.md"
    atomic_write(f, NEW)
    assert f.read_bytes() == NEW and temps(f.parent) == []
    g = tmp_path / "facts" / "bob" / "employer.md"
    assert swap(g, OLD, None) is None  # a new file through compare-and-swap: no aside
    assert g.read_bytes() == OLD and temps(g.parent) == []
