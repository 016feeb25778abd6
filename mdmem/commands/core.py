"""init, set, forget, show, pending, confirm, graph, check."""

from __future__ import annotations

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
    NewOpt,
    VaultOpt,
    WaitOpt,
    command,
    err,
    open_vault,
    print_json,
    report_result,
    say,
)
from mdmem.errors import RefusedError
from mdmem.lang.detect import asked
from mdmem.model.slug import split_key
from mdmem.store.check import refused
from mdmem.store.names import did_you_mean, known_names
from mdmem.store.vault import Vault


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
    new: NewOpt = False,
    vault: VaultOpt = None,
    wait: WaitOpt = 10.0,
    dry_run: DryRunOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """State a fact, as if the person said it; dependents cascade."""
    entity, attribute = split_key(attribute, entity)
    v = open_vault(vault, wait)
    report_result(v.set(attribute, value, entity=entity, date=date, dry_run=dry_run,
                        tentative=tentative, new=new), as_json)  # fmt: skip


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
    everything: Annotated[
        bool, typer.Option("--all", help="Forget every fact and every message (try --dry-run first).")
    ] = False,
    vault: VaultOpt = None,
    wait: WaitOpt = 10.0,
    dry_run: DryRunOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Forget a fact (or, with --text, some words; --all, everything) at the person's request; a
    tombstone stays, dependents become uncertain, and the statements that said it show
    '[forgotten]'."""
    if sum([attribute is not None, text is not None, everything]) != 1:
        raise typer.BadParameter("give one of ATTRIBUTE, --text PHRASE or --all")
    v = open_vault(vault, wait)
    from mdmem.commands.forget_report import report_forget
    from mdmem.edit import forget as forgetting

    if everything:
        report_forget(forgetting.forget_all(v, purge=purge, dry_run=dry_run), as_json)
        return
    if text is not None:
        report_forget(forgetting.forget_text(v, text, purge=purge, dry_run=dry_run), as_json)
        return
    assert attribute is not None
    entity, attribute = split_key(attribute, entity)
    report_forget(forgetting.forget(v, attribute, entity=entity, purge=purge, dry_run=dry_run), as_json)


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
        if (why := refused(v, f"{ent}/{attr}")) is not None:
            raise RefusedError(str(why))
        fact = v.get(attr, ent)
        if fact is None:
            typer.echo(f"No fact {ent}/{attr}{did_you_mean(attr, known_names(v.rules, facts))}.", err=True)
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
    items = asked(open_vault(vault).pending(), lang.value if lang else None)
    if as_json:
        print_json({"pending": items})  # the shape of the MCP `pending` tool
        return
    if not items:
        typer.echo("Nothing pending.", err=True)
        return
    for p in items:
        render.prose(f"[yellow]{p['fact']}[/] ({p['status']}): {render.escape(p['ask'])}")
    err(_how_to_answer([p["fact"] for p in items]))


def _how_to_answer(keys: list[str]) -> str:
    """How to answer the questions listed: a fact's by its value, a plan's by whether it
    happened. With one question its key is named; with several, FACT or PLAN stands for any."""
    plans = [k for k in keys if "/plan-" in k]  # a plan's question: did it happen?
    values = [k for k in keys if "/plan-" not in k]
    lines = []
    if values:
        key = values[0] if len(values) == 1 else "FACT"
        lines.append(f"Answer with `mdmem confirm {key} VALUE` (the right value now), `--keep`"
                     " (the value shown still holds) or `--reject` (it no longer does).")  # fmt: skip
    if plans:
        key = plans[0] if len(plans) == 1 else "PLAN"
        lines.append(f"{'For a plan: ' if values else 'Answer with '}`mdmem confirm {key} --keep`"
                     " (it happened) or `--reject` (it did not).")  # fmt: skip
    if len(keys) > 1:
        lines[0] = lines[0].replace("Answer with", "Answer each, as listed above, with", 1)
    return "\n".join(lines)


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
    as_json: JsonOpt = False,
) -> None:
    """Draw the dependency graph: declared in rules.yaml and learned from conversation."""
    v = open_vault(vault)
    g = v.graph()
    if as_json:
        print_json(render.graph_json(g, list(v.rules.attributes)))
    elif fmt is GraphFormat.mermaid:
        typer.echo(render.graph_mermaid(g), nl=False)
    elif fmt is GraphFormat.dot:
        typer.echo(render.graph_dot(g), nl=False)
    else:
        render.stdout.print(render.graph_tree(g, list(v.rules.attributes)))


@command()
def check(vault: VaultOpt = None, as_json: JsonOpt = False) -> None:
    """Validate rules.yaml, the fact files, episodes and links; exit 1 on any problem."""
    from mdmem.commands.plain import check_report

    v = open_vault(vault)
    out, to_stderr, code = check_report(v, v.check(), as_json)
    for line in out:
        typer.echo(line) if as_json else say(line)
    for line in to_stderr:
        typer.echo(line, err=True)
    if code:
        raise typer.Exit(code)
