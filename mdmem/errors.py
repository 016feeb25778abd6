"""Every error mdmem raises on purpose; the CLI maps them to messages and exit codes."""

from __future__ import annotations


class MdmemError(Exception):
    """A problem the person can fix; the message names the file, the line and the fix."""

    exit_code = 1

    def __init__(self, message: str, *, path: str | None = None, line: int | None = None) -> None:
        self.path = path
        self.line = line
        where = ""
        if path is not None:
            where = f"{path}:{line}: " if line is not None else f"{path}: "
        super().__init__(where + message)
        self.bare_message = message


class SlugError(MdmemError):
    """An entity or attribute name that is not a safe slug."""


class FactFileError(MdmemError):
    """A fact file that does not parse or does not match its path."""


class RulesError(MdmemError):
    """An invalid rules.yaml."""


class TranscriptError(MdmemError):
    """A transcript that cannot be read or parsed."""


class VaultNotFound(MdmemError):
    """No vault at the given path, and none found upward from the current folder."""


class VaultLocked(MdmemError):
    """Another writer holds the vault lock."""

    exit_code = 75


class RefusedError(MdmemError):
    """An operation the vault's state does not allow (e.g. confirming a fact with nothing pending)."""


class EngineUnavailable(MdmemError):
    """The engine a batch was to run on cannot be reached (a Dask scheduler down): try later."""

    exit_code = 75
