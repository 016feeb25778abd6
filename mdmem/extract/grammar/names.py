"""Names and counts of what a person has: pets, children, a partner, relatives and friends.

The forms, English and Chinese: a name in apposition ("my parrot Kiwi", "say hi to Rufus, my
new puppy", "my neighbour Anna"), named outright ("a kitten called Biscuit", "我家狗叫豆豆"),
in the next sentence ("We adopted a puppy! His name is Biscuit."), as the answer to a question
("What are your cats called?" — "Mochi and Tofu."), given later to one still unnamed ("we ended
up naming her Juno"), and a count ("I have two rabbits", "我养了两只猫"). "My kids" with no
name is a member that exists, unnamed; "my neighbour's horse Star" is the neighbour's.

Which noun is a member of which slot is the pack's (`grammar: names / people`); a pack that
names none (an older copy of a pack) falls back to `DEFAULT_MEMBERS`.
"""

from __future__ import annotations

import re
from dataclasses import replace

from mdmem.extract.candidates import Found, Resolver
from mdmem.extract.grammar.lexicon import Lexicon, Words, lexicon
from mdmem.extract.modality import is_question
from mdmem.lang.detect import has_cjk

# Slot → member nouns, for a pack without grammar words (what mdmem read before they existed).
DEFAULT_MEMBERS = {
    "partner": "husband wife partner boyfriend girlfriend fiancé fiancée fiance fiancee spouse 老公 老婆 先生 太太 爱人 对象 男朋友 女朋友",
    "children": "kid child son daughter baby 孩子 儿子 女儿 宝宝",
    "pets": "dog cat puppy pup kitten turtle pet 狗 狗狗 猫 猫咪 宠物",
}
_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
            "nine": 9, "ten": 10, "a couple of": 2, "both": 2, "一": 1, "两": 2, "二": 2, "三": 3,
            "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}  # fmt: skip
