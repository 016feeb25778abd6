"""What a hand edit means: the pure half of `sync` (no clock, no files; `now` is passed in).

Each fact file that differs from what mdmem last wrote is an `Edit`: its earlier state (`base`)
and its state now. `plan_edits` turns them into what the person meant (docs/decisions.md, "Hand edits"): a changed
value is a statement, status `active` a confirmation, a deleted file a forget, a new file an
ADD; a file another mdmem already wrote (a git pull) is taken as it is, and its cascade is not
run a second time.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from mdmem.engine.cascade import Change, Effect, archive, cascade
from mdmem.engine.decide import Plan, Statement
from mdmem.errors import MdmemError
from mdmem.model.factfile import VALUES, Fact, Value, file_mapping, parse, render
from mdmem.model.graph import Graph
from mdmem.model.rules import Rules

EDIT = "edit"  # the source of every statement a hand edit makes
MERGED = "saved from an editor's buffer older than mdmem's last write: what mdmem wrote is put back, your edits kept"


@dataclass(frozen=True)
class Edit:
    """One fact file that differs from the bytes mdmem last wrote."""

    rel: str  # vault-relative path
    key: str  # entity/attribute
    kind: str  # changed | new | deleted | broken
    at: str  # the date the edit speaks of: the file's modification date (today for a deletion)
    base: Fact | None = None  # what mdmem last wrote, if known
    now: Fact | None = None  # the file as it is (None when deleted or broken)
    sha: str | None = None  # of the bytes as they are
    journaled: bool = False  # the journal's last record of this file is exactly its state now
    line: int | None = None  # broken: where
    problem: str = ""  # broken: what is wrong and how to fix it
    seen: Fact | None = None  # saved from an editor's old buffer: the file as it is (`now` is
    # it merged with mdmem's last write, edit.reload)

    @property
    def as_saved(self) -> Fact | None:
        """The parse of the file's bytes (what a patch of them starts from)."""
        return self.seen if self.seen is not None else self.now


@dataclass
class Action:
    """What sync did (or, dry, would do) about one file; `changes[0]` is the file's own."""

    rel: str
    kind: str  # update | confirm | expire | doubt | forget | add | adopt | cascaded | broken | unknown
    message: str
    changes: list[Change] = field(default_factory=list)
    line: int | None = None

    def cascaded(self) -> list[Change]:
        """The changes to other facts this action caused."""
        key = self.rel[len("facts/") : -len(".md")]
        return [c for c in self.changes if c.key != key]


@dataclass
class EditPlan:
    """The journaled changes, one action per file, and the files to take as they are."""

    plan: Plan = field(default_factory=Plan)
    actions: list[Action] = field(default_factory=list)
    adopt: dict[str, str | None] = field(default_factory=dict)  # path → new baseline digest


@dataclass
class _Item:
    edit: Edit
    kind: str
    message: str
    statement: Statement | None = None
    after: Fact | None = None
    decision: str = ""
    effect: Effect | None = None
    ours: bool = True  # False: another mdmem wrote these bytes, and journaled them already

    @property
    def moves(self) -> bool:
        """The fact itself changes (False: the file is only taken as it is)."""
        return bool(self.decision)


def show(value: Value) -> str:
    """A value as one line of text."""
    if value is None:
        return "(none)"
    return ", ".join(value) if isinstance(value, list) else value


def plan_edits(facts: Mapping[str, Fact], rules: Rules, edits: list[Edit], *, now: str) -> EditPlan:
    """Plan what the edits mean against the vault's other facts (`facts`: files as they are)."""
    out = EditPlan()
    items = [_classify(e, rules, now) for e in edits]
    # What the person stated in this sync (or another mdmem wrote, running the cascade there)
    # is settled: a cascade from one of them never overrules another.
    settled = {i.edit.key for i in items if i.moves or not i.ours}
    state = dict(facts)
    for item in items:  # until its turn, an edited fact is as mdmem last wrote it
        if item.moves:
            state.pop(item.edit.key, None)
            if item.edit.base is not None and item.decision != "ADD":
                state[item.edit.key] = _before(item.edit)
    for item in _in_order(items, state, rules):
        e = item.edit
        changes: list[Change] = []
        if item.moves:
            if item.ours:
                before = _before(e) if e.base is not None else None
                changes.append(Change(e.key, item.decision, before, item.after))
            if item.statement is not None:
                out.plan.decisions.append((item.statement, item.decision))
            if item.after is None:
                state.pop(e.key, None)
            else:
                state[e.key] = item.after
        if item.effect is not None:
            changes.extend(cascade(state, rules, item.effect, now=now, justified=settled - {e.key}))
        if item.kind != "broken" and not (item.moves and item.ours):
            out.adopt[e.rel] = e.sha  # taken as it is: the new baseline
        if not item.ours and changes:
            item.message += "; cascaded here to facts the other side did not have"
        out.plan.changes.extend(changes)
        out.actions.append(Action(e.rel, item.kind, item.message, changes, e.line))
    out.actions.sort(key=lambda a: a.rel)  # planned upstream first; shown in path order
    return out


