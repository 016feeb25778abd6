"""init, set, forget, show, pending, confirm, graph, check."""

from __future__ import annotations

import difflib
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from mdmem.commands import render
from mdmem.commands.app import (
    DateOpt,
    DryRunOpt,
    EntityOpt,
    JsonOpt,
    VaultOpt,
    WaitOpt,
    command,
    open_vault,
    print_json,
    report_result,
)
from mdmem.errors import RefusedError
from mdmem.lang.detect import pick_lang
from mdmem.model.slug import split_key
from mdmem.store.vault import Vault


def known_attributes(v: Vault) -> list[str]:
    """The attribute names rules.yaml declares and the fact files use."""
    return sorted(set(v.rules.attributes) | {f.attribute for f in v.facts.values()})


def did_you_mean(name: str, known: list[str]) -> str:
    """' (did you mean employer?)' for a near miss among the known names, else ''."""
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
    return f" (did you mean {' or '.join(close)}?)" if close else ""


def check_known(v: Vault, entity: str, attribute: str, new: bool) -> None:
    """A typo must not make a fact of its own: an unknown attribute needs --new."""
    if attribute in v.rules.attributes:  # the usual case: no need to read every fact
        return
    known = known_attributes(v)
    if attribute in known:
        return
    hint = did_you_mean(attribute, known)
    if new:
        typer.echo(f"Warning: {attribute} is not in rules.yaml{hint}; creating it (--new).", err=True)
        return
    raise RefusedError(
        f"{entity}/{attribute}: {attribute!r} is not an attribute in rules.yaml nor of any fact"
        f"{hint}; to create a new attribute anyway, pass --new"
    )


@command()
def init(
    path: Annotated[Path, typer.Argument(help="Folder for the new vault.")],
    rules: Annotated[
        str, typer.Option("--rules", help="A rule pack name or a rules.yaml path.")
    ] = "personal",
) -> None:
    """Create a vault with a rule pack."""
    vault = Vault.create(path, rules)
    typer.echo(f"Created vault {vault.root} with the {rules!r} rules.", err=True)


