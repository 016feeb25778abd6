"""`ingest --llm MODEL`: candidate facts from a model, each checked before anything is written.

litellm is imported by `mdmem.llm` only inside the function that calls a model (the import
costs seconds), so choosing this finder costs nothing until its first call. One call reads a
chunk of a session (`model_prompt`), answers constrained by a JSON schema; each candidate
names its message and is normalised and checked on its own (`model_check`): a bad one is
refused with a note, its siblings are kept. A failed call (timeout after the retries, a
malformed answer) is an error for the messages of its chunk only; ingest then records the
others as applied and a re-run sends only those. Answers are cached (`model_cache`).
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Collection, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from mdmem.errors import MdmemError
from mdmem.extract.finder import Extraction, Finder
from mdmem.extract.model_cache import AnswerCache, request_key
from mdmem.extract.model_check import INJECTION, Reading, Refused, checked, normalise
from mdmem.extract.model_prompt import (
    Chunk,
    answer_schema,
    chunks,
    max_tokens,
    system_prompt,
    user_prompt,
)
from mdmem.extract.model_prompt import schema as schema  # re-exported: the schema as shown
from mdmem.extract.rule_finder import rule_patterns
from mdmem.extract.speakers import speaker_entities
from mdmem.extract.transcript import Message
from mdmem.extract.weigh import Extractor
from mdmem.llm import LLMError, Usage, call_with_retries
from mdmem.model.factfile import Fact
from mdmem.model.rules import Rules

TIMEOUT = "__timeout__"  # a canned answer that makes litellm raise its Timeout (tests)
ENV = {  # option → environment variable (the CLI's flags win over these)
    "timeout": "MDMEM_LLM_TIMEOUT", "retries": "MDMEM_LLM_RETRIES",
    "concurrency": "MDMEM_LLM_CONCURRENCY", "chunk": "MDMEM_LLM_CHUNK",
}  # fmt: skip
OPTIONS = ("timeout", "retries", "backoff", "concurrency", "chunk", "window", "max_tokens", "cache_dir")


@dataclass
class LLMConfig:
    """A model to extract with. `mock_responses` are canned answers for tests (litellm's own
    `mock_response`, so the real client code runs), used in order, one per attempt."""

    model: str
    api_base: str | None = None
    timeout: float = 120.0  # a small local model on two cores takes 20-60 s a call
    retries: int = 2
    backoff: float = 5.0  # seconds before the first retry; doubled for each next one
    concurrency: int = 1  # calls at once: a local server computes one at a time anyway
    chunk: int = 8  # the person's messages per call
    window: int = 6  # earlier messages shown as context
    max_tokens: int | None = None  # None: room for a few facts per message of the chunk
    cache_dir: Path | None = None  # None: no cache
    mock_responses: list[Any] | None = None
    calls: list[dict[str, Any]] = field(default_factory=list)  # the requests sent, for tests
    usage: Usage = field(default_factory=Usage)


def parse_answer(text: str) -> list[Any]:
    """The candidate list of a JSON answer ({"facts": [...]}, a bare list, a fenced block)."""
    body = text.strip()
    if body.startswith("```"):
        body = body.split("\n", 1)[1] if "\n" in body else ""
        body = body.rsplit("```", 1)[0]
    try:
        data = json.loads(body)
    except json.JSONDecodeError as e:
        raise LLMError(f"malformed answer (not JSON: {e.msg} at column {e.colno})") from None
    except (RecursionError, ValueError):  # nested past the stack, or a 5,000-digit number
        raise LLMError("malformed answer (nested too deeply, or a number too long)") from None
    if isinstance(data, dict) and isinstance(data.get("facts"), list):
        data = data["facts"]
    if not isinstance(data, list):
        raise LLMError('malformed answer: expected {"facts": [ {…}, … ]}')
    return data


@dataclass
class _Request:
    chunk: Chunk
    messages: list[dict[str, str]]
    options: dict[str, Any]
    key: str
    answer: str | None = None
    error: str | None = None
    cached: bool = False  # the answer came from the cache: nothing to keep


@dataclass
class ModelFinder:
    """The model finder: candidates of the people's messages from a model, then weighed like
    the rule finder's. litellm is imported on the first model call, not before."""

    config: LLMConfig
    takes_targets = True  # ingest may name the messages to extract; the rest are context

    def __call__(self, messages: list[Message], rules: Rules, facts: Mapping[str, Fact], *,
                 source: str, default_date: str,
                 targets: Collection[int] | None = None) -> Extraction:  # fmt: skip
        """Statements of `messages` (only those whose line is in `targets`, when given); a
        message whose call failed goes to `errors`, a refused candidate to `notes`."""
        cfg = self.config
        requests = self.requests(messages, rules, facts, default_date, targets)
        self._answer(requests)
        ex = Extractor(rules, facts, source=source, default_date=default_date)
        entities = speaker_entities(messages)
        known = sorted({f.entity for f in facts.values()})
        patterns = rule_patterns(rules)
        for req in requests:
            candidates: list[Any] = []
            error = req.error
            if error is None and req.answer is not None:
                try:
                    candidates = parse_answer(req.answer)
                except LLMError as e:
                    error = str(e)
                else:
                    if cfg.cache_dir is not None and not req.cached:
                        AnswerCache(cfg.cache_dir).put(req.key, cfg.model, req.answer)
            if error is not None:
                for m in req.chunk.targets:
                    ex.errors.append(f"{source}:{m.line}: {error}; nothing from this message was written")  # fmt: skip
                continue
            by_message = _assign(candidates, req.chunk, ex.notes)
            for m in req.chunk.targets:
                entity = entities.get(m.speaker.casefold(), "user")
                if INJECTION.search(m.text):
                    ex.errors.append(f"{source}:{m.line}: the message reads like an instruction to the model, not a statement of fact; nothing from this message was written")  # fmt: skip
                    continue
                found = []
                reading = Reading(m, ex.resolver, patterns, lambda key: _held(ex, key), entity)
                for item in by_message.get(m.line, []):
                    try:
                        for c in _expand(normalise(item, rules, m.speaker, known)):
                            found.append(checked(c, m, rules, ex.resolver, patterns, reading))
                    except Refused as e:
                        ex.notes.append(f"L{m.line}: model candidate refused: {e}")
                ex.message(m, entity, found)
        return ex.result()

    def requests(self, messages: list[Message], rules: Rules, facts: Mapping[str, Fact],
                 default_date: str, targets: Collection[int] | None = None) -> list[_Request]:  # fmt: skip
        """The calls this transcript needs, prompts built, none sent (bench_llm counts them)."""
        cfg = self.config
        system = system_prompt(rules)
        out = []
        for chunk in chunks(messages, targets, size=cfg.chunk, window=cfg.window):
            date = (chunk.targets[0].time or default_date)[:10]
            sent = [{"role": "system", "content": system},
                    {"role": "user", "content": user_prompt(chunk, rules, facts, date)}]  # fmt: skip
            options = {"response_format": answer_schema(),
                       "max_tokens": cfg.max_tokens or max_tokens(chunk)}  # fmt: skip
            out.append(_Request(chunk, sent, options, request_key(cfg.model, {"messages": sent, **options})))  # fmt: skip
        return out

    def _answer(self, requests: list[_Request]) -> None:
        """Fill each request's answer (from the cache, or a call) or error."""
        cfg = self.config
        cache = AnswerCache(cfg.cache_dir) if cfg.cache_dir is not None else None
        todo = []
        for req in requests:
            hit = cache.get(req.key) if cache is not None else None
            if hit is not None:
                req.answer, req.cached = hit, True
                cfg.usage.cached += 1
            else:
                todo.append(req)
                cfg.calls.append({"model": cfg.model, "messages": req.messages,
                                  "timeout": cfg.timeout, **req.options})  # fmt: skip
        canned = threading.Lock()

        def attempt() -> dict[str, Any]:
            if cfg.mock_responses is None:
                return {}
            with canned:
                if not cfg.mock_responses:
                    raise LLMError("no canned answer left for this call")
                answer = cfg.mock_responses.pop(0)
            return {"mock_timeout": True} if answer == TIMEOUT else {"mock_response": answer}

        def one(req: _Request) -> None:
            try:
                done = call_with_retries(
                    cfg.model, req.messages, retries=cfg.retries, backoff=cfg.backoff,
                    attempt_options=attempt, usage=cfg.usage, api_base=cfg.api_base,
                    timeout=cfg.timeout, **req.options,
                )  # fmt: skip
                req.answer = done.text
            except LLMError as e:
                req.error = str(e)

        workers = 1 if cfg.mock_responses is not None else max(1, cfg.concurrency)
        if workers == 1 or len(todo) < 2:
            for req in todo:
                one(req)
        else:
            with ThreadPoolExecutor(max_workers=workers) as pool:
                list(pool.map(one, todo))


