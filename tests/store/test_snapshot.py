"""The snapshot cache: unchanged files are not parsed again; broken files keep their last good state."""

import os
import sqlite3
from pathlib import Path

import pytest

from mdmem import Vault
from mdmem.errors import RulesError
from mdmem.files import sha256
from mdmem.store.lastgood import GOOD_RULES_FILE, good_rules
from mdmem.store.snapshot import SNAPSHOT_FILE, Snapshot
from mdmem.store.snapshot_db import OLD_FILES
from tests.conftest import make_vault


def _age(path: Path, seconds: float = 60) -> None:
    """Make a file look saved a while ago (a fresh one is verified by its bytes, see RACY_NS)."""
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns - int(seconds * 1e9)))


def _vault(tmp_path: Path) -> Vault:
    v = make_vault(tmp_path / "v")
    v.set("home_city", "广州", date="2025-08-15")
    v.set("employer", "Acme", date="2025-08-15")
    for p in (v.root / "facts/user").iterdir():
        _age(p)
    return v


def _sql(v: Vault, sql: str) -> list[tuple]:
    db = sqlite3.connect(v.meta / SNAPSHOT_FILE, isolation_level=None)
    try:
        return db.execute(sql).fetchall()
    finally:
        db.close()


def _refresh(v: Vault) -> Snapshot:
    snap = Snapshot.open(v.meta)
    snap.refresh(v.root, lambda: v.manifest.data)
    return snap


def test_unchanged_files_are_not_read_again(tmp_path: Path) -> None:
    v = _vault(tmp_path)
    snap = _refresh(v)
    assert snap.parsed >= 1  # (set's own scan saw the first file already)
    snap.save(v.root, force=True)
    assert (v.meta / SNAPSHOT_FILE).is_file()
    again = _refresh(v)
    assert again.parsed == 0 and not again.touched
    path = v.root / "facts/user/employer.md"
    path.write_text(path.read_text(encoding="utf-8").replace("Acme", "Bolt"), encoding="utf-8")
    third = _refresh(v)
    assert third.parsed == 1
    facts, problems, _ = third.facts(v.root)
    assert facts["user/employer"].value == "Bolt" and not problems


def test_a_fresh_process_reads_the_saved_snapshot(tmp_path: Path, monkeypatch) -> None:
    v = _vault(tmp_path)
    _refresh(v).save(v.root, force=True)
    monkeypatch.setattr("mdmem.store.snapshot._OPEN", {})  # as a new process would
    snap = _refresh(v)
    assert snap.parsed == 0
    assert snap.facts(v.root)[0]["user/home_city"].value == "广州"


def test_a_rewrite_within_the_timestamp_granularity_is_still_seen(tmp_path: Path) -> None:
    v = _vault(tmp_path)
    path = v.root / "facts/user/employer.md"
    path.write_text(path.read_text(encoding="utf-8").replace("Acme", "Bolt"), encoding="utf-8")
    st = path.stat()
    _refresh(v)
    # Same size, same mtime, same inode, same ctime: only the bytes tell.
    path.write_text(path.read_text(encoding="utf-8").replace("Bolt", "Cove"), encoding="utf-8")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    snap = Snapshot.open(v.meta)
    for entry in snap.entries.values():  # pretend the file system could not tell the writes apart
        entry.sig = (entry.sig[0], (path.stat().st_ctime_ns), entry.sig[2], entry.sig[3])
    snap.refresh(v.root, lambda: v.manifest.data)
    assert snap.facts(v.root)[0]["user/employer"].value == "Cove"


def test_broken_file_keeps_its_last_good_state(tmp_path: Path) -> None:
    v = _vault(tmp_path)
    v.scan(refresh=True)
    path = v.root / "facts/user/employer.md"
    path.write_text("---\nvalue: [oops\n---\nnotes\n", encoding="utf-8")
    facts, problems = Vault(v.root).scan(refresh=True)
    assert "user/employer" not in facts  # nothing plans a change on a file that does not parse
    assert [(p.path, p.line) for p in problems] == [("facts/user/employer.md", 2)]
    assert Vault(v.root).get("employer").value == "Acme"  # reads still answered
    assert path.read_text(encoding="utf-8") == "---\nvalue: [oops\n---\nnotes\n"


def test_broken_before_the_cache_saw_it_falls_back_to_the_journal(tmp_path: Path) -> None:
    v = _vault(tmp_path)
    path = v.root / "facts/user/employer.md"
    path.write_text("---\nvalue: Acme\nstatus: maybe\n---\n", encoding="utf-8")
    (v.meta / SNAPSHOT_FILE).unlink(missing_ok=True)
    Snapshot.open(v.meta).entries.clear()
    fresh = Vault(v.root)
    assert fresh.scan(refresh=True)[1][0].line == 3
    assert fresh.get("employer").value == "Acme"