@command("set")
def set_(
    attribute: Annotated[str, typer.Argument(help="Attribute, or entity/attribute.")],
    value: Annotated[str, typer.Argument(help="The value, as the person said it.")],
    entity: EntityOpt = "user",
    date: DateOpt = None,
    tentative: Annotated[
        bool, typer.Option("--tentative", help="Weak evidence: store unconfirmed.")
    ] = False,
    new: Annotated[
        bool, typer.Option("--new", help="Allow an attribute that rules.yaml does not know.")
    ] = False,
    vault: VaultOpt = None,
    wait: WaitOpt = 10.0,
    dry_run: DryRunOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """State a fact, as if the person said it; dependents cascade."""
    entity, attribute = split_key(attribute, entity)
    v = open_vault(vault, wait)
    check_known(v, entity, attribute, new)
    report_result(
        v.set(attribute, value, entity=entity, date=date, dry_run=dry_run, tentative=tentative),
        as_json,
    )


@command()
def forget(
    attribute: Annotated[
        str | None, typer.Argument(help="Attribute, or entity/attribute.", show_default=False)
    ] = None,
    entity: EntityOpt = "user",
    text: Annotated[
        str | None,
        typer.Option(
            "--text", help="Forget these words everywhere instead: facts, bodies, episodes."
        ),
    ] = None,
    purge: Annotated[
        bool, typer.Option("--purge", help="Also strip the value from the journal.")
    ] = False,
    vault: VaultOpt = None,
    wait: WaitOpt = 10.0,
    dry_run: DryRunOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Forget a fact (or, with --text, some words) at the person's request; a tombstone stays,
    dependents become uncertain, and what was said shows '[forgotten]'."""
    if (attribute is None) == (text is None):
        raise typer.BadParameter("give an ATTRIBUTE or --text PHRASE, not both")
    v = open_vault(vault, wait)
    from mdmem.edit import forget as forgetting

    if text is not None:
        report_result(forgetting.forget_text(v, text, purge=purge, dry_run=dry_run), as_json)
        return
    assert attribute is not None
    entity, attribute = split_key(attribute, entity)
    report_result(forgetting.forget(v, attribute, entity=entity, purge=purge, dry_run=dry_run), as_json)


@command()
def confirm(
    attribute: Annotated[str, typer.Argument(help="Attribute, or entity/attribute.")],
    value: Annotated[str | None, typer.Argument(help="The right value, if it changed.")] = None,
    keep: Annotated[bool, typer.Option("--keep", help="The shown value is still right.")] = False,
    reject: Annotated[
        bool, typer.Option("--reject", help="The shown value no longer holds.")
    ] = False,
    entity: EntityOpt = "user",
    vault: VaultOpt = None,
    wait: WaitOpt = 10.0,
    dry_run: DryRunOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Answer a pending question: give the VALUE, or --keep or --reject the shown one."""
    entity, attribute = split_key(attribute, entity)
    v = open_vault(vault, wait)
    report_result(
        v.confirm(attribute, entity=entity, value=value, keep=keep, reject=reject, dry_run=dry_run),
        as_json,
    )


@command()
def show(
    attribute: Annotated[
        str | None, typer.Argument(help="Attribute, or entity/attribute (default: all).")
    ] = None,
    entity: Annotated[str | None, typer.Option("--entity", "-e", help="Only this entity.")] = None,
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Print facts: one, an entity's, or all."""
    v = open_vault(vault)
    facts = v.facts
    if attribute is not None:
        ent, attr = split_key(attribute, entity or "user")
        fact = v.get(attr, ent)
        if fact is None:
            typer.echo(f"No fact {ent}/{attr}{did_you_mean(attr, known_attributes(v))}.", err=True)
            raise typer.Exit(1)
        selected = [fact]
    else:
        selected = [f for k, f in sorted(facts.items()) if entity is None or f.entity == entity]
    if as_json:
        if attribute is not None:
            print_json(selected[0].to_mapping())
        else:
            print_json([f.to_mapping() for f in selected])
        return
    if not selected:
        typer.echo("No facts yet.", err=True)
        return
    render.print_table(render.facts_table(selected))


class Lang(StrEnum):
    en = "en"
    zh = "zh"


@command()
def pending(
    vault: VaultOpt = None,
    lang: Annotated[
        Lang | None,
        typer.Option("--lang", help="Language of the questions (default: the value's)."),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """List the questions waiting for the person."""
    items = open_vault(vault).pending()
    if as_json:
        print_json(items)
        return
    if not items:
        typer.echo("Nothing pending.", err=True)
        return
    for p in items:
        # The language the person used: the value's, else the value that changed upstream.
        sample = " ".join(
            str(x) for x in (p["value"], p["because"].get("old"), p["because"].get("new")) if x
        )
        q = pick_lang(p["question"], sample, lang.value if lang else None)
        render.stdout.print(f"[yellow]{p['fact']}[/] ({p['status']}): {render.escape(q)}")
    first = items[0]["fact"]
    typer.echo(
        f"Answer with `mdmem confirm {first} VALUE` (the right value now), `--keep` (the value"
        " shown still holds) or `--reject` (it no longer does).",
        err=True,
    )


class GraphFormat(StrEnum):
    tree = "tree"
    mermaid = "mermaid"
    dot = "dot"


@command()
def graph(
    fmt: Annotated[
        GraphFormat, typer.Option("--format", help="tree, mermaid or dot.")
    ] = GraphFormat.tree,
    vault: VaultOpt = None,
) -> None:
    """Draw the dependency graph: declared in rules.yaml and learned from conversation."""
    v = open_vault(vault)
    g = v.graph()
    if fmt is GraphFormat.mermaid:
        typer.echo(render.graph_mermaid(g), nl=False)
    elif fmt is GraphFormat.dot:
        typer.echo(render.graph_dot(g), nl=False)
    else:
        render.stdout.print(render.graph_tree(g, list(v.rules.attributes)))


@command()
def check(vault: VaultOpt = None, as_json: JsonOpt = False) -> None:
    """Validate rules.yaml and every fact file; exit 1 on any problem."""
    from mdmem.commands.plain import check_report

    v = open_vault(vault)
    out, err, code = check_report(v, v.check(), as_json)
    for line in out:
        typer.echo(line)
    for line in err:
        typer.echo(line, err=True)
    if code:
        raise typer.Exit(code)
