"""`mdmem watch`: which events count, debouncing, no loops, errors survived, a real observer."""

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from watchdog.events import (
    DirDeletedEvent,
    DirModifiedEvent,
    FileClosedEvent,
    FileClosedNoWriteEvent,
    FileCreatedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileOpenedEvent,
)

from mdmem import Vault
from mdmem.edit.sync import sync
from mdmem.edit.watch import Watcher
from mdmem.errors import MdmemError

STORY = [
    ("home_city", "广州"),
    ("employer", "岭南科技"),
    ("social_insurance_city", "广州"),
    ("home_address", "海珠区"),
    ("commute_mode", "骑车"),
    ("pets", "cat"),
]


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def v(story_vault: Vault) -> Vault:
    for attr, value in STORY:
        story_vault.set(attr, value, date="2025-08-15")
    sync(story_vault)
    return story_vault


@pytest.fixture
def w(v: Vault) -> Watcher:
    return Watcher(v.root, log=lambda line: None, clock=Clock())


def hand_edit(v: Vault, attr: str, old: str, new: str) -> Path:
    path = v.root / "facts/user" / f"{attr}.md"
    path.write_text(path.read_text(encoding="utf-8").replace(old, new, 1), encoding="utf-8")
    return path


def fact(v: Vault, attr: str):
    return Vault(v.root).facts[f"user/{attr}"]


@pytest.mark.parametrize(
    ("name", "counts"),
    [
        ("facts/user/home_city.md", True),
        ("rules.yaml", True),
        ("facts/user/.home_city.md.swp", False),  # vim swap
        ("facts/user/.home_city.md.swx", False),
        ("facts/user/home_city.md~", False),  # vim / emacs backup
        ("facts/user/4913", False),  # vim's "can I write here" probe
        ("facts/user/#home_city.md#", False),  # emacs auto-save
        ("facts/user/.#home_city.md", False),  # emacs lock
        ("facts/user/home_city.md___jb_tmp___", False),  # JetBrains safe write
        ("facts/user/home_city.md___jb_old___", False),
        ("facts/user/.home_city.md.kate-swp", False),
        ("facts/user/.goutputstream-AB12CD", False),  # gedit
        ("facts/user/.home_city.md.x1y2.tmp", False),  # mdmem's own atomic write
        ("facts/user/home_city.md.tmp", False),
        ("facts/user/notes.txt", False),
        (".mdmem/journal.jsonl", False),
        (".mdmem/written.json", False),
        (".git/index", False),
        (".obsidian/workspace.json", False),
        ("facts/user/sub/deep.md", False),
        ("README.md", False),
        ("../elsewhere/home_city.md", False),
    ],
)
def test_which_files_count(w: Watcher, name: str, counts: bool) -> None:
    assert (w.relevant(str(w.root / name)) is not None) is counts


def test_folder_events_count_but_folder_modified_does_not(w: Watcher) -> None:
    assert (
        w.relevant(str(w.root / "facts/alice"), is_directory=True, event_type="deleted")
        == "facts/alice/"
    )
    assert w.relevant(str(w.root / "facts/alice"), is_directory=True, event_type="modified") is None
    assert not w.notice(DirModifiedEvent(str(w.root / "facts/user")))
    assert w.notice(DirDeletedEvent(str(w.root / "facts/user")))


def test_reads_are_not_changes(w: Watcher) -> None:
    path = str(w.root / "facts/user/home_city.md")
    assert not w.notice(FileOpenedEvent(path))
    assert not w.notice(FileClosedNoWriteEvent(path))
    assert w.due() is None
    assert w.notice(FileClosedEvent(path))


def test_an_editors_save_is_debounced_into_one_sync(w: Watcher) -> None:
    clock: Clock = w.clock  # type: ignore[assignment]
    home = str(w.root / "facts/user/home_city.md")
    # vim with backupcopy=no: rename to name~, write a new file, then a modify.
    assert w.notice(FileMovedEvent(home, home + "~"))
    clock.t += 0.05
    assert not w.notice(FileCreatedEvent(str(w.root / "facts/user/4913")))
    assert w.notice(FileCreatedEvent(home))
    clock.t += 0.05
    assert w.notice(FileModifiedEvent(home))
    assert w.due() == pytest.approx(0.3)
    clock.t += 0.2
    assert w.due() == pytest.approx(0.1)
    clock.t += 0.1
    assert w.due() == 0
    assert w._pending == {"facts/user/home_city.md"}


def test_a_folder_that_never_settles_is_synced_anyway(w: Watcher) -> None:
    clock: Clock = w.clock  # type: ignore[assignment]
    home = str(w.root / "facts/user/home_city.md")
    for _ in range(40):
        w.notice(FileModifiedEvent(home))
        clock.t += 0.1
    assert w.due() == 0  # max_delay (2 s) passed since the first event


