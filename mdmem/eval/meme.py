"""Convert MEME benchmark episodes into mdmem evaluation scenarios (docs/eval.md)."""

from __future__ import annotations

import json
import re
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from mdmem.eval.scenario import GATED, ScenarioError
from mdmem.lang.detect import has_cjk
from mdmem.model.yaml_text import dump_yaml

# MEME's task names (and the spellings seen in the wild) → mdmem's task types.
TASK_TYPES = {
    "exact": "exact", "exact_recall": "exact", "verbatim": "exact",
    "recall": "recall", "single_hop": "recall",
    "aggregate": "aggregate", "aggregation": "aggregate",
    "tracking": "tracking", "state_tracking": "tracking", "temporal": "tracking",
    "deletion": "deletion", "delete": "deletion", "forget": "deletion",
    "cascade": "cascade", "cascading": "cascade", "cascade_update": "cascade",
    "absence": "absence", "abstention": "absence", "uncertain": "absence",
    "premise": "premise", "stale_premise": "premise", "premise_resistance": "premise",
}  # fmt: skip
SPLIT_LIST = re.compile(r"\s*(?:[,;，；、]|\band\b|→|->|=>)\s*")
FIRST_DAY = date(2025, 1, 1)


def load_meme(path: Path | str) -> list[dict[str, Any]]:
    """MEME episodes from a .json file (one episode, a list, or {episodes: [...]}) or .jsonl."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ScenarioError(f"cannot be read: {e}", path=str(path)) from None
    try:
        if path.suffix == ".jsonl":
            data: Any = [json.loads(line) for line in text.splitlines() if line.strip()]
        else:
            data = json.loads(text)
    except json.JSONDecodeError as e:
        raise ScenarioError(f"invalid JSON: {e.msg}", path=str(path), line=e.lineno) from None
    if isinstance(data, dict) and isinstance(data.get("episodes"), list):
        data = data["episodes"]
    episodes = data if isinstance(data, list) else [data]
    for i, ep in enumerate(episodes):
        if not isinstance(ep, dict) or not isinstance(ep.get("sessions"), list):
            raise ScenarioError(f"episode {i + 1} is not a MEME episode (no 'sessions' list)", path=str(path))  # fmt: skip
    return episodes


def meme_to_scenario(
    episode: dict[str, Any], *, name: str = "meme", rules: str | dict[str, Any] = "personal"
) -> dict[str, Any]:
    """One MEME episode as a scenario mapping (validate it with `scenario_from_mapping`)."""
    sessions = episode.get("sessions") or []
    if not sessions:
        raise ScenarioError(f"episode {name!r} has no sessions")
    out_sessions = [_session(s, i, name) for i, s in enumerate(sessions)]
    before = list(episode.get("before_questions") or [])
    after = list(episode.get("after_questions") or [])
    positions = [q.get("position_after_session") for q in before + after if isinstance(q, dict)]
    # MEME counts sessions from 0 in some releases and from 1 in others: a 0 settles it.
    zero_based = any(p == 0 or p == "0" for p in positions)
    probes = [_probe(q, "recall", name, len(sessions), zero_based) for q in before]
    olds = {_key(q): _answers(q)[0] for q in before if _answers(q)}
    for i, q in enumerate(after):
        old = olds.get(_key(q))
        if old is None and i < len(before) and _answers(before[i]):
            old = _answers(before[i])[0]  # parallel lists: the i-th before goes with the i-th after
        probes.append(_probe(q, None, name, len(sessions), zero_based, old))
    user_text = " ".join(
        m.get("content", "") for s in sessions for m in _turns(s) if isinstance(m, dict)
    )
    return {
        "name": str(episode.get("episode_id") or episode.get("id") or name),
        "lang": "zh" if has_cjk(user_text) else "en",
        "rules": rules,
        "sessions": out_sessions,
        "probes": probes,
    }


def meme_to_yaml(episode: dict[str, Any], **kwargs: Any) -> str:
    """One MEME episode as scenario YAML text."""
    return dump_yaml(meme_to_scenario(episode, **kwargs))


def _turns(session: Any) -> list[Any]:
    if isinstance(session, dict):
        return session.get("conversation") or session.get("messages") or session.get("turns") or []
    return session if isinstance(session, list) else []


def _session(session: Any, i: int, name: str) -> dict[str, str]:
    lines = []
    for turn in _turns(session):
        if not isinstance(turn, dict) or not isinstance(turn.get("content"), str):
            raise ScenarioError(f"episode {name!r}, session {i + 1}: each turn needs role and content")  # fmt: skip
        role = str(turn.get("role") or turn.get("speaker") or "user")
        speaker = {"user": "User", "assistant": "Assistant"}.get(role.lower(), role)
        first, *rest = turn["content"].strip().splitlines() or [""]
        lines.append(f"{speaker}: {first}")
        # Continuation lines are indented so that none of them can read as a new speaker.
        lines.extend(f"    {line}" if line.strip() else "" for line in rest)
    when = ""
    if isinstance(session, dict):
        when = str(
            session.get("date") or session.get("timestamp") or session.get("session_date") or ""
        )
    day = when[:10] if re.fullmatch(r"\d{4}-\d{2}-\d{2}", when[:10]) else None
    return {"date": day or (FIRST_DAY + timedelta(days=7 * i)).isoformat(), "transcript": "\n".join(lines) + "\n"}  # fmt: skip


def _key(q: dict[str, Any]) -> str:
    return " ".join(str(q.get("question") or q.get("query") or "").casefold().split())


def _answers(q: dict[str, Any]) -> list[str]:
    gold = q.get("gold_answer", q.get("answer"))
    if gold is None:
        return []
    if isinstance(gold, list):
        return [str(g) for g in gold if str(g).strip()]
    return [str(gold)] if str(gold).strip() else []


def _probe(
    q: Any, kind: str | None, name: str, n_sessions: int, zero_based: bool, old: str | None = None
) -> dict[str, Any]:
    if not isinstance(q, dict) or not _key(q):
        raise ScenarioError(f"episode {name!r}: each question needs 'question' text")
    if kind is None:
        raw = re.sub(r"[\s-]+", "_", str(q.get("task_type") or "recall").strip().lower())
        kind = TASK_TYPES.get(raw, "recall")
    pos = q.get("position_after_session")
    after = n_sessions if pos in (None, "") else int(pos) + (1 if zero_based else 0)
    after = min(max(after, 1), n_sessions)
    gold = _answers(q)
    expect: dict[str, Any] = {}
    if kind in ("aggregate", "tracking") and len(gold) == 1:
        gold = [g for g in SPLIT_LIST.split(gold[0]) if g]
    if kind == "tracking":
        expect["order"] = gold
    elif kind == "deletion":
        expect["removed"] = True
        if old:
            expect["absent"] = [old]
    elif kind == "absence":
        expect["uncertain"] = True
        expect["contains"] = [old] if old else gold
    else:
        expect["contains"] = gold
        if kind in GATED and old and all(old.casefold() != g.casefold() for g in gold):
            expect["absent"] = [old]
    probe = {"ask": str(q.get("question") or q.get("query")), "type": kind, "after": after}
    return {**probe, "expect": expect}
