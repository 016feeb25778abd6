"""ask, context, timeline: reading memory back (none of them imports litellm unless --llm)."""

from __future__ import annotations

import io
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from mdmem.commands.app import JsonOpt, VaultOpt, command, date_option, open_vault, print_json
from mdmem.files import atomic_write
from mdmem.model.slug import check_slug, split_key
from mdmem.store.vault import Vault

AsOfOpt = Annotated[
    str | None,
    typer.Option(
        "--as-of", callback=date_option("--as-of", end=True),
        help="Answer as of this day (2025-06-01), the end of this month (2025-06) or year, or words ('last month').",
    ),
]  # fmt: skip
EntityFilter = Annotated[
    str | None, typer.Option("--entity", "-e", help="Only this entity (default: all).")
]


@command()
def ask(
    question: Annotated[str, typer.Argument(help="The question, in English or Chinese.")],
    as_of: AsOfOpt = None,
    entity: Annotated[
        str | None,
        typer.Option(
            "--entity", "-e", help="Whom the question is about (default: as named, else user)."
        ),
    ] = None,
    llm: Annotated[
        str | None,
        typer.Option(
            "--llm", help="Have this model (litellm name) phrase the answer from the same facts."
        ),
    ] = None,
    api_base: Annotated[
        str | None, typer.Option("--api-base", help="The model server's URL (with --llm).")
    ] = None,
    evidence: Annotated[
        int, typer.Option("--evidence", min=0, help="Quote this many passages after the answer.")
    ] = 2,
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Answer a question from memory: current state first, history when asked."""
    from mdmem.read.ask import ask as ask_vault

    if entity is not None:
        entity = check_slug(entity, "entity")
    answer = ask_vault(open_vault(vault), question, as_of=as_of, entity=entity, llm=llm,
                       api_base=api_base, evidence=evidence)  # fmt: skip
    if as_json:
        print_json(answer.to_json())
    else:
        typer.echo(answer.text)


class ContextFormat(StrEnum):
    md = "md"
    json = "json"


@command()
def context(
    fmt: Annotated[
        ContextFormat, typer.Option("--format", help="md (for a prompt) or json.")
    ] = ContextFormat.md,
    max_chars: Annotated[
        int | None,
        typer.Option(
            "--max-chars", min=200, help="Keep the most important part within N characters."
        ),
    ] = None,
    entity: EntityFilter = None,
    query: Annotated[
        str | None,
        typer.Option("--query", help="Also quote what was said that bears on this question."),
    ] = None,
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """The whole current memory as one Markdown document for an agent's prompt."""
    from mdmem.read.ask import ask as ask_vault
    from mdmem.read.context import answer_markdown, build_context
    from mdmem.read.index import indexed_facts

    v = open_vault(vault)
    if entity is not None:
        entity = check_slug(entity, "entity")
    ctx = build_context(indexed_facts(v.root), v.rules, v.journal.entries(), now=v.now,
                        entity=entity, max_chars=max_chars, present=_present(v))  # fmt: skip
    answer = ask_vault(v, query, entity=entity) if query else None
    if as_json or fmt is ContextFormat.json:
        data = ctx.to_json()
        if answer is not None:
            data["answer"] = answer.to_json()
            data["passages"] = answer.evidence
        print_json(data)
    else:
        section = answer_markdown(answer) if answer is not None else ""
        typer.echo(ctx.to_markdown() + ("\n" + section if section else ""), nl=False)


class TimelineFormat(StrEnum):
    table = "table"
    md = "md"
    json = "json"
    mermaid = "mermaid"
    svg = "svg"


@command()
def timeline(
    attribute: Annotated[
        str | None, typer.Argument(help="Only this attribute (or entity/attribute).")
    ] = None,
    entity: EntityFilter = None,
    since: Annotated[
        str | None,
        typer.Option("--since", callback=date_option("--since"), help="From this day (or month, year, 'last month') on."),
    ] = None,
    until: Annotated[
        str | None,
        typer.Option("--until", callback=date_option("--until", end=True), help="Up to this day (or the end of this month, year)."),
    ] = None,
    fmt: Annotated[
        TimelineFormat, typer.Option("--format", help="table, md, json, mermaid or svg.")
    ] = TimelineFormat.table,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write to this file instead of stdout.")
    ] = None,
    vault: VaultOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Every value change in time order with its cause; cascades grouped under their cause."""
    from mdmem.commands import render  # rich loads for the table only, not for ask
    from mdmem.read.index import indexed_facts
    from mdmem.read.timeline import build_timeline
    from mdmem.read.timeline_formats import gantt_rows, to_json, to_markdown, to_mermaid, to_table
    from mdmem.read.timeline_svg import to_svg

    v = open_vault(vault)
    if attribute is not None and "/" in attribute:
        entity, attribute = split_key(attribute)
    elif attribute is not None:
        attribute = check_slug(attribute)
    if entity is not None:
        entity = check_slug(entity, "entity")
    if as_json:
        fmt = TimelineFormat.json
    facts, today = indexed_facts(v.root), v.now[:10]
    window = {"attribute": attribute, "entity": entity, "since": since, "until": until}
    if fmt in (TimelineFormat.mermaid, TimelineFormat.svg):
        rows = gantt_rows(facts, today=today, **window)
        text = to_mermaid(rows) if fmt is TimelineFormat.mermaid else to_svg(rows, today=today)
    else:
        heads = build_timeline(facts, v.journal.entries(), present=_present(v), **window)
        if fmt is TimelineFormat.json:
            text = to_json(heads)
        elif fmt is TimelineFormat.md:
            text = to_markdown(heads)
        elif output is None:
            if heads:
                render.print_table(to_table(heads), wrap=3)
            else:
                typer.echo("No changes recorded.", err=True)
            return
        else:  # a file is not a terminal: tab-separated rows, nothing cut
            from rich.console import Console

            buf = Console(file=io.StringIO(), color_system=None)
            render.print_table(to_table(heads), buf)
            text = buf.file.getvalue()  # type: ignore[attr-defined]
    if output is None:
        typer.echo(text, nl=False)
    else:
        atomic_write(output, text)
        typer.echo(f"Wrote {output}.", err=True)


def _present(v: Vault) -> set[str]:
    """Keys of every fact file on disk, parsed or not (a broken file is not a forgotten fact)."""
    files = v.fact_files()
    return {f"{p.parent.name}/{p.stem}" for p in files}