_ORDINALS = {"second": 2, "third": 3, "fourth": 4, "fifth": 5, "2nd": 2, "3rd": 3, "4th": 4, "5th": 5}
_NOT_NAME = (
    r"And|But|So|Also|Now|Well|Oh|Actually|Then|Yes|No|Hey|Hi|I|The|This|That|These|Those|My|Our|"
    r"His|Her|Its|Their|It|We|You|He|She|They|Mr|Mrs|Ms|Dr|Mom|Mum|Dad|Lol|Haha|Wow|Thanks|Thank|"
    r"Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|January|February|March|April|June|"
    r"July|August|September|October|November|December|Christmas|Easter|God|OK|Okay|Yeah|Yep|Yup|Nope|"
    r"Nah|Sure|Right|Great|Cool|Awesome|Nice|Sorry|Congrats|Honestly|Totally|Definitely|Absolutely|"
    r"Exactly|Aww|Ah|Omg|Anyway|Please|Hmm|Cheers"
)
_WORD_NAME = r"[A-Z][a-z](?:[\w-]|['’](?=[A-Z]))*"  # O'Brien, not Anna's
NAME = rf"(?-i:(?!(?:{_NOT_NAME})\b){_WORD_NAME}(?: (?!(?:{_NOT_NAME})\b){_WORD_NAME})?)(?![\w-])"
NAMES = rf"{NAME}(?:(?:,? and |, | & ){NAME})*"
# Words before a member noun that make it not a current member: "my ex-wife", "my future kids".
_NOT_NOW = frozenset(["ex", "former", "future", "dream", "imaginary", "late", "would-be"])
_MY = re.compile(r"(?<![\w'’-])(?P<det>[Mm]y|[Oo]ur)\s+(?P<np>[a-z])")
_AFTER = re.compile(
    rf"(?:\s+is\s+called|\s+is\s+named|['’]s\s+called|['’]s\s+name\s+is|,?\s+whose\s+name\s+is)\s+(?P<called>{NAME})"
    rf"|(?P<poss>['’]s\s+)|\s+(?P<name>{NAMES})|,\s+(?P<appos>{NAME})(?=\s*(?:,|$|[.!?;]))"
)
_AND = re.compile(r"\s*(?:,|and|&)\s+(?:(?:my|our|the)\s+)?(?P<np>[a-z][a-z-]*(?:\s+[a-z][a-z-]*)?)(?![\w'’-])")
_POSS = re.compile(r"['’]s\s+(?=[a-z])")
_BEFORE = re.compile(rf"(?P<name>{NAME}),\s+$")
_A = re.compile(
    rf"(?<![\w'’-])(?:a|an|another|one|two|three|four|\d+)\s+(?P<np>[a-z][a-z-]*(?:\s+[a-z][a-z-]*){{0,2}})\s+"
    rf"(?:named|called)\s+(?P<name>{NAMES})"
)
_COUNT = re.compile(
    r"(?<![\w'’-])(?:I|[Ww]e)(?:['’]ve|\s+have)?\s+(?:got\s+|have\s+|own\s+|adopted\s+|rescued\s+|now\s+have\s+)"
    r"(?P<n>two|three|four|five|six|seven|eight|nine|ten|\d{1,2}|a\s+couple\s+of)\s+"
    r"(?P<np>[a-z][a-z-]*(?:\s+[a-z][a-z-]*){0,2})(?=\s*(?:$|[,.!?;:—–-]|\s(?:and|now|at|who|which|too|named|called)\b))"
)
_LATER = re.compile(
    r"(?<![\w'’-])(?:[Ww]e|I)\s+(?:(?:finally|eventually|just|have|'ve|ended\s+up|decided\s+to|went\s+with)\s+)*"
    rf"(?:nam(?:e|ed|ing)|call(?:ed|ing)?)\s+(?:him|her|it|them|the\s+[a-z]+)\s+(?P<name>{NAME})"
    r"|(?:给|把)(?:它|他|她|牠)(?:取名|起名|取了个名字|起了个名字)(?:叫做?|为)?(?P<zh>[\u4e00-\u9fffA-Za-z]{1,4}?)(?=$|[，,。！!？?\s]|了)"
)
_ZH_MY = re.compile(r"我(?:的|家的?|们家的?)?(?=[\u4e00-\u9fff])")
_ZH_CALLED = re.compile(r"(?:的名字|名字)?叫(?P<name>[\u4e00-\u9fffA-Za-z]{1,4}?)(?=$|[，,。！!？?、\s]|是|在|也|和|跟|今年)")
_ZH_THIS = re.compile(r"(?:这是|这就是|这位是|介绍一下|见见)\s*$")
_ZH_SHOWN = re.compile(r"(?P<name>[\u4e00-\u9fff]{2,3})(?=$|[，,。！!？?～~\s])")
_NOT_IN_NAME = frozenset("的了很吗呢吧啊呀也都在是们照片视频今昨明刚")
_ZH_COUNT = re.compile(r"我(?:家|们家?)?(?:有|养了|养着|养)(?P<n>[一两二三四五六七八九十\d])(?:只|条|个|匹|头)(?P<np>[\u4e00-\u9fff]{1,3}?)(?=$|[，,。！!？?、\s]|了|呢)")


def members_of(lex: Lexicon) -> Words:
    """The pack's member nouns, or the defaults for a pack that names none."""
    if lex.members.slot:
        return lex.members
    words = Words()
    for slot, ws in DEFAULT_MEMBERS.items():
        for w in ws.split():
            words.add(w, slot, plurals=True)
    return words