def _before(e: Edit) -> Fact:
    """The earlier state, with what is the person's alone (body, extra keys) as they are now."""
    assert e.base is not None
    if e.now is None:
        return e.base
    return e.base.evolve(body=e.now.body, extra=e.now.extra, depends_on=e.now.depends_on)


def _in_order(items: list[_Item], state: Mapping[str, Fact], rules: Rules) -> list[_Item]:
    """Statements upstream first, so a cascade reads the new values it depends on."""
    moving = [i for i in items if i.effect is not None]
    if len(moving) < 2:
        return items
    keys = {i.edit.key for i in moving}
    downstream = [k for k in Graph(rules, state).downstream_order(keys) if k in keys]
    rank = {k: n for n, k in enumerate(sorted(keys - set(downstream)) + downstream)}
    return sorted(items, key=lambda i: (rank.get(i.edit.key, -1), i.edit.rel))


def _classify(e: Edit, rules: Rules, now: str) -> _Item:
    if e.kind == "broken":
        where = f"line {e.line}: " if e.line else ""
        message = f"{where}{e.problem}; left as you wrote it (its last good state still answers)"
        return _Item(e, "broken", message)
    if e.kind == "deleted":
        return _deleted(e)
    if e.kind == "new":
        return _new(e, now)
    if e.base is None:
        message = "changed, but what mdmem wrote before is unknown (no trace in the cache or the journal); taken as it is"
        return _Item(e, "unknown", message)
    return _changed(e, rules, now)


def _deleted(e: Edit) -> _Item:
    if e.base is not None and e.base.status == "deleted":
        return _Item(e, "adopt", "tombstone removed by hand")
    entity, attribute = e.key.split("/", 1)
    st = Statement(entity, attribute, kind="forget", at=e.at, source=EDIT)
    effect = Effect(e.key, "deleted", e.at, origin=e.key)
    # The person removed the file: mdmem does not put a tombstone back in its place. The
    # journal keeps the DELETE, so "removed at your request" stays answerable.
    return _Item(e, "forget", "deleted by hand: forgotten", st, None, "DELETE", effect)


def _new(e: Edit, now: str) -> _Item:
    n = e.now
    assert n is not None
    if n.derived_from or n.uncertain_because or e.journaled:
        message = "new, written by mdmem elsewhere (a pull or a copy): taken as it is"
        return _Item(e, "adopt", message, ours=False)
    if n.value is None or n.status not in ("active", "tentative"):
        return _Item(e, "adopt", f"new, {n.status} without a value to state: taken as it is")
    at = n.valid_from or e.at
    tentative = n.status == "tentative"
    st = Statement(n.entity, n.attribute, value=n.value, at=at, source=EDIT, tentative=tentative)
    after = n.evolve(valid_from=at, recorded_at=now, source=n.source or EDIT)
    return _Item(e, "add", f"new: {show(n.value)}", st, after, "ADD")


