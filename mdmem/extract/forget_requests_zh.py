"""Requests to forget said in Chinese: "别记了", "这个别存了", "把刚才那个删掉", "我老公的名字，忘掉吧",
"删掉你记的所有关于我的事"; not "我忘了带钥匙", "别忘了我的生日", "我把微信删了", "算了，忘了吧"."""

from __future__ import annotations

import re
from dataclasses import replace

from mdmem.extract.candidates import Resolver
from mdmem.extract.forget_base import Request, named_in, overlap

_DEL = r"(?:删掉|删了|删除|删去|删干净|删|去掉|抹掉|抹去|清除|清掉|移除|撤回|划掉|拿掉|丢掉|扔掉)"
_FGT = r"(?:忘掉|忘了|忘记|忘光)"
_KEEP = r"(?:记住|记下来|记下|记录下来|记录|记着|记|存下来|存下|存着|存|保存|保留|留着|留下|留底|留档|留存|写进去|写下来|写下|写进|备忘|存档|记档)"
# "别往你那儿记", "不用在本子上记": where it would be kept, between the "don't" and the verb
_WHERE = r"(?:(?:往|在|给|帮|替|跟)?(?:你|我)?(?:那儿|那里|这儿|这里|那边|这边|本子上|备忘录里|记忆里|小本本上|脑子里)?)"
_NO = r"(?:不想让你|不希望你|不想你|别让你|别|不要|不用|不必|无需|甭|用不着|不需要|没必要|不准|不许|请勿|勿|千万别|最好别|就别|可别)"
REF = (
    r"(?:这个|那个|这条|那条|这些|那些|这句话?|那句话?|这段话?|那段话?|这件事|那件事|这事|那事|这一条|那一条|它"
    r"|刚才(?:说)?的(?:话|那个|内容|事)?|刚刚(?:说)?的(?:话|那个|内容|事)?|刚才那个|刚刚那个|刚才那句|我刚(?:才|刚)?说的(?:话|那个|内容|事)?"
    r"|我说的(?:话|那个|内容)?|上面(?:的|那个|那句|这段|那段)?|前面(?:的|那个|那句|说的)?|上一句|上一条|以上(?:内容)?)"
)
_MEMORY = r"(?:(?:从|在)?(?:你的?)?(?:记忆|记录|备忘录?|脑子|档案|笔记|资料|数据)(?:里面?|中)?)"
_ALL = r"(?:所有|全部|一切|全都|统统|通通|所有的|全部的)"
_ME = r"(?:关于我的?|我的|有关我的?|跟我有关的)"
_CLAUSE = r"[^，,。！？!?；;:：]"