def find_members(sentence: str, lex: Lexicon, resolver: Resolver) -> list[Found]:
    """Members named, unnamed or counted in one sentence (see the module docstring)."""
    members = members_of(lex)
    declared = resolver.rules.attributes
    out: list[Found] = []
    if has_cjk(sentence):
        return [f for f in _zh(sentence, members, lex) if f.attribute in declared]
    for m in _MY.finditer(sentence):
        out += _mine(sentence, m.start(), m.start("np"), members, lex)
    for m in _A.finditer(sentence):
        slot, _, _ = _noun(m["np"].split(), members)
        if slot:
            out += [Found(slot, n, "assert", m.start(), m.start("name") + i, m.end()) for n, i in _split(m["name"])]
    for m in _COUNT.finditer(sentence):
        toks = m["np"].split()
        slot, noun, used = _noun(toks, members)
        n = _NUMBERS.get(" ".join(m["n"].split())) or (int(m["n"]) if m["n"].isdigit() else 0)
        if slot and slot in lex.count and noun and members.plural_said(" ".join(toks[used - len(noun.split()) : used])):
            out.append(Found(lex.count[slot], str(n), "assert", m.start(), m.start("n"), m.end()))
            said = _as_said(toks, noun, used)
            out.append(Found(slot, said, "assert", m.start(), m.start("np"), m.end(), form="unnamed"))
    for m in _LATER.finditer(sentence):
        out.append(Found(None, m["name"], "assert", m.start(), m.start("name"), m.end(), form="named"))
    return [f for f in out if f.attribute is None or f.attribute in declared]


_NP = re.compile(r"[a-z][a-z-]*(?:\s+[a-z][a-z-]*){0,3}")
_THEY_ARE = re.compile(r"(?<![\w'’])(?:they|these|those|it|that)(?:['’]re|['’]s|\s+are|\s+is)\s+(?:all\s+|just\s+|like\s+)?$", re.I)
_SAYS = re.compile(r"\s+(?:(?:always|keeps|still|just|also)\s+)?(?:says?|said|saying|thinks?|thought|believes?|tells?|told|wants?|wanted|insists?|reckons?)\b")


def _mine(sentence: str, start: int, at: int, members: Words, lex: Lexicon, owner: str | None = None) -> list[Found]:  # fmt: skip
    """The member a noun phrase at sentence[at:] speaks of ("my" begins at `start`)."""
    np = _NP.match(sentence, at)
    spans = list(re.finditer(r"\S+", np.group())) if np else []
    toks = [t.group() for t in spans]
    slot, noun, used = _noun(toks, members)
    if slot is None or noun is None or set(toks[: used - len(noun.split())]) & _NOT_NOW:
        return []
    said = _as_said(toks, noun, used)
    end = at + spans[used - 1].end()
    person = slot in lex.people
    after = _AFTER.match(sentence, end)
    if after is not None and after["poss"]:  # "my neighbour's horse Star": the neighbour's
        if not person or owner is not None:
            return []
        who = _named_before(sentence, start) or noun
        theirs = _mine(sentence, start, after.end(), members, lex, owner=who)
        if who == noun and not members.plural_said(noun):  # "my mom's house": she is spoken of
            theirs = [Found(slot, said, "assert", start, at, end, form="unnamed"),
                      Found("relation", noun, "assert", start, at, end, owner=noun), *theirs]  # fmt: skip
        return theirs
    ordinal = next((_ORDINALS[t] for t in toks[:used] if t in _ORDINALS), None)
    name, value_at = _named_before(sentence, start), start
    if name is not None:
        value_at = _BEFORE.search(sentence, max(0, start - 60), start).start()  # type: ignore[union-attr]
    if after is not None and (after["name"] or after["appos"] or after["called"]):
        key = "name" if after["name"] else "appos" if after["appos"] else "called"
        name, value_at, end = after[key], after.start(key), after.end()
    out: list[Found] = []
    if name is None and slot == "friends" and _THEY_ARE.search(sentence, max(0, start - 16), start):
        return []  # "They're my little buddies" (the turtles): what they are to the speaker, not a friend
    if name is None:
        # "our kids are our future" is as often everyone's: an unnamed member needs "my"
        # "whatever my sister says": what she says is the point, not that she is
        if owner is None and sentence[start] in "Mm" and (members.plural_said(noun) or not ordinal) and not _SAYS.match(sentence, end):
            out.append(Found(slot, said, "assert", start, at, end, form="unnamed"))
            if person and not members.plural_said(noun):  # "my mom": she has facts of her own
                out.append(Found("relation", noun, "assert", start, at, end, owner=noun))
            more = _AND.match(sentence, end)
            also, also_noun, also_used = _noun(more["np"].split(), members) if more else (None, None, 0)
            if more and also and also_noun:
                also_said = _as_said(more["np"].split(), also_noun, also_used)
                out.append(Found(also, also_said, "assert", start, more.start("np"), more.end(), form="unnamed"))
    else:
        for n, i in _split(name):
            if person and owner is None:  # the person gets facts of their own: how they are related
                out.append(Found("relation", noun, "assert", start, at, end, owner=n))
            out.append(Found(slot, n, "assert", start, value_at + i, end, owner=owner))
    if ordinal and slot in lex.count:
        out.append(Found(lex.count[slot], str(ordinal), "assert", start, at, end, owner=owner, form="at_least"))
    if name and person and owner is None and (poss := _POSS.match(sentence, end)):  # "my neighbour Anna's dog Max"
        out += _mine(sentence, start, poss.end(), members, lex, owner=name)
    return out


