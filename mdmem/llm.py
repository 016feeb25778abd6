"""The one road to a model: a litellm completion, imported only when a model is asked for.

litellm costs seconds to import, so no read command and no default ingest may pay for it;
both the model finder (extract) and `ask --llm` (read) call `complete`.
"""

from __future__ import annotations

import os
from typing import Any


class LLMError(Exception):
    """A model call or answer that cannot be used."""


def complete(
    model: str,
    messages: list[dict[str, str]],
    *,
    api_base: str | None = None,
    timeout: float = 60.0,
    **options: Any,
) -> str:
    """The text of one chat completion; LLMError with a readable reason on any failure."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no network at import
    import litellm  # noqa: PLC0415 - imported here only: it costs seconds
    import openai  # noqa: PLC0415 - litellm's exceptions derive from openai's

    litellm.suppress_debug_info = True
    kwargs: dict[str, Any] = {
        "model": model, "messages": messages, "timeout": timeout, "num_retries": 0,
        "temperature": 0, "drop_params": True, **options,
    }  # fmt: skip
    if api_base:
        kwargs["api_base"] = api_base
    try:
        response = litellm.completion(**kwargs)
    except openai.APITimeoutError:
        raise LLMError(f"the model did not answer within {timeout:g} seconds") from None
    except (openai.OpenAIError, OSError, ValueError) as e:  # provider, network, bad parameters
        raise LLMError(f"{type(e).__name__}: {str(e)[:200]}") from None
    content = response.choices[0].message.content
    if not isinstance(content, str):
        raise LLMError("the model answered with no text")
    return content
