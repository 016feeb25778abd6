"""Requests and rules said in passing: forget this, remember that word for word, if X changes …"""

from __future__ import annotations

import re

from .extract_generic import Found, Resolver
from .modality import is_question

# --- verbatim: "remember this error log word for word: ```…```", "原文记下：“…”" ----------

_VERBATIM = re.compile(
    r"\b(?:please\s+)?(?:remember|store|save|keep|record|note(?:\s+down)?|memori[sz]e)\s+"
    r"(?:(?:this|that|the\s+following|my|our|the)\s+)?(?:(?P<x>[a-z][a-z -]{0,30}?)\s+)?"
    r"(?:word\s+for\s+word|verbatim|byte\s+for\s+byte|character\s+for\s+character|"
    r"exactly(?:\s+as\s+(?:written|it\s+is|is|I\s+wrote\s+it))?)\s*[:：]?\s*"
    r"|(?:请|麻烦)?(?:帮我)?(?:把(?P<zx>[\u4e00-\u9fff]{1,8}?))?"
    r"(?:原文|原话|原样|一字不差地?|逐字|原封不动地?)(?:地)?(?:记下|记住|保存|存下|记录)(?:来)?"
    r"(?P<zx2>[\u4e00-\u9fff]{0,8}?)\s*[:：]?\s*",
    re.I,
)
_FENCE = re.compile(r"(?P<open>```|~~~)[^\n]*\n(?P<body>.*?)\n?[ \t]*(?P=open)", re.S)
_CLOSE = {'"': '"', "“": "”", "'": "'", "‘": "’", "「": "」", "『": "』", "«": "»"}


def find_verbatim(text: str) -> tuple[str | None, str, tuple[int, int]] | None:
    """(slot words or None, the exact text to keep, its span in text) for a verbatim request."""
    m = _VERBATIM.search(text)
    if m is None:
        return None
    slot = m["x"] or m["zx"] or m["zx2"] or None
    rest = m.end()
    fence = _FENCE.match(text, rest) or _FENCE.search(text, rest)
    if fence and not text[rest : fence.start()].strip(" \t\n:："):
        return slot, fence["body"], (m.start(), fence.end())
    if rest < len(text) and text[rest] in _CLOSE:
        close = text.rfind(_CLOSE[text[rest]])
        if close > rest + 1:
            return slot, text[rest + 1 : close], (m.start(), close + 1)
    payload = text[rest:].strip()
    if payload and m.group(0).rstrip().endswith((":", "：")):
        return slot, payload, (m.start(), len(text))
    return None


# --- forget: "please delete that from your memory", "forget my address", "忘掉我的地址" -------

_LEAD = r"(?:^|[,;:，；：]\s*|\b(?:please|pls|kindly|can you|could you|would you|also|and|so|now|ok|okay|actually)\s+)"
_MEMORY = r"(?:\s+(?:from|in|out of)\s+(?:your\s+)?(?:memory|memories|notes|records|vault))"
_FORGET_REF = re.compile(
    rf"{_LEAD}(?:please\s+)?(?:forget|delete|erase|remove|drop|wipe)\s+"
    r"(?:that|this|it|what\s+I\s+(?:just\s+)?(?:said|told\s+you|mentioned|wrote))\b"
    rf"(?P<mem>{_MEMORY})?",
    re.I,
)
_FORGET_NAMED = re.compile(
    rf"{_LEAD}(?:please\s+)?(?:forget|delete|erase|remove)\s+(?:about\s+)?(?:my|our|the)\s+"
    rf"(?P<x>[a-z][a-z'’ -]{{0,40}}?)(?={_MEMORY}|\s*(?:$|[.,;!?])|\s+(?:please|too|as\s+well)\b)"
    r"|\b(?:don['’]t|do\s+not|stop|no\s+need\s+to)\s+(?:remember(?:ing)?|keep(?:ing)?|"
    r"stor(?:e|ing)|sav(?:e|ing))\s+(?:my|our)\s+"
    rf"(?P<x2>[a-z][a-z'’ -]{{0,40}}?)(?={_MEMORY}|\s*(?:$|[.,;!?])|\s+(?:anymore|any\s+more)\b)",
    re.I,
)
_ZH_FORGET = re.compile(
    r"(?:把|将)(?:我的)?(?P<x>[\u4e00-\u9fff]{1,8}?)(?:给我)?(?:从(?:你的)?(?:记忆|脑子|备忘录?|记录)(?:里|中)?)?"
    r"(?:忘掉|忘了吧|忘记|删掉|删除|去掉|抹掉)"
    r"|(?<!我)(?<!别)(?<!不要)(?<!不能)(?<!别再)(?:忘掉|忘记|删掉|删除|别记|不要记|不用记|别再记)(?:住)?"
    r"(?:我的)?(?P<x2>[\u4e00-\u9fff]{1,8}?)(?:了吧|了|吧)?(?=$|[，。！？,.!?])"
)
_FORGET_GATE = re.compile(
    r"forget|delete|erase|remove|drop|wipe|remember|keep|stor|sav|忘|删|记|去掉|抹掉", re.I
)
_ZH_REF = re.compile(
    r"^(?:这个|那个|这条|那条|这些|那些|它|刚才(?:说的|那条|那个|的)?|上面(?:那条|的)?|这句话?)$"
)
_REF_WORDS = re.compile(r"^(?:that|this|it|what\s+I\b.*)$", re.I)