def _named_before(sentence: str, start: int) -> str | None:
    """ "say hi to Rufus, my new puppy": the name just before "my …". A name that begins the
    sentence is the one spoken to ("Jolene, my mom loved flowers"), not the member."""
    b = _BEFORE.search(sentence, max(0, start - 60), start)
    return b["name"] if b and sentence[: b.start()].strip(" \"'“‘([") else None


def _noun(toks: list[str], members: Words) -> tuple[str | None, str | None, int]:
    """The member noun in the first words of a noun phrase (after up to two modifiers): its
    slot, the noun as the pack writes it, and how many words it took."""
    for i in range(min(len(toks), 3)):
        for j in range(min(len(toks), i + members.longest), i, -1):
            word = members.find(" ".join(toks[i:j]).rstrip("'’"))
            if word is not None:
                return members.slot[word], word, j
    return None, None, 0


def _as_said(toks: list[str], noun: str, used: int) -> str:
    """The member noun as the person said it ("kids" for the pack's "kid"): what an unnamed
    member is mentioned as."""
    return " ".join(toks[used - len(noun.split()) : used]).rstrip("'’") or noun


def _split(names: str) -> list[tuple[str, int]]:
    """ "Ash, Birch and Cedar" → each name with its offset."""
    return [(m.group(), m.start()) for m in re.finditer(NAME, names)]


def _zh(sentence: str, members: Words, lex: Lexicon) -> list[Found]:
    out: list[Found] = []
    for m in _ZH_MY.finditer(sentence):
        noun = _zh_noun(sentence, m.end(), members)
        if noun is None:
            continue
        slot, end = members.slot[noun], m.end() + len(noun)
        if named := _ZH_CALLED.match(sentence, end):
            if slot in lex.people:
                out.append(Found("relation", noun, "assert", m.start(), m.end(), named.end(), owner=named["name"]))
            out.append(Found(slot, named["name"], "assert", m.start(), named.start("name"), named.end()))
        elif (shown := _zh_shown(sentence, m.start(), end)) is not None:
            # 这是我的狗旺财 / 这是我男朋友阿杰: a name in apposition, only where one is shown
            if slot in lex.people:
                out.append(Found("relation", noun, "assert", m.start(), m.end(), shown.end(), owner=shown["name"]))
            out.append(Found(slot, shown["name"], "assert", m.start(), shown.start("name"), shown.end()))
        elif not sentence.startswith("的", end):  # 我哥哥的朋友: the friend, not my brother
            out.append(Found(slot, noun, "assert", m.start(), m.end(), end, form="unnamed"))
            if slot in lex.people:
                out.append(Found("relation", noun, "assert", m.start(), m.end(), end, owner=noun))
    for m in _ZH_COUNT.finditer(sentence):
        counted = members.slot_of(m["np"])
        if counted and counted in lex.count:
            slot = counted
            n = _NUMBERS.get(m["n"]) or (int(m["n"]) if m["n"].isdigit() else 0)
            if n > 1:
                out.append(Found(lex.count[slot], str(n), "assert", m.start(), m.start("n"), m.end()))
                out.append(Found(slot, m["np"], "assert", m.start(), m.start("np"), m.end(), form="unnamed"))
    for m in _LATER.finditer(sentence):
        if m["zh"]:
            out.append(Found(None, m["zh"], "assert", m.start(), m.start("zh"), m.end(), form="named"))
    return out


