"""What rules.yaml derives, for a question about an attribute the vault holds no fact for.

A `derive` dependency says how one attribute follows from another ('insurance-follows-city':
the social insurance city is the home city; 'timezone-follows-city': a lookup table). The
cascade applies it when the source changes, but a value that was never stated has no file
to update. When the question asks for such an attribute, the reader answers from the rule
instead of from whatever neighbour happens to score: the answer says where it comes from
("derived from your home city"), exactly like a derived fact on disk.
"""

from __future__ import annotations

from mdmem.model.factfile import Fact
from mdmem.model.rules import Rules
from mdmem.read.index import Index


def inferred(index: Index, rules: Rules, attribute: str, entity: str) -> Fact | None:
    """The fact a rule derives for entity/attribute from facts the vault holds, or None
    (no such rule, a source missing, doubtful or forgotten, or the table has no entry)."""
    for dep in rules.dependencies:
        if dep.then != attribute or dep.action != "derive" or dep.learned or not dep.specific:
            continue
        source = _source(index, entity, dep.when)
        if source is None:
            continue
        assert isinstance(source.value, str)
        # the cascade's module only when a rule derives: a read plans nothing else
        from mdmem.engine.cascade import derive_value

        value = derive_value(dep, rules, source.value, lambda name: _active(index, entity, name))
        if value is None:
            continue
        return Fact(
            entity=entity,
            attribute=attribute,
            value=value,
            status="active",
            valid_from=source.valid_from,
            derived_from={"fact": source.key, "valid_from": source.valid_from},
            source=f"rule:{dep.id}" if dep.id else "rules.yaml",
        )
    return None


def _active(index: Index, entity: str, attribute: str) -> str | None:
    found = _source(index, entity, attribute)
    return found.value if found is not None else None  # type: ignore[return-value]


def _source(index: Index, entity: str, attribute: str) -> Fact | None:
    found = index.facts(attributes=[attribute], entities=[entity])
    if not found or found[0].status != "active" or not isinstance(found[0].value, str):
        return None
    return found[0]