def _changed(e: Edit, rules: Rules, now: str) -> _Item:
    b, n = e.base, e.now
    assert b is not None and n is not None
    if _newly_justified(b, n):
        why = n.derived_from or n.uncertain_because or {}
        message = f"already cascaded elsewhere from {why.get('fact')}: taken as it is"
        return _Item(e, "adopt", message, ours=False)
    # Bytes another mdmem wrote (a git pull, a synced folder) carry their own bookkeeping, and
    # their journal entry came with them: they are taken as they are, only cascaded here.
    foreign = e.journaled
    note = " (your other edits kept)" if _other_edits(b, n) else ""
    if n.status == "deleted" and b.status != "deleted":
        tomb = Fact(n.entity, n.attribute, status="deleted", recorded_at=now, source=EDIT)
        at = (n.recorded_at or "")[:10] if foreign else e.at
        st = Statement(n.entity, n.attribute, kind="forget", at=at, source=EDIT)
        gone = Effect(e.key, "deleted", at, origin=e.key)
        return _Item(e, "forget", "status set to deleted: forgotten", st, n if foreign else tomb,
                     "DELETE", gone, ours=not foreign)  # fmt: skip
    if n.value is None and b.value is not None or (n.status == "expired" and b.status != "expired"):
        return _expired(e, b, n, rules, now, foreign, note)
    if n.value is not None and (
        b.status == "deleted" or not rules.same_value(n.attribute, b.value, n.value)
    ):
        return _updated(e, b, n, rules, now, foreign, note)
    at = _when(e, b, n)
    if n.status == "active" and b.status in ("uncertain", "tentative"):
        after = n if foreign else n.evolve(uncertain_because=None, recorded_at=now)
        st = Statement(n.entity, n.attribute, kind="keep", at=at, source=EDIT)
        message = f"confirmed {show(n.value)} (was {b.status}){note}"
        return _Item(e, "confirm", message, st, after, "CONFIRM", ours=not foreign)
    if n.status == "uncertain" and b.status == "active":
        after = n if foreign else n.evolve(recorded_at=now)
        effect = Effect.between(b, after, at, origin=e.key)
        message = f"marked uncertain: {show(n.value)}{note}"
        return _Item(e, "doubt", message, None, after, "UNCERTAIN", effect, ours=not foreign)
    if foreign:
        return _Item(
            e, "adopt", "written by mdmem elsewhere (a pull or a copy): taken as it is", ours=False
        )
    if e.seen is not None and file_mapping(e.seen) != file_mapping(n):
        return _Item(e, "merge", MERGED + (f" (yours: {', '.join(_what_changed(b, n))})" if _what_changed(b, n) else ""),  # fmt: skip
                     None, n, "MERGE")
    return _Item(e, "adopt", f"kept your edit ({', '.join(_what_changed(b, n)) or 'formatting'})")


def _when(e: Edit, b: Fact, n: Fact) -> str:
    """The date a change speaks of: one written in the file, else the day it was saved.

    Never before the value it replaces began (that would be a backfill, not what an edit of
    the current value means).
    """
    if n.valid_from is not None and n.valid_from != b.valid_from:
        return n.valid_from
    if n.status == "expired" and n.history and n.history[-1] not in b.history:
        return n.history[-1].get("valid_to") or e.at  # another mdmem's expiry carries its date
    return max(e.at, b.valid_from or "")


def _moved_by_hand(b: Fact, n: Fact, rules: Rules) -> bool:
    """The person already put the old value into history themselves."""
    return b.value is not None and any(
        h not in b.history and rules.same_value(n.attribute, h.get("value"), b.value)
        for h in n.history
    )


def _expired(e: Edit, b: Fact, n: Fact, rules: Rules, now: str, foreign: bool, note: str) -> _Item:
    at = _when(e, b, n)
    after = n
    if not foreign:
        history = list(n.history)
        if b.value is not None and not _moved_by_hand(b, n, rules):
            history.append(archive(b, at, "no longer true, edited by hand"))
        after = n.evolve(value=None, status="expired", history=history, recorded_at=now,
                         source=EDIT, derived_from=None, uncertain_because=None,
                         evidence=None if b.evidence == n.evidence else n.evidence)  # fmt: skip
    st = Statement(n.entity, n.attribute, kind="invalidate", at=at, source=EDIT)
    effect = Effect.between(b, after, at, origin=e.key)
    message = f"value {show(b.value)} removed: no longer true{note}"
    return _Item(e, "expire", message, st, after, "EXPIRE", effect, ours=not foreign)


