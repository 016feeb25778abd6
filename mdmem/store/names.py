"""Attribute names: the guard on every name a person (or an agent) types into a write, and
`check`'s warnings about names rules.yaml does not declare.

A name is *known* when rules.yaml declares it or some fact already has it. A write of an
unknown name is refused with the closest known ones ("did you mean employer?") unless it is
made on purpose (`new`: `--new` on the command line, `new: true` in the MCP tools). `Vault.say`
applies the guard to every statement it is given except those heard in conversation (ingest),
so every command and tool that writes through the library has it, including those added later.

Names heard in conversation are the extractor's to make: "my dog's name is Biscuit" becomes
`dog_name`, and that is what generic extraction is for. Facts of kinds that are not slots of
the rules (plans, events) are named by what they are about and are never warned of.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping

from mdmem.engine.decide import Statement
from mdmem.errors import RefusedError
from mdmem.model.factfile import Fact
from mdmem.model.rules import Rules
from mdmem.model.slug import VERBATIM_SLOT  # not extract.weigh's: a read would import the extractor

SLOT_KINDS = (None, "none", "unnamed")  # fact kinds that are values of a slot rules.yaml may declare
CLOSE = 0.85  # how alike a name and a declared one must be for `check` to call it a likely typo


class UnknownAttribute(RefusedError):
    """A write naming an attribute that neither rules.yaml nor any fact knows."""


def did_you_mean(name: str, known: Iterable[str], cutoff: float = 0.6) -> str:
    """' (did you mean employer?)' for a near miss among the known names, else ''."""
    close = difflib.get_close_matches(name, sorted(set(known) - {name}), n=3, cutoff=cutoff)
    return f" (did you mean {' or '.join(close)}?)" if close else ""


def known_names(rules: Rules, facts: Mapping[str, Fact]) -> set[str]:
    """The attribute names rules.yaml declares and the facts have (and `note`, where a word
    for word note is kept: mdmem's own name)."""
    return set(rules.attributes) | {f.attribute for f in facts.values()} | {VERBATIM_SLOT}


def _builtin(name: str) -> bool:
    """`note`, `note_2`, …: the slots mdmem keeps word-for-word notes in."""
    head, _, n = name.partition("_")
    return head == VERBATIM_SLOT and (not n or n.isdigit())


def checked_names(statements: Iterable[Statement], rules: Rules, facts: Mapping[str, Fact],
                  *, new: bool = False) -> list[str]:  # fmt: skip
    """Refuse (UnknownAttribute) a statement naming an unknown attribute, unless `new`; the
    notes to give the person about the names made on purpose."""
    notes: list[str] = []
    known: set[str] | None = None  # read only for a name rules.yaml does not declare
    for st in statements:
        if st.attribute in rules.attributes or _builtin(st.attribute):
            continue
        known = known if known is not None else known_names(rules, facts)
        if st.attribute in known:
            continue
        hint = did_you_mean(st.attribute, known)
        if not new:
            raise UnknownAttribute(
                f"{st.key}: {st.attribute!r} is not an attribute in rules.yaml nor of any fact"
                f"{hint}; to create a new attribute anyway, pass --new (an MCP tool: new: true)"
            )
        notes.append(f"{st.attribute} is not in rules.yaml{hint}; creating it (--new).")
        known.add(st.attribute)
    return notes


def name_warnings(rules: Rules, facts: Mapping[str, Fact]) -> list[tuple[str, str]]:
    """(fact file, warning) for each fact whose attribute rules.yaml does not declare and that
    looks like a slip: a name very close to a declared one ('employr'), whoever made it, or a
    fact file made by hand (no source). Names made on purpose with --new, and names heard in
    conversation that are not close to a declared one, are not warned of."""
    declared = sorted(rules.attributes)
    out: list[tuple[str, str]] = []
    for key, fact in sorted(facts.items()):
        if fact.attribute in rules.attributes or fact.kind not in SLOT_KINDS or fact.status == "deleted" or _builtin(fact.attribute):  # fmt: skip
            continue
        hint = did_you_mean(fact.attribute, declared, CLOSE)
        if hint:
            why = f"{fact.attribute!r} is not in rules.yaml{hint}: a typo? Then `mdmem forget {key}` and state it under the right name"  # fmt: skip
        elif not fact.source:
            why = f"{fact.attribute!r} is not in rules.yaml (a file made by hand?); declare it there to give it a label, questions and dependencies"  # fmt: skip
        else:
            continue
        out.append((f"facts/{key}.md", why))
    return out

