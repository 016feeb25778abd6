"""The model options `ingest` and `eval` share: --llm-timeout, --llm-retries,
--llm-concurrency, --no-cache (each also read from MDMEM_LLM_* in the environment)."""

from __future__ import annotations

from typing import Annotated

import typer

LLMTimeoutOpt = Annotated[
    float | None,
    typer.Option("--llm-timeout", min=1, envvar="MDMEM_LLM_TIMEOUT",
                 help="Seconds to wait for one model call (default 120)."),
]  # fmt: skip
LLMRetriesOpt = Annotated[
    int | None,
    typer.Option("--llm-retries", min=0, envvar="MDMEM_LLM_RETRIES",
                 help="Retries of a call that timed out or hit a server error, with backoff (default 2)."),
]  # fmt: skip
LLMConcurrencyOpt = Annotated[
    int | None,
    typer.Option("--llm-concurrency", min=1, envvar="MDMEM_LLM_CONCURRENCY",
                 help="Model calls at once (default 1: a local server computes one at a time)."),
]  # fmt: skip
NoCacheOpt = Annotated[
    bool,
    typer.Option("--no-cache", help="Ask the model again instead of reusing kept answers."),
]
