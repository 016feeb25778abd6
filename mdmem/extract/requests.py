"""Requests and rules said in passing: forget this, remember that word for word, if X changes …"""

from __future__ import annotations

import re

from mdmem.extract.candidates import Found, Resolver
from mdmem.extract.forget_requests import find_requests
from mdmem.extract.modality import is_question
from mdmem.extract.prefilter import lowered, may_match

# --- verbatim: "remember this error log word for word: ```…```", "原文记下：“…”" ----------

# "keep this word for word", "write this down exactly", "another one to keep exactly as I say it"
_EN_KEEP = (
    r"(?:remember|store|save|keep|record|log|memori[sz]e|(?:note|write|jot|copy|take)(?:\s+down)?)"
)
_EN_MANNER = (
    r"(?:word\s+for\s+word|verbatim|byte\s+for\s+byte|character\s+for\s+character|to\s+the\s+letter"
    r"|exactly(?:\s+as\s+(?:written|it\s+is|is|(?:I|you)\s+(?:say|said|wrote|write|put|typed|type)"
    r"\s+it|(?:it['’]s|it\s+is)\s+(?:written|said))|\s+like\s+this)?|as\s+is)"
)
_VERBATIM = re.compile(
    rf"\b(?:please\s+)?{_EN_KEEP}\s+"
    r"(?:(?:this|that|it|the\s+following|my|our|the)\s+)?(?:down\s+)?(?:for\s+me\s+)?"
    rf"(?:(?P<x>[a-z][a-z -]{{0,30}}?)\s+)?(?:down\s+)?(?:for\s+me\s+)?{_EN_MANNER}\s*[:：?.!,–—-]?\s*"
    r"|(?:请|麻烦你?)?(?:再|也)?(?:帮我|给我|替我)?(?:再|也)?(?:把(?P<zx>[\u4e00-\u9fff]{1,8}?))?"
    r"(?:按|照)?(?:原文|原话|原样|一字不差地?|一字不改地?|逐字逐句地?|逐字地?|原封不动地?)(?:地)?(?:帮我|给我|替我)?"
    r"(?:记下来|记下|记住|记一下|记一句|记一条|记个|记着|记|保存下来|保存|存下来|存下|存一下|存着|存|"
    r"记录下来|记录|抄下来|写下来)"
    r"(?:(?P<zx2>[\u4e00-\u9fff]{1,8}?)(?=\s*[:：，,“\"「『]))?\s*[:：，,]?\s*",
    re.I,
)
_FENCE = re.compile(r"(?P<open>```|~~~)[^\n]*\n(?P<body>.*?)\n?[ \t]*(?P=open)", re.S)
_CLOSE = {'"': '"', "“": "”", "'": "'", "‘": "’", "「": "」", "『": "』", "«": "»"}
# Words for "this text" rather than a slot: "keep this one word for word", "原话记一句".
_NOT_SLOT = re.compile(
    r"^(?:(?:another|one\s+more|this|that)\s+)?(?:one|bit|line|lines|sentence|note|text|quote|message"
    r"|phrase|part|down|for\s+me|please|too|as\s+well|also|again)$"
    r"|^(?:这|那|下面|以下|如下)?(?:一|几)?(?:句话?|段话?|条|个|下|下来|内容|的话|原话|话|一下)$",
    re.I,
)
_ZH_DET = re.compile(r"^(?:这|那|下面|以下)(?:一|几)?(?:句|段|条|个|份)?(?:的)?")


def _slot_words(*groups: str | None) -> str | None:
    for g in groups:
        if not g:
            continue
        g = g.strip()
        if not g.isascii():
            g = _ZH_DET.sub("", g)
        if g and not _NOT_SLOT.match(g):
            return g
    return None


def find_verbatim(text: str) -> tuple[str | None, str, tuple[int, int]] | None:
    """(slot words or None, the exact text to keep, its span in text) for a verbatim request."""
    found = find_verbatims(text)
    return found[0] if found else None


def find_verbatims(text: str) -> list[tuple[str | None, str, tuple[int, int]]]:
    """Every verbatim request of a message, in order: (slot words or None, exact text, span)."""
    out: list[tuple[str | None, str, tuple[int, int]]] = []
    pos = 0
    if not may_match(_VERBATIM, lowered(text)):
        return out  # none of its words is there: the slow search is not run
    while (m := _VERBATIM.search(text, pos)) is not None:
        kept = _payload(text, m)
        if kept is None:
            pos = m.end() if m.end() > m.start() else m.start() + 1
            continue
        out.append(kept)
        pos = kept[2][1]
    return out


def _payload(text: str, m: re.Match[str]) -> tuple[str | None, str, tuple[int, int]] | None:
    slot = _slot_words(m["x"], m["zx"], m["zx2"])
    rest = m.end()
    fence = _FENCE.match(text, rest) or _FENCE.search(text, rest)
    if fence and not text[rest : fence.start()].strip(" \t\n:："):
        return slot, fence["body"], (m.start(), fence.end())
    if rest < len(text) and text[rest] in _CLOSE:
        # The quote closes at the last closing mark on its line (a quote may hold quotes),
        # or before the next request when one follows on the same line.
        eol = text.find("\n", rest)
        eol = len(text) if eol < 0 else eol
        following = _VERBATIM.search(text, rest + 1)
        if following is not None and following.start() < eol:
            eol = following.start()
        close = text.rfind(_CLOSE[text[rest]], rest + 1, eol)
        if close < 0:
            close = text.rfind(_CLOSE[text[rest]])
        if close > rest + 1:
            return slot, text[rest + 1 : close], (m.start(), close + 1)
    payload = text[rest:].strip()
    if payload and m.group(0).rstrip().endswith((":", "：")):
        eol = text.find("\n", rest)
        if eol > rest and _VERBATIM.search(text, eol):  # the next line holds another request
            return slot, text[rest:eol].strip(), (m.start(), eol)
        return slot, payload, (m.start(), len(text))
    return None


