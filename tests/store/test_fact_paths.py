"""A transaction's fact files: the same paths and slug refusals as `fact_path` (links: test_boundary)."""

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
