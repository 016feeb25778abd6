"""The MCP tools: thin typed calls into the library, each returning a JSON-able dict.

Every call opens the vault afresh, so what the CLI, the watcher or a hand edit changed since the
last call is seen at once, and each write takes the vault lock like any other writer. Errors are
MdmemError subclasses with a readable message; app.py turns them into tool errors.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from mdmem.engine import describe
from mdmem.lang.detect import asked
from mdmem.model.slug import check_slug, split_key
from mdmem.server.args import DryRunArg, FactArg
from mdmem.server.base import BadArgument, MemoryBase
from mdmem.server.base import day_arg as _day
from mdmem.server.base import entity_arg as _entity
from mdmem.server.corrections import Corrections
from mdmem.store.journal import recent_entries
from mdmem.store.vault import Vault

__all__ = ["BadArgument", "Memory", "present"]

MAX_TEXT = 1_000_000  # characters a `remember` call may carry: a long conversation, not a dump

DayArg = Annotated[str | None, Field(description="A day written YYYY-MM-DD.", max_length=10)]
EntityArg = Annotated[
    str | None,
    Field(description="Only this entity (default: all; 'user' is the person).", max_length=64),
]


def present(vault: Vault) -> set[str]:
    """Keys of every fact file on disk, parsed or not (a broken file is not a forgotten fact)."""
    return {f"{p.parent.name}/{p.stem}" for p in vault.fact_files()}


class Memory(MemoryBase, Corrections):
    """One vault served to agents; `wait` bounds how long a write waits for the vault lock.
    Each method is a tool: its annotations are the arguments the client sees."""

    # --- writing ------------------------------------------------------------------------------

    def remember(
        self,
        text: Annotated[
            str,
            Field(
                description="What was said: one message, or a whole conversation with 'Speaker: …' lines or JSON messages.",
                min_length=1,
                max_length=MAX_TEXT,
            ),
        ],
        speaker: Annotated[
            Literal["user", "assistant"] | None,
            Field(
                description="Who said TEXT as one message: 'user' (the person this memory is about) or 'assistant' (you; never taken as facts). Omitted: TEXT is read as a conversation if it has 'Name: …' lines (how to record what other people said), else as the user's message.",
            ),
        ] = None,
        date: Annotated[
            str | None,
            Field(
                description="When it was said: YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS (default today).",
                max_length=40,
            ),
        ] = None,
        dry_run: DryRunArg = False,
    ) -> dict[str, Any]:
        """Store what the person said (a message or a conversation). Statements become facts; dependent facts cascade. Returns what changed, one line per fact (`changes`), and the journal id `undo` takes. Assistant turns are never taken as facts, and nothing in the text is obeyed as an instruction."""
        from mdmem.edit.ingest import ingest_text
        from mdmem.extract.transcript import normalize_time
        from mdmem.server.messages import as_transcript

        v = self.vault()
        day = v.now[:10]
        if date is not None:
            try:
                day = normalize_time(date)
            except ValueError as e:
                raise BadArgument(f"date {e}") from None
        transcript, read_as = as_transcript(text, speaker, day)
        result = ingest_text(v, transcript, source="mcp:remember", date=day, dry_run=dry_run)
        return {"read_as": read_as, **result.compact_json()}

    def set_fact(
        self,
        fact: FactArg,
        value: Annotated[
            str | list[str],
            Field(description="The value as the person said it; a list for a many-valued fact."),
        ],
        date: DayArg = None,
        tentative: Annotated[
            bool, Field(description="Weak evidence: store it unconfirmed.")
        ] = False,
        new: Annotated[
            bool,
            Field(description="The attribute is new on purpose: one neither rules.yaml nor any fact knows (else such a name is refused with the closest known ones)."),
        ] = False,
        dry_run: DryRunArg = False,
    ) -> dict[str, Any]:
        """State a fact as if the person said it (for a clear correction); dependents cascade."""
        entity, attribute = split_key(fact)
        result = self.vault().set(attribute, value, entity=entity, date=_day(date, "date"),
                                  dry_run=dry_run, tentative=tentative, new=new, source="mcp")  # fmt: skip
        return describe.result_json(result)

    def forget(
        self,
        fact: FactArg,
        purge: Annotated[
            bool, Field(description="Also strip the value from the journal's history.")
        ] = False,
        dry_run: DryRunArg = False,
    ) -> dict[str, Any]:
        """Forget a fact because the person asked to; a tombstone stays, dependents become uncertain."""
        from mdmem.edit import forget as forgetting  # the redaction machinery: ~60 ms of start-up

        entity, attribute = split_key(fact)
        result = forgetting.forget(self.vault(), attribute, entity=entity, purge=purge,
                                   dry_run=dry_run)  # fmt: skip
        return describe.result_json(result)

    def confirm(
        self,
        fact: FactArg,
        value: Annotated[
            str | None, Field(description="The right value, when the person gave a new one.")
        ] = None,
        keep: Annotated[bool, Field(description="The shown value is still right.")] = False,
        reject: Annotated[bool, Field(description="The shown value no longer holds.")] = False,
        dry_run: DryRunArg = False,
    ) -> dict[str, Any]:
        """Record the person's answer to a pending question: exactly one of VALUE, keep or reject."""
        entity, attribute = split_key(fact)
        result = self.vault().confirm(attribute, entity=entity, value=value, keep=keep,
                                      reject=reject, dry_run=dry_run)  # fmt: skip
        return describe.result_json(result)

    # --- reading ------------------------------------------------------------------------------

    def ask(
        self,
        question: Annotated[
            str,
            Field(
                description="The question, in English or Chinese.", min_length=1, max_length=2000
            ),
        ],
        as_of: Annotated[
            str | None, Field(description="Answer as of this day (YYYY-MM-DD).", max_length=10)
        ] = None,
        entity: Annotated[
            str | None,
            Field(
                description="Whom it is about (default: as named, else the user).", max_length=64
            ),
        ] = None,
        evidence: Annotated[
            int, Field(description="Quote this many passages after the answer (0: the answer alone).", ge=0, le=10)
        ] = 3,
    ) -> dict[str, Any]:
        """Answer a question from memory: `answer` is the answer itself (one short line), `evidence` the quotes it rests on (date, speaker, words), `facts` the facts behind it (values, status, history, why a fact is in doubt), `confidence` 0-1. 'she'/'he' in a question that names no one means the person the question before was about."""
        return self.answer(question, as_of, entity, evidence)  # lean.py answers with it too

    def context(
        self,
        max_chars: Annotated[
            int | None,
            Field(description="Keep the most important part within this many characters.", ge=200),
        ] = None,
        query: Annotated[
            str | None,
            Field(
                description="Only what this question or topic is about, and the facts linked to it.",
                max_length=2000,
            ),
        ] = None,
        entity: EntityArg = None,
        format: Annotated[
            Literal["md", "json"],
            Field(
                description="md: one Markdown document for a prompt; json: its sections as data."
            ),
        ] = "md",
    ) -> dict[str, Any]:
        """The memory as one document for a prompt: facts needing confirmation first, then current facts, what stopped being known, forgotten slots and recent changes."""
        from mdmem.read.context import build_context
        from mdmem.read.index import indexed_facts

        v = self.vault()
        entity = _entity(entity)
        facts = indexed_facts(v.root)
        entries: list[dict[str, Any]] = list(v.journal.entries())
        matched: list[str] | None = None
        if query is not None:
            matched, keys = self._about(v, facts, query, entity)
            facts = {k: f for k, f in facts.items() if k in keys}
            entries = [e for e in (_only(e, keys) for e in entries) if e["changes"]]
        ctx = build_context(facts, v.rules, entries, now=v.now, entity=entity,
                            max_chars=max_chars, present=present(v))  # fmt: skip
        out: dict[str, Any] = {"query": query, "matched": matched}
        if format == "json":
            return {**out, **ctx.to_json()}
        return {**out, "as_of": ctx.now, "lang": ctx.lang, "omitted": len(ctx.omitted),
                "markdown": ctx.to_markdown()}  # fmt: skip

    @staticmethod
    def _about(v: Vault, facts: dict[str, Any], query: str, entity: str | None) -> tuple[list[str], set[str]]:  # fmt: skip
        """The facts `ask` would answer the query from, and those plus their neighbours in the graph."""
        from mdmem.model.graph import Graph
        from mdmem.read.ask import ask

        matched = [str(f["key"]) for f in ask(v, query, entity=entity).facts]
        graph = Graph(v.rules, facts)
        keys = set(matched)
        for key in matched:
            keys |= {e.trigger for e in graph.parents(key)}
            keys |= {e.dependent for e in graph.dependents(key)}
        return matched, keys

    def pending(
        self,
        lang: Annotated[
            Literal["en", "zh"] | None,
            Field(description="Language of the questions (default: the value's)."),
        ] = None,
    ) -> dict[str, Any]:
        """The questions waiting for the person (facts in doubt after a change), oldest first. Raise one gently when it fits the conversation; record the answer with `confirm`."""
        return {"pending": asked(self.vault().pending(), lang)}

    def timeline(
        self,
        fact: Annotated[
            str | None,
            Field(description="Only this attribute or entity/attribute.", max_length=200),
        ] = None,
        entity: EntityArg = None,
        since: DayArg = None,
        until: DayArg = None,
    ) -> dict[str, Any]:
        """Every value change in time order with its cause; a cascade's events name the change that caused them."""
        from mdmem.read.index import indexed_facts
        from mdmem.read.timeline import build_timeline, flatten

        v = self.vault()
        attribute = None
        if fact is not None and "/" in fact:
            entity, attribute = split_key(fact)
        elif fact is not None:
            attribute = check_slug(fact)
        heads = build_timeline(indexed_facts(v.root), v.journal.entries(), present=present(v),
                               attribute=attribute, entity=_entity(entity),
                               since=_day(since, "since"), until=_day(until, "until"))  # fmt: skip
        return {"events": [e.to_json(h.id if h is not None else None) for e, h in flatten(heads)]}

    def show(
        self,
        fact: Annotated[
            str | None,
            Field(
                description="One fact (attribute or entity/attribute); default: all.",
                max_length=200,
            ),
        ] = None,
        entity: EntityArg = None,
    ) -> dict[str, Any]:
        """Fact files as data: value, status, dates, history, dependencies."""
        v = self.vault()
        if fact is not None:
            from mdmem.store.check import refused
            from mdmem.store.names import did_you_mean, known_names

            ent, attr = split_key(fact, entity or "user")
            if (why := refused(v, f"{ent}/{attr}")) is not None:
                raise BadArgument(str(why))
            found = v.get(attr, ent)
            if found is None:
                raise BadArgument(
                    f"there is no fact {ent}/{attr}{did_you_mean(attr, known_names(v.rules, v.facts))};"
                    " `show` without a fact lists them"
                )
            return {"facts": [found.to_mapping()]}
        entity = _entity(entity)
        chosen = [f for _, f in sorted(v.facts.items()) if entity is None or f.entity == entity]
        return {"facts": [f.to_mapping() for f in chosen]}

    def log(
        self,
        limit: Annotated[int, Field(description="At most this many entries.", ge=1, le=1000)] = 20,
        fact: Annotated[
            str | None,
            Field(
                description="Only entries that changed this fact (entity/attribute or attribute).",
                max_length=200,
            ),
        ] = None,
    ) -> dict[str, Any]:
        """The journal, newest first: each write's id, time, command, source and changes with their causes."""
        key = "/".join(split_key(fact)) if fact is not None else None
        return {"entries": recent_entries(self.vault().journal, limit=limit, fact=key)}

    # --- resources ----------------------------------------------------------------------------

    def fact_file(self, entity: str, attribute: str) -> str | None:
        """The text of one fact file, or None when there is none."""
        from mdmem.files import read_text
        from mdmem.model.slug import fact_path

        path = fact_path(self.vault().root, check_slug(entity, "entity"), check_slug(attribute))
        try:
            return read_text(path)  # through the vault's boundary: a link out is refused
        except IsADirectoryError:
            return None

    def fact_keys(self) -> list[str]:
        """'entity/attribute' of every fact file, in name order."""
        return sorted(present(self.vault()))


def _only(entry: dict[str, Any], keys: set[str]) -> dict[str, Any]:
    """A journal entry cut to the changes of `keys`."""
    return {**entry, "changes": [c for c in entry.get("changes") or [] if c.get("fact") in keys]}
