"""Favourites and passions said as chat says them: "contemporary is my top pick", "my favourite
is a park with a forest trail", "I've always liked Under Armour", "Playing video games and
watching movies are my main hobbies", "my passion for writing", "Besides writing, I also
enjoy …", and the hobbies given in answer to "what do you enjoy
doing?" ("Writing and hanging with friends!").

A favourite is an item of the pack's preference slot (`likes`); what "my hobbies" names is an
item of `hobby`. The value is a short noun phrase, never a clause ("my favourite part is when
we all danced" says nothing).
"""

from __future__ import annotations

import re

from mdmem.extract.candidates import Found, Resolver, words
from mdmem.extract.grammar.lexicon import Words
from mdmem.extract.kinds import PREFERENCE, TALK

HOBBY = "hobby"
_FAV = r"(?:absolute\s+|all[- ]time\s+|personal\s+|biggest\s+|top\s+)?(?:favou?rite|fave|fav|top\s+pick|go-to)"
_OF = (
    r"(?:\s+(?:thing|food|dish|snack|drink|treat|place|spot|city|cities|band|song|movie|film|book|show|game|"
    r"sport|season|style|genre|team|artist|author|singer|actor|dance|flavou?r|dessert|hobby|activity|way\s+to\s+\w+)s?)?"
)
_NP = r"(?P<value>(?:[A-Za-z][\w'’&-]*)(?:\s+(?:[A-Za-z][\w'’&-]*)){0,5}?)"
_END = r"(?=\s*(?:$|[.,;:!?()]|\s[-–—]\s|\s(?:and|but|because|since|so|when|which|who|as|too|these|for|it|that)\b))"
_FAV_IS = re.compile(rf"(?<![\w'’])[Mm]y\s+{_FAV}{_OF}\s+(?:is|has\s+to\s+be|would\s+be|are)\s+(?:probably\s+|definitely\s+|still\s+|always\s+)?{_NP}{_END}")  # fmt: skip
_IS_FAV = re.compile(
    rf"(?:^|(?<=[.,;!?]\s))(?:(?:and|but|oh|yeah|well)\s+)?{_NP}\s+(?:is|are)\s+(?:also\s+|definitely\s+|probably\s+|"
    rf"pretty\s+much\s+|totally\s+|really\s+|still\s+)?(?:one\s+of\s+|some\s+of\s+)?my\s+{_FAV}(?![\w-])"
)
_ALWAYS = re.compile(
    rf"(?<![\w'’])I(?:['’]ve|\s+have)?\s+always\s+(?:loved|liked|enjoyed|been\s+(?:into|a\s+fan\s+of|drawn\s+to))\s+{_NP}{_END}"
)
_ABOUT = re.compile(rf"(?<![\w'’])I(?:['’]m|\s+am)\s+(?:(?:so|really|totally|just|also)\s+)*(?:all\s+about|drawn\s+to|hooked\s+on|a\s+sucker\s+for|in\s+love\s+with)\s+{_NP}{_END}")  # fmt: skip
# "there's this beach nearby that I love", "a little bakery round the corner that I adore": the
# thing the relative clause loves (a person so said is no preference: "the people that I love").
_THAT_I_LOVE = re.compile(
    r"(?<![\w'’])(?:this|a|an|the)\s+(?P<value>(?:[a-z][\w'’-]*\s+){0,2}?[a-z][\w'’-]*)\s+"
    r"(?:(?:nearby|near\s+(?:me|here|us)|round\s+the\s+corner|down\s+the\s+(?:road|street)|here)\s+)?"
    r"(?:that|which)\s+I\s+(?:really\s+|absolutely\s+|just\s+|totally\s+)?(?:love|adore)\b"
)
_PEOPLE = words("people person guy guys girl girls man men woman women friend friends family kids one ones")
_MY_HOBBIES = re.compile(
    r"(?:^|(?<=[.,;!?]\s))(?P<list>[A-Za-z][^.,;!?]{2,80}?)\s+(?P<verb>is|are|was|were)\s+(?:also\s+|definitely\s+|probably\s+|always\s+)?"
    r"(?:one\s+of\s+|some\s+of\s+)?my\s+(?:main\s+|favou?rite\s+|biggest\s+|big\s+|new\s+|two\s+|great\s+|true\s+|real\s+)?(?:hobby|hobbies|passions?)\b"
)
# "my passion for writing", "my main passion is painting"; "Besides writing, I also enjoy …"
_PASSION = re.compile(
    r"(?<![\w'’])[Mm]y\s+(?:main\s+|true\s+|real\s+|biggest\s+|big\s+|greatest\s+)?passion\s+(?:for|is)\s+"
    r"(?P<list>[a-z][^.,;!?]{2,60}?)(?=\s*(?:$|[.,;:!?]|\s(?:because|since|so|but|which|that)\b))"
)
_BESIDES = re.compile(
    r"^\s*(?:(?:Yeah|Yes|Oh|Well|Sure|And|But|Also)[,!]?\s+)?(?:Besides|Apart\s+from|Aside\s+from|Other\s+than)\s+"
    r"(?P<list>[a-z][^.,;!?]{2,60}?),\s+I\s+(?:also\s+|really\s+)*(?:enjoy|love|like|do)\b"
)
_AND = re.compile(r"\s+and\s+(?!(?:I|it|we|you|he|she|they|that|this|the|my|so|then)\b)(?P<y>[A-Za-z][\w-]*(?:\s+[a-z][\w-]*)?)(?=\s*(?:$|[.,;:!?]))")
_ITEM = re.compile(r"\s*(?:,\s*(?:and\s+)?|\s+and\s+|\s*&\s*)")
# What asks for someone's hobbies: "Anything else you enjoy doing?", "What do you do for fun?"
_ASKS_HOBBY = re.compile(
    r"\byou\s+(?:\w+\s+)?(?:enjoy|like\s+to\s+do|love\s+to\s+do|do\s+for\s+fun|do\s+in\s+your\s+(?:free|spare)\s+time)"
    r"|\b(?:your|any)\s+(?:other\s+)?(?:hobbies|hobby|passions?)\b|\b(?:brings?|gives?)\s+you\s+joy\b|\bmakes?\s+you\s+happy\b|你(?:平时|业余|周末)?(?:喜欢|爱)(?:干|做)什么|你的爱好",
    re.I,
)
_REPLY = re.compile(r"^\s*(?P<list>[A-Z][a-z]+ing(?:\s+[a-z]+){0,3}(?:(?:,\s*|\s+and\s+|,\s*and\s+)[a-z]+ing(?:\s+[a-z]+){0,3}){0,3})\s*[!.]*\s*$")  # fmt: skip
_FILLER = words("thing things stuff one ones way part")
_VAGUE_DOING = words("being having getting doing going trying making feeling thinking seeing talking")