def test_temp_file_renamed_over_a_fact_triggers_a_sync(v: Vault, w: Watcher) -> None:
    home = v.root / "facts/user/home_city.md"
    tmp = home.with_name("home_city.md___jb_tmp___")
    tmp.write_text(home.read_text(encoding="utf-8").replace("广州", "上海"), encoding="utf-8")
    os.replace(tmp, home)
    assert w.notice(FileMovedEvent(str(tmp), str(home)))
    lines = w.flush()
    assert len(lines) == 1
    assert lines[0].startswith("facts/user/home_city.md: value 广州 → 上海; cascaded: ")
    assert (
        "user/social_insurance_city 广州 → 上海" in lines[0]
        and "user/employer uncertain" in lines[0]
    )
    assert fact(v, "social_insurance_city").value == "上海"


def test_mdmems_own_writes_do_not_start_a_sync(v: Vault, w: Watcher, monkeypatch) -> None:
    calls = []
    monkeypatch.setattr("mdmem.edit.watch.sync", lambda vault: calls.append(vault))
    v.set("home_city", "上海", date="2026-02-10")  # writes five files
    for path in sorted((v.root / "facts/user").glob("*.md")):
        w.notice(FileModifiedEvent(str(path)))
    w.notice(FileModifiedEvent(str(v.root / ".mdmem/journal.jsonl")))
    assert w.flush() == [] and calls == []


def test_logged_lines_carry_time_file_change_and_cascade(v: Vault) -> None:
    logged: list[str] = []
    w = Watcher(v.root, log=logged.append)
    hand_edit(v, "home_address", "海珠区", "天河区")
    w.notice(FileModifiedEvent(str(v.root / "facts/user/home_address.md")))
    w.flush()
    assert len(logged) == 1
    stamp, rest = logged[0].split(" ", 1)
    assert len(stamp) == 8 and stamp[2] == ":" and stamp[5] == ":"
    assert (
        rest
        == "facts/user/home_address.md: value 海珠区 → 天河区; cascaded: user/commute_mode uncertain"
    )


def test_broken_file_is_reported_once_and_the_watcher_goes_on(v: Vault, w: Watcher) -> None:
    employer = v.root / "facts/user/employer.md"
    good = employer.read_text(encoding="utf-8")
    employer.write_text("---\nvalue: [oops\n---\n", encoding="utf-8")
    w.notice(FileModifiedEvent(str(employer)))
    lines = w.flush()
    assert len(lines) == 1 and lines[0].startswith("facts/user/employer.md:2: invalid YAML")
    assert "left as you wrote it" in lines[0]
    hand_edit(v, "pets", "cat", "dog")  # an unrelated edit while the file stays broken
    w.notice(FileModifiedEvent(str(v.root / "facts/user/pets.md")))
    w.notice(FileModifiedEvent(str(employer)))
    lines = w.flush()
    assert lines == ["facts/user/pets.md: value cat → dog"]  # the broken file is not repeated
    assert employer.read_text(encoding="utf-8") == "---\nvalue: [oops\n---\n"
    assert fact(v, "employer").value == "岭南科技"
    employer.write_text(good, encoding="utf-8")
    w.notice(FileModifiedEvent(str(employer)))
    assert w.flush() == ["facts/user/employer.md: fixed"]


def test_rules_reload_and_a_refused_cycle(v: Vault, w: Watcher) -> None:
    rules = v.root / "rules.yaml"
    good = rules.read_text(encoding="utf-8")
    rules.write_text(
        good + "  - {when: employer, then: commute_mode, action: expire}\n", encoding="utf-8"
    )
    w.notice(FileModifiedEvent(str(rules)))
    assert w.flush() == [
        "rules.yaml: reloaded: valid; applies from now on (+employer → commute_mode (expire))"
    ]
    rules.write_text(good + "  - {when: commute_mode, then: home_city}\n", encoding="utf-8")
    w.notice(FileModifiedEvent(str(rules)))
    lines = w.flush()
    assert lines[0] == "rules.yaml: refused: keeping the last good rules until it is fixed"
    assert "cycle" in lines[1] and lines[1].startswith("rules.yaml:")
    # The last good rules (with the employer edge) stay in force.
    hand_edit(v, "employer", "岭南科技", "星河科技")
    w.notice(FileModifiedEvent(str(v.root / "facts/user/employer.md")))
    assert w.flush() == [
        "facts/user/employer.md: value 岭南科技 → 星河科技; cascaded: user/commute_mode expired"
    ]


def test_errors_are_logged_and_survived(v: Vault, w: Watcher, monkeypatch) -> None:
    def boom(vault):
        raise MdmemError("rules.yaml: not found")

    monkeypatch.setattr("mdmem.edit.watch.sync", boom)
    hand_edit(v, "pets", "cat", "dog")
    w.notice(FileModifiedEvent(str(v.root / "facts/user/pets.md")))
    assert w.flush() == ["error: rules.yaml: not found"]
    monkeypatch.undo()
    w.notice(FileModifiedEvent(str(v.root / "facts/user/pets.md")))
    assert w.flush() == ["facts/user/pets.md: value cat → dog"]


