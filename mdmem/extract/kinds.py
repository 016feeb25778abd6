"""Statements of the fact kinds beyond a plain value (docs/states.md#kinds): a stated absence
("I don't have any pets", "我没有孩子") and a preference with its polarity ("I love hiking",
"I don't like bowling", "我讨厌香菜"). Members that exist unnamed ("my husband and kids") are
grammar/names.py's; events and plans have a grammar of their own: extract/happenings.py.

Each form states its own mood: the denial in "I don't have any pets" *is* the fact, so the
weigher does not read it as a negated statement; questions and suppositions still block.
"""

from __future__ import annotations

import re

from mdmem.extract.candidates import Found, Resolver, words

PREFERENCE = "likes"  # the slot preferences go to (personal pack)
PLAN = "plans"  # the slot plans are named by (extract/happenings.py): never an absence

# Nouns that name a whole slot, so that "no pets" is none of them, where "no dog" is not.
WHOLE = words("pets kids children hobbies allergies siblings 宠物 孩子 小孩 爱好 兄弟姐妹")
_NONE = re.compile(
    r"(?i)(?:^|(?<=[,;:]\s)|\b(?:and|but|so)\s+)(?:(?:I|we)\s+(?:don['’]t|do\s+not|no\s+longer)\s+"
    r"(?:really\s+|actually\s+)?have\s+(?:any\s+|a\s+|an\s+)?|(?:I|we)\s+have\s+no\s+|no\s+)"
    r"(?P<x>[a-z]+)(?=\s*(?:$|[.,;!]|\s(?:right\s+now|yet|at\s+the\s+moment|anymore|"
    r"any\s+more|at\s+all|either|now|though|but|and)\b))"
)
_ZH_NONE = re.compile(
    r"(?:^|[，,；;]|(?<=我)|(?<=我们))(?:现在|目前|还|已经)?(?:没有|没|不再?养|不再有)(?:养|有)?(?:任何)?(?:过)?"
    r"(?P<x>宠物|孩子|小孩|对象|男朋友|女朋友|车|爱好|过敏)(?=$|[，,。！!]|了|呢|啊)"
)
TALK = words(
    """
    it that this these those them you him her us me your my his our their its what how when
    where why which who everything anything something nothing all both one ones ya yall
    the a an some any more most being seeing hearing knowing having getting talking chatting
    catching sharing sending helping making doing going feeling thinking finding giving taking
    keeping telling showing meeting connecting spending hanging working trying looking coming
    about that's it's there here so too how every each another other is are was were be
    """
)
# What "the" may name in a preference ("I love the ocean"); "I love the pic" is the moment's.
_OUTDOORS = words("ocean sea seaside beach mountains outdoors countryside forest woods desert snow rain lake lakes")
# One vague word says nothing of a preference ("I just like playing for fun").
_VAGUE = words("playing doing stuff things life working trying")
_PLACE = re.compile(r"\s+(?:in|at|on|with)\s+(?:the\s+|a\s+|my\s+)?[a-z]+(?=\s*(?:$|[.,;!?]))")
_PARTICLES = words("up out down off over around away")
# "I love X" speaks of a preference at the head of a clause, or after these words ("why I love
# it", "how much I love"), never inside a relative clause ("something I love is …").
_LEAD = re.compile(
    r"(?:^|[.,;:!?—–(-]|\b(?:and|but|so|because|cause|why|plus|yeah|yes|oh|well|honestly|actually|"
    r"now|also|much|guess|think|know|admit|say|lol|haha|since|though|as|when|while))\s*$",
    re.I,
)
_AND_ONE = re.compile(r"\s*(?:,\s*)?and\s+(?P<y>[a-z][a-z-]+)" + r"(?=\s*(?:$|[.,;:!?]|\s(?:too|so|as|but|because|in|on|at|with)\b))")
_AND_TWO = re.compile(
    r"\s*(?:,\s*)?and\s+(?P<y>[a-z][a-z-]+(?:\s+[a-z][a-z-]+)?)\s+(?P<z>[a-z][a-z-]+)(?=\s*(?:$|[.,;:!?]|\s(?:too|so|as|but|because)\b))"
)
_COMMA_LIST = re.compile(
    r"(?:,\s*[a-z][a-z-]+(?:\s+[a-z][a-z-]+)?){0,3},\s*and\s+[a-z][a-z-]+(?:\s+[a-z][a-z-]+)?"
    r"(?=\s*(?:$|[.;:!?]|\s(?:too|so|as|but|because)\b))"
)
_AND_MORE = re.compile(
    r"\s*(?:,\s*)?and\s+(?!(?:i|it|it['’]s|it['’]d|we|you|he|she|they|that|this|the|my|so|then)\b)[a-z]"
)
_STOP_AFTER = (
    r"(?=\s*(?:$|[.,;:!?()]|\s[-–—]\s|\s(?:and|but|because|since|so|when|with|as|too|a\s+lot|"
    r"very|so|more|most|lately|these|every|on|at|in|for|now|though|though|if|or|it)\b))"
)
_LIKE = re.compile(
    r"(?<![\w'’])I\s+(?:also\s+|just\s+|really\s+|still\s+)?(?P<neg>(?:do\s+not|don['’]t|never)\s+)?"
    r"(?:really\s+|absolutely\s+|also\s+|just\s+|totally\s+|truly\s+|genuinely\s+|still\s+|do\s+)*"
    r"(?P<verb>love|like|enjoy|adore|hate|dislike|detest|can['’]t\s+stand)\s+"
    r"(?P<to>to\s+)?(?P<value>[a-z][a-z-]+(?:\s+[a-z][a-z-]+){0,2}?)" + _STOP_AFTER
)
# A doing loved, said at more length than _LIKE reads: "I love going on road trips with …",
# "I love capturing the beauty of nature", "I enjoy creating a serene space with …".
_LIKE_DOING = re.compile(
    r"(?<![\w'’])I\s+(?:also\s+|just\s+|really\s+|absolutely\s+|still\s+)*(?:love|enjoy|adore)\s+"
    r"(?P<value>(?P<ving>[a-z]+ing)(?:\s+(?:of|on|for|in|up)\b)?(?:\s+[a-z][a-z-]*){1,4}?)"
    r"(?=\s*(?:$|[.,;:!?()]|\s[-–—]\s|\s(?:and|but|because|since|so|when|with|to|for|as|too|while|if|or|it|every|whenever)\b))"
)
# The -ing words of _LIKE_DOING that say nothing of a doing loved ("seeing them eat", "having them around").
_NOT_LOVED = words(
    "being seeing hearing knowing having getting talking chatting catching sharing sending helping doing feeling "
    "thinking giving taking keeping telling showing meeting connecting spending hanging working trying looking coming playing"
)
_ENDS_NOTHING = words("of on for in with to at from by")
_LIKED_WORDS = words("the a an some more making going finding")  # TALK words a doing loved may hold
_FAN = re.compile(
    r"(?<![\w'’])I(?:['’]m|\s+am)\s+(?P<neg>not\s+)?(?:really\s+|so\s+|very\s+|also\s+|super\s+)*"
    r"(?:passionate\s+about|a\s+(?:big\s+|huge\s+)?fan\s+of|obsessed\s+with|crazy\s+about|(?:more\s+|really\s+|big\s+)?into)\s+"
    r"(?P<value>[a-z][a-z-]+(?:\s+[a-z][a-z-]+){0,2}?)" + _STOP_AFTER
)
_MESMERIZE = re.compile(
    r"^(?P<value>[A-Z][a-z]+(?:\s+[a-z]+)?)\s+(?:has|have)\s+always\s+"
    r"(?:mesmeri[sz]ed|fascinated|captivated|amazed|enchanted)\s+me\b"
)
_ZH_LIKE = re.compile(
    r"(?:^|(?<=[，,；;]))我(?:也|很|真的|特别|超|超级|非常|一直|最|还|挺)*(?P<neg>不太?|一点也不|并不)?"
    r"(?P<verb>喜欢|爱|热爱|讨厌|受不了)(?!你|他|她|它|这|那|上|吃|去|在|和|跟|的|一个|自己|看到|听到)"
    r"(?P<value>[\u4e00-\u9fff]{2,6}?)(?=$|[，,。！!；;]|了|啊|呀|呢)"
)
def gerund(verb: str) -> str:
    """'paint' → 'painting', 'hike' → 'hiking', 'swim' → 'swimming' (for "I love to …")."""
    w = verb.lower()
    if w.endswith("ie"):
        return w[:-2] + "ying"
    if w.endswith("e") and not w.endswith(("ee", "ye", "oe")) and len(w) > 2:
        return w[:-1] + "ing"
    if re.fullmatch(r"[^aeiou]*[aeiou][^aeiouwxy]", w) and len(w) <= 4:
        return w + w[-1] + "ing"
    return w + "ing"