_REQUEST = re.compile(
    # 把刚才那个删掉 / 把这个忘了吧 / 把我的手机号删了 / 你把它从记忆里删掉
    rf"(?P<ba>把|将)(?P<obj>{_CLAUSE}{{1,24}}?)(?:{_MEMORY})?(?:给|都|也|全)?(?:{_DEL}|{_FGT})"
    # 这个别存了 / 别记了 / 不用记下来 / 刚才说的不要保存 / 别存我的手机号
    rf"|(?P<pre>{_CLAUSE}{{0,16}}?)(?:也|就|都|千万|可|请|麻烦)?(?P<no>{_NO})(?:再)?(?:帮我|给我|替我)?{_WHERE}(?:{_KEEP})"
    rf"(?!错|混|反|恨|性|得|忘|账|仇|不住|住了吗)(?P<obj2>{_CLAUSE}{{0,12}}?)(?:了|吧|啦|哦|哈|喔|呀)?(?=$|[，,。！？!?；;:：\s])"
    # 删掉这个 / 删了吧 / 忘掉刚才说的 / 我医生是谁也忘掉吧 / 忘掉我的地址
    rf"|(?P<lead>请|麻烦你?|帮我|你|就|那就|那|还是|直接|赶紧|马上)?(?:{_MEMORY})?(?P<verb>{_DEL}|{_FGT})(?P<post>{_CLAUSE}{{0,16}}?)(?=$|[，,。！？!?；;:：\s])"
    # 当我没说 / 就当我没说过
    r"|(?P<unsaid>(?:就)?当我没(?:说|讲|提)(?:过)?(?:这些?|那些?|这句|那句)?(?:吧|哈|啊)?)",
)
_EVERYTHING = re.compile(
    rf"(?:{_DEL}|{_FGT}|清空|清除|抹掉|抹去){_CLAUSE}{{0,8}}?(?:你?(?:记得?|存|知道)的?)?{_CLAUSE}{{0,4}}?{_ALL}{_CLAUSE}{{0,6}}?(?:{_ME}|我)"
    rf"|(?:{_ALL}|{_ME}{_ALL})(?:关于我的?|我的|有关我的?)?{_CLAUSE}{{0,8}}?(?:都|全)?(?:{_DEL}|{_FGT}|清空|清除)"
    rf"|(?:清空|格式化|重置)(?:你的?|我的?)?(?:记忆|记录|数据|资料|备忘)"
    rf"|(?:把|将)?(?:我的|关于我的|有关我的)(?:个人)?(?:信息|资料|数据|记录|隐私|东西|事情?|一切)(?:都|全|全部|统统|通通)?(?:给)?(?:{_DEL}|{_FGT}|清空|清除)"
    rf"|(?:把|将)?(?:你的?|我的?)?(?:记忆|记录|数据|资料)(?:都|全部?)?(?:清空|删光|删干净|清除|抹掉)",
)
_SUBJECT = re.compile(r"(?:我|他|她|他们|她们|我们|咱们|咱|人家|妈|爸|老板|朋友|同事)(?:也|都|就|刚|刚刚|已经|还|又|没|都快|差点)?$")
# Not asked now: a denial, a habit, the speaker's own plan ("小红书也准备删").
_NOT_NOW = re.compile(
    r"(?:别|不要|不能|没|没有|不|差点|会|容易|经常|老是|总是|又|都快|快|不想|不会|千万别|可别|别再"
    r"|准备|打算|想|计划|要|得|可以|应该|该|正在|在|刚|已经|早就)$"
)
_ASKED = re.compile(r"如果|要是|假如|万一|是不是|有没有|会不会|能不能不|为什么|怎么")
# Someone else's words: "老板说把这个删了", "他叫我删掉" (not "刚才说的", "我说的").
_REPORTED = re.compile(r"(?:(?<!我)(?<!才)(?<!刚)说(?!的)|叫我|让我|告诉我|要我|问我)(?:要|赶紧|把)?[^，,。]{0,4}$")
# The speaker's own plan for a thing: "我得把那张照片删了", "我要把旧备份删了".
_MINE_TO_DO = re.compile(r"(?:我|我们|咱们)(?:也|都|就|还|先|得|要|想|准备|打算|会|可以|应该|该|必须|正在|在)+$")
# What may stand beside a slot's name in a request that only names it: "我老公的名字", "我医生是谁".
# So may a connective before it ("还有", "另外", "对了") and a reference ("那条": 值班人那条).
_PARTICLES = re.compile(
    r"名字|号码|信息|资料|情况|事情|相关|部分|还有|另外|对了|然后|其实|就是"
    r"|[我的也就都还请麻烦你帮给这那个条吧了呢啊呀哦是谁什么事之类]"
)
_TAIL = ("吧", "掉吧", "了吧", "掉", "了它", "了", "掉了", "掉它", "了这个", "")


def chinese(s: str, resolver: Resolver) -> list[Request]:
    """The forget requests of one Chinese sentence."""
    out: list[Request] = []
    for m in _EVERYTHING.finditer(s):
        if not _ASKED.search(s[: m.start()]) and not _negated(s, m.start()):
            out.append(Request("all", m.start(), m.end()))
    for m in _REQUEST.finditer(s):
        r = None if any(overlap(Request("x", m.start(), m.end()), o) for o in out) else _one(s, m, resolver)
        if r is not None:
            out.append(r)
    return out


