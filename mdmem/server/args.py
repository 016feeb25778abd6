"""Tool arguments more than one tool takes, with the descriptions the client sees."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

FactArg = Annotated[
    str,
    Field(
        description="The fact: 'attribute' (about the user) or 'entity/attribute', e.g. 'home_city' or 'user/home_city'.",
        max_length=200,
    ),
]
DryRunArg = Annotated[bool, Field(description="Say what would change; write nothing.")]
