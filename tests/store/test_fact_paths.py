"""A transaction's fact files: the same paths and refusals as `fact_path`, at one lstat a file."""

import os
from pathlib import Path

import pytest

from mdmem.errors import SlugError
from mdmem.model.slug import fact_path
from mdmem.store.fact_paths import fact_rels


def test_the_same_paths_as_fact_path(tmp_path: Path) -> None:
    (tmp_path / "facts" / "user").mkdir(parents=True)
    keys = ["user/home_city", "user/employer", "bob/home_city", "ｂｏｂ/ｃｉｔｙ"]
    got = fact_rels(tmp_path, keys)
    for key in keys:
        entity, attribute = key.split("/")
        assert got[key] == fact_path(tmp_path, entity, attribute).relative_to(tmp_path).as_posix()
    assert got["ｂｏｂ/ｃｉｔｙ"] == "facts/bob/city.md"


@pytest.mark.parametrize("key", ["user/Home", "user/..", "../x/home", "user/a b"])
def test_bad_slugs_are_refused(tmp_path: Path, key: str) -> None:
    with pytest.raises(SlugError):
        fact_rels(tmp_path, [key])


def test_a_file_linked_outside_is_refused(tmp_path: Path) -> None:
    root, outside = tmp_path / "vault", tmp_path / "outside.md"
    (root / "facts" / "user").mkdir(parents=True)
    outside.write_text("mine")
    os.symlink(outside, root / "facts" / "user" / "home_city.md")
    assert fact_rels(root, ["user/employer"]) == {"user/employer": "facts/user/employer.md"}
    with pytest.raises(SlugError, match="outside the vault"):
        fact_rels(root, ["user/employer", "user/home_city"])


def test_a_folder_linked_outside_is_refused_and_one_inside_is_not(tmp_path: Path) -> None:
    root, outside = tmp_path / "vault", tmp_path / "elsewhere"
    (root / "facts" / "robert").mkdir(parents=True)
    outside.mkdir()
    os.symlink(outside, root / "facts" / "bob")
    os.symlink(root / "facts" / "robert", root / "facts" / "rob")
    assert fact_rels(root, ["rob/home_city"]) == {"rob/home_city": "facts/rob/home_city.md"}
    with pytest.raises(SlugError, match="outside the vault"):
        fact_rels(root, ["bob/home_city"])
