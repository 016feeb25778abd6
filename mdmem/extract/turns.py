"""Turn-to-turn reference: what an answer means given the question it answers, and a bare
duration that speaks of the commute just talked about.

Chat answers are fragments: "你在哪上班呀？" — "华为，在坂田那边"; "Do you still live in Berlin?"
— "Yes, still there". The question names the slot and the person; the answer names the value.
So the question is turned into the answerer's own statement ("我在华为上班", "I still live in
Berlin"), which the patterns then read like any sentence. Narrow on purpose: only questions put
to the answerer (你/you), only a short first clause, never one that talks back or hedges.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Set

from mdmem.extract.candidates import Found

# --- Chinese ---
_ZH_WH = re.compile(r"哪里|哪儿|哪个|哪家|哪|什么地方|什么|多久|多长时间|怎么")
_ZH_TAIL = re.compile(r"[呀啊呢吧嘛哇？?。！!\s]+$")
_ZH_YES = re.compile(r"^(?:对|是|是的|是啊|对啊|对的|嗯|嗯嗯|没错|当然|对呀|是呀)(?:[，,。！!\s]|$)")
# Clause openers that carry nothing: "是啊，…", "嗯，…", "哈哈…"
_ZH_FILLER = re.compile(r"^(?:哈哈+|嘿嘿|嗯+|呃|啊|对|是啊|是的|对啊|其实|就|还)[，,\s]*")
_ZH_BAD = re.compile(r"[你他她吗呢？?没]|不知道|不一定|可能|也许|或许|大概吧|猜|秘密|不是|不在|不想|不告诉|以前|之前")
# A clause that exclaims or describes ("好累啊", "太远了") is no name of anything
_ZH_NOT_VALUE = re.compile(r"[啊呀吧呢哦啦嘛了哈嗯唉]$|^(?:好|太|真|很|挺|超|有点|特别|非常|还行|一般)")
# --- English ---
_EN_YESNO = re.compile(
    r"^(?:so\s+|and\s+|but\s+)?(?P<aux>do|are|is|did|have)\s+you(?P<rest>(?:\s+(?:still|currently|now))?"
    r"\s+(?:live|work|have|own|go|drive|take|bike|cycle|walk|study|teach)\b[^?]{1,60})\?\s*$",
    re.I,
)
_EN_YES = re.compile(r"^(?:yes|yeah|yep|yup|sure|definitely|absolutely|of course|i do|indeed)\b", re.I)
_EN_BAD = re.compile(r"\b(?:not|no|never|don['’]t|doesn['’]t|used to|maybe|probably|might)\b", re.I)
_YOUR = {"your": "my", "yours": "mine", "you": "I"}


def answer_statements(asked: str, answer: str, slot: Callable[[str], str | None]) -> list[str]:
    """The answerer's statements that `answer` makes of the question `asked`, most direct first;
    `slot` names the attribute a noun is a label or alias of (None: not a slot)."""
    asked, answer = asked.strip(), answer.strip()
    if not asked or not answer or len(answer) > 80:
        return []
    if re.search(r"[\u4e00-\u9fff]", asked):
        return _zh(asked, answer, slot)
    return _en(asked, answer)


# A clause with a subject of its own is a whole statement, read as one; spliced into the question
# it would make the clause a value ("我在我在一家奶茶店工作": employer "我在一家奶茶店").
_ZH_OWN_SUBJECT = re.compile(r"^(?:我|你|他|她|它|咱)")
_ZH_SUBJECT = re.compile(r"^我的?(?P<x>[\u4e00-\u9fff]{1,4}?)(?:现在|目前)?(?:在|是|叫)?$")


def _zh(asked: str, answer: str, slot: Callable[[str], str | None]) -> list[str]:
    q = _ZH_TAIL.sub("", asked)
    q = re.split(r"[，,。！!]", q)[-1]  # "好可爱！你家狗狗叫什么名字" → its last clause
    if len(q) > 20 or re.search(r"^(?:我|他|她|它|这|那(?!你))|[我他她]", q):
        return []  # a question about someone else, or about the asker
    # "你在哪上班", "那你呢", and the subject-less "每天怎么去公司": all put to the answerer
    q = re.sub(r"^(?:那)?你们", "我们", q)
    q = re.sub(r"^(?:那)?你", "我", q)
    q = q if q.startswith("我") else "我" + q
    clauses = [c for c in (_ZH_FILLER.sub("", c.strip()) for c in re.split(r"[，,。！!；;]", answer)) if c]
    if asked.rstrip("？? ").endswith("吗"):  # a yes/no question, answered yes
        q = q.removesuffix("吗")
        if not _ZH_YES.match(answer) or _ZH_BAD.search(q):
            return []
        return [q]
    wh = _ZH_WH.search(q)
    if wh is None or "你" in q[wh.end():] or _ZH_BAD.search(answer):
        return []
    pre, post = q[: wh.start()], q[wh.end():]
    subject = _ZH_SUBJECT.match(pre)
    x = subject["x"] if subject and slot(subject["x"]) else None  # "你大学在哪读的": 大学
    # the clause that echoes the question's tail is the direct answer ("湖南的，长沙人")
    clauses = sorted(clauses[:3], key=lambda c: not (post and c.endswith(post)))
    out = []
    for c in clauses:
        if _ZH_NOT_VALUE.search(c) or not 1 < len(c) <= 10 or "叫" in c:  # "一个叫豆豆": answered()'s
            continue
        if _ZH_OWN_SUBJECT.match(c):  # "我在一家奶茶店打工": a sentence of its own, no value to splice
            continue
        if post and c.endswith(post):
            c = c[: -len(post)]  # "长沙人" for "你是哪里人"
        c = c.removesuffix("的") if not post.startswith("的") else c
        if pre.endswith(c[:1]) and c[:1] in "在是去":
            c = c[1:]  # "在坂田" for "你在哪…": one 在
        if len(c) > 1:
            out.append(f"{pre}{c}{post}")
            if x:
                out.append(f"我的{x}是{c}")
    return out


def _en(asked: str, answer: str) -> list[str]:
    m = _EN_YESNO.match(asked)
    if m is None or not _EN_YES.match(answer) or _EN_BAD.search(answer.split(",")[0]):
        return []
    rest = re.sub(r"\b(your|yours|you)\b", lambda w: _YOUR[w[1].lower()], m["rest"], flags=re.I)
    if m["aux"].lower() == "are":
        return [f"I am{rest}."]
    return [f"I{rest}."]


# A duration said alone, after the commute was the topic: "半小时左右就到", "it's about 15 minutes now".
_ZH_DURATION = re.compile(
    r"^(?:大概|差不多|大约|也就|就|只要|要|得|一般|基本上?|现在)*"
    r"(?P<value>(?:\d{1,3}|[一二两三四五六七八九十]{1,3})\s*(?:多)?分钟|半个?小时|一个?(?:多)?小时|一个半小时)"
    r"(?:左右|上下)?(?:就到了?|就能到|吧|了)?$"
)
_EN_DURATION = re.compile(
    r"^(?:(?:it['’]s|it\s+is|it\s+takes(?:\s+me)?|takes\s+me|now\s+it['’]s|only)\s+)?"
    r"(?:about|around|roughly|only|just|like|maybe\s+)?\s*"
    r"(?P<value>\d{1,3}\s*(?:minutes?|mins?)|half\s+an\s+hour|an\s+hour(?:\s+and\s+a\s+half)?)"
    r"(?:\s+(?:now|each\s+way|one\s+way|door\s+to\s+door|tops))*\s*[.!]?$",
    re.I,
)
COMMUTE = ("commute_mode", "commute_minutes", "commute")
_COMMUTE_WORDS = re.compile(r"commute|to\s+work|get\s+to\s+(?:work|the\s+office)|通勤|上班|公司|路上", re.I)


def duration_followups(sentence: str, topic: Set[str], asked: str, attrs: Set[str]) -> list[Found]:
    """A bare duration as the commute's minutes, when the commute is what was just talked about
    (`topic`: slots found just before; `asked`: the other person's question)."""
    if "commute_minutes" not in attrs:
        return []
    if not (topic & set(COMMUTE) or _COMMUTE_WORDS.search(asked)):
        return []
    out = []
    start = 0
    for clause in re.split(r"(?<=[，,；;])", sentence):
        text = clause.strip().rstrip("，,；;")
        rx = _ZH_DURATION if re.search(r"[\u4e00-\u9fff]", text) else _EN_DURATION
        if m := rx.match(text):
            at = sentence.index(text, start)
            out.append(Found("commute_minutes", m["value"], "assert", at, at + m.start("value"), at + len(text)))
        start += len(clause)
    return out[:1]
