"""The finder seam: one protocol, two built-in finders, and others (and rule packs) by entry point."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from mdmem import Vault
from mdmem.cli import app
from mdmem.edit.ingest import ingest_text
from mdmem.engine.decide import Statement
from mdmem.errors import MdmemError
from mdmem.extract.finder import Extraction, Finder
from mdmem.extract.model_finder import LLMConfig, ModelFinder
from mdmem.extract.plugins import BUILTIN_FINDERS, FINDERS, PACKS, finder_for, load_finder
from mdmem.extract.rule_finder import extract
from mdmem.extract.transcript import Message
from mdmem.model.factfile import Fact
from mdmem.model.rules import Rules
from mdmem.store.packs import pack_path
from tests.conftest import make_vault

ROOT = Path(__file__).resolve().parents[2]
HERE = "tests.extract.test_finder"
CHAT = "## 2026-02-10\n\nUser: Lovely weather today.\nAssistant: Indeed!\n"


# --- a third-party finder, as a package would register it -----------------------------------


def city_finder(city: str = "Lisbon") -> Finder:
    """A plugin factory: every human message says the person lives in `city`."""

    def find(messages: list[Message], rules: Rules, facts: Mapping[str, Fact], *, source: str,
             default_date: str) -> Extraction:  # fmt: skip
        said = [m for m in messages if m.role == "user"]
        return Extraction(
            [Statement("user", "home_city", "assert", city, default_date, f"{source}#L{m.line}") for m in said],
            notes=[f"{len(said)} message(s) read by the city finder"],
        )  # fmt: skip

    return find


def crashing_factory(**options: Any) -> Finder:
    raise RuntimeError("the plugin's own bug")


def crashing_finder() -> Finder:
    def find(*args: Any, **kwargs: Any) -> Extraction:
        raise KeyError("home_city")

    return find


def sloppy_finder() -> Finder:
    return lambda *args, **kwargs: ["not", "an", "extraction"]


def extra_pack() -> str:
    return str(ROOT / "tests" / "data" / "story_rules.yaml")


def _ep(group: str, name: str, value: str) -> importlib.metadata.EntryPoint:
    return importlib.metadata.EntryPoint(name=name, value=value, group=group)


PLUGINS = [
    _ep(FINDERS, "city", f"{HERE}:city_finder"),
    _ep(FINDERS, "crashing", f"{HERE}:crashing_factory"),
    _ep(FINDERS, "raising", f"{HERE}:crashing_finder"),
    _ep(FINDERS, "sloppy", f"{HERE}:sloppy_finder"),
    _ep(FINDERS, "missing", "no_such_mdmem_plugin.finders:make"),
    _ep(PACKS, "story", f"{HERE}:extra_pack"),
    _ep(PACKS, "story_path", f"{HERE}:STORY_PATH"),
    _ep(PACKS, "nowhere", f"{HERE}:NOWHERE"),
]
STORY_PATH = ROOT / "tests" / "data" / "story_rules.yaml"
NOWHERE = "/no/such/rules.yaml"


@pytest.fixture
def plugins(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Installed entry points replaced by PLUGINS; records each group that was looked up."""
    looked: list[str] = []

    def entry_points(*, group: str) -> list[importlib.metadata.EntryPoint]:
        looked.append(group)
        return [ep for ep in PLUGINS if ep.group == group]

    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)
    return looked


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    return make_vault(tmp_path / "v", "personal")


# --- the protocol and the built-in finders --------------------------------------------------


def test_both_built_in_finders_are_finders() -> None:
    assert isinstance(extract, Finder) and isinstance(ModelFinder(LLMConfig("m")), Finder)
    assert not isinstance("rules", Finder)


def test_built_in_finders_are_chosen_by_name_or_config_without_reading_metadata(plugins) -> None:
    assert finder_for() is extract
    assert load_finder("rules") is extract
    model = finder_for("gpt-4o-mini", "http://localhost:8000")
    assert isinstance(model, ModelFinder)
    assert (model.config.model, model.config.api_base) == ("gpt-4o-mini", "http://localhost:8000")
    cfg = LLMConfig("gpt-4o-mini", mock_responses=[])
    assert finder_for(cfg).config is cfg  # canned answers and recorded calls are kept
    assert load_finder("model", model="m", timeout=5).config.timeout == 5
    assert plugins == []  # built in: no package metadata read


def test_built_in_finders_refuse_options_they_do_not_take() -> None:
    with pytest.raises(MdmemError, match="rules finder takes no options, not model"):
        load_finder("rules", model="gpt-4o-mini")
    with pytest.raises(MdmemError, match="needs a model"):
        load_finder("model")
    with pytest.raises(MdmemError, match="no option temperature"):
        load_finder("model", model="m", temperature=0)


