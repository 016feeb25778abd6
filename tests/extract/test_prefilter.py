"""The literal tests that let an expression be skipped never skip a match (extract/prefilter.py)."""

from __future__ import annotations

import os
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from mdmem.edit.ingest import ingest_text
from mdmem.extract import forget_requests, prefilter, requests
from mdmem.extract.candidates import Resolver
from mdmem.extract.prefilter import AnyOf, PatternSet, Source, lowered, may_match
from mdmem.model.rules_yaml import load_rules
from mdmem.store.packs import packs_dir
from mdmem.store.rules_cache import SHIPPED_NEEDLES, needles_text
from mdmem.store.vault import Vault

# The module expressions that run only where their literal tests pass.
GATED = [*forget_requests._EN_EXPRESSIONS, forget_requests._CUE, requests._VERBATIM]
WORDS = ["please", "delete", "forget", "that", "this", "it", "don't", "keep", "remember", "my",
         "address", "off", "the", "record", "take", "out", "of", "your", "notes", "word", "for",
         "exactly", "I", "you", "can", "just", "never", "mind", "TMI", "private", "save", "ſave",
         "İt", "DELETE", "Forget", "scrap", "bin", "wipe", "everything", "about", "me", "原文", "记下来",
         "have", "know", "to", "a", "not", "go", "let", "rid", "get", "down", "hold", "on", "unsaying",
         "pretend", "Don’t", "dont", "stop", "would", "rather"]  # fmt: skip
SEPARATORS = [" ", " ", ", ", ". ", "! ", ": ", "\n", "? ", " — "]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(WORDS), st.sampled_from(SEPARATORS)), min_size=1, max_size=14
    )
)
def test_a_gated_expression_is_never_skipped_where_it_matches(parts):
    text = "".join(w + s for w, s in parts)
    for rx in GATED:
        if rx.search(text):
            assert may_match(rx, lowered(text)), (rx.pattern[:60], text)
    if any(rx.search(text) for rx in forget_requests._EN_EXPRESSIONS):
        assert forget_requests._EN_ANY.search(text), text
        assert forget_requests.may_ask(lowered(text)), text


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from([*WORDS, "STORE", "Rid", "of", "KNOW", "bins", "Hold", "忘了", "K", "ſ"]),
                  st.sampled_from(SEPARATORS)), min_size=1, max_size=10,
    )
)
def test_the_forget_gate_answers_as_its_expression(words: list[tuple[str, str]]) -> None:
    # ASCII text is searched lower-cased, without IGNORECASE: the same answer, every time.
    text = "".join(w + sep for w, sep in words)
    assert forget_requests._GATE_LOW is not None
    for t in (text, text.upper(), text.title(), text.encode("ascii", "ignore").decode()):
        assert forget_requests._gated(t) == bool(forget_requests._GATE.search(t)), t


def test_the_requests_a_gate_lets_through_are_still_found():
    said = ["Please delete that.", "Don't keep my address, please.", "Off the record: I got fired.",
            "Forget everything you know about me.", "Scrap that."]  # fmt: skip
    for text in said:
        assert forget_requests._EN_ANY.search(text), text
    assert not forget_requests._EN_ANY.search("We went hiking by the lake on Sunday.")
    # the words of a request, said in passing, are no request's start
    for text in ["I get it, you know what I have to do.", "Keep going!", "I don't know yet.", "Clearly not."]:
        assert not forget_requests._EN_ANY.search(text), text
    for text in ["Keep going!", "I don't know yet.", "Clearly not.", "I have to go, my cat is waiting."]:
        assert not forget_requests.may_ask(lowered(text)), text
    for text in ["I'd rather you didn't hold on to it.", "Don't keep a record of that.", "Please let go of that.",
                 "That's not for your notes.", "This is not something to remember."]:
        assert forget_requests.may_ask(lowered(text)) and forget_requests._EN_ANY.search(text), text
        assert forget_requests.find_requests(text, Resolver(load_rules(packs_dir() / "personal.yaml"))), text


def test_lowered_makes_one_what_ignorecase_takes_as_one():
    # "ſ" is an "s" and "ı" an "i" to re.IGNORECASE, though lower() keeps them apart;
    # "İ" lower-cases to "i" and a combining dot.
    rx = re.compile(r"\bsave\s+it\b", re.I)
    for text in ["ſave it", "SAVE İT", "save ıt"]:
        assert rx.search(text), text
        assert may_match(rx, lowered(text)), text
    assert lowered("ASCII Only") == "ascii only"


def test_any_of_is_true_when_one_pattern_has_no_literal_test():
    anything = AnyOf(re.compile(r"\w+"), re.compile("moved"))
    assert anything.may_match("nothing of the kind")
    some = AnyOf(re.compile("moved"), re.compile("relocat(?:ed|ing)"))
    assert some.may_match("we relocated") and not some.may_match("we stayed")


def test_the_packs_shipped_literal_tests_are_current():
    """rules/needles.json holds the literal tests of every pattern of mdmem's own packs, as the
    prefilter works them out now. After changing a pack's patterns or prefilter.py:
    `MDMEM_UPDATE_GOLDEN=1 .venv/bin/pytest tests/extract/test_prefilter.py`."""
    folder = packs_dir()
    assert folder is not None
    sources = sorted({p for pack in sorted(folder.glob("*.yaml")) for a in load_rules(pack).attributes.values()
                      for p in (*a.extract_patterns, *a.invalidate_patterns)})  # fmt: skip
    # Worked out afresh (`_required`, not the cache another test may have primed from the file).
    want = needles_text({prefilter.digest(src): [sorted(alts) for alts in prefilter._required(Source(src))]
                         for src in sources})  # fmt: skip
    file = folder / SHIPPED_NEEDLES
    if os.environ.get("MDMEM_UPDATE_GOLDEN"):
        file.write_text(want, encoding="utf-8")
    assert file.read_text(encoding="utf-8") == want, (
        f"{file} is stale: run MDMEM_UPDATE_GOLDEN=1 .venv/bin/pytest tests/extract/test_prefilter.py"
    )


def test_a_new_vaults_first_ingest_parses_none_of_its_packs_patterns(tmp_path, monkeypatch):
    vault = Vault.create(tmp_path / "v", "personal")
    pack = {p for a in vault.rules.attributes.values() for p in (*a.extract_patterns, *a.invalidate_patterns)}
    parsed: list[str] = []
    real = prefilter._required

    def counted(rx):
        parsed.append(rx.pattern)
        return real(rx)

    monkeypatch.setattr(prefilter, "_CACHE", {})  # as in a new process
    monkeypatch.setattr(prefilter, "_required", counted)
    ingest_text(vault, "User: I moved to Shanghai last week.\n", source="chat.md")
    assert vault.scan(refresh=True)[0]["user/home_city"].value == "Shanghai"
    assert not pack & set(parsed)


def test_a_pattern_whose_letters_fold_stays_a_candidate():
    # "σ" and "ς", "μ" and "µ" are one letter to re.IGNORECASE: needle and text fold alike.
    for rx, text in [(re.compile(r"(?i)\bσπίτι μου\b"), "ΤΟ ΣΠΊΤΙ ΜΟΥ"), (re.compile(r"(?i)\d+ µg"), "5 ΜG")]:
        assert rx.search(text)
        assert PatternSet([(0, rx)]).candidates(lowered(text)), rx.pattern
