"""Start-up: the large module-level regular expressions compile on first use, not on import."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

LAZY = {
    "mdmem.extract.dates": ["_point_re", "_period_re", "_until_re", "_since_re", "_any_re",
                            "_zh_number_re", "_duration_re"],
    "mdmem.lang.detect": ["_CJK", "_LATIN_WORD"],
    "mdmem.lang.questions": ["ACTION", "PRONOUN"],
    "mdmem.lang.tokens": ["token_re"],
    "mdmem.model.emit": ["_simple", "_implicit"],
    "mdmem.model.episode": ["_HEADER", "_ESCAPED", "_TRAILING_ID", "_OWN_LINE_ID", "_NOT_PARAGRAPH", "_DAY", "_TIME"],
    "mdmem.model.fastparse": ["_KEY", "_UNSAFE"],
    "mdmem.model.limits": ["_FIELD", "_ITEM", "_DEEP_FLOW", "_DEEP_DASHES", "_DEEP_INDENT"],
    "mdmem.read.compose": ["_SAYS_A_CLAUSE"],
    "mdmem.read.life_answer": ["_HAPPENED"],
    "mdmem.read.passages": ["_SENTENCE_END"],
    "mdmem.read.span_state": ["_STATE", "_QUALITY", "_FAV_FIRST", "_FAV_LAST", "_OPENING", "_CLOSING"],
}  # fmt: skip
# What a warm `ask` answered from facts needs none of: the fact files' and episodes' parsers,
# the size limits, the CJK class (an ASCII value is answered without it), the words of a
# passage question ('What did she do?'), a follow-up's pronouns, a gathered list.
WARM_FACT_ASK = ["mdmem.model.fastparse", "mdmem.model.limits", "mdmem.model.episode",
                 "mdmem.lang.detect", "mdmem.lang.questions", "mdmem.read.compose",
                 "mdmem.read.passages"]  # fmt: skip


def _compiled(*imports: str) -> dict[str, list[str]]:
    """The getters of LAZY already compiled once these modules are imported (a fresh process)."""
    code = (
        "import importlib, json\n"
        + "".join(f"import {m}\n" for m in imports)
        + f"lazy = {LAZY!r}\n"
        "print(json.dumps({m: [g for g in gs if getattr(importlib.import_module(m), g)"
        ".cache_info().currsize] for m, gs in lazy.items()}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def test_importing_compiles_none_of_them() -> None:
    assert _compiled(*LAZY) == {m: [] for m in LAZY}


def test_ask_compiles_neither_the_emitter_nor_the_dates() -> None:
    got = _compiled("mdmem.read.ask", "mdmem.commands.fast")
    assert got["mdmem.model.emit"] == [] and got["mdmem.extract.dates"] == []


def test_each_compiles_once_when_used() -> None:
    from mdmem.extract.dates import _any_re, find_when
    from mdmem.lang.tokens import token_re, tokens

    assert find_when("from 2019 to 2021", None) is not None
    assert tokens("Where do I live?")
    assert _any_re() is _any_re() and token_re() is token_re()


def test_a_warm_ask_compiles_nothing_that_parses_fact_files(tmp_path: Path) -> None:
    """The index and the snapshot are warm: `ask` parses no fact file and no episode, so the
    parsers' and the size limits' patterns stay uncompiled, and so do those of WARM_FACT_ASK's
    other modules that a question the facts answer never runs."""
    vault = tmp_path / "v"
    shutil.copytree(ROOT / "sample_vault", vault)
    lazy = [(m, g) for m in WARM_FACT_ASK for g in LAZY[m]]
    code = (
        "import importlib, json, sys\n"
        "from mdmem.cli import main\n"
        f"sys.argv = ['mdmem', 'ask', 'Where do I live?', '--vault', {str(vault)!r}]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        f"lazy = {lazy!r}\n"
        "print(json.dumps([f'{m}.{g}' for m, g in lazy if m in sys.modules"
        " and getattr(importlib.import_module(m), g).cache_info().currsize]))\n"
    )
    run = lambda: subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)  # noqa: E731
    run()  # the first ask builds the caches
    out = run().stdout.strip().splitlines()
    assert "Shanghai" in out[0] and json.loads(out[-1]) == []