def test_choosing_the_model_finder_does_not_import_litellm() -> None:
    code = (
        "import sys; from mdmem.extract.plugins import finder_for; finder_for('gpt-4o-mini'); "
        "assert 'litellm' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_the_rule_finder_is_ingests_default(vault: Vault) -> None:
    text = "User: I moved to Shanghai.\n"
    assert ingest_text(vault, text, date="2026-02-10").counts()["ADD"] == 1
    other = make_vault(vault.root.parent / "w", "personal")
    assert ingest_text(other, text, date="2026-02-10", extractor=extract).counts()["ADD"] == 1
    assert vault.get("home_city").value == other.get("home_city").value == "Shanghai"


def test_pyproject_registers_the_built_ins_through_the_same_door() -> None:
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    eps = meta["project"]["entry-points"]
    assert eps[FINDERS] == BUILTIN_FINDERS
    for name, value in eps[PACKS].items():
        assert _ep(PACKS, name, value).load()() == ROOT / "rules" / f"{name}.yaml"
    for name, value in eps[FINDERS].items():
        assert callable(_ep(FINDERS, name, value).load())


# --- third-party finders ---------------------------------------------------------------------


def test_a_registered_finder_is_found_by_name_and_its_statements_are_written(vault, plugins) -> None:
    finder = load_finder("city", city="Porto")
    r = ingest_text(vault, CHAT, source="chat.md", extractor=finder)
    assert plugins == [FINDERS]
    assert r.errors == [] and r.notes == ["1 message(s) read by the city finder"]
    fact = vault.get("home_city")
    assert fact is not None and fact.value == "Porto" and fact.source == "chat.md#L3"
    assert r.entry is not None and r.entry["source"]["statements"] == 1


def test_an_unknown_finder_lists_the_choices(plugins) -> None:
    with pytest.raises(MdmemError) as e:
        load_finder("nope")
    assert "no finder 'nope'" in str(e.value)
    assert "city, crashing, missing, model, raising, rules, sloppy" in str(e.value)
    assert "mdmem.finders" in str(e.value)


def test_a_plugin_that_does_not_import_names_its_entry_point(plugins) -> None:
    with pytest.raises(MdmemError) as e:
        load_finder("missing")
    msg = str(e.value)
    assert "entry point 'missing' of group mdmem.finders (no_such_mdmem_plugin.finders:make)" in msg
    assert "ModuleNotFoundError" in msg and "reinstall or uninstall" in msg


def test_a_plugin_that_crashes_names_its_entry_point(vault, plugins) -> None:
    with pytest.raises(MdmemError, match=r"'crashing' of group mdmem.finders .*RuntimeError: the plugin's own bug"):  # fmt: skip
        load_finder("crashing")
    with pytest.raises(MdmemError, match=r"chat.md: the finder of the entry point 'raising'.*KeyError"):
        ingest_text(vault, CHAT, source="chat.md", extractor=load_finder("raising"))
    with pytest.raises(MdmemError, match="'sloppy'.* returned list, not an Extraction"):
        ingest_text(vault, CHAT, source="chat.md", extractor=load_finder("sloppy"))
    assert vault.facts == {} and list(vault.journal.entries()) == []


# --- rule packs --------------------------------------------------------------------------------


def test_built_in_packs_come_from_the_rules_folder_without_reading_metadata(plugins) -> None:
    assert pack_path("personal") == ROOT / "rules" / "personal.yaml"
    assert plugins == []


def test_packs_are_found_through_entry_points(tmp_path: Path, plugins) -> None:
    assert pack_path("story") == STORY_PATH  # a callable returning a path
    assert pack_path("story_path") == STORY_PATH  # a path
    v = Vault.create(tmp_path / "v", "story")
    assert (v.root / "rules.yaml").read_bytes() == STORY_PATH.read_bytes()


def test_init_finds_a_registered_pack(tmp_path: Path, plugins) -> None:
    out = CliRunner().invoke(app, ["init", str(tmp_path / "v"), "--rules", "story"])
    assert out.exit_code == 0, out.output
    assert (tmp_path / "v" / "rules.yaml").read_bytes() == STORY_PATH.read_bytes()


def test_a_broken_or_missing_pack_is_a_clear_error(plugins) -> None:
    with pytest.raises(MdmemError, match=r"entry point 'nowhere' of group mdmem.packs .* not the path of a rules YAML"):  # fmt: skip
        pack_path("nowhere")
    with pytest.raises(MdmemError) as e:
        pack_path("nope")
    assert "choose one of: health, nowhere, personal, software_project, story, story_path" in str(e.value)  # fmt: skip


def test_evaluate_ingests_with_the_finder_it_is_given(tmp_path: Path, plugins) -> None:
    from mdmem.eval.evaluate import evaluate

    (tmp_path / "s.yaml").write_text(
        "name: city\nlang: en\nrules: personal\nsessions:\n"
        "  - date: '2026-02-10'\n    transcript: |\n      User: Lovely weather today.\n"
        "probes:\n  - {after: 1, type: recall, ask: Where do I live?, expect: {contains: [Porto]}}\n",
        encoding="utf-8",
    )
    with_city = evaluate([tmp_path / "s.yaml"], extractor=load_finder("city", city="Porto"))
    assert with_city.results[0].error is None and with_city.results[0].probes[0].passed
    with_rules = evaluate([tmp_path / "s.yaml"])  # the rule finder hears no city in that chat
    assert not with_rules.results[0].probes[0].passed
