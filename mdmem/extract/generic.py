"""Generic statements for attributes no rule names: "my X is Y", "Y is our new X", "X: Y", …

Real chat is full of sentences shaped like facts that are not ("my favourite part is when…",
"the thing is…", "my job was tough"). So these forms are deliberately narrow: the slot X is a
short lower-case noun phrase whose head is not a filler word, and the value Y is a name, a
title, a number or a quotation, unless X is an attribute the rules declare.
"""

from __future__ import annotations

import re

from mdmem.extract.candidates import LOWER_STOP, X_STOP, Found, Resolver, words
from mdmem.extract.kinds import find_kinds
from mdmem.lang.detect import has_cjk
from mdmem.model.rules import norm

# Heads of "my X is …" that name a way of talking, not a slot of a person's life.
HEAD_STOP = words(
    """
    thing things part parts point problem problems issue question questions goal goals aim dream
    dreams plan plans idea ideas guess bet hope hopes wish fault pleasure heart mind life mood
    tip tips advice answer reason way ways time times day days turn favorite favourite fav
    favorites favourites fave best worst concern worry worries focus motivation passion passions
    priority take opinion feeling feelings understanding impression experience story secret
    suggestion recommendation fear fears excuse guess job work plate schedule bad pleasure go
    thought thoughts dad mom mum mother father kids kid son daughter family friend friends
    husband wife partner boyfriend girlfriend brother sister parents team body
    """
)
X_PAST = frozenset(["old", "former", "previous", "ex", "last", "first", "late", "original"])
CAP_STOP = words(
    """
    I I'm I’m It It's It’s This That These Those There Here He She They We You A An My Our Your
    His Her Their So Not Just Really Very Also Still Always Never Such What When How Why Where
    Who Oh Ok OK Okay Yes No Yeah Lol Haha Well Now Then Too Pretty Super Totally
    """
)
CONNECTORS = frozenset(["of", "de", "von", "van", "the", "and", "&", "la", "le", "del", "da", "di"])
_QUOTED = re.compile(
    r"^(?:\"(?P<a>[^\"]{1,80})\"|“(?P<b>[^”]{1,80})”|'(?P<c>[^']{1,80}?)'(?!\w)|‘(?P<d>[^’]{1,80}?)’(?!\w)"
    r"|«(?P<e>[^»]{1,80})»|「(?P<f>[^」]{1,80})」|『(?P<g>[^』]{1,80})』)"
)
# A handle, channel, host, path or code: "#aurora-core", "@kim", "stream.velturis.io/aurora".
_IDENT = re.compile(r"^(?:[#@][\w-]+|[\w-]+(?:[./:@][\w-]+)+/?)$")
_NUMBER = re.compile(r"^\+?\d[\d\s:/.,-]*\d$|^\d$")
_CAPWORD = re.compile(r"^(?:[A-Z0-9][\w'’.&+-]*|[\"“][^\"”]+[\"”])$")