def _one(s: str, m: re.Match[str], resolver: Resolver) -> Request | None:
    clauses = re.split(r"[，,；;：:]", s[: m.start()])
    clause = clauses[-1]
    if _ASKED.search(clause) or s.rstrip().endswith(("吗", "吗？", "吗?", "?", "？", "呢？")):
        return None
    if _REPORTED.search(clause):
        return None  # "老板说把这个删了": someone else's words
    if m["unsaid"]:
        return Request("that", m.start(), m.end())
    if m["ba"]:
        if _SUBJECT.search(clause.rstrip()) and not clause.rstrip().endswith(("帮我", "给我", "替我")):
            return None  # "我把微信删了": the speaker did it
        if _negated(s, m.start()) or _MINE_TO_DO.search(clause.rstrip()):
            return None
        r = _target(m["obj"], m, resolver)
        if r is not None and r.kind == "about" and not re.search(_MEMORY, s):
            return None  # "提醒我把电脑里的旧备份删了": a thing to delete, not something said
        lead = re.search(r"(?:帮我|给我|替我|请|麻烦你?|你|就|那就|还是|直接|赶紧|马上)+$", clause)
        return replace(r, start=m.start() - len(lead.group())) if lead and r is not None else r
    if m["no"] is not None:
        pre = m["pre"] or ""
        wish = m["no"].startswith(("不想", "不希望"))  # "我不想让你记住": the speaker's wish
        if not wish and re.search(r"(?:我|他|她|他们|她们|我们)(?:也|都|就|还)?$", (clause + pre).rstrip()):
            return None  # "我不用记": the speaker needs not remember it
        for words in (m["obj2"] or "", pre):
            r = _target(words, m, resolver) if words.strip() else None
            if r is not None and r.kind == "named":
                return r
        return Request("that", m.start(), m.end())
    # a bare verb: 删掉吧, 删了这个, 忘掉刚才说的, 我医生是谁也忘掉吧, 忘掉我的地址
    before = clause.rstrip()
    if _SUBJECT.search(before) or _NOT_NOW.search(before) or _negated(s, m.start()):
        return None
    post = (m["post"] or "").strip()
    # "我老公的名字，忘掉吧": the slot named by itself a clause before
    earlier = clauses[-2].strip() if len(clauses) > 1 and not before and post in _TAIL else ""
    for words, at in ((post, m.start()), (before, m.start() - len(clause)), (earlier, m.start())):
        r = _target(words, m, resolver, bare=True) if words else None
        if r is not None:  # the words before the verb are its object: they belong to the request
            return replace(r, start=min(at, r.start))
    if re.match(r"(?:关于|有关|对于)", before.lstrip()):  # "关于我哥欠钱的事你删了吧"
        words = re.sub(r"^(?:关于|有关|对于)|(?:的事情?|的那个|的那些|的话|你|的)+$", "", before.strip())
        return Request("about", m.start() - len(clause), m.end(), words=words)
    memory = re.search(_MEMORY, s) is not None
    if re.match(_DEL, m["verb"]) and (post in _TAIL or m["lead"]):
        return Request("that", m.start(), m.end())  # "删掉吧": nothing idiomatic about deleting
    if memory and post in _TAIL:
        return Request("that", m.start(), m.end())
    return None  # "算了，忘了吧", "忘掉过去吧": let it go, not a request about memory


def _negated(s: str, at: int) -> bool:
    return bool(re.search(r"(?:别|不要|不能|不用|千万别|可别|不许|不准|勿)(?:再)?(?:把)?$", s[max(0, at - 4) : at]))


def _target(words: str, m: re.Match[str], resolver: Resolver, *, bare: bool = False) -> Request | None:
    """What a request's words point at: a reference (这个, 刚才说的), a slot, or other words
    (None, for a bare verb's words that point at nothing: "忘了带钥匙")."""
    words = re.sub(r"^(?:我的|我们的|你记的|你存的)", "", words.strip())
    if not words or re.fullmatch(REF + r"(?:都|也|吧|了吧|掉吧|掉)?", words) or re.match(REF, words):
        return Request("that", m.start(), m.end())
    found = named_in(words, resolver)
    if found is not None:
        attr, key = found
        if bare and _PARTICLES.sub("", re.sub(REF, "", words.replace(key, "", 1))):
            return None  # "忘了带钥匙的事": more than the slot's name
        return Request("named", m.start(), m.end(), attribute=attr, words=words)
    return None if bare else Request("about", m.start(), m.end(), words=words)
