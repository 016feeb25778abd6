
import pytest

from mdmem.errors import SlugError
from mdmem.model.slug import check_slug, slugify, split_key


@pytest.mark.parametrize("name", ["home_city", "社保城市", "team-lead", "a1", "ü_ber"])
def test_valid_slugs_pass(name: str) -> None:
    assert check_slug(name) == name


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("../x", "must not start with '.'"),
        ("x/../y", "contains '/'"),
        ("a/b", "contains '/'"),
        ("a\x00b", "NUL"),
        (".hidden", "must not start with '.'"),
        ("-flag", "must not start with '-'"),
        ("x" * 65, "limit is 64"),
        ("Home_City", "lower-case"),
        ("", "empty"),
        ("a b", "contains ' '"),
    ],
)
def test_bad_slugs_are_refused_with_a_reason(name: str, why: str) -> None:
    with pytest.raises(SlugError, match=why.replace("(", r"\(")):
        check_slug(name)


def test_slug_is_nfc_normalised() -> None:
    assert check_slug("cafe\u0301") == "caf\u00e9"


def test_slugify_free_text() -> None:
    assert slugify("Team Lead") == "team_lead"
    assert slugify("  社保 城市! ") == "社保_城市"
    assert slugify("...") == ""


def test_split_key() -> None:
    assert split_key("team/lead") == ("team", "lead")
    assert split_key("lead", "alice") == ("alice", "lead")
    with pytest.raises(SlugError):
        split_key("a/b/c")
