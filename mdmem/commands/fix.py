"""fix: replace a wrong value as if it had never been said."""

from __future__ import annotations

from typing import Annotated

import typer

from mdmem.commands.app import (
    DryRunOpt,
    EntityOpt,
    JsonOpt,
    NewOpt,
    VaultOpt,
    WaitOpt,
    command,
    open_vault,
    report_result,
)
from mdmem.model.slug import split_key


@command()
def fix(
    attribute: Annotated[str, typer.Argument(help="Attribute, or entity/attribute.")],
    value: Annotated[str, typer.Argument(help="The right value.")],
    entity: EntityOpt = "user",
    new: NewOpt = False,
    vault: VaultOpt = None,
    wait: WaitOpt = 10.0,
    dry_run: DryRunOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Correct a wrong value: it leaves the history, dependents are re-derived (undoable)."""
    entity, attribute = split_key(attribute, entity)
    v = open_vault(vault, wait)
    result = v.correct(attribute, value, entity=entity, dry_run=dry_run, new=new)
    report_result(result, as_json, nothing="nothing to correct.")