def _assign(candidates: list[Any], chunk: Chunk, notes: list[str]) -> dict[int, list[Any]]:
    """Candidates by the line of the message they name; one that names none is matched by
    its quote or value, and refused (a note) when that does not single out one message."""
    ids = chunk.ids()
    out: dict[int, list[Any]] = {}
    for item in candidates:
        named = item.get("message") if isinstance(item, dict) else None
        key = f"L{str(named).strip().lstrip('Ll#m').strip()}" if named not in (None, "") else None
        msg = ids.get(key) if key else None
        if msg is None and len(chunk.targets) == 1 and (named in (None, "") or key in ids):
            msg = chunk.targets[0]
        if msg is None and isinstance(item, dict):
            hints = [h for h in (item.get("quote"), item.get("value")) if isinstance(h, str) and h]
            hits = [m for m in chunk.targets if any(h in m.text for h in hints)]
            msg = hits[0] if len(hits) == 1 else None
        if msg is None:
            where = f"names message {named!r}, not one of {', '.join(ids)}" if named else "names no message"
            notes.append(f"L{chunk.targets[0].line}: model candidate refused: it {where}")
            continue
        out.setdefault(msg.line, []).append(item)
    return out


def _held(ex: Extractor, key: str) -> Any:
    """The value the slot holds now, as the batch so far left it (None: nothing current)."""
    slot = ex.state.get(key)
    return slot.value if slot is not None and slot.status in ("active", "tentative", "uncertain") else None