def _zh_shown(sentence: str, start: int, end: int) -> re.Match[str] | None:
    """The name right after a member noun, where the member is shown: 这是我的狗旺财."""
    shown = _ZH_SHOWN.match(sentence, end)
    if shown is None or set(shown["name"]) & _NOT_IN_NAME or not _ZH_THIS.search(sentence, 0, start):
        return None
    return shown


def _zh_noun(sentence: str, at: int, members: Words) -> str | None:
    """The longest member noun at sentence[at:] (我[家的]哥哥: 哥哥, not 哥)."""
    for j in range(min(len(sentence), at + 4), at, -1):
        if (word := members.find(sentence[at:j])) is not None:
            return word
    return None


_NAMED_NEXT = re.compile(
    r"^\s*(?:(?:his|her|its|their) names? (?:is|are)|(?:his|her|its) name[''’]s|(?:he|she|it)(?:[''’]s| is) (?:called|named)|"
    r"(?:and |(?:we|I)(?: have)? )(?:named|called) (?:him|her|it|them)) "
    r"(?P<value>(?-i:[A-Z][\w''’-]*(?: [A-Z][\w''’-]*)?))(?![\w''’-])"
    r"|^\s*(?:名字叫|取名叫?|起名叫?|它叫|他叫|她叫)(?P<zh>[\u4e00-\u9fff]{1,4}?)(?=$|[，,。！!？?、\s]|的)",
    re.I,
)


# "I want to show you one of my snakes! This is Susie.": a pet shown, named in a sentence of its
# own (a person so shown could as well be a place: "This is Rome").
_THEY = re.compile(r"\s*(?:they|these|those)\b", re.I)
_SHOWN = re.compile(rf"^\s*(?:(?:and\s+)?this\s+is|meet|say\s+hi\s+to)\s+(?P<value>{NAME})\s*[.!]*\s*$", re.I)


def named_next(sentence: str, before: list[tuple[str, Found]], between: str | None = None) -> list[Found]:
    """A name given in the next sentence to a kind just said ("a puppy … His name is Biscuit"), or
    after one `between` that speaks of them ("one of my snakes! They calm me down. This is Susie")."""
    told, prev = before[-1]
    m = _NAMED_NEXT.match(sentence) or (_SHOWN.match(sentence) if prev.attribute == "pets" else None)
    value = prev.value
    if m is None or prev.kind != "assert" or not isinstance(value, str):
        return []
    several = prev.form == "unnamed" and value.endswith("s")  # one of them is named, the rest are not
    if between is not None and not (several and _THEY.match(between)):
        return []  # "We adopted a puppy! It rained all day. His name is …": not the puppy's, maybe
    kind = value.islower() and len(value.split()) <= 2 or (has_cjk(value) and len(value) <= 2)
    if not kind:  # a name already, not the kind of thing named next
        return []
    name = m["value"] or m.groupdict().get("zh")
    if not several:
        before.pop()  # the kind ("puppy") gives way to its name
    start = m.start("value") if m["value"] else m.start("zh")  # fmt: skip
    form = "" if prev.form == "unnamed" else prev.form  # "one of my snakes … This is Susie": named now
    # the kind's time is the named one's: "We adopted a puppy in March! His name is …": since March
    return [replace(prev, value=name, form=form, start=0, value_start=start, end=m.end(), date=prev.date or told)]  # fmt: skip