def find_kinds(sentence: str, resolver: Resolver) -> list[Found]:
    """None and preference statements in one sentence (unnamed ones: grammar/names.py)."""
    out: list[Found] = []
    low = sentence.lower()
    if "no" in low or "n't" in low or "n’t" in low or "没" in sentence or "不" in sentence:
        out += _absences(sentence, resolver)
    if PREFERENCE in resolver.rules.attributes:
        out += _preferences(sentence)
    return out


def _absences(sentence: str, resolver: Resolver) -> list[Found]:
    out: list[Found] = []
    for m in [*_NONE.finditer(sentence), *_ZH_NONE.finditer(sentence)]:
        x = m["x"].lower()
        attr = resolver.declared(x, aliases=False) or (resolver.declared(x) if x in WHOLE else None)
        if attr is None:
            one = resolver.declared(x)  # "no boyfriend": an alias names a one-valued slot whole
            attr = one if one and resolver.rules.attribute(one).cardinality == "one" else None
        if attr is None or attr in (PREFERENCE, PLAN):
            continue
        out.append(Found(attr, None, "assert", m.start(), m.start("x"), m.end(), form="none"))
    return out


def _preferences(sentence: str) -> list[Found]:
    out: list[Found] = []
    for m in [*_LIKE.finditer(sentence), *_FAN.finditer(sentence)]:
        value = _object(sentence, m)
        if value is None:
            continue
        verb = (m.groupdict().get("verb") or "").lower()
        dislike = bool(m["neg"]) != (verb in ("hate", "dislike", "detest") or verb.startswith("can"))
        out.append(Found(PREFERENCE, value, "assert", m.start(), m.start("value"), m.end(),
                         polarity="dislike" if dislike else "like"))  # fmt: skip
    if "lov" in sentence or "enjoy" in sentence or "ador" in sentence:
        for m in _LIKE_DOING.finditer(sentence):
            toks = m["value"].lower().split()
            if (m["ving"] in _NOT_LOVED or set(toks) & (TALK - _LIKED_WORDS) or toks[-1] in _PARTICLES | _ENDS_NOTHING
                    or not _LEAD.search(sentence[: m.start()])):  # fmt: skip
                continue  # "I love seeing them eat fruit", "I love making this cake": no doing of their own named
            if not any(f.start == m.start() for f in out):
                out.append(Found(PREFERENCE, m["value"], "assert", m.start(), m.start("value"), m.end(), polarity="like"))
    if m2 := _MESMERIZE.match(sentence):
        out.append(Found(PREFERENCE, m2["value"].lower(), "assert", 0, 0, m2.end(), polarity="like"))
    for m in _ZH_LIKE.finditer(sentence):
        dislike = bool(m["neg"]) != (m["verb"] in ("讨厌", "受不了"))
        out.append(Found(PREFERENCE, m["value"], "assert", m.start(), m.start("value"), m.end(),
                         polarity="dislike" if dislike else "like"))  # fmt: skip
    return out


