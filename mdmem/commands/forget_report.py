"""What `mdmem forget` prints: the changes, and which words of which messages go (`--dry-run`
shows the words themselves, before anything is written; a forget that ran only says where)."""

from __future__ import annotations

import typer

from mdmem.commands import render
from mdmem.commands.app import print_json, report_result
from mdmem.engine import describe
from mdmem.store.forget_apply import Forgot


def report_forget(result: Forgot, as_json: bool) -> None:
    if as_json:
        data = describe.result_json(result)
        data["cuts"] = [c.to_json(words=result.dry_run) for c in result.cuts]
        data |= {"bodies": result.files, "purged": result.purged, "notes": result.notes}
        print_json(data)
        return
    if result.plan.changes or not result.cuts:
        report_result(result, False)
    if result.dry_run:
        for c in result.cuts:
            render.stdout.print(f"CUT       {render.escape(c.episode)}#^{c.anchor}  “{render.escape(c.text)}”")
        for rel in result.files:
            render.stdout.print(f"CUT       {render.escape(rel)}  (the words, from your notes)")
        if (result.cuts or result.files) and not result.plan.changes:  # else said with the changes
            typer.echo("(dry run: nothing was written)", err=True)
    elif result.cuts:
        files = len({c.episode for c in result.cuts})
        typer.echo(
            f"Cut {len(result.cuts)} span{'s' * (len(result.cuts) != 1)} from {files} episode"
            f" file{'s' * (files != 1)}; mdmem keeps no copy of those words, so `undo` cannot bring them back.",
            err=True,
        )
        if not result.plan.changes and result.entry:
            typer.echo(f"Journal entry {result.entry['id']}.", err=True)
    if result.purged:
        typer.echo(f"Purged {result.purged} journal record{'s' * (result.purged != 1)}.", err=True)
    for note in result.notes:
        typer.echo(f"Note: {note}", err=True)
