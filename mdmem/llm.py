"""The one road to a model: a litellm completion, imported only when a model is asked for.

litellm costs seconds to import, so no read command and no default ingest may pay for it;
both the model finder (extract) and `ask --llm` (read) call `complete` or `call`.

A small local server keeps computing after a client gives up, so a call that timed out is
retried only after a pause that grows (backoff), and callers bound how many calls run at once.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, field
from typing import Any


class LLMError(Exception):
    """A model call or answer that cannot be used; `retryable` when trying again may help
    (a timeout, a dropped connection, a busy or failing server)."""

    def __init__(self, message: str, *, retryable: bool = False) -> None:
        super().__init__(message)
        self.retryable = retryable


@dataclass
class Usage:
    """What the model calls of a run cost: calls made, answers from the cache, tokens, time."""

    calls: int = 0
    cached: int = 0
    failed: int = 0
    retries: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    cost: float | None = None  # dollars, when litellm knows the model's price
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, prompt: int, completion: int, seconds: float, cost: float | None) -> None:
        """Count one answered call (thread-safe)."""
        with self._lock:
            self.calls += 1
            self.prompt_tokens += prompt
            self.completion_tokens += completion
            self.seconds += seconds
            if cost is not None:
                self.cost = (self.cost or 0.0) + cost

    def to_json(self) -> dict[str, Any]:
        return {
            "calls": self.calls, "cached": self.cached, "failed": self.failed,
            "retries": self.retries, "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens, "seconds": round(self.seconds, 2),
            "cost": None if self.cost is None else round(self.cost, 6),
        }  # fmt: skip

    def summary(self) -> str:
        """One line for people: 'model: 3 calls (1 cached), 2,100 + 300 tokens, 4.2 s, $0.0004'."""
        text = f"model: {self.calls} call{'s' * (self.calls != 1)}"
        extras = [f"{n} {w}" for n, w in ((self.cached, "cached"), (self.failed, "failed"),
                                           (self.retries, "retried")) if n]  # fmt: skip
        if extras:
            text += f" ({', '.join(extras)})"
        text += f", {self.prompt_tokens:,} prompt + {self.completion_tokens:,} completion tokens"
        text += f", {self.seconds:.1f} s"
        if self.cost is not None:
            text += f", ${self.cost:.4f}"
        return text


@dataclass(frozen=True)
class Completion:
    """One answered call: the text and what it cost."""

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    cost: float | None = None


def _import() -> tuple[Any, Any]:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no network at import
    import litellm  # noqa: PLC0415 - imported here only: it costs seconds
    import openai  # noqa: PLC0415 - litellm's exceptions derive from openai's

    litellm.suppress_debug_info = True
    return litellm, openai


def call(
    model: str,
    messages: list[dict[str, str]],
    *,
    api_base: str | None = None,
    timeout: float = 60.0,
    **options: Any,
) -> Completion:
    """One chat completion with its usage; LLMError with a readable reason on any failure."""
    litellm, openai = _import()
    kwargs: dict[str, Any] = {
        "model": model, "messages": messages, "timeout": timeout, "num_retries": 0,
        "temperature": 0, "drop_params": True, **options,
    }  # fmt: skip
    if api_base:
        kwargs["api_base"] = api_base
    started = time.perf_counter()
    try:
        response = litellm.completion(**kwargs)
    except openai.APITimeoutError:
        raise LLMError(f"the model did not answer within {timeout:g} seconds", retryable=True) from None
    except (openai.APIConnectionError, openai.RateLimitError, openai.InternalServerError, OSError) as e:
        raise LLMError(f"{type(e).__name__}: {str(e)[:200]}", retryable=True) from None
    except (openai.OpenAIError, ValueError) as e:  # provider, bad parameters: retrying won't help
        raise LLMError(f"{type(e).__name__}: {str(e)[:200]}") from None
    seconds = time.perf_counter() - started
    content = response.choices[0].message.content
    if not isinstance(content, str):
        raise LLMError("the model answered with no text")
    usage = getattr(response, "usage", None)
    cost = (getattr(response, "_hidden_params", None) or {}).get("response_cost")
    return Completion(
        content,
        int(getattr(usage, "prompt_tokens", 0) or 0),
        int(getattr(usage, "completion_tokens", 0) or 0),
        seconds,
        float(cost) if isinstance(cost, int | float) else None,
    )


def call_with_retries(
    model: str,
    messages: list[dict[str, str]],
    *,
    retries: int = 2,
    backoff: float = 2.0,
    attempt_options: Any = None,
    usage: Usage | None = None,
    **kwargs: Any,
) -> Completion:
    """`call`, retried up to `retries` times after a timeout or a server/network error, waiting
    backoff, 2×backoff, 4×backoff … seconds. `attempt_options()` gives each attempt's extra
    options (tests: the next canned answer)."""
    last: LLMError | None = None
    for attempt in range(retries + 1):
        if attempt:
            if usage is not None:
                with usage._lock:
                    usage.retries += 1
            time.sleep(backoff * 2 ** (attempt - 1))
        extra = attempt_options() if attempt_options is not None else {}
        try:
            done = call(model, messages, **kwargs, **extra)
        except LLMError as e:
            last = e
            if not e.retryable:
                break
            continue
        if usage is not None:
            usage.add(done.prompt_tokens, done.completion_tokens, done.seconds, done.cost)
        return done
    if usage is not None:
        with usage._lock:
            usage.failed += 1
    assert last is not None
    if retries and last.retryable:
        raise LLMError(f"{last} (after {retries + 1} attempts)", retryable=True)
    raise last


def complete(
    model: str,
    messages: list[dict[str, str]],
    *,
    api_base: str | None = None,
    timeout: float = 60.0,
    **options: Any,
) -> str:
    """The text of one chat completion; LLMError with a readable reason on any failure."""
    return call(model, messages, api_base=api_base, timeout=timeout, **options).text
