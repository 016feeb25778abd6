"""Word families (mdmem/lang/families.py): words the stemmer cannot join that name one thing."""

from __future__ import annotations

from pathlib import Path

from mdmem.edit.ingest import ingest_text
from mdmem.lang.families import family, kin_of
from mdmem.lang.tokens import stem
from mdmem.read.ask import ask
from mdmem.read.cover import cover
from mdmem.read.question import Question
from mdmem.store.vault import Vault


def test_a_family_holds_the_words_the_stemmer_leaves_apart() -> None:
    assert stem("fave") in family(stem("favorite")) and stem("son") in family(stem("kids"))
    assert "妈妈" in family("母亲")
    assert kin_of("table") == frozenset()  # a word of no family is its own
    assert stem("favorite") not in family(stem("kids"))  # families never mix


def test_a_sentence_with_a_word_of_the_family_holds_the_question() -> None:
    q = Question.of("What is Ines's favorite film?")
    assert cover(q, "My fave movie is Paper Moons.") > cover(q, "I went to the cinema.")


def test_the_span_leaves_out_the_family_word_the_question_already_says(tmp_path: Path) -> None:
    v = Vault.create(tmp_path / "v", "personal")
    ingest_text(v, "## 2024-04-02 10:00\n\nIvo: My fave flick is Paper Moons, I watched it twice.\n", source="c.md", date="2024-04-02")
    assert ask(v, "What is Ivo's favorite movie?").answer == "Paper Moons"