def test_a_locked_vault_is_waited_for_and_retried(v: Vault) -> None:
    w = Watcher(v.root, wait=0.1, log=lambda line: None)
    hand_edit(v, "pets", "cat", "dog")
    with Vault(v.root).lock:  # an ingest from cron holds the vault
        w.notice(FileModifiedEvent(str(v.root / "facts/user/pets.md")))
        lines = w.flush()
    assert lines[0].startswith("waiting: the vault is locked")
    assert w.due() is not None  # still pending
    assert w.flush() == ["facts/user/pets.md: value cat → dog"]


def _run(w: Watcher) -> threading.Thread:
    thread = threading.Thread(target=w.run, daemon=True)
    thread.start()
    return thread


def _until(check, seconds: float = 5.0) -> float:
    start = time.monotonic()
    while not check():
        assert time.monotonic() - start < seconds, "timed out"
        time.sleep(0.02)
    return time.monotonic() - start


@pytest.mark.slow
def test_real_observer_sees_an_editor_save_and_the_cascade_lands(v: Vault) -> None:
    logged: list[str] = []
    w = Watcher(v.root, log=logged.append)
    thread = _run(w)
    try:
        time.sleep(0.3)  # the observer is up (and the catch-up sync found nothing)
        home = v.root / "facts/user/home_city.md"
        text = home.read_text(encoding="utf-8").replace("广州", "上海") + "Moved in February.\n"
        swap = home.with_name(".home_city.md.swp")
        swap.write_text("vim swap", encoding="utf-8")
        tmp = home.with_name("home_city.md.tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, home)  # the editor's atomic save
        swap.unlink()
        sic = v.root / "facts/user/social_insurance_city.md"
        took = _until(lambda: "上海" in sic.read_text(encoding="utf-8"), seconds=3)
        assert took < 2.5
        _until(lambda: len(logged) >= 1)
        time.sleep(0.6)  # the cascade's own writes come back as events: no second sync
        assert len(logged) == 1 and "cascaded" in logged[0]
        assert home.read_text(encoding="utf-8").endswith("Moved in February.\n")
        assert [e["command"] for e in v.journal.entries()].count("sync") == 1
    finally:
        w.stop()
        thread.join(5)
    assert not thread.is_alive()


@pytest.mark.slow
def test_set_while_watching_loses_nothing_and_cascades_once(v: Vault) -> None:
    logged: list[str] = []
    w = Watcher(v.root, log=logged.append)
    thread = _run(w)
    try:
        time.sleep(0.3)
        pets = hand_edit(v, "pets", "- cat", "- cat\n- dog")
        setter = threading.Thread(
            target=lambda: Vault(v.root).set("home_city", "上海", date="2026-02-10")
        )
        setter.start()
        setter.join(10)
        _until(
            lambda: (
                "dog" in pets.read_text(encoding="utf-8")
                and "source: edit" in pets.read_text(encoding="utf-8")
            )
        )
        time.sleep(0.8)
        entries = list(v.journal.entries())
        touching = [e for e in entries if any(c["fact"] == "user/employer" for c in e["changes"])]
        assert [e["command"] for e in touching] == ["set", "set"]  # the first set, and the move
        assert fact(v, "employer").status == "uncertain"
        assert fact(v, "social_insurance_city").value == "上海"
        assert fact(v, "pets").value == ["cat", "dog"]
        assert not any("home_city" in line for line in logged)  # the set's writes are not edits
    finally:
        w.stop()
        thread.join(5)


@pytest.mark.slow
def test_ctrl_c_exits_130(v: Vault) -> None:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from mdmem.cli import main; main()",
            "watch",
            "--vault",
            str(v.root),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 20
        line = ""
        while "Watching" not in line and time.monotonic() < deadline:
            line = proc.stderr.readline()
        assert "Watching" in line
        time.sleep(0.3)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(10) == 130
    finally:
        if proc.poll() is None:
            proc.kill()


def test_ctrl_c_in_process_stops_cleanly(v: Vault) -> None:
    w = Watcher(v.root, log=lambda line: None)
    before = signal.getsignal(signal.SIGINT)
    timer = threading.Timer(0.4, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    assert w.run() == 130
    assert signal.getsignal(signal.SIGINT) is before


def test_a_saved_file_is_only_patched_where_it_must_change(v: Vault, w: Watcher) -> None:
    """vim must not find its buffer rewritten in a new key order after a value change."""
    home = v.root / "facts/user/home_city.md"
    text = home.read_text(encoding="utf-8").replace("value: 广州", "aliases: [home]\nvalue: 上海", 1)
    home.write_text("---\ntags: [me]\n" + text[len("---\n") :], encoding="utf-8")
    assert w.notice(FileModifiedEvent(str(home)))
    assert w.flush()[0].startswith("facts/user/home_city.md: value 广州 → 上海")
    new = home.read_text(encoding="utf-8")
    assert new.startswith("---\ntags: [me]\n") and "aliases: [home]\nvalue: 上海\n" in new
    home.write_text(new + "A note of mine.\n", encoding="utf-8")  # a body edit: nothing to write
    before = home.read_bytes()
    w.notice(FileModifiedEvent(str(home)))
    w.flush()
    assert home.read_bytes() == before