_NAME = r"[A-Z][\w'’-]*(?: [A-Z][\w'’-]*)?"
_ANSWER = re.compile(
    r"^\s*(?:(?:their|his|her|its) names? (?:is|are)|(?:they|he|she|it)(?:['’]re|['’]s| are| is) "
    r"(?:called|named))\s+"
    rf"(?P<value>(?-i:{_NAME}(?:(?:,? and |, ){_NAME})*))(?![\w'’-])"
    r"|^\s*(?:它们?|他们?|她们?)(?:叫|的名字是)(?P<zh>[\u4e00-\u9fffA-Za-z]{1,4}?(?:[、和][\u4e00-\u9fffA-Za-z]{1,4}?)*)"
    r"(?=$|[，,。！!？?\s])",
    re.I,
)
_ZH_ONE = r"(?:一个|一只|大的|小的|老大|老二|大只的|小只的|哥哥|姐姐|弟弟|妹妹|公的|母的)"
_ZH_EACH = re.compile(
    rf"^\s*{_ZH_ONE}叫(?P<a>[\u4e00-\u9fffA-Za-z]{{1,4}}?)[，,、；;]\s*(?:另一个|另一只|{_ZH_ONE})叫"
    r"(?P<b>[\u4e00-\u9fffA-Za-z]{1,4}?)(?=$|[，,。！!？?\s])"
)
# "…, his name is Arlo!": a name given inside the answer, to a question that asked for one
_ANSWER_IN = re.compile(
    r"(?:^|[,;:]\s*|\b(?:and|so|but)\s+|[-–—]\s*)(?:(?:his|her|its|their) names? (?:is|are)|(?:his|her|its) name['’]s)\s+"
    rf"(?P<value>(?-i:{_NAME}(?:(?:,? and |, ){_NAME})*))(?![\w'’-])",
    re.I,
)
_OTHERS = re.compile(
    r"\b(?!(?:it|that|he|she|there|what|who|let|here)['’]s)[a-z]+['’]s\b|\b(?:his|her|their|your)\b", re.I
)
_ASKS_NAME = re.compile(r"\bnames?\b|\bcalled\b|叫什么|名字", re.I)
# "What are your cats called?" — "Mochi and Tofu.": the whole first sentence is the names
_BARE = re.compile(rf"^\s*(?P<value>{NAMES})\s*[.!]*\s*$")
_WORD = re.compile(r"[A-Za-z][a-z'’-]*|[\u4e00-\u9fff]+")


def answered(sentence: str, asked: str, resolver: Resolver, context: str = "",
             first: bool = True) -> list[Found]:  # fmt: skip
    """Names given in answer to the question just asked by someone else ("What are your dogs'
    names?" — "Their names are Sorrel, Quince and Bramble."; "What are your cats called?" —
    "Mochi and Tofu."; "That toddler is lovely! What's their name?" — "Thanks! Our little one
    just turned two, his name is Arlo!"). `context` is the asking message, whose earlier words may
    name what is asked about; `first`: the answer's first sentence, which alone may answer
    without saying "name"."""
    if not asked or not is_question(asked.strip()):
        return []
    asks_name = bool(_ASKS_NAME.search(asked))
    m = _ANSWER.match(sentence) if first else None
    if m is None and first and asks_name:
        m = _BARE.match(sentence)
    if m is None and asks_name:
        m = _ANSWER_IN.search(sentence)
        if m is not None and _OTHERS.search(sentence[: m.start()]):
            return []  # "My neighbour's cat, her name is Tom": someone else's
    each = _ZH_EACH.match(sentence) if m is None and first and has_cjk(sentence) else None
    if m is None and each is None:
        return []
    attr = _asked_slot(asked, resolver) or _asked_slot(context, resolver)
    if attr is None:
        return []
    if each is not None:  # "一个叫豆豆，一个叫可乐": one name each
        return [Found(attr, each[k], "assert", each.start(k) - 1, each.start(k), each.end(k)) for k in ("a", "b")]
    assert m is not None
    key = "value" if m["value"] else "zh"
    return [Found(attr, n, "assert", m.start(), m.start(key) + i, m.end()) for n, i in _split(m[key])] if key == "value" else [Found(attr, m[key], "assert", m.start(), m.start(key), m.end())]  # fmt: skip


def _asked_slot(text: str, resolver: Resolver) -> str | None:
    """The member slot a question names ("your dogs'", "你的狗"), the pack's words deciding."""
    members = members_of(lexicon(resolver.rules))
    for w in _WORD.findall(text):
        if has_cjk(w):
            for i in range(len(w)):
                slot = next((members.slot_of(w[i:j]) for j in range(len(w), i, -1) if members.slot_of(w[i:j])), None)
                if slot:
                    return slot
        elif slot := members.slot_of(w.rstrip("'’")):
            return slot
    return None
