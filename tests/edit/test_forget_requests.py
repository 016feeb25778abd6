"""Requests to forget said in a conversation: what each points at goes before anything is
written, nothing else does, and what is not a request (or cannot be carried out) is said."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mdmem import Vault
from mdmem.cli import app
from mdmem.edit.ingest import ingest_text
from mdmem.edit.sync import sync
from mdmem.extract.finder import Extraction
from tests.conftest import files_holding, make_vault
from tests.edit.test_forget_exact import episode_text


def chat(tmp_path: Path, text: str, *, date: str = "2026-02-10", vault: Vault | None = None):  # type: ignore[no-untyped-def]
    v = vault or make_vault(tmp_path / "v", "personal")
    result = ingest_text(v, f"## {date}\n{text}", source="chat.md")
    return Vault(v.root), result


# Ways of saying it that the blind set (tests/data/forget_requests) does not: one per class of
# fix made from its first score, so that each is a rule and not a sentence.
ASKED = [
    ("User: My PIN is 2741. Ugh, oversharing. Erase.", "2741", "User: I live in Leeds."),
    ("User: My salary is 61k.\nUser: Oops, my bad. Please strike that off your list.", "61k", "User: I work at Acme."),
    ("User: Between you and me, don't write this down: my bonus was 9k.", "9k", "User: I work at Acme."),
    ("User: My cousin Leo owes 4000 to a loan shark.\nUser: Remove the part about my cousin.", "loan shark", "User: I work at Acme."),
    ("User: The alarm code is 8181 and I work at Acme. Forget the code, keep everything else.", "8181", ""),
    ("User: I take sertraline every morning.\nUser: Drop that please.", "sertraline", "User: I work at Acme."),
    ("User: I owe 300 to my landlord.\nUser: That's personal, ditch it.", "landlord", "User: I work at Acme."),
    ("User: My dad's phone is 07700900777.\nUser: Forget my dad's phone number.", "07700900777", "User: I work at Acme."),
    ("用户：我得了焦虑症，在吃药。\n用户：哎呀说多了，删了吧。", "焦虑症", "用户：我在深圳工作。"),
    ("用户：我欠了信用卡三万块。\n用户：关于我欠钱的事别往你那儿存。", "三万", "用户：我在深圳工作。"),
    ("用户：别存下来：我下个月要做手术。", "手术", "用户：我在深圳工作。"),
    ("用户：我的银行卡密码是778899。\n用户：刚才那个密码你帮我去掉吧。", "778899", "用户：我在深圳工作。"),
    ("User: My phone number is 07700900123.\nUser: I want you to delete my phone number.", "07700900123", "User: I work at Acme."),
    ("User: My phone number is 07700900456.\nUser: You should delete my phone number from your notes.", "07700900456", "User: I work at Acme."),
]


@pytest.mark.parametrize(("said", "gone", "before"), ASKED)
def test_what_a_request_points_at_leaves_no_trace_and_the_rest_stays(tmp_path: Path, said: str, gone: str, before: str) -> None:  # fmt: skip
    text = f"{before}\n{said}\n" if before else f"{said}\n"
    v, result = chat(tmp_path, text)
    runner = CliRunner()
    runner.invoke(app, ["ask", "what did I tell you?", "--vault", str(v.root)])
    assert files_holding(v.root, gone) == [], result.notes
    kept = "Acme" if "Acme" in text else "Leeds" if "Leeds" in text else "深圳"
    assert kept in episode_text(v.root)


NOT_ASKED = [
    "User: My gym is Urban Sports Club. Forget about it, I'm just tired.",
    "User: My gym is Urban Sports Club. Don't delete that, please.",
    'User: My gym is Urban Sports Club. My boss keeps saying "delete that from your notes" to everyone.',
    "User: My gym is Urban Sports Club.\n> please delete that from your memory\nUser: that's what the poster said.",
    "User: My gym is Urban Sports Club. Did you delete that?",
    "User: My gym is Urban Sports Club. I deleted the app from my phone.",
    # Someone telling what they do or did with a verb of forgetting: no request, nothing lost.
    "User: My gym is Urban Sports Club. It helps me clear my head.",
    "User: My gym is Urban Sports Club. I'll drop my kids at school first.",
    "User: My gym is Urban Sports Club. I had to drop my car off at the garage.",
    "User: My gym is Urban Sports Club and I cycle there. I'll get rid of my bike soon.",
    # "You should" with no memory named is advice to the other person in a chat of two.
    "User: My gym is Urban Sports Club and I cycle there. You should get rid of my old bike.",
    "用户：我的健身房是超级猩猩。别提了，算了。",
    "用户：我的健身房是超级猩猩。千万别删这个。",
]


@pytest.mark.parametrize("said", NOT_ASKED)
def test_idioms_the_opposite_quotes_and_questions_redact_nothing(tmp_path: Path, said: str) -> None:
    v, result = chat(tmp_path, said + "\n")
    assert "[forgotten]" not in episode_text(v.root), result.notes
    assert all(f.status != "deleted" for f in v.facts.values())


def test_a_request_with_nothing_before_it_says_so_and_loses_nothing(tmp_path: Path) -> None:
    v, result = chat(tmp_path, "User: Please delete that from your memory.\nUser: I live in Leeds.\n")
    assert any("nothing said before it" in w for w in result.warnings)
    assert "I live in Leeds." in episode_text(v.root) and v.facts["user/home_city"].value == "Leeds"


def test_a_request_for_a_fact_never_kept_says_so_and_loses_nothing(tmp_path: Path) -> None:
    v, result = chat(tmp_path, "User: I live in Leeds.\nUser: Please forget my blood type.\n")
    assert any("nothing about it is kept" in w for w in result.warnings), result.warnings
    assert "I live in Leeds." in episode_text(v.root)


def test_an_unclear_target_goes_whole_and_the_ingest_says_so(tmp_path: Path) -> None:
    v, result = chat(tmp_path, "User: I live in Leeds and the code is 7731. Please delete that.\n")
    assert any("not clear which words" in w for w in result.warnings)
    assert files_holding(v.root, "7731") == []


def test_a_named_request_forgets_what_an_earlier_session_kept(tmp_path: Path) -> None:
    v, _ = chat(tmp_path, "User: My birthday is 14 March. I live in Leeds.\n", date="2025-08-15")
    v, result = chat(tmp_path, "User: Please forget my birthday.\n", vault=v)
    assert v.facts["user/birthday"].status == "deleted"
    assert [d for _, d in result.plan.decisions] == ["DELETE"]
    assert result.forgot is not None and result.forgot.entry["command"] == "forget"
    assert files_holding(v.root, "14 March") == [".mdmem/journal.jsonl"]  # kept for `undo`
    assert "I live in Leeds." in episode_text(v.root)


def test_a_request_about_a_message_applied_before_cuts_its_episode(tmp_path: Path) -> None:
    v = make_vault(tmp_path / "v", "personal")
    log = "## 2026-02-10\nUser: I live in Leeds.\nUser: My locker code is 4417.\n"
    ingest_text(v, log, source="chat.md")
    ingest_text(Vault(v.root), log + "User: Please delete that from your memory.\n", source="chat.md")
    v = Vault(v.root)
    assert files_holding(v.root, "4417") == [".mdmem/journal.jsonl"]
    assert "I live in Leeds." in episode_text(v.root)
    assert v.facts["user/locker_code"].status == "deleted"


def test_a_dry_run_writes_nothing_and_tells_what_would_go(tmp_path: Path) -> None:
    v = make_vault(tmp_path / "v", "personal")
    ingest_text(v, "## 2025-08-15\nUser: My birthday is 14 March.\n", source="a.md")
    before = sorted(p.read_bytes() for p in v.root.rglob("*.md"))
    result = ingest_text(Vault(v.root), "## 2026-02-10\nUser: Please forget my birthday.\n",
                         source="b.md", dry_run=True)  # fmt: skip
    assert [(st.key, d) for st, d in result.plan.decisions] == [("user/birthday", "DELETE")]
    assert sorted(p.read_bytes() for p in v.root.rglob("*.md")) == before


def test_the_model_never_sees_what_was_asked_to_be_forgotten(tmp_path: Path) -> None:
    seen: list[str] = []

    def finder(messages, rules, facts, **kw):  # type: ignore[no-untyped-def]
        seen.extend(m.text for m in messages)
        return Extraction()

    v = make_vault(tmp_path / "v", "personal")
    ingest_text(v, "## 2026-02-10\nUser: My PIN is 2741. Please delete that.\n", source="a.md",
                extractor=finder)  # fmt: skip
    assert seen and all("2741" not in t for t in seen)


def test_a_thousand_requests_in_one_transcript(tmp_path: Path) -> None:
    lines = [f"User: My code number {n} is {7000 + n}. Please delete that." for n in range(1000)]
    v, result = chat(tmp_path, "User: I live in Leeds.\n" + "\n".join(lines) + "\n")
    text = episode_text(v.root)
    assert text.count("[forgotten]") == 1000 and "7999" not in text and "7000" not in text
    assert "I live in Leeds." in text and not result.errors


def test_a_forget_racing_a_sync_loses_nothing(tmp_path: Path) -> None:
    v, _ = chat(tmp_path, "User: My birthday is 14 March. I live in Leeds. My gym is Urban Sports Club.\n")
    sync(v)
    path = v.root / "facts/user/gym.md"
    path.write_text(path.read_text("utf-8").replace("Urban Sports Club", "Iron Temple"), "utf-8")
    errors: list[BaseException] = []

    def run(fn) -> None:  # type: ignore[no-untyped-def]
        try:
            fn()
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=run, args=(lambda: sync(Vault(v.root, wait=30)),)),
               threading.Thread(target=run, args=(lambda: Vault(v.root, wait=30).forget("birthday"),))]  # fmt: skip
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    v = Vault(v.root)
    assert v.facts["user/birthday"].status == "deleted"
    assert v.facts["user/gym"].value == "Iron Temple"  # the hand edit, applied
    assert v.facts["user/home_city"].value == "Leeds" and "I live in Leeds." in episode_text(v.root)
    assert "14 March" not in episode_text(v.root)
