"""eval and eval-convert: measure memory quality on scenario files (docs/eval.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from mdmem.commands import render
from mdmem.commands.app import JsonOpt, command, print_json
from mdmem.commands.llm_options import (
    LLMConcurrencyOpt,
    LLMRetriesOpt,
    LLMTimeoutOpt,
    NoCacheOpt,
)
from mdmem.eval.evaluate import Report, ScenarioResult, evaluate
from mdmem.eval.scenario import ScenarioError

stderr = Console(stderr=True, highlight=False, soft_wrap=True)


def _pct(tally: dict[str, object]) -> str:
    acc = tally.get("accuracy")
    if acc is None:
        return "—"
    return f"{float(acc):.2f}  ({tally['passed']}/{tally['probes']})"  # type: ignore[arg-type]


def print_report(report: Report, *, verbose: bool = False) -> None:
    """The accuracy table per task type (overall and per language), then failures and errors."""
    langs = report.langs()
    table = Table(title="mdmem eval: accuracy per task type", title_justify="left")
    table.add_column("task type")
    table.add_column("all", justify="right")
    for lang in langs:
        table.add_column(lang, justify="right")
    per_lang = {lang: report.by_type(lang) for lang in langs}
    for kind, tally in report.by_type().items():
        table.add_row(kind, _pct(tally), *(_pct(per_lang[lg].get(kind, {})) for lg in langs))
    table.add_section()
    table.add_row(
        "[bold]overall[/]", _pct(report.overall()), *(_pct(report.overall(lg)) for lg in langs)
    )
    render.stdout.print(table)
    gate = report.gate()
    render.stdout.print(
        f"Before-change gate: {_pct(gate['gated'])} gated cascade/absence/deletion probes passed"
        f" ({gate['blocked_by_gate']} failed only because their before-change probe did);"
        f" before-change probes, counted as recall: {_pct(gate['before_change'])}."
    )
    ran = len(report.results) - len(report.errors)
    render.stdout.print(f"{ran} of {len(report.results)} scenarios ran.")
    failed = report.failed_messages
    if failed:
        render.stdout.print(
            f"{len(failed)} message(s) failed to ingest; their facts count as missing."
        )
        for line in failed if verbose else failed[:3]:
            stderr.print(f"[yellow]Failed:[/] {escape(line)}")
    if verbose:
        for res, p in report.failures():
            where = f"{res.path}:{p.probe.line}" if p.probe.line else res.path
            kind = p.probe.type + (", counted as recall" if p.role == "before" else "")
            when = f"after session {p.probe.after}" + (
                f", as of {p.probe.as_of}" if p.probe.as_of else ""
            )
            render.stdout.print(f"\n[bold red]FAIL[/] {escape(f'{where} [{kind}] {when}')}")
            render.stdout.print(f"  Q: {escape(p.probe.ask)}")
            render.stdout.print(f"  A: {escape(p.answer)}")
            for why in p.why():
                render.stdout.print(f"  ✗ {escape(why)}")
    for res in report.errors:
        stderr.print(f"[red]Error:[/] {escape(res.error or '')}")


@command("eval")
def eval_(
    paths: Annotated[
        list[Path],
        typer.Argument(help="Scenario files or folders of them (.json/.jsonl: MEME episodes)."),
    ],
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Show each failing probe and why.")
    ] = False,
    llm: Annotated[
        str | None, typer.Option("--llm", help="Extract and answer with this litellm model.")
    ] = None,
    llm_extract: Annotated[
        str | None, typer.Option("--llm-extract", help="Extract with this model; answer with the templates (or --llm-answer).")
    ] = None,
    llm_answer: Annotated[
        str | None, typer.Option("--llm-answer", help="Answer with this model; extract with the rules (or --llm-extract).")
    ] = None,
    api_base: Annotated[
        str | None, typer.Option("--api-base", help="URL of an OpenAI-compatible server for the models.")
    ] = None,
    llm_timeout: LLMTimeoutOpt = None,
    llm_retries: LLMRetriesOpt = None,
    llm_concurrency: LLMConcurrencyOpt = None,
    no_cache: NoCacheOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Run scenarios in throwaway vaults and report accuracy per task type."""

    def progress(res: ScenarioResult) -> None:
        if res.error and not as_json:
            return  # listed at the end
        if verbose and not as_json:
            failed = sum(not p.passed for p in res.probes)
            stderr.print(
                f"[dim]{escape(res.path)}: {len(res.probes) - failed}/{len(res.probes)}[/]"
            )

    extract_model, answer_model = llm_extract or llm, llm_answer or llm
    extractor = answer = None
    if extract_model:  # one finder for the whole run: one cache, one usage count
        from mdmem.extract.model_cache import user_cache_dir
        from mdmem.extract.plugins import finder_for

        extractor = finder_for(extract_model, api_base, timeout=llm_timeout, retries=llm_retries,
                               concurrency=llm_concurrency,
                               cache_dir=None if no_cache else user_cache_dir())  # fmt: skip
    if answer_model and api_base:
        import functools

        from mdmem.eval.evaluate import ask_text

        answer = functools.partial(ask_text, api_base=api_base, llm_options={"timeout": llm_timeout} if llm_timeout else None)  # fmt: skip
    report = evaluate(paths, llm=llm, extractor=extractor, answer=answer, answer_llm=answer_model,
                      progress=progress)  # fmt: skip
    usage = getattr(getattr(extractor, "config", None), "usage", None)
    if as_json:
        data = report.to_json()
        if usage is not None:
            data["usage"] = usage.to_json()
        print_json(data)
        for res in report.errors:
            stderr.print(f"[red]Error:[/] {escape(res.error or '')}")
    else:
        print_report(report, verbose=verbose)
    if usage is not None:
        stderr.print(escape(usage.summary()))
    if report.errors:
        raise typer.Exit(1)


@command("eval-convert")
def eval_convert(
    episodes: Annotated[list[Path], typer.Argument(help="MEME episode files (.json or .jsonl).")],
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Folder for the scenario files (default: print YAML)."),
    ] = None,
    rules: Annotated[
        str, typer.Option("--rules", help="The rule pack the scenarios name.")
    ] = "personal",
) -> None:
    """Convert MEME benchmark episodes into scenario YAML files for `mdmem eval`."""
    from mdmem.eval.meme import load_meme, meme_to_scenario
    from mdmem.eval.scenario import scenario_from_mapping
    from mdmem.files import atomic_write
    from mdmem.model.yaml_text import dump_yaml

    written = 0
    for path in episodes:
        for i, episode in enumerate(load_meme(path), start=1):
            mapping = meme_to_scenario(episode, name=f"{path.stem}-{i}", rules=rules)
            scenario_from_mapping(mapping, f"{path}#{i}")  # refuse what eval would refuse
            text = dump_yaml(mapping)
            if out is None:
                typer.echo("---\n" + text, nl=False)
                continue
            out.mkdir(parents=True, exist_ok=True)
            target = out / f"{_safe(mapping['name'])}.yaml"
            if target.exists():
                raise ScenarioError(f"{target} already exists; not overwriting it")
            atomic_write(target, text)
            written += 1
    if out is not None:
        stderr.print(f"Wrote {written} scenario file(s) to {out}.")


def _safe(name: str) -> str:
    from mdmem.model.slug import slugify

    return slugify(name) or "episode"