def _object(sentence: str, m: re.Match[str]) -> str | None:
    """What a preference is for, or None when the words do not make a clear one."""
    if not _LEAD.search(sentence[: m.start()]):
        return None
    value = m["value"]
    if m.groupdict().get("to"):
        if len(value.split()) > 2:
            return None
        value = " ".join([gerund(value.split()[0]), *value.split()[1:]])
    parts = value.split()
    if len(parts) == 2 and parts[0] == "the" and parts[1] in _OUTDOORS:
        return parts[1]  # "I love the ocean": a place of nature one loves, not the moment
    if parts[0] in TALK or parts[-1] in TALK or (len(parts) == 1 and parts[0] in _VAGUE):
        return None
    if parts[-1] in _PARTICLES:  # "curling up (with a good book)": the phrase is not whole
        return None
    rest = sentence[m.end("value") :]
    if (c := _COMMA_LIST.match(rest)) and len(parts) <= 2:  # "reading, watching movies, and exploring nature"
        items = [value, *(i.strip() for i in re.split(r",\s*(?:and\s+)?", c.group().strip(" ,")))]
        if not any(w in TALK for i in items for w in i.split()):
            return " and ".join(items)
    if (a := _AND_ONE.match(rest)) and len(parts) == 1:  # "dance and fashion": both
        return value if a["y"] in TALK else f"{value} and {a['y']}"
    if (a := _AND_TWO.match(rest)) and len(parts) == 1 and not {*a["y"].split(), a["z"]} & TALK:
        if a["z"].endswith("s") and not value.endswith(("s", "ing")):  # "action and sci-fi movies": both kinds
            return f"{value} {a['z']} and {a['y']} {a['z']}"
        return f"{value} and {a['y']} {a['z']}"  # "dramas and emotionally-driven films"
    if a or _AND_MORE.match(rest):  # "improving education and infrastructure": unclear
        return None
    if len(parts) == 1 and parts[0].endswith("ing") and (p := _PLACE.match(rest)):
        return value + p.group()  # "experimenting in the kitchen": the doing needs its place
    return value
