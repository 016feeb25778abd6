"""Run evaluation scenarios in throwaway vaults and score each probe by its task type (docs/eval.md)."""

from __future__ import annotations

import tempfile
import time
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mdmem.errors import MdmemError
from mdmem.eval.check import check, normalize, wording
from mdmem.eval.check import locate as locate  # re-exported: scoring lives in check.py
from mdmem.eval.check import says_any as says_any
from mdmem.eval.check import show as show
from mdmem.eval.scenario import (
    GATED,
    LANGS,
    TYPES,
    Probe,
    Scenario,
    find_scenarios,
    load_scenario,
    scenario_from_mapping,
)
from mdmem.model.yaml_text import dump_yaml

if TYPE_CHECKING:
    from mdmem.extract.finder import Finder

Ingest = Callable[..., Any]  # (vault, text, *, source, date, llm) -> IngestResult
Answerer = Callable[..., str]  # (vault, question, *, as_of, llm) -> answer text


@dataclass
class ProbeResult:
    probe: Probe
    answer: str
    reasons: list[str]  # why it failed on its own
    role: str = "plain"  # plain | gated (has a before-change probe) | before (is one)
    gate: ProbeResult | None = None
    error: str | None = None

    @property
    def passed(self) -> bool:
        own = not self.reasons and self.error is None
        return own and (self.gate is None or self.gate.passed)

    @property
    def counted_as(self) -> str:
        """The task type the report counts it under: before-change probes score as recall."""
        return "recall" if self.role == "before" else self.probe.type

    def why(self) -> list[str]:
        out = list(self.reasons)
        if self.error:
            out.append(self.error)
        if self.gate is not None and not self.gate.passed:
            g = self.gate.probe
            out.append(
                f"its before-change probe (probe {g.index + 1}, after session {g.after}) failed"
            )
        return out

    def to_json(self) -> dict[str, Any]:
        p = self.probe
        return {
            "probe": p.index + 1, "line": p.line, "ask": p.ask, "type": p.type,
            "counted_as": self.counted_as, "role": self.role, "after": p.after, "as_of": p.as_of,
            "answer": self.answer, "passed": self.passed, "why": self.why(),
        }  # fmt: skip


def score(probes: list[Probe], answers: dict[int, str], words: Any = None) -> list[ProbeResult]:
    """Score answers (by probe index) with the before-change gate; results in probe order."""
    words = words or wording()
    results = {p.index: ProbeResult(p, answers.get(p.index, ""), []) for p in probes}
    for p in probes:
        if p.index not in answers:
            results[p.index].error = "not asked"
        else:
            results[p.index].reasons = check(answers[p.index], p, words)
    for p in probes:
        if p.type not in GATED:
            continue
        earlier = [q for q in probes if q.after < p.after and normalize(q.ask) == normalize(p.ask)]
        if earlier:
            gate = max(earlier, key=lambda q: (q.after, q.index))
            results[p.index].gate = results[gate.index]
            results[p.index].role = "gated"
    for r in results.values():  # a gate that is not gated itself is a before-change probe
        if r.gate is not None and r.gate.role == "plain":
            r.gate.role = "before"
    return [results[p.index] for p in probes]


@dataclass
class ScenarioResult:
    path: str
    scenario: Scenario | None = None
    probes: list[ProbeResult] = field(default_factory=list)
    error: str | None = None
    seconds: float = 0.0
    failed: list[str] = field(default_factory=list)  # messages whose ingest failed (facts missing)

    @property
    def lang(self) -> str:
        return self.scenario.lang if self.scenario else "?"


