"""The rules cache under .mdmem/: used only for the very text it was made from, never trusted blindly."""

import hashlib
import json
from pathlib import Path

import pytest

from mdmem import Vault
from mdmem.errors import RulesError
from mdmem.model.rules_yaml import load_rules, parse_rules
from mdmem.store import rules_cache
from mdmem.store.rules_cache import CACHE_FILE, from_plain, parse_cached, to_plain
from tests.conftest import make_vault

PACKS = sorted((Path(__file__).resolve().parents[2] / "rules").glob("*.yaml"))


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts parse_rules is asked to parse (through the cache module) from now on."""
    seen: list[str] = []

    def counting(text: str, path: str = "rules.yaml", *, lazy: bool = False):  # type: ignore[no-untyped-def]
        seen.append(text)
        return parse_rules(text, path, lazy=lazy)

    monkeypatch.setattr(rules_cache, "parse_rules", counting)
    return seen


def _rewrite_payload(file: Path, edit) -> None:  # type: ignore[no-untyped-def]
    """Change the cached payload and make every hash in the header fit it again."""
    head, _, payload = file.read_bytes().partition(b"\n")
    data = edit(json.loads(payload))
    payload = json.dumps(data).encode()
    header = json.loads(head)
    header["payload_sha256"] = hashlib.sha256(payload).hexdigest()
    file.write_bytes(json.dumps(header).encode() + b"\n" + payload)


@pytest.mark.parametrize("pack", PACKS, ids=lambda p: p.stem)
def test_every_pack_comes_back_equal(pack: Path) -> None:
    rules = load_rules(pack)
    back = from_plain(json.loads(json.dumps(to_plain(rules))), rules.path)
    assert back == rules
    assert [d.line for d in back.dependencies] == [d.line for d in rules.dependencies]
    assert all(a.path == rules.path for a in back.attributes.values())
    # The regexes compile on first use, to the same patterns
    assert [rx.pattern for a in back.attributes.values() for rx in a.extract] == [
        rx.pattern for a in rules.attributes.values() for rx in a.extract
    ]


def test_an_unchanged_rules_file_is_parsed_once(tmp_path: Path, parses: list[str]) -> None:
    vault = make_vault(tmp_path / "v", "personal")  # init validated it and cached it
    first = vault.rules
    assert parses == [] and (vault.meta / CACHE_FILE).is_file()
    (vault.meta / CACHE_FILE).unlink()
    first = Vault(vault.root).rules
    assert len(parses) == 1 and (vault.meta / CACHE_FILE).is_file()
    again = Vault(vault.root).rules
    assert again == first and len(parses) == 1
    assert Vault(vault.root).check() == [] and len(parses) == 1  # check uses it too


def test_a_changed_rules_file_is_parsed_again(tmp_path: Path, parses: list[str]) -> None:
    vault = make_vault(tmp_path / "v")
    assert "mood" not in vault.rules.attributes
    rules_yaml = vault.root / "rules.yaml"
    text = rules_yaml.read_text().replace("attributes:\n", "attributes:\n  mood: {}\n", 1)
    rules_yaml.write_text(text)
    assert "mood" in Vault(vault.root).rules.attributes
    assert parses[-1] == text


def test_a_rules_file_that_fails_is_never_cached(tmp_path: Path) -> None:
    vault = make_vault(tmp_path / "v")
    assert vault.rules.attributes
    cached = (vault.meta / CACHE_FILE).read_bytes()
    (vault.root / "rules.yaml").write_text("attributes:\n  a: {stability: extreme}\n")
    for _ in range(2):  # the error each time, not a cached success
        problems = Vault(vault.root).check()
        assert any("stability must be one of" in p.message for p in problems)
    assert (vault.meta / CACHE_FILE).read_bytes() == cached


CORRUPTIONS = {
    "garbage": lambda f: f.write_bytes(b"\x00\xffnot json at all"),
    "empty": lambda f: f.write_bytes(b""),
    "truncated": lambda f: f.write_bytes(f.read_bytes()[:-40]),
    "payload edited, header not": lambda f: f.write_bytes(f.read_bytes().replace(b"medium", b"high")),
    "other code": lambda f: f.write_bytes(
        f.read_bytes().replace(rules_cache.code_fingerprint().encode(), b"0" * 64)
    ),
    "other format": lambda f: f.write_bytes(
        f.read_bytes().replace(b'"mdmem_rules_cache": %d' % rules_cache.FORMAT, b'"mdmem_rules_cache": 99')
    ),
    "a value validation refuses": lambda f: _rewrite_payload(
        f, lambda d: {**d, "attributes": [[*a[:3], "extreme", *a[4:]] for a in d["attributes"]]}
    ),
    "a dependency on an undeclared attribute": lambda f: _rewrite_payload(
        f, lambda d: {**d, "dependencies": [["nope", *x[1:]] for x in d["dependencies"]]}
    ),
    "a wrong type": lambda f: _rewrite_payload(
        f, lambda d: {**d, "attributes": [[a[0], a[1], "not a list", *a[3:]] for a in d["attributes"]]}
    ),
    "not a mapping": lambda f: _rewrite_payload(f, lambda d: [d]),
}


@pytest.mark.parametrize("corrupt", CORRUPTIONS.values(), ids=list(CORRUPTIONS))
def test_a_corrupt_or_foreign_cache_is_ignored_and_rebuilt(
    tmp_path: Path, parses: list[str], corrupt
) -> None:  # type: ignore[no-untyped-def]
    vault = make_vault(tmp_path / "v")
    good = vault.rules
    file = vault.meta / CACHE_FILE
    written = file.read_bytes()
    corrupt(file)
    assert parses == []  # validated by init, read from its cache since
    assert Vault(vault.root).rules == good
    assert len(parses) == 1  # parsed again from rules.yaml …
    assert file.read_bytes() == written  # … and the cache rebuilt as it was


def test_the_cache_is_for_one_text_only(tmp_path: Path, parses: list[str]) -> None:
    meta = tmp_path / "meta"
    meta.mkdir()
    a = "attributes:\n  home_city: {}\n  employer: {}\n"
    b = a + "dependencies:\n  - {when: home_city, then: employer}\n"
    assert parse_cached(meta, a).dependencies == []
    assert len(parse_cached(meta, b).dependencies) == 1
    assert parse_cached(meta, a).dependencies == []
    assert len(parses) == 3


def test_errors_keep_their_line_when_the_cache_is_warm(tmp_path: Path) -> None:
    meta = tmp_path / "meta"
    meta.mkdir()
    good = "attributes:\n  home_city: {}\n  employer: {}\n"
    parse_cached(meta, good)
    bad = good + "dependencies:\n  - {when: home_city, then: employer}\n  - {when: employer, then: home_city}\n"
    with pytest.raises(RulesError, match="dependency cycle") as e:
        parse_cached(meta, bad)
    assert e.value.line == 6


def test_a_key_json_cannot_keep_is_not_cached(tmp_path: Path) -> None:
    meta = tmp_path / "meta"
    meta.mkdir()
    rules = parse_cached(meta, "attributes:\n  home_city: {label: {~: nowhere}}\n")
    assert rules.attributes["home_city"].label == {None: "nowhere"}
    assert not (meta / CACHE_FILE).exists()


def test_a_vault_that_cannot_be_written_still_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = make_vault(tmp_path / "v")
    (vault.meta / CACHE_FILE).unlink()  # as if made before init wrote it

    def refuse(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise PermissionError("read-only file system")

    monkeypatch.setattr(rules_cache, "atomic_write", refuse)
    assert "home_city" in Vault(vault.root).rules.attributes
    assert not (vault.meta / CACHE_FILE).exists()


def test_an_own_pack_is_validated_once_per_installation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The first vault made with a pack keeps its validated form beside the regex cache; the
    # next reads it from there (no YAML parsed) and holds the very same files.
    from mdmem.model import rules_yaml

    monkeypatch.setenv("MDMEM_RE_CACHE", str(tmp_path / "caches"))
    (tmp_path / "caches").mkdir()
    Vault.create(tmp_path / "first", "personal")
    assert (tmp_path / "caches" / "rules.personal.json").is_file()

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("parsed again")

    monkeypatch.setattr(rules_yaml, "parse_rules", refuse)
    Vault.create(tmp_path / "second", "personal")
    files = lambda root: {p.relative_to(root): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}  # noqa: E731
    assert files(tmp_path / "first") == files(tmp_path / "second")
    assert Vault(tmp_path / "second").rules.attributes.keys() == Vault(tmp_path / "first").rules.attributes.keys()
    # A cache of another text is not used: that pack is parsed (and kept) again.
    (tmp_path / "caches" / "rules.personal.json").write_bytes(b'{"mdmem_rules_cache": 2}\n{}')
    with pytest.raises(AssertionError, match="parsed again"):
        Vault.create(tmp_path / "third", "personal")