def find_favourites(sentence: str, resolver: Resolver, activities: Words | None = None) -> list[Found]:
    """Favourites, lifelong likes and "my hobbies" lists in one sentence (`activities`: the
    pack's, which may stand in such a list as well as a doing: "Travel was her great passion")."""
    attrs = resolver.rules.attributes
    out: list[Found] = []
    low = sentence.lower()
    if PREFERENCE in attrs and ("my" in low or "always" in low or "i'm" in low or "i’m" in low or "i am" in low):
        for rx in (_FAV_IS, _IS_FAV, _ALWAYS, _ABOUT):
            for m in rx.finditer(sentence):
                value, end = _phrase(m["value"]), m.end()
                if value and rx is not _IS_FAV and (more := _AND.match(sentence, end)):  # "dramas and romcoms"
                    value, end = f"{value} and {more['y']}", more.end()
                if value:
                    out.append(Found(PREFERENCE, value, "assert", m.start(), m.start("value"), end, polarity="like"))
    if PREFERENCE in attrs and (" love" in low or " adore" in low):
        for m in _THAT_I_LOVE.finditer(sentence):
            value = _phrase(m["value"])
            if value and value.split()[-1].lower() not in _PEOPLE:
                out.append(Found(PREFERENCE, value, "assert", m.start(), m.start("value"), m.end("value"), polarity="like"))
    if HOBBY in attrs and ("passion" in low or "besides" in low or "from" in low or "other than" in low):
        for m in (*_PASSION.finditer(sentence), *_BESIDES.finditer(sentence)):
            out += _list(m["list"], m.start("list"), activities)
    if HOBBY in attrs and "my" in low:
        for m in _MY_HOBBIES.finditer(sentence):
            items = _list(m["list"], m.start("list"), activities)
            if m["verb"] in ("was", "were"):  # "reading was one of her hobbies": one of the past
                items = [Found(f.attribute, f.value, "invalidate", f.start, f.value_start, f.end, form="ended") for f in items]  # fmt: skip
            out += items
    return out


def hobbies_answered(sentence: str, asked: str, resolver: Resolver) -> list[Found]:
    """ "Anything else you enjoy doing?" — "Writing and hanging with friends!": the answer's
    first sentence, a list of doings, names the answerer's hobbies."""
    if HOBBY not in resolver.rules.attributes or not _ASKS_HOBBY.search(asked):
        return []
    m = _REPLY.match(sentence)
    return _list(m["list"], m.start("list")) if m else []


def _list(text: str, at: int, activities: Words | None = None) -> list[Found]:
    out = []
    pos = 0
    for part in _ITEM.split(text):
        i = text.index(part, pos)
        pos = i + len(part)
        value = _phrase(part, doing=True)
        known = activities is not None and value is not None and activities.find(value) is not None
        if value is None or not (known or re.match(r"(?i)[a-z]+ing\b", value)):
            return []  # "my hobbies" after a list of doings (or known activities) only
        out.append(Found(HOBBY, value[0].lower() + value[1:], "assert", at, at + i, at + pos))
    return out


def _phrase(value: str, doing: bool = False) -> str | None:
    """A short noun phrase as a preference's value (`doing`: a doing, "hanging with friends"),
    or None when it is a clause or a filler."""
    parts = re.sub(r"^(?:the|a|an|my|our)\s+", "", value.strip(), flags=re.I).split()
    stop = _VAGUE_DOING if doing else TALK
    if not parts or parts[0].lower() in stop or parts[-1].lower() in TALK | _FILLER or len(parts) > 5:
        return None
    if parts[0].lower() in ("i", "we", "you", "he", "she", "they", "it", "there", "this", "that"):
        return None
    return " ".join(parts)
