"""Who a statement is about: the entity of each speaker, and of what a speaker owns."""

from __future__ import annotations

from collections.abc import Iterable

from mdmem.extract.transcript import USER, Message, is_human_role
from mdmem.model.slug import slugify


def speaker_entities(messages: Iterable[Message]) -> dict[str, str]:
    """Entity per speaker: the vault's owner is `user`; in a chat of several named people
    (no single owner), each speaker is an entity of their own (slug of the name)."""
    humans = {m.speaker.casefold(): m for m in messages if is_human_role(m.role)}
    named = [k for k, m in humans.items() if m.role != USER]
    out = {}
    for key, m in humans.items():
        solo = len(humans) == 1 or (
            len(named) == 1 and not any(r.role == USER for r in humans.values())
        )
        out[key] = "user" if m.role == USER or solo else (slugify(m.speaker) or "user")
    return out


def owner_entity(speaker: str, owner: str | None) -> str:
    """The entity of something a speaker owns: the user's dog is `dog`, Caroline's `caroline-dog`."""
    if not owner:
        return speaker
    slug = slugify(owner) or speaker
    if owner in ("team", "project") or speaker == "user":
        return slug
    return f"{speaker}-{slug}"  # Caroline's dog and Melanie's dog are different entities
