"""Finders and rule packs from other packages, found through entry points (as `llm` plugins are).

Two groups: `mdmem.finders` maps a name to a factory that, called with the finder's options,
returns a `Finder`; `mdmem.packs` maps a name to a rules YAML path, or to a callable returning
one (`store/packs.py` reads them). mdmem registers its own finders and packs in pyproject.toml
through the same groups, and also names its finders here, so that choosing a built-in one never
reads the installed packages' metadata: that costs tens of milliseconds on every ingest.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from mdmem.errors import MdmemError
from mdmem.extract.finder import Extraction, Finder
from mdmem.extract.transcript import Message
from mdmem.model.factfile import Fact
from mdmem.model.rules import Rules

if TYPE_CHECKING:
    from mdmem.extract.model_finder import LLMConfig

FINDERS = "mdmem.finders"
PACKS = "mdmem.packs"
# The same `module:attribute` values as in pyproject.toml (a test holds the two together).
BUILTIN_FINDERS = {
    "rules": "mdmem.extract.rule_finder:rule_finder",
    "model": "mdmem.extract.model_finder:model_finder",
}


def entry_points(group: str) -> dict[str, Any]:
    """The installed entry points of a group, by name (the first package to claim a name wins)."""
    from importlib import metadata  # reading every package's metadata: only when asked

    out: dict[str, Any] = {}
    for ep in metadata.entry_points(group=group):
        out.setdefault(ep.name, ep)
    return out


def load_entry_point(group: str, name: str) -> tuple[Any, str] | None:
    """The object the entry point `name` of `group` names, and how an error should name it;
    None when no package registers that name. A plugin that fails to load is an MdmemError."""
    ep = entry_points(group).get(name)
    if ep is None:
        return None
    where = f"entry point {name!r} of group {group} ({ep.value})"
    try:
        return ep.load(), where
    except Exception as e:  # noqa: BLE001 - any failure of someone else's import is theirs to fix
        raise MdmemError(
            f"the {where} failed to load ({type(e).__name__}: {e}); "
            "reinstall or uninstall the package that provides it"
        ) from None


def load_finder(name: str, **options: Any) -> Finder:
    """The finder registered as `name`, made with `options`: built in (rules, model) or a
    `mdmem.finders` entry point."""
    spec = BUILTIN_FINDERS.get(name)
    if spec is not None:
        module, attribute = spec.split(":")
        factory = getattr(importlib.import_module(module), attribute)
        finder: Finder = factory(**options)
        return finder
    loaded = load_entry_point(FINDERS, name)
    if loaded is None:
        known = ", ".join(sorted({*BUILTIN_FINDERS, *entry_points(FINDERS)}))
        raise MdmemError(
            f"no finder {name!r}; choose one of: {known}, or install a package that registers "
            f"it as an entry point of group {FINDERS}"
        )
    factory, where = loaded
    try:
        made = factory(**options)
    except MdmemError:
        raise
    except Exception as e:  # noqa: BLE001 - a broken plugin is reported, not a traceback
        raise MdmemError(f"the {where} failed to make a finder ({type(e).__name__}: {e})") from None
    if not callable(made):
        raise MdmemError(f"the {where} gave {type(made).__name__}, not a finder (a callable)")
    return _Plugin(made, where)


def finder_for(llm: str | LLMConfig | None = None, api_base: str | None = None,
               **options: Any) -> Finder:  # fmt: skip
    """What `--llm MODEL --api-base URL` (and the --llm-* settings: timeout, retries,
    concurrency, chunk, cache_dir …) ask for: the model finder, or with no model the rules."""
    if llm is None:
        return load_finder("rules")
    return load_finder("model", model=llm, api_base=api_base, **options)


class _Plugin:
    """A third-party finder, whose failures name its entry point instead of a traceback."""

    def __init__(self, finder: Finder, where: str) -> None:
        self.finder = finder
        self.where = where

    def __call__(self, messages: list[Message], rules: Rules, facts: Mapping[str, Fact], *,
                 source: str, default_date: str) -> Extraction:  # fmt: skip
        try:
            out = self.finder(messages, rules, facts, source=source, default_date=default_date)
        except MdmemError:
            raise
        except Exception as e:  # noqa: BLE001 - see load_finder
            raise MdmemError(f"the finder of the {self.where} failed ({type(e).__name__}: {e})",
                             path=source) from None  # fmt: skip
        if not isinstance(out, Extraction):
            raise MdmemError(
                f"the finder of the {self.where} returned {type(out).__name__}, not an Extraction",
                path=source,
            )
        return out