def find_forget(sentence: str, resolver: Resolver) -> list[Found]:
    """Forget requests: a named attribute, or None for "that" (the statement just made)."""
    if not _FORGET_GATE.search(sentence):
        return []
    out = []
    m = _FORGET_REF.search(sentence)
    if m and (m["mem"] or re.search(r"\bplease\b|\byou\b|what\s+I", m.group(0), re.I)):
        out.append(Found(None, None, "forget", m.start(), m.end(), m.end()))
    for m in _FORGET_NAMED.finditer(sentence):
        attr = resolver.named((m["x"] or m["x2"]).strip())
        if attr:
            out.append(Found(attr, None, "forget", m.start(), m.end(), m.end()))
    for m in _ZH_FORGET.finditer(sentence):
        x = m["x"] or m["x2"]
        if _ZH_REF.match(x):
            out.append(Found(None, None, "forget", m.start(), m.end(), m.end()))
        elif attr := resolver.named(x.removeprefix("我的")):
            out.append(Found(attr, None, "forget", m.start(), m.end(), m.end()))
    return out


# --- learned dependencies (DESIGN §4.3) -------------------------------------------------

_NAME = r"(?P<v>[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*){0,2}|[a-z][\w.+-]*@[\w.-]+|#[\w-]+)"
_WILL = r"(?:will|would|should|is\s+going\s+to|shall)"
_CHANGE = (
    r"(?:changes?|changed|is\s+replaced|gets\s+replaced|switch(?:es)?|moves?|is\s+different|leaves)"
)
_IF = re.compile(
    rf"\b(?:if|when|whenever|once|should)\s+(?!(?:I|we|you|he|she|they|it)\s)(?:the\s+|our\s+|my\s+)?(?P<t>[a-z][a-z'’ -]{{0,40}}?)\s+(?:ever\s+)?{_CHANGE}\b"
    r"|\bif\s+(?:I|we)\s+(?:ever\s+)?(?:change|move|switch)(?:\s+(?:my\s+|our\s+)?(?P<t2>[a-z][a-z -]{0,30}?))?(?=\s*[,;]|\s+then\b)",
    re.I,
)
_THEN = r"^\s*[,;]?\s*(?:then\s+)?"
_DERIVE = re.compile(
    rf"{_THEN}(?:the\s+|our\s+|my\s+)?(?P<d>[a-z][a-z'’ -]{{0,40}}?)\s+{_WILL}\s+"
    rf"(?:be|go\s+to|become|switch\s+to|change\s+to|move\s+to|be\s+sent\s+to)\s+{_NAME}",
    re.I,
)
_REF_CONFIRM = re.compile(
    rf"{_THEN}(?P<r>this|that|it|these|those)(?:\s+[a-z]+){{0,2}}\s+(?:will|would|might|may|could|should)\s+"
    r"(?:also\s+|probably\s+|likely\s+)?(?:change|need\s+to\s+change|be\s+different|need\s+updating|be\s+updated)",
    re.I,
)
_NAMED = re.compile(
    rf"{_THEN}(?:the\s+|our\s+|my\s+)?(?P<d>[a-z][a-z'’ -]{{0,40}}?)\s+(?:will|would|might|may|could|should)\s+"
    r"(?:also\s+|probably\s+|likely\s+)?(?:(?P<end>end|stop|expire|no\s+longer\s+(?:apply|hold|be\s+valid))"
    r"|change|need\s+to\s+change|be\s+different)\b",
    re.I,
)
_DEPENDS = re.compile(
    r"(?:^|[,;]\s*)(?:the\s+|our\s+|my\s+)?(?P<d>[a-z][a-z'’ -]{0,40}?)\s+depends?\s+on\s+"
    r"(?:the\s+|our\s+|my\s+|which\s+|where\s+I\s+)?(?P<t>[a-z][a-z'’ -]{0,30}?)(?=\s*(?:$|[.,;!?]))",
    re.I,
)
_ZH_IF = re.compile(
    r"(?:如果|要是|假如|万一|一旦)(?:我们?的?)?(?:(?:换|变|改)了?(?P<t1>[\u4e00-\u9fff]{1,6}?)(?=[，,]|的话|就|那)"
    r"|(?P<t2>[\u4e00-\u9fff]{1,6}?)(?:换了|变了|改了|换人了?|有变化?|变动了?|换掉了?|换))(?:的话)?"
)
_ZH_DERIVE = re.compile(
    r"^\s*[，,]?\s*(?:那么?|就)?(?P<d>[\u4e00-\u9fff]{1,8}?)(?:就|也|都)?(?:会|要)?(?:发给|交给|改成|变成|换成|改为|归)"
    r"(?P<v>[\u4e00-\u9fff]{2,4}?|[A-Z][a-zA-Z]+(?: [A-Z][a-zA-Z]+)?)(?:了|吧)?(?=$|[，。！？,.!?])"
)
_ZH_REF_CONFIRM = re.compile(
    r"^\s*[，,]?\s*(?:那么?|就)?(?:这个|那个|这|它|这些|那些|这件事|这项)(?:也|就|都)?(?:会|要|得|可能)?(?:跟着)?(?:变|改|换|调整)"
)
_ZH_NAMED = re.compile(
    r"^\s*[，,]?\s*(?:那么?)?(?P<d>[\u4e00-\u9fff]{1,8}?)(?:也|就|都)(?:会|要|得|可能)?(?:跟着)?(?:变|改|换|调整)"
)
_ZH_FOLLOWS = re.compile(
    r"(?:^|[，,])(?:不过|但是?|而且|可是)?(?P<d>[\u4e00-\u9fff]{1,8}?)(?:是|都是)?(?:跟着|随着|取决于|看)"
    r"(?P<t>[\u4e00-\u9fff]{1,6}?)(?:走)?的"
)
_CHEAP_DEP = re.compile(
    r"\b(?:if|when|whenever|once|should|depends?)\b|如果|要是|假如|万一|一旦|跟着|随着|取决于", re.I
)


