"""Events and plans said in Chinese (the grammar of extract/happenings.py, for 中文).

    "上周我去了杭州出差"       an event: 去杭州出差, 上周, where 杭州
    "我和老公前天去爬了山"     an event with 老公
    "我打算明年考研"           a plan: 考研, due 明年
    "下个月要去东京"           a plan (要 needs a day to come)
    "本来打算搬家，后来不搬了"  the plan to move is cancelled

The subject is 我/我们 (or none at the head of a sentence); a verb of the pack's `event_verbs`
takes 了 (or 过, with a time); a plan word (`plan_words`, or `timed_plan_words` with a day to
come) opens a plan. Negation (不, 没) between the subject and the verb says nothing happened.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mdmem.extract.candidates import Found, words
from mdmem.extract.clauses import clauses, first_hedge
from mdmem.extract.timex import Time, find_times
from mdmem.model.grammar import Grammar, per_grammar
from mdmem.model.life import EVENT, FAMILY_SLOT, PLAN, Happening
from mdmem.model.vocab import alternation

# What may stand between the subject and the verb: a time, a place ("在北京"), an adverb; never
# a negation, a modal or another person.
_GAP = r"[^，,。；;！!？?\s不没别未要想会他她你说]{0,8}?"
_ADV = r"(?:也|还|都|刚|刚刚|终于|已经|又|一起|先|就|特地|专门|第一次|真的)*"
_OBJ = r"[^，,。；;！!？?\s]{1,16}"
_PARTICLES = "了啦呢哦呀吧啊嘛"
_SLIGHT = words("吃饭 睡觉 上班 下班 回家 洗澡 午饭 晚饭 早饭 厕所 一下 一会儿")
_TRAVEL = ("出差", "旅游", "旅行", "玩", "度假", "开会", "看展", "看演出", "看比赛")
_PAST_PLAN = re.compile(r"(?:本来|原本|原来|之前|当初)(?:是)?$")


@dataclass(frozen=True)
class _Zh:
    event: re.Pattern[str]
    plan: re.Pattern[str]
    timed: re.Pattern[str]
    cancel: re.Pattern[str] | None
    sets: tuple[tuple[str, str, re.Pattern[str]], ...]




@per_grammar
def _zh(g: Grammar) -> _Zh:

    def alt(name: str) -> str:
        return alternation(g.words(name, "zh")) if g.words(name, "zh") else "(?!)"

    cancel = g.words("cancel_words", "zh")
    out = _Zh(
        event=re.compile(rf"(?P<partner>[\u4e00-\u9fff]{{1,4}}?(?=一起|[上下这本今明昨前去]|{alt('event_verbs')}))?"
                         rf"{_GAP}{_ADV}(?P<verb>{alt('event_verbs')})(?P<asp>了|过)(?P<obj>{_OBJ})"),
        plan=re.compile(rf"(?P<pre>{_GAP}){_ADV}(?P<word>{alt('plan_words')})(?P<vp>{_OBJ})"),
        timed=re.compile(rf"(?P<pre>{_GAP}){_ADV}(?P<word>{alt('timed_plan_words')})(?P<vp>{_OBJ})"),
        cancel=re.compile(alternation(cancel)) if cancel else None,
        sets=tuple((attr, words["zh"][0], re.compile(rf"{alternation(words['zh'])}(?P<v>[\u4e00-\u9fffA-Za-z]{{2,8}}?)(?=$|[，,。！!；;了去工上]|的)"))
                   for attr, words in g.sets.items() if words.get("zh")),
    )  # fmt: skip
    return out


def find_zh(sentence: str, grammar: Grammar) -> list[Found]:
    """The speaker's events and plans in one Chinese sentence."""
    z = _zh(grammar)
    cancel = z.cancel.search(sentence) is not None if z.cancel else False
    out: list[Found] = []
    all_times = find_times(sentence, "2000-01-01", future=True)
    hedge = first_hedge(sentence)
    for c in clauses(sentence, zh=True, times=all_times):
        if not c.speaker or hedge < c.end:
            continue
        text = sentence[c.body : c.end]
        times = [t for t in all_times if c.start <= t.start < c.end]
        words = times[0].words if times else ""
        if (m := z.plan.match(text)) or (m := z.timed.match(text)):
            timed = m.re is z.timed
            past = _PAST_PLAN.search(sentence[: c.body + m.start("word")]) is not None
            if timed and (cancel or not times):
                continue  # "我想学吉他": a wish with no day is no plan
            vp = _strip_time(m["vp"], times)
            found = _plan(vp, words, z, c.body + m.start("vp"), past or cancel, c.start, timed=timed)
            if found is not None:
                out.append(found)
        elif (m := z.event.match(sentence, _past_time(c.body, times), c.end)) and not cancel and (c.joined or not m["partner"]):  # fmt: skip
            if m["asp"] == "过" and not times:
                continue  # "我去过巴黎": once, some time: no day to put it on
            found = _event(m, words, 0, c.start, c.with_ + ((m["partner"],) if c.joined and m["partner"] else ()))
            if found is not None:
                out.append(found)
    return out


def _past_time(body: int, times: list[Time]) -> int:
    """Where a clause's verb phrase may begin: past a time that heads it ("上个月去了哈尔滨" has
    no subject, and 上个月 is when, not who went)."""
    lead = next((t for t in times if t.start == body), None)
    return body if lead is None else lead.end


def _strip_time(vp: str, times: list[Time]) -> str:
    for t in times:
        vp = vp.replace(t.words, "")
    return vp


def _clean(obj: str) -> str:
    obj = obj.rstrip(_PARTICLES)
    for lead in ("一趟", "趟", "一下", "一次", "次"):
        obj = obj.removeprefix(lead)
    return obj


def _event(m: re.Match[str], words: str, body: int, start: int, people: tuple[str, ...]) -> Found | None:
    obj = _clean(m["obj"])
    if not obj or obj in _SLIGHT:
        return None
    what = m["verb"] + obj
    where = ""
    if m["verb"] in ("去", "到", "回", "逛", "游览", "参观", "出差"):
        where = next((obj.removesuffix(t) for t in _TRAVEL if obj.endswith(t) and len(obj) > len(t)), obj if len(obj) <= 4 else "")
    h = Happening(what, words, where, tuple(p for p in people if p))
    return Found(FAMILY_SLOT[EVENT], what, "assert", start, body + m.start("verb"), body + m.end("obj"), form=EVENT, happening=h)


def _plan(vp: str, words: str, z: _Zh, at: int, cancel: bool, start: int, *, timed: bool) -> Found | None:
    vp = vp.rstrip(_PARTICLES)
    for c in ("的", "了"):
        vp = vp.removesuffix(c)
    if not vp or vp in _SLIGHT or len(vp) < 2:
        return None
    sets: tuple[tuple[str, str], ...] = ()
    what = vp
    for attr, base, rx in z.sets:
        if (s := rx.search(vp)) is not None:
            sets, what = ((attr, s["v"]),), base + s["v"]
            break
    h = Happening(what, words, sets=sets, cancel=cancel, needs_future=timed)
    return Found(FAMILY_SLOT[PLAN], what, "invalidate" if cancel else "assert", start, at, at + len(vp), form=PLAN, happening=h)
