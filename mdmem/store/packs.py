"""Rule packs by name: mdmem's own (its rules/ folder) and other packages' (`mdmem.packs`)."""

from __future__ import annotations

from pathlib import Path

from mdmem.errors import MdmemError
from mdmem.extract.plugins import PACKS, entry_points, load_entry_point


def packs_dir() -> Path | None:
    """Where mdmem's own packs live: inside the installed package, or the source tree's rules/."""
    here = Path(__file__).resolve().parents[1]  # the mdmem package
    for candidate in (here / "rules", here.parent / "rules"):
        if candidate.is_dir():
            return candidate
    return None


def is_own_pack(path: Path) -> bool:
    """Whether path is one of mdmem's own packs (validated by its tests)."""
    folder = packs_dir()
    return folder is not None and path.resolve().parent == folder.resolve()


def pack_path(pack: str) -> Path:
    """A pack name ('personal', or one a package registers under `mdmem.packs`) or a rules path."""
    path = Path(pack)
    if path.suffix in (".yaml", ".yml") and path.is_file():
        return path
    folder = packs_dir()
    if folder is not None and (folder / f"{pack}.yaml").is_file():
        return folder / f"{pack}.yaml"  # built in: found without reading any package metadata
    found = _plugin_pack(pack)
    if found is not None:
        return found
    names = {p.stem for p in folder.glob("*.yaml")} if folder else set()
    names |= set(entry_points(PACKS))
    if not names:
        raise MdmemError("no rule packs found; reinstall mdmem")
    choices = ", ".join(sorted(names))
    raise MdmemError(f"no rule pack {pack!r}; choose one of: {choices}, or give a path")


def _plugin_pack(name: str) -> Path | None:
    """The rules file a `mdmem.packs` entry point gives (a path, or a callable returning one)."""
    loaded = load_entry_point(PACKS, name)
    if loaded is None:
        return None
    target, where = loaded
    try:
        value = target() if callable(target) else target
    except Exception as e:  # noqa: BLE001 - someone else's code: name it rather than crash
        raise MdmemError(f"the {where} failed to give a rules file ({type(e).__name__}: {e})") from None  # fmt: skip
    if not isinstance(value, str | Path) or not Path(value).is_file():
        raise MdmemError(f"the {where} gave {value!r}, not the path of a rules YAML file")
    return Path(value)


def _builtin(name: str) -> Path:
    folder = packs_dir()
    if folder is None or not (folder / f"{name}.yaml").is_file():
        raise MdmemError(f"mdmem's own rule pack {name!r} is missing; reinstall mdmem")
    return folder / f"{name}.yaml"


# mdmem's own packs as its entry points name them (pyproject.toml, group mdmem.packs).
def personal() -> Path:
    """The `personal` pack: where a person lives and works, who is in their life."""
    return _builtin("personal")


def software_project() -> Path:
    """The `software_project` pack: a team and its project."""
    return _builtin("software_project")


def health() -> Path:
    """The `health` pack: conditions, medication, doctors and measurements."""
    return _builtin("health")