def _updated(e: Edit, b: Fact, n: Fact, rules: Rules, now: str, foreign: bool, note: str) -> _Item:
    at = _when(e, b, n)
    tentative = n.status == "tentative" and b.status != "tentative"
    after = n
    if not foreign:
        history = list(n.history)
        if b.value is not None and not _moved_by_hand(b, n, rules):
            history.append(archive(b, at, "changed by hand"))
        value = n.value
        if rules.attribute(n.attribute).cardinality == "many" and isinstance(value, str):
            value = [value]  # one item typed where a list belongs
        after = n.evolve(value=value, status="tentative" if tentative else "active",
                         valid_from=at, recorded_at=now, source=EDIT, derived_from=None,
                         uncertain_because=None, history=history,
                         evidence=None if b.evidence == n.evidence else n.evidence)  # fmt: skip
    restored = b.value is None and rules.same_value(n.attribute, b.last_value(), n.value)
    decision = "ADD" if b.status == "deleted" else "CONFIRM" if restored else "UPDATE"
    st = Statement(n.entity, n.attribute, value=n.value, at=at, source=EDIT, tentative=tentative)
    effect = Effect.between(b, after, at, origin=e.key)
    message = f"value {show(b.last_value())} → {show(n.value)}{note}"
    return _Item(e, "update", message, st, after, decision, effect, ours=not foreign)


def _newly_justified(b: Fact, n: Fact) -> bool:
    """A changed file whose justification is new was written by a cascade (here or elsewhere)."""
    if n.derived_from and n.derived_from != b.derived_from:
        return True
    return bool(
        n.uncertain_because
        and n.uncertain_because != b.uncertain_because
        and n.status in ("uncertain", "expired")
    )


def _other_edits(b: Fact, n: Fact) -> bool:
    return b.body != n.body or b.extra != n.extra or b.depends_on != n.depends_on


def _what_changed(b: Fact, n: Fact) -> list[str]:
    names = ("body", "extra", "depends_on", "history", "valid_from", "valid_to", "source", "status")
    out = []
    for name in names:
        if getattr(b, name) != getattr(n, name):
            out.append("other keys" if name == "extra" else name)
    return out


def describe(c: Change) -> str:
    """One cascaded change, short: 'user/employer uncertain', 'user/sic 广州 → 上海'."""
    after = c.after
    if after is None or after.status == "deleted":
        return f"{c.key} deleted"
    if after.status in ("uncertain", "expired", "tentative"):
        return f"{c.key} {after.status}"
    old = c.before.last_value() if c.before is not None else None
    return f"{c.key} {show(old)} → {show(after.value)}"


_TOP_KEY = re.compile(r"^([^\s#:-][^:\n]*):(?:\s|$)")


def keep_layout(text: str, now: Fact, after: Fact) -> str:
    """`after` written into the person's file `text` (parsed as `now`), touching only what changed.

    Keys keep the person's order and lines (`tags:` stays where they put it); a changed key is
    rewritten in place, a new one goes after the key it follows in the canonical order, and the
    body is kept as typed unless it changed. Falls back to the canonical bytes when the person's
    layout cannot be patched safely."""
    from mdmem.model.yaml_text import dump_yaml  # PyYAML: only when a hand edit is patched

    canonical = render(after)
    parts = text.split("---\n", 2) if text.startswith("---\n") else []
    if len(parts) != 3:
        return canonical
    blocks: list[tuple[str | None, list[str]]] = []
    for line in parts[1].splitlines(keepends=True):
        m = _TOP_KEY.match(line)
        if m or not blocks:
            blocks.append((m.group(1).strip() if m else None, [line]))
        else:
            blocks[-1][1].append(line)
    old, new = file_mapping(now), file_mapping(after)
    out: list[tuple[str | None, str]] = []
    for key, lines in blocks:
        if key == "value" and VALUES in old:  # a list the person wrote under `value`
            key = VALUES
        if key is None or (key in new and new[key] == old.get(key)):
            out.append((key, "".join(lines)))
        elif key in new:
            out.append((key, dump_yaml({key: new[key]})))
    order = list(new)
    for key in order:
        if any(k == key for k, _ in out):
            continue
        earlier = order[: order.index(key)]
        at = max((i + 1 for i, (k, _) in enumerate(out) if k in earlier), default=0)
        out.insert(at, (key, dump_yaml({key: new[key]})))
    body = parts[2] if after.body == now.body else canonical.split("---\n", 2)[2]
    patched = "---\n" + "".join(chunk for _, chunk in out) + "---\n" + body
    try:
        back = parse(patched, expect=(after.entity, after.attribute))
    except MdmemError:
        return canonical
    return patched if file_mapping(back) == new and back.body == after.body else canonical