def test_parse_of_mdmems_bytes_is_kept_beside_the_edit(tmp_path: Path) -> None:
    v = _vault(tmp_path)
    _refresh(v)
    path = v.root / "facts/user/home_city.md"
    path.write_text(path.read_text(encoding="utf-8").replace("广州", "上海"), encoding="utf-8")
    snap = _refresh(v)
    entry = snap.entries["facts/user/home_city.md"]
    mine = v.manifest.data["facts/user/home_city.md"]
    assert entry.sha != mine
    assert entry.parsed(mine).value == "广州"
    path.write_text(path.read_text(encoding="utf-8").replace("上海", "北京"), encoding="utf-8")
    entry = _refresh(v).entries["facts/user/home_city.md"]
    assert entry.parsed(mine).value == "广州"  # still known after a second edit


def test_vanished_file_is_remembered_until_settled(tmp_path: Path) -> None:
    v = _vault(tmp_path)
    _refresh(v)
    (v.root / "facts/user/employer.md").unlink()
    snap = _refresh(v)
    assert "facts/user/employer.md" not in snap.entries
    assert snap.gone["facts/user/employer.md"].parsed(v.manifest.data["facts/user/employer.md"])
    snap.settle(["facts/user/employer.md"])
    assert not snap.gone


def test_corrupt_snapshot_is_rebuilt(tmp_path: Path, monkeypatch) -> None:
    v = _vault(tmp_path)
    (v.meta / SNAPSHOT_FILE).write_text('{"version": 2, "entries": {"x": [1]}', encoding="utf-8")
    monkeypatch.setattr("mdmem.store.snapshot._OPEN", {})
    snap = _refresh(v)
    assert snap.parsed == 2 and set(snap.facts(v.root)[0]) == {"user/home_city", "user/employer"}


def test_hand_typed_tags_are_kept_as_text_and_cached(tmp_path: Path, monkeypatch) -> None:
    v = _vault(tmp_path)
    path = v.root / "facts/user/employer.md"
    path.write_text(
        path.read_text(encoding="utf-8").replace(
            "status: active", "status: active\nwhen: !!timestamp 2026-01-01"
        ),
        encoding="utf-8",
    )
    snap = _refresh(v)
    snap.save(v.root, force=True)
    monkeypatch.setattr("mdmem.store.snapshot._OPEN", {})
    again = _refresh(v)
    assert again.parsed == 0  # the text as written: JSON keeps it, so the cache serves it
    assert again.facts(v.root)[0]["user/employer"].extra["when"] == "2026-01-01"


def test_reads_do_not_save_a_small_snapshot(tmp_path: Path) -> None:
    v = _vault(tmp_path)
    v.scan(refresh=True)
    assert _sql(v, "SELECT count(*) FROM snap") == [(0,)]  # parsing two costs less than saving


def test_good_rules_fall_back_to_the_last_valid_copy(tmp_path: Path) -> None:
    v = make_vault(tmp_path / "v")
    first = good_rules(v.root, v.meta)
    assert first.error is None and (v.meta / GOOD_RULES_FILE).is_file()
    rules = v.root / "rules.yaml"
    good_text = rules.read_text(encoding="utf-8")
    rules.write_text(good_text + "  - {when: commute_mode, then: home_city}\n", encoding="utf-8")
    state = good_rules(v.root, v.meta)
    assert state.error is not None and "cycle" in state.error.bare_message and state.error.line
    assert (v.meta / GOOD_RULES_FILE).read_text(encoding="utf-8") == good_text
    assert Vault(v.root).rules.dependencies == first.rules.dependencies  # still served
    (v.meta / GOOD_RULES_FILE).unlink()
    with pytest.raises(RulesError):
        good_rules(v.root, v.meta)


def test_snapshot_digest_matches_the_manifest(tmp_path: Path) -> None:
    v = _vault(tmp_path)
    snap = _refresh(v)
    for rel, entry in snap.entries.items():
        assert entry.sha == v.manifest.data[rel] == sha256((v.root / rel).read_bytes())


def test_parsed_facts_are_read_only_when_facts_are(tmp_path: Path, monkeypatch) -> None:
    v = _vault(tmp_path)
    _refresh(v).save(v.root, force=True)
    monkeypatch.setattr("mdmem.store.snapshot._OPEN", {})
    snap = _refresh(v)
    assert all(e.row is None for e in snap.entries.values())  # only the index was read
    assert snap.facts(v.root)[0]["user/employer"].value == "Acme"


def test_lost_facts_file_is_healed_from_the_files(tmp_path: Path, monkeypatch) -> None:
    v = _vault(tmp_path)
    _refresh(v).save(v.root, force=True)
    _sql(v, "DELETE FROM snap_rows")
    monkeypatch.setattr("mdmem.store.snapshot._OPEN", {})
    snap = _refresh(v)
    assert snap.parsed == 0
    assert snap.facts(v.root)[0]["user/home_city"].value == "广州"


