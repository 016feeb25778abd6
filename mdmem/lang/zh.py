"""The Chinese phrasebook: every sentence mdmem says in Chinese, keyed as in en.py."""

from __future__ import annotations

PHRASES: dict[str, str] = {
    # --- answers, one per fact state (docs/states.md) ---
    "nothing": "不知道：记忆里没有这方面的记录。",
    "nothing_closest": "不知道：记忆里没有直接的答案。最接近的话：",
    "nothing_about": "关于{who}，我什么都不知道。",
    "bad_date": "问题里的日期{date}不存在，请写成2025-06-01这样的格式。",
    "stale": "这个信息已经过时了。",
    "doubtful": "这可能已经不对了。",
    "yes": "是的。",
    "active": "{whose}{label}是{value}{note}。",
    "since": "（{date}起）",
    "derived": "（{date}起，根据{whose}{trigger}推出）",
    "tentative": "{whose}{label}是{value}，尚未确认（{date}提到）。",
    "uncertain": "{whose}{label}不确定——之前是{value}，但{whose}{trigger}在{date}{change}。",
    "expired": "{whose}{label}现在未知——到{date}为止是{value}。",
    "unknown": "{whose}{label}未知。",
    # --- the kinds of fact (docs/states.md#kinds) ---
    "none": "{whose}{label}：没有（{date}时）。",
    "unnamed": "{whose}{label}：提到过，还不知道名字（{date}起）。",
    "plan": "{whose}{label}：计划中——{value}，定在{date}（尚未确认）。",
    "item_dislike": "{value}（不喜欢）",
    "item_since": "{value}（{date}起）",
    "deleted": "没有相关信息——{whose}{label}已按你的要求删除。",
    "note": "{who}让我记下的原话（{date}）：{sep}{value}",
    "origin": "{whose}{label}在{date}变成了{value}。",
    "origin_gone": "{whose}{label}在{date}{change}。",
    "topic": "关于{topic}，我记得这些：",
    # --- history and a day in the past ---
    "history": "{whose}{label}的变化：{items}。",
    "past": "{whose}{label}以前是{items}；{now}",
    "no_past": "记忆里没有更早的{label}。",
    "now_active": "{date}起是{value}。",
    "now_uncertain": "现在不确定（{trigger}在{date}{change}）。",
    "now_unknown": "{date}之后未知。",
    "now_tentative": "{date}起可能是{value}（尚未确认）。",
    "as_of": "{day}，{whose}{label}是{value}（{period}）。",
    "as_of_before": "不知道{day}时{whose}{label}是什么：记忆里最早的是{value}，从{date}开始。",
    "as_of_gap": "{day}时{whose}{label}未知——到{date}为止是{value}。",
    "period_open": "{start}起",
    "period_closed": "{start}至{end}",
    "period_until": "到{end}为止",
    "current": "至今",
    "now_uncertain_mark": "现在不确定",
    "unconfirmed_mark": "尚未确认",
    "ended": "{date}之后未知",
    "dated": "{value}（{when}）",
    "marked_end": "（{mark}）。",
    "item_sep": "，",
    "history_sep": "；",
    "then": "，然后是",
    # --- how an upstream fact changed ---
    "change_changed": "有变化",
    "change_uncertain": "变得不确定",
    "change_expired": "不再有效",
    "change_deleted": "被删除",
    "changed_to": "变成了{value}",
    # --- the gentle questions about a doubtful fact (stored in the fact file) ---
    "ask_now": "你现在的{label}是什么？（{trigger}在{date}有变化）",
    "ask_still": "你的{label}还是“{value}”吗？（{trigger}在{date}有变化）",
    "ask_tentative": "你的{label}是“{value}”吗？（尚未确认）",
    "ask_plain": "你的{label}还是“{value}”吗？",
    # --- words the sentences are built from ---
    "whose_user": "你的",
    "whose_other": "{name}的",
    "who_user": "你",
    "who_other": "{name}",
    "other_label": "{entity}的{label}",
    "note_label": "记下的原话",
    # Chinese does not inflect for number: the same word either way.
    "is_one": "是",
    "is_many": "是",
    "was_one": "是",
    "was_many": "是",
    "it_was_one": "它是",
    "it_was_many": "它们是",
    "list_sep": "、",
    "list_last": "、",
    "gap": "",
    # the language's name in the (English) prompt of `ask --llm`: "Answer briefly in …"
    "language_name": "Chinese (简体中文)",
}

# Words that say 'uncertain/unknown' and 'removed' in an answer: the evaluator looks for them.
UNCERTAIN_WORDS = ("不确定", "未知", "不知道", "不清楚", "不再确定", "待确认")
REMOVED_WORDS = ("已删除", "删除", "已移除", "移除", "已忘记", "忘掉", "没有相关信息", "没有信息")
