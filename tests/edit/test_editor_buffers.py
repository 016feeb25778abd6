"""A file open in an editor while `mdmem watch` patches it: reloading or saving the old buffer
over mdmem's write loses nothing (the vim case)."""

from __future__ import annotations

from pathlib import Path

import pytest
from watchdog.events import FileModifiedEvent

from mdmem import Vault
from mdmem.edit.sync import sync
from mdmem.edit.watch import Watcher
from mdmem.model.factfile import parse


@pytest.fixture
def v(story_vault: Vault) -> Vault:
    story_vault.set("home_city", "广州", date="2025-08-15")
    story_vault.set("employer", "岭南科技", date="2025-08-15")
    sync(story_vault)
    return story_vault


def save(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")


def test_a_save_from_the_buffer_mdmem_patched_keeps_mdmems_history_and_the_new_edit(v: Vault) -> None:
    path = v.root / "facts/user/home_city.md"
    buffer = path.read_text(encoding="utf-8").replace("value: 广州", "value: 上海")
    save(path, buffer)  # vim's :w
    w = Watcher(v.root, log=lambda line: None)
    w.notice(FileModifiedEvent(str(path)))
    assert w.flush()[0].startswith("facts/user/home_city.md: value 广州 → 上海")
    patched = path.read_text(encoding="utf-8")
    assert "history:" in patched and buffer != patched  # the old value had to be archived
    # vim: "WARNING: The file has been changed since reading it!!!", answered y: the buffer,
    # one more edit in its body, is written over mdmem's patch.
    buffer += "\nMoved for the new job.\n"
    save(path, buffer)
    w.notice(FileModifiedEvent(str(path)))
    lines = w.flush()
    assert "older than mdmem's last write" in lines[0], lines
    now = path.read_text(encoding="utf-8")
    fact = parse(now, expect=("user", "home_city"))
    assert fact.value == "上海" and [h["value"] for h in fact.history] == ["广州"]
    assert fact.body.endswith("Moved for the new job.\n")  # the person's newer edit is kept
    assert Vault(v.root).get("home_city").history == fact.history  # type: ignore[union-attr]
    w.notice(FileModifiedEvent(str(path)))  # mdmem's own write: no echo
    assert w.flush() == []


def test_an_editor_that_reloaded_the_patch_keeps_its_edits_as_they_are(v: Vault) -> None:
    path = v.root / "facts/user/home_city.md"
    save(path, path.read_text(encoding="utf-8").replace("value: 广州", "value: 上海"))
    sync(Vault(v.root))
    reloaded = path.read_text(encoding="utf-8")  # the editor loaded mdmem's patch
    # …and the person removed the history entry on purpose: that is their edit, not a stale save.
    cut = reloaded[: reloaded.index("history:")] + reloaded[reloaded.index("---\n", 4):]
    save(path, cut)
    result = sync(Vault(v.root))
    assert [a.kind for a in result.actions] == ["adopt"]
    assert path.read_text(encoding="utf-8") == cut


def test_a_value_changed_by_hand_drops_the_old_messages_evidence(tmp_path: Path) -> None:
    from mdmem.edit.ingest import ingest_text
    from tests.conftest import make_vault

    v = make_vault(tmp_path / "p", "personal")
    ingest_text(v, "User: I live in Lisbon.", date="2025-09-01")
    sync(Vault(v.root))
    said = Vault(v.root).get("home_city")
    assert said is not None and said.evidence
    path = v.root / "facts/user/home_city.md"
    save(path, path.read_text(encoding="utf-8").replace("value: Lisbon", "value: Porto"))
    sync(Vault(v.root))
    fact = Vault(v.root).get("home_city")
    assert fact is not None and fact.value == "Porto"
    assert fact.evidence is None  # Porto was never said in that message
    assert fact.history[-1]["evidence"] == said.evidence  # the old value keeps its own
