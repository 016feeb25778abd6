"""The forgetting property (issue 22, item 7), over random vaults: facts that share values,
statements said again, two speakers, a move that derives a value; then a random forget.

- every other fact's statement keeps its words byte for byte, in the message it was said in;
- a value only the forgotten fact held (or what was derived from it) is in no file of the vault
  (the journal too, with --purge) and in no read command's output.

EXAMPLES is kept small so the suite stays fast (`MDMEM_FORGET_EXAMPLES=300` for a longer run);
RELIABILITY.md records both.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from mdmem import Vault
from mdmem.cli import app
from mdmem.edit.forget import forget as forget_fact
from mdmem.edit.ingest import ingest_text
from mdmem.model.episode import parse
from mdmem.store.statements import Reader, evidence_place, is_derived, value_entries
from tests.conftest import RULES_FILES, holds

EXAMPLES = int(os.environ.get("MDMEM_FORGET_EXAMPLES", "15"))
CITIES = ["Berlin", "Porto", "Leeds", "Munich"]
SAYINGS = {
    "home_city": ("I live in {}.", CITIES),
    "hometown": ("My hometown is {}.", CITIES),
    "social_insurance_city": ("My social insurance is paid in {}.", CITIES),
    "employer": ("I work at {}.", ["Acme", "Berlin Bank", "Tidewater"]),
    "gym": ("My gym is {}.", ["Iron Temple", "Porto Fitness", "Urban Sports Club"]),
    "birthday": ("My birthday is {}.", ["14 March", "2 June"]),
}
READS = [["show", "--json"], ["context"], ["timeline"], ["pending"], ["ask", "what did I tell you?"]]

statement = st.tuples(st.sampled_from(sorted(SAYINGS)), st.integers(0, 3))
message = st.tuples(st.sampled_from(["User", "Melanie"]), st.lists(statement, min_size=1, max_size=2))


def render(messages: list[tuple[str, list[tuple[str, int]]]]) -> str:
    lines = []
    for speaker, said in messages:
        parts = []
        for attr, n in said:
            template, values = SAYINGS[attr]
            parts.append(template.format(values[n % len(values)]))
        lines.append(f"{speaker}: {' '.join(parts)}")
    return "\n".join(lines) + "\n"


def spans(vault: Vault) -> dict[str, list[tuple[str, str, str]]]:
    """key → (episode, anchor, words) of each statement of a live fact in its evidence message."""
    reader = Reader(vault.rules)
    episodes = {}
    for path in (vault.root / "episodes").rglob("*.md"):
        ep = parse(path.read_text("utf-8"))
        episodes[path.relative_to(vault.root).as_posix()] = ep
    out: dict[str, list[tuple[str, str, str]]] = {}
    for key, fact in vault.facts.items():
        if fact.status == "deleted":
            continue
        for entry in value_entries(fact):
            place = evidence_place(str(entry.get("evidence") or ""))
            if place is None or is_derived(entry) or place[0] not in episodes:
                continue
            ep = episodes[place[0]]
            said = next((m for m in ep.messages if m.anchor == place[1]), None)
            if said is None:
                continue
            entity = "user" if said.speaker == "User" else said.speaker.lower()
            for s in reader.statements(said.text, entity):
                if s.key == key and reader.states(s, key, [str(entry["value"])]):
                    out.setdefault(key, []).append((place[0], place[1], said.text[s.span[0] : s.span[1]]))
    return out


def held(vault: Vault) -> set[str]:
    return {str(v) for f in vault.facts.values() if f.status != "deleted"
            for e in value_entries(f) for v in ([e["value"]] if isinstance(e["value"], str) else e["value"])}  # fmt: skip


_TEMPLATE: dict[str, Path] = {}


def fresh(tmp: Path) -> Vault:
    if "v" not in _TEMPLATE:
        _TEMPLATE["v"] = Vault.create(tmp / "template", "personal").root
        Vault(_TEMPLATE["v"]).rules  # noqa: B018 - the parsed rules, cached for every copy
    n = len(list(tmp.iterdir()))
    shutil.copytree(_TEMPLATE["v"], tmp / f"v{n}")
    return Vault(tmp / f"v{n}")


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])  # fmt: skip
@given(first=st.lists(message, min_size=1, max_size=4), later=st.lists(message, max_size=2),
       moved=st.integers(0, 4), pick=st.integers(0, 100), purge=st.booleans())  # fmt: skip
def test_a_forget_takes_exactly_its_statements(tmp_path_factory, first, later, moved, pick, purge) -> None:  # type: ignore[no-untyped-def]
    tmp = tmp_path_factory.getbasetemp() / "property"
    tmp.mkdir(exist_ok=True)
    vault = fresh(tmp)
    ingest_text(vault, "## 2025-08-15\n" + render(first), source="a.md")
    move = f"User: I moved to {CITIES[moved]}.\n" if moved < len(CITIES) else ""
    if later or move:
        ingest_text(vault, "## 2026-02-10\n" + (render(later) if later else "") + move, source="b.md")
    vault = Vault(vault.root)
    live = sorted(k for k, f in vault.facts.items() if f.status != "deleted")
    if not live:
        return
    key = live[pick % len(live)]
    before = spans(vault)
    gone = {str(v) for e in value_entries(vault.facts[key]) for v in
            ([e["value"]] if isinstance(e["value"], str) else e["value"])}  # fmt: skip
    entity, attribute = key.split("/", 1)
    forget_fact(vault, attribute, entity=entity, purge=purge)
    vault = Vault(vault.root)
    episodes = {p.relative_to(vault.root).as_posix(): parse(p.read_text("utf-8"))
                for p in (vault.root / "episodes").rglob("*.md")}  # fmt: skip
    for other, said in before.items():
        if other == key or vault.facts[other].status == "deleted":
            continue  # the forgotten fact, or one whose values were all derived from it
        for episode, anchor, words in said:
            text = next(m.text for m in episodes[episode].messages if m.anchor == anchor)
            assert words in text, (key, other, words, text)
    unique = {v for v in gone if not any(holds(h, v) or holds(v, h) for h in held(vault))}
    runner = CliRunner()
    reads = READS + [["log"]] * purge  # without --purge the journal keeps the values, for `undo`
    outputs = [runner.invoke(app, [*cmd, "--vault", str(vault.root)]).output for cmd in reads]
    for path in sorted(vault.root.rglob("*")):
        rel = path.relative_to(vault.root).as_posix()
        if not path.is_file() or rel in RULES_FILES or (rel == ".mdmem/journal.jsonl" and not purge):
            continue
        data = path.read_bytes().decode("utf-8", "replace")
        for value in unique:
            assert not holds(data, value), (key, value, rel)
    for value in unique:
        for cmd, out in zip(reads, outputs, strict=True):
            assert not holds(out, value), (key, value, cmd, out)