_END = (
    r"(?=\s*(?:$|[,;!?()]|:(?!\S)|\.(?:\s|$)|\s[-–—]\s|\s(?:and|but|because|since|so|which|who|though|"
    r"although|when|if|for|as|at|in|on|from|with|now|too|anymore|lol|haha)\b))"
)
_X = r"(?P<x>[a-z][a-z-]*(?:\s+[a-z][a-z-]*){0,2})"
_IS = re.compile(
    r"(?<![\w'’])(?P<det>[Mm]y|[Oo]ur|[Tt]he)\s+(?:(?P<owner>[a-z]+)['’]s\s+)?"
    rf"(?P<new>(?:new|current|present)\s+)?{_X}\s+(?:is|['’]s)\s+(?:now\s+|still\s+|currently\s+)?"
    rf"(?P<y>(?:[^,;:!?()]|:(?=\S))+?){_END}"
)
_NEW = re.compile(
    r"(?:^|(?<=[,;:]\s))(?P<y>[A-Z][\w'’.+-]*(?:\s+[A-Z][\w'’.+-]*){0,3}|[a-z][\w.+-]*)\s+is\s+"
    rf"(?:now\s+)?(?P<det>our|my|the)\s+(?:(?P<owner>[a-z]+)['’]s\s+)?new\s+{_X}(?=\s*(?:$|[,;.!?]))"
)
_COLON = re.compile(
    r"^(?P<x>[A-Za-z][A-Za-z-]*(?:\s+[A-Za-z][A-Za-z-]*){0,3}|[\u4e00-\u9fff]{2,6})\s*[:：]\s*"
    r"(?P<y>[^:：]{1,60}?)\s*[.。!！]?$"
)
COLON_STOP = words(
    """
    note notes update edit ps p.s fyi btw tip example reminder question answer warning error
    todo re subject summary step q a source quote link why what how lol ok well so anyway also
    plus result results conclusion fun fact spoiler pro tip hint caption title me you user
    assistant hi hey hello thanks lesson bonus disclaimer context background tldr tl;dr
    """
) | {"更新", "注意", "备注", "提示", "问题", "回答", "总结", "例如", "比如"}
_GOES = re.compile(
    r"(?:^|(?<=[,;:]\s))(?:(?P<det>[Mm]y|[Oo]ur|[Tt]he|[Aa]ll)\s+)?"
    r"(?P<x>[A-Za-z][a-z-]*(?:\s+[a-z][a-z-]*){0,2})\s+(?:now\s+)?"
    r"(?:go|goes|get\s+sent|gets\s+sent|are\s+sent|is\s+sent|are\s+routed|is\s+routed)\s+to\s+"
    r"(?P<y>[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*){0,2})"
    r"(?=\s*(?:$|[,;.!?]|\s[-–—]\s|\s(?:and|but|now|from|every|each)\b))"
)
PEOPLE_STOP = words(
    """
    i we you they he she it kids kid children child family everyone everybody people friends
    parents mom dad mum son daughter husband wife son boys girls guys folks team we'll
    """
)
_SWITCH = re.compile(
    r"\b(?:switched|changed|moved|updated)\s+(?:my|our|the)\s+"
    r"(?P<x>[a-z][a-z-]*(?:\s+[a-z][a-z-]*){0,2})\s+(?:from\s+\S+\s+)?to\s+"
    rf"(?P<y>[A-Z][\w'’.+-]*(?:\s+[A-Z][\w'’.+-]*){{0,3}}|[a-z][\w.+-]*){_END}"
)
_BARE = re.compile(
    r"\b(?:(?:we|i)(?:['’]ve|\s+have)?\s+)?(?:just\s+|finally\s+)?(?:switched|moved|migrated|changed)"
    r"\s+(?:over\s+|back\s+)*(?:from\s+[\w.+-]+\s+)?to\s+(?P<y>[\w+-]+(?:\.[\w+-]+)*)(?=\s*(?:$|[,;.!?]|\s))"
    r"|\b(?:we|i)(?:['’]re|['’]m|\s+are|\s+am)?\s+now\s+(?:use|using)\s+(?P<y2>[\w+-]+(?:\.[\w+-]+)*)"
    r"|(?:换成了?|改用了?|改成了?|切换到了?|切到了?)(?P<y3>[A-Za-z][A-Za-z0-9.+-]*|[\u4e00-\u9fff]{2,6}?)(?=了|，|。|！|$)",
    re.I,
)
_ZH_IS = re.compile(
    r"(?:(?P<owner>团队|我们团队|我们组|组里|项目)的|(?:我|我们|咱们)的)(?P<x>[\u4e00-\u9fff]{1,6}?)"
    r"(?:现在|目前)?(?P<verb>是|叫|换成了?|改成了?|变成了?)(?P<y>[^，。！？；,!?;\s]{1,20}?)"
    r"(?=$|[，。！？；,!?;\s]|了|啦)"
)
ZH_X_STOP = words(
    """
    梦想 目标 问题 意思 想法 计划 意见 感觉 建议 理由 原因 重点 关键 看法 习惯 心情 愿望 希望 天 生活 人生 工作 事 事情 东西 爸爸 妈妈 孩子 家人 朋友 老公
    老婆
    """
)
_ZH_Y_BAD = re.compile(
    r"^(?:不|没|很|太|真|挺|非常|有点|一个|一种|在|要|想|去|让|把|怎么|什么)|[我你他她它]"
)
# "部署平台是Vercel", "发版日改成周二了": a bare "X是Y" at the start of a clause, for a slot the
# rules or the vault know (or, for a Latin name or identifier, a new one).
_ZH_BARE = re.compile(
    r"(?:^|(?<=[，,；;]))(?:现在|目前)?(?P<x>[\u4e00-\u9fff]{2,6}?)(?:现在|目前)?"
    r"(?P<verb>是|叫|改成了?|换成了?|变成了?|改为)"
    r"(?P<y>[A-Za-z0-9#@][\w.:/#@+-]*(?: [A-Za-z0-9][\w.:/+-]*){0,3}|[^，。！？；,!?;\s]{1,20}?)"
    r"(?=$|[，。！？；,!?;\s]|了|啦)"
)
_ZH_X_BAD = re.compile(r"[我你他她它这那谁哪什么]|^(?:今天|明天|昨天|现在|这里|那里|就|也|都|还|真|不)")
# "I go to FitX now": a value the rules know names its slot.
_GO_TO = re.compile(
    r"\bI\s+(?:now\s+|usually\s+|mostly\s+)?(?:go|train|work\s+out)\s+(?:to|at)\s+"
    r"(?P<y>[A-Z][\w+-]*(?:\s[A-Z][\w+-]*){0,2})(?=\s*(?:$|[,;.!?]|\s(?:now|these|again)\b))"
)
_PREFIX = re.compile(r"^\s*(?:update|updated|更新|最新消息)\s*[:：]\s*", re.I)
# Each form runs only when the words it cannot do without are in the sentence.
_GATE_IS = re.compile(r"(?=.*\b(?:my|our|the)\s)(?=.*(?:\sis\s|['’]s\s))", re.I | re.S)
_GATE_NEW = re.compile(r"(?=.*\snew\s)(?=.*\sis\s)", re.I | re.S)
_GATE_SWITCH = re.compile(r"(?=.*(?:switched|changed|moved|updated))(?=.*\sto\s)", re.I | re.S)
_GATE_GOES = re.compile(r"\s(?:go|goes|sent|routed)\s", re.I)