# --- forget: the requests are read by `forget_requests`; here, those naming a slot ------------


def find_forget(sentence: str, resolver: Resolver) -> list[Found]:
    """Forget requests that name a slot ("forget my address", "忘掉我的地址"), as candidates.
    A request for "that" points at words, not a slot: the ingest cuts those before reading
    (`edit.requested`), so it is not a candidate here."""
    return [Found(r.attribute, None, "forget", r.start, r.end, r.end)
            for r in find_requests(sentence, resolver) if r.kind == "named" and r.attribute]  # fmt: skip


# --- corrections: "no, I said Munich, Schwabing is the district", "不对，我说的是慕尼黑" -------------
_CORRECTION = re.compile(
    r"^\W*(?:no|nope|sorry|oops|wait|correction)\b[\s,.!:;—-]*(?:I\s+(?:said|meant?)|it(?:['’]s|\s+is))\s+(?P<v>[^,.;!?]+?)"
    r"(?:,?\s+not\s+(?P<w>[^,.;!?]+))?(?:[,.;!?]\s*(?P<w2>[^,.;!?]+?)\s+is\s+(?:just\s+)?the\b.*)?\W*$"
    r"|^\W*(?:不对|不是|错了|说错了)[，,。！!\s]*(?:我说的是|我是说|应该是|是)(?P<zv>[^，,。！？；\s]+)(?:[，,]\s*(?P<zw>[^，,。！？；\s]+?)只?是.*)?[。！!]?$",
    re.I,
)


def find_correction(sentence: str) -> Found | None:
    """A correction of what was just said: the right value, and the wrong one when named."""
    if (m := _CORRECTION.search(sentence.strip())) is None:
        return None
    wrong = m["w"] or m["w2"] or m["zw"]
    return Found(None, (m["v"] or m["zv"]).strip(), "correct", m.start(), m.start("v" if m["v"] else "zv"), m.end(), dep={"wrong": wrong.strip()} if wrong else {})  # fmt: skip


# --- learned dependencies (docs/rules.md, "Learned dependencies") -------------------------------------------------

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
    r"|(?P<t2>[\u4e00-\u9fff]{1,6}?)(?:换了|变了|改了|换人了?|有变化?|变动了?|换掉了?|换)"
    r"|(?P<t3>搬家|搬走|跳槽|换工作|换了工作)了?)(?:的话)?"
)
_ZH_DERIVE = re.compile(
    r"^\s*[，,]?\s*(?:那么?|就)?(?P<d>[\u4e00-\u9fff]{1,8}?)(?:就|也|都)?(?:会|要)?(?:改发给|改交给|转给|改由|发给|交给|改成|变成|换成|改为|归)"
    r"\s*(?P<v>[\u4e00-\u9fff]{2,4}?|[A-Z][a-zA-Z]+(?: [A-Z][a-zA-Z]+)?|#?[a-z0-9][\w.-]{1,40})(?:了|吧)?"
    r"\s*(?=$|[，。！？,.!?])"
)
# "if my address changes, I'll have to find a new gym": the slot named after "new" is in doubt.
_NEW = re.compile(
    rf"{_THEN}(?:I|we)(?:['’]ll|\s+will|['’]d|\s+would)?\s+(?:probably\s+|likely\s+|also\s+)?"
    r"(?:have\s+to\s+|need\s+to\s+|want\s+to\s+|must\s+)?(?:find|get|look\s+for|pick|choose|need)\s+"
    r"(?:a|an)\s+(?:new|different)\s+(?P<d>[a-z][a-z -]{0,30}?)(?=\s*(?:$|[.,;!?]|too\b|as\s+well\b))",
    re.I,
)
_ZH_NEW = re.compile(
    r"^\s*[，,]?\s*(?:那么?)?(?:我们?)?(?:就|也|都)?(?:得|要|需要|会)?(?:重新找|换个新的?|换一个新的?|另找|再找|找新的?)"
    r"(?:一个|个|一家|家)?(?:新的?)?(?P<d>[\u4e00-\u9fff]{1,6}?)(?:了|吧)?(?=$|[，。！？,.!?])"
)
_ZH_REF_CONFIRM = re.compile(
    r"^\s*[，,]?\s*(?:那么?|就)?(?:这个|那个|这|它|这些|那些|这件事|这项)(?:也|就|都)?(?:会|要|得|可能)?(?:跟着)?(?:变|改|换|调整)"
)
_ZH_NAMED = re.compile(
    r"^\s*[，,]?\s*(?:那么?)?(?P<d>[\u4e00-\u9fff]{1,8}?)(?:估计|可能|应该|大概|肯定|多半)?(?:也|就|都)(?:会|要|得|可能)?(?:跟着)?(?:变|改|换|调整)"
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
        moved = {
            "搬家": "搬家",
            "搬走": "搬家",
            "跳槽": "工作",
            "换工作": "工作",
            "换了工作": "工作",
        }
        trigger = _trigger(m["t1"] or m["t2"] or moved[m["t3"]], resolver)
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
    n = (_ZH_NEW if zh else _NEW).match(rest)
    dependent = resolver.attribute(n["d"]) if n else None
    if n and dependent and dependent != trigger:
        dep = {"on": trigger, "action": "confirm"}
        return [Found(dependent, None, "depends", m.start(), rest_at + n.end(),
                      rest_at + n.end(), dep=dep)]  # fmt: skip
    if n := named.match(rest):
        # "my gym membership would change": the slot a longer phrase contains (gym)
        dependent = resolver.named(n["d"]) or resolver.attribute(n["d"])
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