def _expand(c: dict[str, Any]) -> list[dict[str, Any]]:
    """A list said of a many-valued attribute, one candidate per item."""
    if c["kind"] == "assert" and isinstance(c["value"], list):
        return [{**c, "value": v} for v in c["value"]]
    return [c]


def settings(options: dict[str, Any]) -> dict[str, Any]:
    """The finder's options, with MDMEM_LLM_* from the environment where not given."""
    out = dict(options)
    for name, var in ENV.items():
        raw = os.environ.get(var)
        if out.get(name) is None and raw:
            try:
                out[name] = float(raw) if name == "timeout" else int(raw)
            except ValueError:
                raise MdmemError(f"{var}={raw!r} is not a number; unset it or give one") from None
    return {k: v for k, v in out.items() if v is not None}


def model_finder(model: str | LLMConfig | None = None, api_base: str | None = None,
                 **options: Any) -> Finder:  # fmt: skip
    """The `model` finder (entry point `mdmem.finders`): a litellm model name or an LLMConfig;
    `api_base` is the server's URL, other options are LLMConfig's (see OPTIONS)."""
    if model is None:
        raise MdmemError("the model finder needs a model: pass model=NAME (the CLI: --llm MODEL)")
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise MdmemError(f"the model finder has no option {', '.join(unknown)}; it takes model, api_base, {', '.join(OPTIONS)}")  # fmt: skip
    given = {k: v for k, v in options.items() if v is not None}
    if isinstance(model, LLMConfig):
        cfg = replace(model, **given) if given else model  # the caller's canned answers, calls
    else:
        cfg = LLMConfig(model, **settings(options))
    if api_base and not cfg.api_base:
        cfg.api_base = api_base
    for name, least in (("retries", 0), ("chunk", 1), ("window", 0), ("concurrency", 1)):
        if int(getattr(cfg, name)) < least:
            raise MdmemError(f"the model finder's {name} must be at least {least}")
    return ModelFinder(cfg)