def name_like(y: str) -> str | None:
    """y if it reads as a name, title, number or quotation (1–5 words), else None."""
    y = y.strip().rstrip(".!")
    if q := _QUOTED.match(y):
        return next(v for v in q.groups() if v is not None).strip() or None
    if _NUMBER.match(y) or _IDENT.match(y):
        return y
    words = y.split()
    if not 1 <= len(words) <= 5 or words[0] in CAP_STOP:
        return None
    if words[0] == "The" and len(words) == 1:
        return None
    for i, w in enumerate(words):
        if not _CAPWORD.match(w) and not (i and w.lower() in CONNECTORS):
            return None
    return y


def plain_value(y: str) -> str | None:
    """y as a short lower-case value ("cycling", "blue") for a slot the rules declare."""
    y = y.strip().rstrip(".!")
    words = y.split()
    if not 1 <= len(words) <= 4 or words[0].lower() in LOWER_STOP:
        return None
    return y


def _slot(det: str | None, x: str, owner: str | None, resolver: Resolver) -> str | None:
    """The attribute for slot words x, or None when they are not a slot worth keeping."""
    words = x.lower().split()
    if not words or any(w in X_STOP for w in words) or words[0] in X_PAST:
        return None
    if words[-1] in HEAD_STOP and resolver.declared(x, aliases=False) is None:
        return None
    return resolver.declared(x) or resolver.new_slug(x)


def _value(attr: str, x: str, y: str, resolver: Resolver) -> str | None:
    exact = resolver.declared(x, aliases=False) == attr
    if exact or (attr not in resolver.rules.attributes and resolver.declared(x) == attr):
        return name_like(y) or plain_value(y)  # a slot named outright takes plain words too
    return name_like(y)


