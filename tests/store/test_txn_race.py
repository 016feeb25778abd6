"""A save landing inside the write itself (after the compare, around the rename) is never lost,
and a kill with a file set aside leaves nothing missing (issue 15)."""

from pathlib import Path

import pytest

import mdmem.files as files
import mdmem.store.txn as txn
from mdmem import Vault
from mdmem.edit.sync import sync
from mdmem.errors import RefusedError
from mdmem.files import WriteConflict
from tests.store.test_faults import EDIT, before_move, tree


def test_a_save_into_a_file_already_swapped_is_put_back(story_vault, monkeypatch) -> None:
    """An editor that had employer.md open writes into it after mdmem renamed its new copy in."""
    v = before_move(story_vault)
    employer = v.root / "facts/user/employer.md"
    edited = employer.read_bytes() + EDIT.encode()
    facts_before, journal_before = tree(v.root), list(v.journal.entries())
    real = txn.swap
    editor = open(employer, "r+b")  # noqa: SIM115

    def editor_writes_late(path, data, expect, **kw):
        aside = real(path, data, expect, **kw)
        if Path(path) == employer:
            editor.write(edited)  # lands in the old file, now set aside
            editor.close()
        return aside

    monkeypatch.setattr(txn, "swap", editor_writes_late)
    with pytest.raises(WriteConflict, match="employer.md was saved by someone else"):
        v.set("home_city", "上海", date="2026-02-10")
    assert employer.read_bytes() == edited
    facts_before["facts/user/employer.md"] = edited
    assert tree(v.root) == facts_before  # every other file put back too
    assert list(v.journal.entries()) == journal_before and not (v.meta / "txn.json").exists()
    assert not list(v.root.rglob("*.tmp"))
    monkeypatch.undo()
    assert [a for a in sync(v).actions if a.rel == "facts/user/employer.md"]  # still an edit


def crash_after_swaps(v: Vault, monkeypatch) -> None:
    """Run `set` and kill it once every file is swapped in, at the last check of the old files."""

    real = txn.FolderReader.read

    def killed_at_last_check(reader: txn.FolderReader, rel: str) -> bytes | None:
        if rel.endswith(".aside.tmp"):
            raise KeyboardInterrupt
        return real(reader, rel)

    monkeypatch.setattr(txn.FolderReader, "read", killed_at_last_check)
    with pytest.raises(KeyboardInterrupt):
        v.set("home_city", "上海", date="2026-02-10")
    monkeypatch.undo()


def test_a_kill_with_files_set_aside_rolls_back_and_leaves_no_aside(story_vault, monkeypatch) -> None:  # fmt: skip
    v = before_move(story_vault)
    before = tree(v.root)
    crash_after_swaps(v, monkeypatch)
    assert list(v.root.rglob("*.aside.tmp"))  # the old files, set aside, when it was killed
    assert "rolled back" in Vault(v.root).recover()
    assert tree(v.root) == before and not list(v.root.rglob("*.tmp"))


def test_a_kill_between_setting_aside_and_linking_loses_no_file(story_vault, monkeypatch) -> None:
    v = before_move(story_vault)
    before = tree(v.root)
    employer = v.root / "facts/user/employer.md"

    def killed_at_link(src, dst):
        raise KeyboardInterrupt

    monkeypatch.setattr(files, "_EXCHANGE", [None])  # the fallback: rename aside, then link
    monkeypatch.setattr(files.os, "link", killed_at_link)
    with pytest.raises(KeyboardInterrupt):
        v.set("home_city", "上海", date="2026-02-10")
    monkeypatch.undo()
    assert not all(Path(v.root / rel).exists() for rel in before)  # one path left empty
    Vault(v.root).recover()
    assert tree(v.root) == before and employer.exists() and not list(v.root.rglob("*.tmp"))


def test_a_save_in_the_old_file_found_by_recovery_is_kept(story_vault, monkeypatch) -> None:
    v = before_move(story_vault)
    employer = v.root / "facts/user/employer.md"
    crash_after_swaps(v, monkeypatch)
    aside = next(v.root.rglob(".employer.md.*.aside.tmp"))
    aside.write_bytes(
        aside.read_bytes() + EDIT.encode()
    )  # the editor's late write, in the old file
    note = Vault(v.root).recover()
    assert "kept the hand edits in facts/user/employer.md" in note
    assert employer.read_text(encoding="utf-8").endswith(EDIT)
    assert not list(v.root.rglob("*.tmp"))


def test_a_kill_just_before_an_exchange_leaves_the_before_state(story_vault, monkeypatch) -> None:
    """Killed with the new bytes under the aside name, not yet traded in: nothing to keep."""
    v = before_move(story_vault)
    before = tree(v.root)
    calls: list[int] = []
    real = files._exchange

    def killed_at_third(a, b):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(a, b)

    monkeypatch.setattr(files, "_exchange", killed_at_third)
    with pytest.raises(KeyboardInterrupt):
        v.set("home_city", "上海", date="2026-02-10")
    monkeypatch.undo()
    Vault(v.root).recover()
    assert tree(v.root) == before and not list(v.root.rglob("*.tmp"))


def test_a_file_saved_in_another_encoding_is_refused_not_replaced(story_vault) -> None:
    """A file the transaction record could not restore (not UTF-8) is left as it is."""
    v = story_vault
    episode = v.root / "episodes/2026/2026-02-10-chat.md"
    episode.parent.mkdir(parents=True)
    episode.write_bytes("---\nsource: chat\n---\n\nSchöne Grüße\n".encode("latin-1"))
    entry = {"id": "0123456789ab", "command": "test"}
    with pytest.raises(RefusedError, match=r"2026-02-10-chat.md: byte \d+ is not UTF-8"):
        txn.commit(v.root, v.journal, v.manifest, entry,
                   [("episodes/2026/2026-02-10-chat.md", "new text\n")])  # fmt: skip
    assert "Sch\xf6ne".encode("latin-1") in episode.read_bytes()
    assert list(v.journal.entries()) == [] and not (v.meta / "txn.json").exists()
