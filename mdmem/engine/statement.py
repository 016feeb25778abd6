"""A statement: something the person said (or did) about one fact, before it is decided."""

from __future__ import annotations

from dataclasses import dataclass

from mdmem.model.factfile import Value

KINDS = ("assert", "invalidate", "forget", "keep", "reject", "correct")


@dataclass(frozen=True)
class Statement:
    """Something the person said (or did) about one fact."""

    entity: str
    attribute: str
    kind: str = "assert"  # assert | invalidate | forget | keep | reject | correct
    value: Value = None
    at: str = ""  # world date the statement speaks of (valid_from for an assert)
    source: str = "cli"
    tentative: bool = False  # weak evidence: hedged, indirect
    body: str = ""  # first body line for a new file
    depends_on: tuple[dict[str, object], ...] = ()
    until: str = ""  # for a closed past period: when it stopped being true
    change: bool = False  # said as a change ("transferred my care to X"): a first value cascades too
    evidence: str = ""  # the episode message it was said in, as a wikilink
    form: str = ""  # none | unnamed | event | plan (Fact.kind); "": a plain value
    polarity: str = ""  # like | dislike, for a preference
    # An event's or a plan's own fields (model/life.py; docs/fact-file.md#events-and-plans).
    when: str = ""  # event: when it happened, at its precision ('2023-05-07', '2023-05')
    due: str = ""  # plan: when it is meant to happen
    when_said: str = ""  # the time words as said ('last Sunday', '下个月')
    where: str = ""
    with_: tuple[str, ...] = ()
    sets: tuple[tuple[str, str], ...] = ()  # plan: (attribute, value) it gives when it happens

    @property
    def key(self) -> str:
        return f"{self.entity}/{self.attribute}"