def run_scenario(
    scenario: Scenario,
    *,
    llm: str | None = None,
    extractor: Finder | None = None,
    ingest: Ingest | None = None,
    answer: Answerer | None = None,
    answer_llm: str | None = None,
) -> ScenarioResult:
    """Run one scenario in a fresh temporary vault; ingest/answer default to mdmem's own.
    mdmem's ingest finds statements with `extractor`, else with the finder `llm` names; the
    answers come from `answer_llm` when given, else `llm`. A message whose ingest failed (a
    model timeout, a malformed answer) is recorded in `failed`: its facts count as missing."""
    from mdmem.store.vault import Vault

    if ingest is None:
        ingest = default_ingest() if extractor is None else default_ingest(extractor)
    answer = answer or ask_text
    answer_llm = answer_llm or llm
    started = time.perf_counter()
    result = ScenarioResult(scenario.path, scenario)
    answers: dict[int, str] = {}
    with tempfile.TemporaryDirectory(prefix="mdmem-eval-") as tmp:
        pack = scenario.rules
        if isinstance(pack, dict):
            inline = Path(tmp) / "rules.yaml"
            inline.write_text(dump_yaml(pack), encoding="utf-8")
            pack = str(inline)
        vault = Vault.create(Path(tmp) / "vault", pack)
        for number, session in enumerate(scenario.sessions, start=1):
            # The clock stands at the session's date, as if each were a day of real use. One
            # Vault object serves every session so the rules are parsed once per scenario.
            vault._now = _clock(session.date)
            source = f"sessions/{number:02d}-{session.date[:10]}.md"
            out = ingest(vault, session.transcript, source=source, date=session.date[:10], llm=llm)
            errors = getattr(out, "errors", None)
            if errors:
                result.failed += [f"{scenario.path}: session {number}: {e}" for e in errors]
            vault.scan(refresh=True)  # read what the ingest wrote, as a new `mdmem ask` would
            for probe in scenario.probes:
                if probe.after == number:
                    answers[probe.index] = answer(vault, probe.ask, as_of=probe.as_of, llm=answer_llm)
    result.probes = score(scenario.probes, answers)
    result.seconds = time.perf_counter() - started
    return result


def default_ingest(extractor: Finder | None = None) -> Ingest:
    """mdmem's own ingest, finding statements with `extractor`, or else with the finder the
    `llm` it is called with names (`finder_for`: the rules without one). Imported late: it is
    another module's work and may pull in more."""
    from mdmem.edit.ingest import ingest_text
    from mdmem.extract.plugins import finder_for

    def ingest(vault: Any, text: str, *, source: str, date: str, llm: str | None = None) -> Any:
        finder = extractor or finder_for(llm)
        return ingest_text(vault, text, source=source, date=date, extractor=finder)

    return ingest


def ask_text(vault: Any, question: str, *, as_of: str | None = None, llm: str | None = None,
             api_base: str | None = None, llm_options: dict[str, Any] | None = None) -> str:  # fmt: skip
    """The answer `mdmem ask` would print, as text."""
    from mdmem.read.ask import ask

    return ask(vault, question, as_of=as_of, llm=llm, api_base=api_base, llm_options=llm_options).text


def _clock(date: str) -> str:
    if len(date) == 10:
        return f"{date}T12:00:00Z"
    return date if date.endswith("Z") else date.replace(" ", "T") + "Z"


def evaluate(
    paths: Iterable[Path | str],
    *,
    llm: str | None = None,
    extractor: Finder | None = None,
    ingest: Ingest | None = None,
    answer: Answerer | None = None,
    progress: Callable[[ScenarioResult], None] | None = None,
    answer_llm: str | None = None,
) -> Report:
    """Run every scenario file under paths; one that cannot be loaded or run is reported, not fatal.
    `llm` extracts and answers; `extractor`, when given, finds the statements instead, and
    `answer_llm`, when given, answers instead (so each can be measured alone)."""
    report = Report()
    files: list[Path | ScenarioResult] = []
    for arg in paths:  # a missing path is reported like a broken file: the others still run
        try:
            files.extend(find_scenarios([arg]))
        except MdmemError as e:
            files.append(ScenarioResult(str(arg), error=str(e)))
    for path in files:
        try:
            scenarios = [path] if isinstance(path, ScenarioResult) else load_scenarios(path)
        except MdmemError as e:
            scenarios = [ScenarioResult(str(path), error=str(e))]
        for scenario in scenarios:
            res = (
                scenario
                if isinstance(scenario, ScenarioResult)
                else _run(scenario, llm, extractor, ingest, answer, answer_llm)
            )
            report.results.append(res)
            if progress is not None:
                progress(res)
    return report


