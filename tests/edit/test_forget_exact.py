"""Issue 22's failures, as a user meets them: a forget removes exactly the statement asked for,
everywhere, and nothing else."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from mdmem import Vault
from mdmem.cli import app
from mdmem.edit.ingest import ingest_text
from mdmem.edit.sync import sync
from tests.conftest import files_holding, make_vault

runner = CliRunner()


def mdmem(root: Path, *args: str) -> str:
    out = runner.invoke(app, [*args, "--vault", str(root)])
    assert out.exit_code == 0, out.output
    return out.output




def episode_text(root: Path) -> str:
    return "\n".join(p.read_text("utf-8") for p in sorted((root / "episodes").rglob("*.md")))


BERLIN = """## 2026-02-10
User: I live in Berlin and my social insurance is paid in Berlin too.
User: My hometown is Berlin as well.
"""


def test_forgetting_one_fact_keeps_the_same_word_where_it_states_another(tmp_path: Path) -> None:
    v = make_vault(tmp_path / "v", "personal")
    ingest_text(v, BERLIN, source="chat.md")
    assert {k for k, f in v.facts.items() if f.value == "Berlin"} == {
        "user/home_city", "user/social_insurance_city", "user/hometown"}  # fmt: skip
    mdmem(v.root, "forget", "social_insurance_city")
    text = episode_text(v.root)
    assert "I live in Berlin and [forgotten]" in text
    assert "social insurance" not in text
    assert "My hometown is Berlin as well." in text
    v = Vault(v.root)
    assert v.facts["user/home_city"].value == "Berlin"
    assert v.facts["user/hometown"].value == "Berlin"


def test_purging_a_mistyped_fact_leaves_every_other_facts_journal_alone(tmp_path: Path) -> None:
    v = make_vault(tmp_path / "v", "personal")
    ingest_text(v, "## 2025-08-15\nUser: I live in Berlin.\n", source="a.md")
    ingest_text(v, "## 2026-02-10\nUser: I moved to Munich.\n", source="b.md")
    mdmem(v.root, "fix", "hom_city", "Munich", "--new")  # a typo (refused without --new): a slot of its own
    before = [line for line in (v.meta / "journal.jsonl").read_text("utf-8").splitlines()
              if "hom_city" not in line]  # fmt: skip
    mdmem(v.root, "forget", "hom_city", "--purge")
    after = (v.meta / "journal.jsonl").read_text("utf-8").splitlines()
    assert [line for line in after if line in before] == before  # byte for byte
    shown = mdmem(v.root, "timeline", "home_city")
    assert "Munich" in shown and "Berlin" in shown and "[forgotten]" not in shown


def test_a_request_to_delete_what_was_just_said_leaves_it_in_no_file(tmp_path: Path) -> None:
    v = make_vault(tmp_path / "v", "personal")
    chat = (
        "## 2026-02-10\nUser: My locker code is 4417. Please delete that from your memory.\n"
        "User: My gym PIN is 9931, scrap that, I would rather you not keep it.\n"
        "用户：我的门禁密码是5522。算了，这个别存了。\n"
    )
    ingest_text(v, chat, source="chat.md")
    mdmem(v.root, "ask", "what is my locker code?")  # the passage index is built
    for secret in ("4417", "9931", "5522"):
        assert files_holding(v.root, secret) == [], secret
    text = episode_text(v.root)
    assert "Please delete that from your memory." in text  # the request itself stays


def test_a_fact_file_deleted_by_hand_takes_its_words_with_it(tmp_path: Path) -> None:
    v = make_vault(tmp_path / "v", "personal")
    ingest_text(v, "## 2025-08-15\nUser: My birthday is 14 March. I live in Berlin.\n",
                source="a.md")  # fmt: skip
    mdmem(v.root, "ask", "When is my birthday?")
    sync(v)
    (v.root / "facts/user/birthday.md").unlink()
    result = sync(Vault(v.root))
    assert [a.kind for a in result.actions] == ["forget"]
    assert "cut from the episodes" in result.actions[0].message
    # Only the journal keeps it (for `undo`), as after `mdmem forget` without --purge.
    assert files_holding(v.root, "14 March") == [".mdmem/journal.jsonl"]
    assert "14 March" not in mdmem(v.root, "ask", "When is my birthday?")
    assert "I live in Berlin." in episode_text(v.root)


MOVE = """## 2025-08-15
User: I live in Hangzhou. I work at Blue Harbor Labs.
## 2026-02-10
User: I moved to Suzhou. I now work at Tidewater.
"""


CITIES = [
    "## 2025-08-15\nUser: I live in Guangzhou. I pay social insurance in Guangzhou.\n",
    "## 2025-11-01\nUser: I moved to Hangzhou.\n",
    "## 2026-02-10\nUser: I moved to Suzhou.\n",
]


def test_purging_a_city_takes_what_was_derived_from_it(tmp_path: Path) -> None:
    v = make_vault(tmp_path / "v", "personal")
    for n, chat in enumerate(CITIES):
        ingest_text(v, chat, source=f"s{n}.md")
    v = Vault(v.root)
    assert v.facts["user/social_insurance_city"].value == "Suzhou"
    for cmd in (["show"], ["context"], ["pending"], ["ask", "where do I live?"]):
        mdmem(v.root, *cmd)
    mdmem(v.root, "forget", "home_city", "--purge")
    for city in ("Hangzhou", "Suzhou"):  # said only as the home city, or derived from it
        assert files_holding(v.root, city) == [], city
        for cmd in (["show"], ["context"], ["pending"], ["timeline"], ["log"], ["show", "--json"]):
            assert city not in mdmem(v.root, *cmd), (city, cmd)
    text = episode_text(v.root)
    assert "I live in Guangzhou" not in text
    assert "I pay social insurance in Guangzhou." in text  # a statement of its own
    insurance = Vault(v.root).facts["user/social_insurance_city"]
    assert [h["value"] for h in insurance.history] == ["Guangzhou"]
    assert insurance.value is None


def test_forget_text_tombstones_only_the_values_that_hold_the_phrase(tmp_path: Path) -> None:
    v = make_vault(tmp_path / "v", "personal")
    ingest_text(v, MOVE, source="chat.md")
    mdmem(v.root, "ask", "where did I work?")
    mdmem(v.root, "forget", "--text", "Blue Harbor", "--purge")
    employer = Vault(v.root).facts["user/employer"]
    assert employer.status != "deleted" and employer.value == "Tidewater"
    assert all("Blue Harbor" not in str(h.get("value")) for h in employer.history)
    assert files_holding(v.root, "Blue Harbor") == []


def test_an_idiom_is_not_a_request_and_a_sweeping_one_is_reported(tmp_path: Path) -> None:
    v = make_vault(tmp_path / "v", "personal")
    ingest_text(v, "## 2026-02-01\nUser: I commute by bike. It takes 20 minutes.\n", source="a.md")
    assert v.facts["user/commute_mode"].status == "active"
    ingest_text(v, "## 2026-02-10\nUser: Forget about the commute, I'm just tired.\n",
                source="b.md")  # fmt: skip
    v = Vault(v.root)
    assert v.facts["user/commute_mode"].status == "active"
    assert v.facts["user/commute_minutes"].status == "active"
    result = ingest_text(v, "## 2026-02-11\nUser: forget everything you know about me\n",
                         source="c.md")  # fmt: skip
    said = " ".join(result.notes + result.warnings)
    assert "mdmem forget --all" in said, said
    assert Vault(v.root).facts["user/commute_mode"].status == "active"


def test_a_kill_after_the_forget_leaves_no_cache_holding_the_words(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    v = make_vault(tmp_path / "v", "personal")
    ingest_text(v, "## 2025-08-15\nUser: My birthday is 14 March.\n", source="a.md")
    mdmem(v.root, "ask", "When is my birthday?")
    # A rollback journal a kill left beside a cache, holding the old pages.
    (v.meta / "passages.sqlite-journal").write_bytes(b"SQLite 14 March page")
    from mdmem.edit import forget as forgetting

    def killed(vault: Vault) -> None:
        raise SystemExit(137)

    monkeypatch.setattr(forgetting, "scrub_search_caches", killed)
    runner.invoke(app, ["forget", "birthday", "--purge", "--vault", str(v.root)])
    monkeypatch.undo()
    mark = v.meta / "forgetting.json"
    data = json.loads(mark.read_text("utf-8"))
    assert data["purge"] == {"user/birthday": "all"}  # no words in it: keys only
    mark.write_text(json.dumps({**data, "pid": 0}), "utf-8")  # as the next process finds it
    mdmem(v.root, "show")  # the next command
    assert files_holding(v.root, "14 March") == []
    assert json.loads(mdmem(v.root, "show", "--json"))  # and the vault still reads
