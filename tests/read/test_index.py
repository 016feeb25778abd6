"""The full-text index: tokens in English and Chinese, incremental refresh, scrubbing."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from mdmem import Vault
from mdmem.lang.tokens import cjk_grams, stem, tokens
from mdmem.read.index import INDEX_FILE, SCHEMA, Index
from tests.conftest import make_vault

# --- tokens ------------------------------------------------------------------------------


def test_english_words_are_stemmed_alike() -> None:
    assert stem("moved") == stem("moving") == stem("move") == stem("moves")
    assert stem("cities") == stem("city")
    assert stem("commuting") == stem("commute") == stem("commutes")
    assert stem("addresses") == stem("address")


def test_english_stop_words_and_possessives_drop_out() -> None:
    assert tokens("Where do I live? What's Alice's city?") == ["liv", "alic", "city"]


def test_chinese_gets_unigrams_and_bigrams() -> None:
    assert set(tokens("海珠区")) == {"海", "珠", "区", "海珠", "珠区"}
    assert cjk_grams("猫") == ["猫"]  # a single-character term is still findable


def test_chinese_query_drops_function_words() -> None:
    q = tokens("我的社保在哪交？", query=True)
    assert "社保" in q
    assert "我的" not in q and "我" not in q and "的" not in q


def test_mixed_text_splits_scripts() -> None:
    assert set(tokens("我在Google上班")) >= {"googl", "上班", "我在"}


@given(st.text(alphabet=st.sampled_from("上海广州天河海珠的我在住 abcXYZ12"), max_size=30))
@settings(max_examples=200, deadline=None)
def test_query_tokens_are_index_tokens(text: str) -> None:
    # A question that quotes a stored text finds it: its query tokens are all index tokens.
    assert set(tokens(text, query=True)) <= set(tokens(text))


@given(st.text(alphabet=st.characters(min_codepoint=0x4E00, max_codepoint=0x4E40), min_size=2))
@settings(max_examples=100, deadline=None)
def test_every_chinese_bigram_is_indexed(run: str) -> None:
    toks = set(tokens(run))
    assert all(run[i : i + 2] in toks for i in range(len(run) - 1))


# --- refresh -----------------------------------------------------------------------------


def _keys(index: Index, text: str) -> list[str]:
    return [h.fact.key for h in index.search(tokens(text, query=True))]


def test_build_then_nothing_to_do(story_vault: Vault) -> None:
    story_vault.set("home_city", "Guangzhou", date="2024-01-01")
    story_vault.set("employer", "Lingnan Tech", date="2024-01-01")
    with Index(story_vault.root) as index:
        first = index.refresh()
        assert (first.added, first.updated, first.removed) == (2, 0, 0)
        again = index.refresh()
        assert (again.added, again.updated, again.removed) == (0, 0, 0)
    assert (story_vault.meta / INDEX_FILE).is_file()


def test_finds_english_and_chinese_values(story_vault: Vault) -> None:
    story_vault.set("employer", "Lingnan Tech", date="2024-01-01")
    story_vault.set("home_address", "广州海珠区江南西路", date="2024-01-01")
    story_vault.set("pets", "猫", date="2024-01-01")
    with Index(story_vault.root) as index:
        index.refresh()
        assert _keys(index, "Do I work at Lingnan?") == ["user/employer"]
        assert _keys(index, "我家在海珠吗") == ["user/home_address"]
        assert _keys(index, "江南西路") == ["user/home_address"]
        assert "user/pets" in _keys(index, "猫")


def test_history_values_are_searchable(story_vault: Vault) -> None:
    story_vault.set("home_city", "Guangzhou", date="2024-01-01")
    story_vault.set("home_city", "Shanghai", date="2026-02-10")
    with Index(story_vault.root) as index:
        index.refresh()
        [hit] = index.search(["guangzhou"])
        assert hit.fact.value == "Shanghai"
        assert hit.matched["history"] == {"guangzhou"} and not hit.matched["value"]


def test_a_change_through_mdmem_is_seen(story_vault: Vault) -> None:
    story_vault.set("employer", "Lingnan Tech", date="2024-01-01")
    with Index(story_vault.root) as index:
        index.refresh()
        story_vault.set("employer", "Orbit Labs", date="2025-01-01")
        assert index.refresh().updated == 1
        assert _keys(index, "orbit") == ["user/employer"]


def test_hand_edit_in_place_with_same_size_is_seen(story_vault: Vault) -> None:
    story_vault.set("employer", "Acme", date="2024-01-01")
    path = story_vault.root / "facts/user/employer.md"
    with Index(story_vault.root) as index:
        index.refresh()
        text = path.read_text(encoding="utf-8")
        st_before = path.stat()
        with path.open("w", encoding="utf-8") as f:  # in place, as some editors save
            f.write(text.replace("Acme", "Zeta"))
        os.utime(path, ns=(st_before.st_atime_ns, st_before.st_mtime_ns + 1_000_000))
        assert path.stat().st_size == st_before.st_size
        assert index.refresh().updated == 1
        assert _keys(index, "zeta") == ["user/employer"]
        assert _keys(index, "acme") == []


def test_removed_file_leaves_the_index(story_vault: Vault) -> None:
    story_vault.set("employer", "Acme", date="2024-01-01")
    with Index(story_vault.root) as index:
        index.refresh()
        (story_vault.root / "facts/user/employer.md").unlink()
        result = index.refresh()
        assert result.removed == 1 and result.scrubbed
        assert index.facts() == []


def test_broken_file_keeps_its_last_good_state(story_vault: Vault) -> None:
    story_vault.set("employer", "Acme", date="2024-01-01")
    path = story_vault.root / "facts/user/employer.md"
    with Index(story_vault.root) as index:
        index.refresh()
        path.write_text("---\nvalue: [unclosed\n---\n", encoding="utf-8")
        assert index.refresh().broken == 1
        assert [f.value for f in index.facts()] == ["Acme"]
        assert index.refresh().broken == 1  # retried each time until fixed


def test_corrupt_index_is_rebuilt(story_vault: Vault) -> None:
    story_vault.set("employer", "Acme", date="2024-01-01")
    (story_vault.meta / INDEX_FILE).write_bytes(b"this is not a database" * 100)
    with Index(story_vault.root) as index:
        assert index.refresh().added == 1
        assert _keys(index, "acme") == ["user/employer"]


def test_old_schema_is_rebuilt(story_vault: Vault) -> None:
    story_vault.set("employer", "Acme", date="2024-01-01")
    with Index(story_vault.root) as index:
        index.refresh()
    db = sqlite3.connect(story_vault.meta / INDEX_FILE)
    db.execute(f"PRAGMA user_version = {SCHEMA + 1}")
    db.commit()
    db.close()
    with Index(story_vault.root) as index:
        assert index.refresh().added == 1


def test_entities_are_listed(story_vault: Vault) -> None:
    story_vault.set("employer", "Acme", date="2024-01-01")
    story_vault.set("employer", "Orbit", entity="alice", date="2024-01-01")
    with Index(story_vault.root) as index:
        index.refresh()
        assert index.entities() == ["alice", "user"]
        assert [f.key for f in index.facts(entities=["alice"])] == ["alice/employer"]
        assert [h.fact.key for h in index.search(["orbit", "acme"], entities=["alice"])] == [
            "alice/employer"
        ]
        assert index.search(["acme"], entities=["alice", "nobody"]) == []


def test_editor_junk_is_not_indexed(story_vault: Vault) -> None:
    story_vault.set("employer", "Acme", date="2024-01-01")
    junk = story_vault.root / "facts/user/.employer.md.swp"
    junk.write_text("---\nvalue: Secret\n---\n", encoding="utf-8")
    with Index(story_vault.root) as index:
        assert index.refresh().added == 1


def test_index_is_git_ignored(story_vault: Vault) -> None:
    ignore = (story_vault.meta / ".gitignore").read_text(encoding="utf-8")
    assert "*" in ignore.splitlines() and "!journal.jsonl" in ignore


# --- a forgotten value leaves the database's bytes --------------------------------------


def _db_bytes(root: Path) -> bytes:
    return b"".join(p.read_bytes() for p in (root / ".mdmem").glob(INDEX_FILE + "*"))


def test_forgotten_value_is_scrubbed_from_the_file(tmp_path: Path) -> None:
    vault = make_vault(tmp_path / "v")
    vault.set("home_address", "Rosewood Lane 12", date="2024-01-01")
    vault.set("home_address", "海珠区玫瑰园", date="2025-01-01")
    with Index(vault.root) as index:
        index.refresh()
        assert b"rosewood" in _db_bytes(vault.root)
        vault.forget("home_address")
        assert index.refresh().scrubbed
    data = _db_bytes(vault.root)
    for secret in ("rosewood", "Rosewood", "玫瑰", "海珠区玫瑰园"):
        assert secret.encode() not in data, secret


def test_normal_updates_do_not_rewrite_the_index(story_vault: Vault) -> None:
    story_vault.set("home_city", "Guangzhou", date="2024-01-01")
    with Index(story_vault.root) as index:
        index.refresh()
        story_vault.set("home_city", "Shanghai", date="2026-02-10")
        # The old value moved to history: nothing left the files, no scrub needed.
        assert not index.refresh().scrubbed


def test_unwritable_index_falls_back_to_memory(story_vault: Vault, tmp_path: Path) -> None:
    story_vault.set("employer", "Acme", date="2024-01-01")
    blocked = tmp_path / "blocked"
    blocked.mkdir()  # a directory where the database file should be: cannot be opened
    with Index(story_vault.root, path=blocked) as index:
        index.refresh()
        assert _keys(index, "acme") == ["user/employer"]
    assert blocked.is_dir()


# --- one parse of a changed file for both caches (Vault.parsed) ----------------------------


def _story(v: Vault) -> None:
    for attr, value in [("employer", "Acme"), ("home_city", "广州"), ("commute_mode", "bike")]:
        v.set(attr, value, date="2024-01-01")


def _no_own_parse(monkeypatch) -> None:
    def refuse(self: Index, rel: str) -> None:
        raise AssertionError(f"the index parsed {rel} itself")

    monkeypatch.setattr(Index, "parse", refuse)


def test_changed_files_come_from_the_snapshot_when_it_is_loaded(
    story_vault: Vault, monkeypatch
) -> None:
    from mdmem.store.snapshot import Snapshot

    _story(story_vault)
    story_vault.check()  # the snapshot is in memory with its facts, as in `watch` or a library
    path = story_vault.root / "facts/user/employer.md"
    with Index(story_vault.root) as index:
        with monkeypatch.context() as m:
            _no_own_parse(m)
            assert index.refresh(story_vault.parsed).added == 3
            path.write_text(path.read_text(encoding="utf-8").replace("Acme", "Orbit"), "utf-8")
            assert index.refresh(story_vault.parsed).updated == 1
        assert _keys(index, "orbit") == ["user/employer"]
    snap = Snapshot.open(story_vault.meta)
    snap.refresh(story_vault.root, lambda: story_vault.manifest.data)
    assert snap.parsed == 0  # already parsed once, for both
    assert snap.facts(story_vault.root)[0]["user/employer"].value == "Orbit"


def test_a_few_changes_in_a_fresh_process_are_parsed_by_the_index(
    story_vault: Vault, monkeypatch
) -> None:
    _story(story_vault)
    monkeypatch.setattr("mdmem.store.snapshot._OPEN", {})  # a new process: nothing loaded
    assert story_vault.parsed(["facts/user/employer.md"]) == {}  # cheaper to parse it here
    with Index(story_vault.root) as index:
        assert index.refresh(story_vault.parsed).added == 3


def test_many_changes_go_through_the_snapshot_with_the_same_rows(
    story_vault: Vault, tmp_path: Path, monkeypatch
) -> None:
    _story(story_vault)
    (story_vault.root / "facts/user/commute_mode.md").write_text(
        "---\nvalue: [\n---\n", encoding="utf-8"
    )
    with Index(story_vault.root, tmp_path / "own.sqlite") as own:
        own.refresh()
        expected = list(own.all_rows())
    monkeypatch.setattr("mdmem.store.snapshot._OPEN", {})
    monkeypatch.setattr("mdmem.store.vault.SAVE_AFTER", 2)  # "many" is two here
    with Index(story_vault.root, tmp_path / "shared.sqlite") as shared:
        with monkeypatch.context() as m:
            _no_own_parse(m)
            result = shared.refresh(story_vault.parsed)
        assert (result.added, result.broken) == (2, 1)
        assert list(shared.all_rows()) == expected


def test_rows_inserted_in_batches_keep_each_id_with_its_tokens(story_vault: Vault) -> None:
    """New and changed files indexed together: every FTS row has the id of its file's row,
    as when each was inserted alone (a changed file's new row after those inserted before it)."""
    for attr, value in (("home_city", "Guangzhou"), ("employer", "Lingnan Tech"), ("pets", "猫")):
        story_vault.set(attr, value, date="2024-01-01")
    with Index(story_vault.root) as index:
        index.refresh()
        story_vault.set("pets", "Pixie the dog", date="2025-01-01")  # the largest id, changed
        story_vault.set("birthday", "1990-05-01", date="2025-01-01")  # new
        story_vault.set("home_city", "Shanghai", date="2025-01-01")  # changed, after the new one
        done = index.refresh()
        assert done.added >= 1 and done.updated >= 2
        pairs = index.db.execute("SELECT files.attribute, fts.name, fts.value FROM files"
                                 " JOIN fts ON fts.rowid = files.id ORDER BY files.id").fetchall()  # fmt: skip
        ids = [i for (i,) in index.db.execute("SELECT id FROM files ORDER BY id")]
    assert len(pairs) == len(ids) >= 4 and ids == sorted(set(ids))
    assert all(name == " ".join(tokens(attr)) for attr, name, _ in pairs)
    assert [set(v.split()) for attr, _, v in pairs if attr == "pets"] == [{"猫", "pixi", "dog"}]
    assert _keys(index_of(story_vault), "shanghai") == ["user/home_city"]


def index_of(vault: Vault) -> Index:
    index = Index(vault.root)
    index.refresh()
    return index