def load_scenarios(path: Path) -> list[Scenario | ScenarioResult]:
    """The scenarios of one file: a scenario YAML, or MEME episodes (.json / .jsonl)."""
    if path.suffix not in (".json", ".jsonl"):
        return [load_scenario(path)]
    from mdmem.eval.meme import load_meme, meme_to_scenario

    out: list[Scenario | ScenarioResult] = []
    for i, episode in enumerate(load_meme(path), start=1):
        where = f"{path}#{i}"
        try:
            out.append(
                scenario_from_mapping(meme_to_scenario(episode, name=f"{path.stem}-{i}"), where)
            )
        except MdmemError as e:  # one bad episode must not hide the others
            out.append(ScenarioResult(where, error=str(e)))
    return out


def _run(scenario: Scenario, llm: str | None, extractor: Finder | None, ingest: Ingest | None,
         answer: Answerer | None, answer_llm: str | None = None) -> ScenarioResult:  # fmt: skip
    try:
        return run_scenario(scenario, llm=llm, extractor=extractor, ingest=ingest, answer=answer,
                            answer_llm=answer_llm)  # fmt: skip
    except MdmemError as e:
        return ScenarioResult(scenario.path, scenario, error=str(e))
    except Exception as e:  # noqa: BLE001 - a crash in one scenario is reported with its
        # traceback and makes the run exit 1; the other scenarios are still measured.
        tb = traceback.format_exc(limit=-3)
        return ScenarioResult(
            scenario.path, scenario, error=f"crashed: {type(e).__name__}: {e}\n{tb}"
        )


def _tally(results: Iterable[ProbeResult]) -> dict[str, Any]:
    rs = list(results)
    passed = sum(r.passed for r in rs)
    return {
        "probes": len(rs),
        "passed": passed,
        "accuracy": round(passed / len(rs), 4) if rs else None,
    }


@dataclass
class Report:
    results: list[ScenarioResult] = field(default_factory=list)

    @property
    def errors(self) -> list[ScenarioResult]:
        return [r for r in self.results if r.error]

    @property
    def failed_messages(self) -> list[str]:
        """Every message whose ingest failed; its facts were counted as missing."""
        return [f for r in self.results for f in r.failed]

    def probe_results(self, lang: str | None = None) -> list[ProbeResult]:
        return [p for r in self.results if lang in (None, r.lang) for p in r.probes]

    def by_type(self, lang: str | None = None) -> dict[str, dict[str, Any]]:
        """Accuracy per task type (only the types that have probes), in the order docs/eval.md lists them."""
        probes = self.probe_results(lang)
        out = {}
        for kind in TYPES:
            mine = [p for p in probes if p.counted_as == kind]
            if mine:
                out[kind] = _tally(mine)
        return out

    def overall(self, lang: str | None = None) -> dict[str, Any]:
        return _tally(self.probe_results(lang))

    def langs(self) -> list[str]:
        return [lang for lang in LANGS if any(r.lang == lang for r in self.results if r.probes)]

    def gate(self) -> dict[str, Any]:
        """The before-change gate: gated probes apart from the before-change probes themselves."""
        probes = self.probe_results()
        gated = [p for p in probes if p.role == "gated"]
        before = [p for p in probes if p.role == "before"]
        blocked = [p for p in gated if not p.reasons and not p.error and not p.passed]
        return {
            "gated": _tally(gated),
            "before_change": _tally(before),
            "blocked_by_gate": len(blocked),
        }

    def failures(self) -> list[tuple[ScenarioResult, ProbeResult]]:
        return [(r, p) for r in self.results for p in r.probes if not p.passed]

    def to_json(self) -> dict[str, Any]:
        return {
            "scenarios": len(self.results),
            "ran": len(self.results) - len(self.errors),
            "overall": self.overall(),
            "by_type": self.by_type(),
            "by_lang": {lang: {"overall": self.overall(lang), "by_type": self.by_type(lang)}
                        for lang in self.langs()},
            "gate": self.gate(),
            "errors": [{"path": r.path, "error": r.error} for r in self.errors],
            "failed_messages": self.failed_messages,
            "results": [
                {"path": r.path, "name": r.scenario.name, "lang": r.lang,
                 "seconds": round(r.seconds, 3), "probes": [p.to_json() for p in r.probes]}
                for r in self.results if r.scenario is not None and not r.error
            ],
        }  # fmt: skip
