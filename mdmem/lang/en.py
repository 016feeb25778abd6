"""The English phrasebook: every sentence mdmem says in English, keyed as in zh.py."""

from __future__ import annotations

PHRASES: dict[str, str] = {
    # --- answers, one per fact state (docs/states.md) ---
    "nothing": "I don't know: nothing in memory answers that.",
    "nothing_closest": "I don't know: nothing in memory answers that. The closest that was said:",
    "nothing_about": "I know nothing about {who}.",
    "bad_date": "I can't read the date {date} in the question: no such day or month. Write it like 2025-06-01.",
    "stale": "That is out of date. ",
    "doubtful": "That may no longer hold. ",
    "yes": "Yes. ",
    "active": "{whose} {label} {is} {value}{note}.",
    "since": " (since {date})",
    "derived": " (since {date}; derived from {whose_lower} {trigger})",
    "tentative": "{whose} {label} {is} {value}, unconfirmed (first mentioned {date}).",
    "uncertain": (
        "{whose} {label} {is} uncertain — previously {value},"
        " but {whose_lower} {trigger} {change} on {date}."
    ),
    "expired": "{whose} {label} {is} unknown — {was} {value} until {date}.",
    "unknown": "{whose} {label} {is} unknown.",
    # --- the kinds of fact (docs/states.md#kinds) ---
    "none": "{whose} {label}: none (as of {date}).",
    "unnamed": "{whose} {label}: mentioned, but not by name yet (since {date}).",
    "unnamed_as": "{whose} {label}: mentioned as “{nouns}”, but not by name yet (since {date}).",
    "plan": "{whose} {label} “{value}”: planned {due}, not confirmed yet (said {date}).",
    "plan_undated": "{whose} {label} “{value}”: planned, not confirmed yet (said {date}).",
    "plan_overdue": "{whose} {label} “{value}” was planned {due}; whether it happened is uncertain.",
    "plan_done": "{whose} {label} “{value}” happened (planned {date}).",
    "plan_called_off": "{whose} {label} “{value}” was called off on {date}.",
    "plan_not_done": "{whose} {label} “{value}” did not happen (said {date}).",
    "event": "{whose} {label} “{value}” was {when}{said}.",
    "event_said": " (“{words}”)",
    "time_day": "on {date}",
    "time_month": "in {date}",
    "time_year": "in {date}",
    "time_span": "{start} – {end}",
    "item_dislike": "{value} (dislike)",
    "item_since": "{value} (since {date})",
    "deleted": "No information — {whose_lower} {label} {was} removed at your request.",
    "note": "{who} asked me to keep this word for word ({date}):{sep}{value}",
    "origin": "{whose} {label} changed to {value} on {date}. ",
    "origin_gone": "{whose} {label} {change} on {date}. ",
    "topic": "Everything I have about {topic}:",
    # --- history and a day in the past ---
    "history": "{whose} {label} over time: {items}.",
    "past": "{whose} {label} {was} {items}; {now}",
    "no_past": "I have no earlier {label} on record. ",
    "now_active": "since {date} it has been {value}.",
    "now_uncertain": "it is uncertain now ({trigger} {change} on {date}).",
    "now_unknown": "it has been unknown since {date}.",
    "now_tentative": "since {date} it may be {value} (unconfirmed).",
    "as_of": "On {day}, {whose_lower} {label} {was} {value} ({period}).",
    "as_of_before": (
        "I don't know {whose_lower} {label} on {day}:"
        " the earliest value I have, {value}, starts on {date}."
    ),
    "as_of_gap": "On {day}, {whose_lower} {label} {was} unknown — {it_was} {value} until {date}.",
    "period_open": "since {start}",
    "period_closed": "{start} – {end}",
    "period_until": "until {end}",
    "current": "current",
    "now_uncertain_mark": "now uncertain",
    "unconfirmed_mark": "unconfirmed",
    "ended": "then unknown from {date}",
    "dated": "{value} ({when})",
    "marked_end": " ({mark}).",
    "item_sep": ", ",
    "history_sep": "; ",
    "then": ", then ",
    # --- how an upstream fact changed ---
    "change_changed": "changed",
    "change_uncertain": "became uncertain",
    "change_expired": "stopped being known",
    "change_deleted": "was removed",
    "changed_to": "changed to {value}",
    # --- the gentle questions about a doubtful fact (stored in the fact file) ---
    "ask_now": "What is your {label} now? ({trigger} changed on {date})",
    "ask_still": "Is your {label} still “{value}”? ({trigger} changed on {date})",
    "ask_tentative": "Is your {label} “{value}”? (not confirmed yet)",
    "ask_plain": "Is your {label} still “{value}”?",
    "ask_plan_happen": "Did {whose_lower} {value} happen {when}?",
    "ask_plan_did": "Did {who} {value} {when}?",
    # --- words the sentences are built from ---
    "whose_user": "Your",
    "whose_other": "{Name}'s",
    "who_user": "You",
    "who_other": "{Name}",
    "other_label": "{entity} {label}",
    "note_label": "note",
    "is_one": "is",
    "is_many": "are",
    "was_one": "was",
    "was_many": "were",
    "it_was_one": "it was",
    "it_was_many": "they were",
    "list_sep": ", ",
    "list_last": " and ",
    "gap": " ",
    # the language's name in the (English) prompt of `ask --llm`: "Answer briefly in …"
    "language_name": "English",
}

# Words that say 'uncertain/unknown' and 'removed' in an answer: the evaluator looks for them.
UNCERTAIN_WORDS = (
    "uncertain", "unknown", "not sure", "no longer known", "don't know", "do not know",
)  # fmt: skip
REMOVED_WORDS = ("removed", "deleted", "forgotten", "no information")