def find_generic(sentence: str, resolver: Resolver) -> list[Found]:
    """Generic fact forms in one sentence (English and Chinese)."""
    out: list[Found] = []
    offset = 0
    if m := _PREFIX.match(sentence):
        offset = m.end()
    for rx, gate in ((_IS, _GATE_IS), (_NEW, _GATE_NEW), (_SWITCH, _GATE_SWITCH)):
        if not gate.match(sentence):
            continue
        for m in rx.finditer(sentence, offset):
            owner = m.groupdict().get("owner")
            attr = _slot(m.groupdict().get("det"), m["x"], owner, resolver)
            if attr is None or (resolver.patterned(attr) and not _named_outright(m, attr, resolver)):
                continue
            value = _value(attr, m["x"], m["y"], resolver)
            det = (m.groupdict().get("det") or "").lower()
            if det == "the" and owner is None and resolver.declared(m["x"]) is None:
                # "the weather is nice": a slot nobody named takes only an identifier
                value = value if value and (_IDENT.match(value) or _QUOTED.match(m["y"].strip())) else None
            if value:
                out.append(_found(attr, value, m, owner))
    m = _COLON.match(sentence, offset) if (":" in sentence or "：" in sentence) else None
    if m and m["x"].lower() not in COLON_STOP:
        attr = (
            _slot(None, m["x"], None, resolver) if m["x"].isascii() else _zh_slot(m["x"], resolver)
        )
        if attr and not resolver.patterned(attr):
            value = _value(attr, m["x"].lower(), m["y"], resolver) if m["x"].isascii() else m["y"]
            if value:
                out.append(_found(attr, value, m, None))
    for m in _GOES.finditer(sentence, offset) if _GATE_GOES.search(sentence) else ():
        x = m["x"].lower()
        if x.split()[-1] in PEOPLE_STOP or any(w in X_STOP for w in x.split()):
            continue
        attr = resolver.attribute(x)
        if attr and not resolver.patterned(attr):
            out.append(_found(attr, m["y"], m, None))
    for m in _BARE.finditer(sentence, offset):
        y = m["y"] or m["y2"] or m["y3"]
        ys = m.start("y" if m["y"] else "y2" if m["y2"] else "y3")
        attr = resolver.by_value.get(norm(y))
        if attr is None:  # the slot may be the one the person just said was over
            out.append(Found(None, y, "switch", m.start(), ys, m.end()))
        elif not any(f.attribute == attr for f in out):
            out.append(Found(attr, y, "assert", m.start(), ys, m.end()))
    for m in _GO_TO.finditer(sentence, offset) if "I " in sentence else ():
        attr = resolver.by_value.get(norm(m["y"]))
        if attr is not None and not any(f.attribute == attr for f in out):
            out.append(_found(attr, m["y"], m, None))
    for m in _ZH_BARE.finditer(sentence, offset) if has_cjk(sentence) else ():
        x, y = m["x"], m["y"]
        if _ZH_X_BAD.search(x) or _ZH_Y_BAD.search(y) or x in ZH_X_STOP:
            continue
        attr = resolver.declared(x)
        if attr is None and y.isascii() and name_like(y):
            attr = resolver.new_slug(x)  # "包管理器是Karnex Pack"
            y = name_like(y) or y
        if attr is None or any(f.attribute == attr for f in out):
            continue
        if not _zh_takes(x, y, attr, resolver):
            continue
        out.append(_found(attr, y, m, None))
    for m in _ZH_IS.finditer(sentence, offset) if "的" in sentence else ():
        attr = _zh_slot(m["x"], resolver)
        y = m["y"]
        if attr is None or _ZH_Y_BAD.search(y):
            continue
        if not _zh_takes(m["x"], y, attr, resolver):
            continue
        if attr not in resolver.rules.attributes and len(y) > 12:
            continue
        out.append(_found(attr, y, m, {"团队": "team", "我们团队": "team", "我们组": "team",
                                        "组里": "team", "项目": "project"}.get(m["owner"] or "")))  # fmt: skip
    return out + [k for k in find_kinds(sentence, resolver) if not _covered(k, out)]


def _named_outright(m: re.Match[str], attr: str, resolver: Resolver) -> bool:
    """A slot with patterns of its own, named by its label or an alias in a form its patterns
    miss ("the team's package manager is Karnex Pack"), with a name for a value."""
    return resolver.declared(m["x"]) == attr and name_like(m["y"]) is not None


def _fits(y: str, attr: str, resolver: Resolver) -> bool:
    """A Chinese form's value that a patterned slot takes: a Latin name, or a known spelling."""
    return (y.isascii() and name_like(y) is not None) or resolver.by_value.get(norm(y)) == attr


def _zh_takes(x: str, y: str, attr: str, resolver: Resolver) -> bool:
    """Whether a Chinese "X是Y"/"X换成Y" gives a slot with patterns of its own this value: a
    Latin name or a known spelling, or anything short when X is the slot's very label
    ("我的大学是武汉大学", "医生换成张主任了")."""
    if not resolver.patterned(attr) or (resolver.declared(x) == attr and _fits(y, attr, resolver)):
        return True
    return resolver.declared(x, aliases=False) == attr and len(y) <= 10


def _covered(k: Found, out: list[Found]) -> bool:
    return any(f.attribute == k.attribute and f.start < k.end and k.start < f.end for f in out)


def _zh_slot(x: str, resolver: Resolver) -> str | None:
    if x in ZH_X_STOP:
        return None
    return resolver.declared(x) or resolver.new_slug(x)


def _found(attr: str, value: str, m: re.Match[str], owner: str | None) -> Found:
    ys = m.start("y")
    return Found(attr, value.strip(), "assert", m.start(), ys, m.end(), owner=owner)