def find_dependencies(sentence: str, resolver: Resolver) -> list[Found]:
    """Conditional dependencies: kind "depends", the dependent (None: "this") and dep {on, action, value?}."""
    if not _CHEAP_DEP.search(sentence) or is_question(sentence):
        return []
    out = []
    for m in _IF.finditer(sentence):
        trigger = _trigger(m["t"] or m["t2"] or "move", resolver)
        if trigger:
            out.extend(_consequence(sentence, m, trigger, resolver, zh=False))
    for m in _ZH_IF.finditer(sentence):
        trigger = _trigger(m["t1"] or m["t2"], resolver)
        if trigger:
            out.extend(_consequence(sentence, m, trigger, resolver, zh=True))
    for m in _ZH_FOLLOWS.finditer(sentence):
        trigger, dependent = _trigger(m["t"], resolver), resolver.attribute(m["d"])
        if trigger and dependent and trigger != dependent:
            dep = {"on": trigger, "action": "confirm"}
            out.append(Found(dependent, None, "depends", m.start(), m.end(), m.end(), dep=dep))
    for m in _DEPENDS.finditer(sentence):
        trigger, dependent = _trigger(m["t"], resolver), resolver.attribute(m["d"])
        if trigger and dependent and trigger != dependent:
            dep = {"on": trigger, "action": "confirm"}
            out.append(Found(dependent, None, "depends", m.start(), m.end(), m.end(), dep=dep))
    return out


def _trigger(phrase: str, resolver: Resolver) -> str | None:
    phrase = re.sub(r"^(?:the|our|my|我的|我们的)\s*", "", phrase.strip(), flags=re.I)
    if phrase.lower() in ("cities", "city", "move", "home", "house"):
        phrase = {"cities": "city", "house": "home"}.get(phrase.lower(), phrase)
    if not phrase:
        return None
    # "if I change jobs" / "如果我换工作": a slot, or the topic it names (work → employer).
    return resolver.declared(phrase) or resolver.topic_head(phrase) or resolver.new_slug(phrase)


def _consequence(
    sentence: str, m: re.Match[str], trigger: str, resolver: Resolver, *, zh: bool
) -> list[Found]:
    rest_at = m.end()
    rest = sentence[rest_at:]
    derive, ref, named = (
        (_ZH_DERIVE, _ZH_REF_CONFIRM, _ZH_NAMED) if zh else (_DERIVE, _REF_CONFIRM, _NAMED)
    )
    if d := derive.match(rest):
        dependent = resolver.attribute(d["d"])
        if dependent and dependent != trigger:
            dep = {"on": trigger, "action": "derive", "value": d["v"].rstrip(".,;:!?")}
            return [Found(dependent, None, "depends", m.start(), rest_at + d.start("v"),
                          rest_at + d.end(), dep=dep)]  # fmt: skip
    if r := ref.match(rest):
        dep = {"on": trigger, "action": "confirm"}
        return [
            Found(None, None, "depends", m.start(), rest_at + r.end(), rest_at + r.end(), dep=dep)
        ]
    if n := named.match(rest):
        dependent = resolver.attribute(n["d"])
        if dependent and dependent != trigger:
            action = "expire" if n.groupdict().get("end") else "confirm"
            dep = {"on": trigger, "action": action}
            return [
                Found(
                    dependent,
                    None,
                    "depends",
                    m.start(),
                    rest_at + n.end(),
                    rest_at + n.end(),
                    dep=dep,
                )
            ]
    return []