def test_a_changed_fact_does_not_change_the_cache(tmp_path: Path) -> None:
    v = _vault(tmp_path)
    facts = _refresh(v).facts(v.root)[0]
    facts["user/employer"].value = "Mutated"
    assert Snapshot.open(v.meta).facts(v.root)[0]["user/employer"].value == "Acme"


def test_only_what_changed_is_saved(tmp_path: Path, monkeypatch) -> None:
    v = _vault(tmp_path)
    _refresh(v).save(v.root, force=True)
    path = v.root / "facts/user/employer.md"
    path.write_text(path.read_text(encoding="utf-8").replace("Acme", "Bolt"), encoding="utf-8")
    _sql(v, "UPDATE snap_rows SET row = replace(row, '广州', 'kept') WHERE path LIKE '%home%'")
    _refresh(v).save(v.root, force=True)
    monkeypatch.setattr("mdmem.store.snapshot._OPEN", {})
    facts = _refresh(v).facts(v.root)[0]
    assert facts["user/employer"].value == "Bolt"
    assert facts["user/home_city"].value == "kept"  # its row was not written again


def test_an_old_json_snapshot_is_removed_unread(tmp_path: Path, monkeypatch) -> None:
    v = _vault(tmp_path)
    for name in OLD_FILES:
        (v.meta / name).write_text('{"version": 2, "entries": {}}', encoding="utf-8")
    monkeypatch.setattr("mdmem.store.snapshot._OPEN", {})
    snap = _refresh(v)
    assert snap.parsed == 2 and not any((v.meta / n).exists() for n in OLD_FILES)


def test_a_database_corrupt_inside_is_rebuilt(tmp_path: Path, monkeypatch) -> None:
    v = _vault(tmp_path)
    _refresh(v).save(v.root, force=True)
    db = v.meta / SNAPSHOT_FILE
    data = bytearray(db.read_bytes())
    data[4096:] = b"\xff" * (len(data) - 4096)  # the header is fine, every page after is not
    db.write_bytes(bytes(data))
    monkeypatch.setattr("mdmem.store.snapshot._OPEN", {})
    snap = _refresh(v)
    assert snap.parsed == 2 and snap.facts(v.root)[0]["user/employer"].value == "Acme"
    snap.save(v.root, force=True)
    monkeypatch.setattr("mdmem.store.snapshot._OPEN", {})
    assert _refresh(v).parsed == 0  # and saved again


def _depend(v: Vault, key: str, on: str) -> None:
    path = v.root / f"facts/{key}.md"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("status: active", f"status: active\ndepends_on:\n- on: {on}\n"),
                    encoding="utf-8")  # fmt: skip


def test_check_reads_only_the_entities_a_cycle_can_pass_through(tmp_path: Path) -> None:
    from mdmem.model.graph import Graph

    v = _vault(tmp_path)
    for who in ("alice", "bob", "carol", "dave"):
        v.set("employer", f"{who} Co", entity=who, date="2025-08-15")
        v.set("home_city", "广州", entity=who, date="2025-08-15")
    _depend(v, "alice/employer", "bob/home_city")
    _depend(v, "bob/home_city", "alice/employer")  # a loop across two people
    _depend(v, "carol/employer", "user/employer")  # no loop
    problems = Vault(v.root).check()
    whole = Graph(v.rules, Vault(v.root).scan(refresh=True)[0]).cycle()
    assert whole and [p.message for p in problems if "cycle" in p.message] == [
        f"dependency cycle {' → '.join(whole)}; remove one 'depends_on' entry"
    ]
    read = Snapshot.open(v.meta).cycle_facts()
    assert {k.split("/")[0] for k in read} == {"alice", "bob", "carol", "user"}  # not dave's


def test_check_without_learned_dependencies_reads_no_fact(tmp_path: Path, monkeypatch) -> None:
    v = _vault(tmp_path)
    _refresh(v).save(v.root, force=True)
    monkeypatch.setattr("mdmem.store.snapshot._OPEN", {})
    assert Vault(v.root).check() == []
    assert all(e.row is None for e in Snapshot.open(v.meta).entries.values())


def test_a_row_stored_before_a_field_was_added_reads_with_its_default() -> None:
    """A cache written by an older mdmem (no `mentioned_as`, `with`, …) must not fail a read
    after an upgrade: the missing fields take their defaults, each list its own."""
    from mdmem.model.factfile import Fact
    from mdmem.store.snapshot_entry import decode, encode

    row = encode(Fact("user", "partner", kind="unnamed", mentioned_as=["husband"]))
    old = {k: v for k, v in row.items() if k not in ("mentioned_as", "with_")}
    a, b = decode(old), decode(old)
    assert a.mentioned_as == [] == a.with_ and a.kind == "unnamed" and a == Fact("user", "partner", kind="unnamed")
    a.mentioned_as.append("wife")
    assert b.mentioned_as == []
    assert decode(row).mentioned_as == ["husband"]
