"""What kind of answer a question wants, per language: when / where / who / how many / yes-no / what.

Each language has its rules in order; the first that matches gives the type, else "what".
read/question.py reads a question once with these; the composer (read/compose.py) picks the
span of a passage by the type. A third language adds its table here.
"""

from __future__ import annotations

import re
from functools import cache

from mdmem.lang.tokens import STOP as STOP_EN
from mdmem.lazy_regex import lazy

TYPES = ("when", "where", "who", "how_many", "yes_no", "what")

# Modes of a question about facts (read/ask.py): every value over time, earlier values, the
# words themselves. English and Chinese together: a question mixing them is read by both.
HISTORY = re.compile(
    r"\b(?:over time|from (?:the )?earliest|earliest to latest|oldest to newest|in (?:chronological )?order"
    r"|history|timeline|chronolog\w*|how (?:has|have|did) .{0,40}chang\w*|changes|list (?:all|every)"
    r"|all (?:the )?\w+(?: \w+)? (?:i|we)(?:'ve| have) (?:ever )?\w+|every \w+ (?:i|we)(?:'ve| have)|so far)\b"
    r"|变化|变过|换过|历史|历程|怎么变|如何变|先后|依次|顺序|从最早|按时间|一直以来|哪些.{0,6}过|过哪些|过几",
    re.I,
)
PAST = re.compile(
    r"\b(?:used to|before|previous(?:ly)?|former(?:ly)?|earlier|in the past|originally|at first"
    r"|prior|back then|once)\b|以前|之前|过去|原来|原先|曾经|先前|从前|当初|早先|一开始|上一[个份家]",
    re.I,
)
YES_NO = re.compile(
    r"^\s*(?:do|does|did|is|are|am|was|were|have|has|can|could|should|will|would)\b"
    r"|(?:吗|么|是不是|对吗|对不对|有没有|是否)\s*[？?]?\s*$",
    re.I,
)
SAID = re.compile(
    r"\b(?:what|everything) (?:did|have) (?:i|we|you|he|she|they|\w+) (?:tell|told|say|said|share|shared|mention|mentioned)\b"
    r"|\b(?:recite|word for word|verbatim|exact (?:words|text|log|message|quote)|quote)\b"
    r"|我(?:跟你|和你|对你)?(?:说过|讲过|提过|分享过)|原话|原文|逐字|一字不差",
    re.I,
)

_EN = (
    ("when", r"^\W*(?:and |so )?when\b|\bwhat (?:date|day|year|month|time|week)\b(?!\s+(?!of\b)[a-z]+(?:ment|s)\b)|\bhow long ago\b"
             r"|\b(?:in |on )?which (?:day|date|year|month|week)\b|\bsince when\b"),
    ("how_many", r"\bhow (?:many|much|often)\b|\bnumber of\b|\bhow many times\b"),
    ("where", r"^\W*where\b|\bwhere (?:do|does|did|is|are|was|were|has|have)\b"
              r"|\b(?:which|what) (?:city|cities|country|countries|town|place|places|state|states"
              r"|location|neighbou?rhood|district|address)\b"),
    ("who", r"^\W*(?:who|whom|whose)\b|\bwho (?:is|was|are|were|did|does|do)\b"),
    ("yes_no", r"^\W*(?:do|does|did|is|are|am|was|were|have|has|had|can|could|should|will|would"
               r"|may|might)\b|\byes or no\b"),
)  # fmt: skip
_ZH = (
    ("when", r"什么时候|哪天|哪一天|何时|几号|哪年|哪一年|哪个月|几月|几点|多久以前"),
    ("how_many", r"多少|几[个只次位本家条项种岁口回趟年]"),
    ("where", r"哪里|哪儿|在哪|去哪|从哪|哪个城市|哪座城市|什么地方|哪个国家|哪国|住哪"),
    ("who", r"谁|哪位"),
    ("yes_no", r"(?:吗|(?<![什怎那这多])么)\s*[？?]?\s*$|是不是|有没有|是否|对吗|对不对"),
)
RULES: dict[str, tuple[tuple[str, str], ...]] = {"en": _EN, "zh": _ZH}
# A relative or friend a question is about, as its subject ("Where does her brother live?",
# "What is Melanie's mom's job?", 她哥哥住哪): its answer is that person's, never a fact of the one whose relative it is.
KIN = re.compile(
    r"\b(?:do|does|did|is|was|are|were|has|have|had|will|would|can|could)\s+"
    r"(?:my|your|his|her|their|our|[A-Z][a-z]+['’]s)\s+(?:(?:best|close|old|older|younger|little|big|new)\s+)?"
    r"(mom|mum|mother|dad|father|parents?|sisters?|brothers?|siblings?|wife|husband|partner|boyfriend"
    r"|girlfriend|sons?|daughters?|kids?|children|grandma|grandmother|grandpa|grandfather|aunt|uncle"
    r"|cousins?|friends?|neighbou?rs?|boss|coworkers?|colleagues?|mentor|teacher|coach)\b"
    r"|(?:我|你|他|她)的?(妈妈|母亲|爸爸|父亲|父母|哥哥|姐姐|弟弟|妹妹|老公|老婆|丈夫|妻子|男朋友|女朋友|儿子|女儿|孩子"
    r"|朋友|邻居|老板|同事|老师)",
)

# A question that asks what someone did or is doing ("What did John do with his kids?", "What
# was she doing in Rio?"): an action, never the value of a fact its words name (his children).
ACTION = lazy(
    r"(?i:\bwhat (?:did|does|do|was|is|were|are|has|have)\b(?:(?!\bwhat\b).){0,60}?\b(?:do|doing|done)\b)"
    r"|\b(?i:what) (?:did|does|do) (?:[A-Z][\w'’]*|he|she|they|(?:his|her|their) \w+)(?: and (?:[A-Z]\w*|his \w+|her \w+))?"
    r" (?!(?:have|has|own|like|love|enjoy|prefer|want|need|call|name|keep|use|eat|drink|drive|play|watch|read|listen|think|feel|study|work)\b)[a-z]+\b"
)

# A person spoken of by a pronoun only ("When did she start?", 她什么时候开始的): in a
# conversation, the one the question before named (read/ask.py `about`).
PRONOUN = lazy(r"\b(?:she|her|hers|herself|he|him|his|himself)\b|[她他]", re.I)

# Chinese characters that ask rather than say what a question is about (叫什么, 谁, 几个, 多少,
# 哪, 名字): a passage need not hold them to answer it.
ZH_ASKING = frozenset("叫谁几多少哪名字吗呢何")

# A question that asks for several things ("What activities…", "Which cities…", 哪些): the
# composer gathers items across passages and facts, and counts them for "how many".
_LIST = {
    "en": r"\b(?:what|which) (?:\w+ )?(?:kinds|types|sorts) of\b|\bwhat are\b"
          r"|\bwhich (?:\w+ ){0,2}?(?!(?:does|is|was|has|goes|news|series)\b)\w+[^s\W]s\b"
          r"|\bwhat (?:\w+ )?(?!(?:does|is|was|has|goes|gets|makes|likes|news|series|kinds?|types?)\b)\w+[^s\W]s (?:do|does|did|has|have|are|were)\b"
          r"|^\W*(?:please )?(?:list|name) (?:all|some|the)\b"
          r"|\bhow many\b",
    "zh": r"哪些|什么.{0,4}们|几[个只种项]|多少[个只种项]|都有",
}  # fmt: skip
# The words that ask why and how, inside "what": the composer takes the reason or the means.
_WHY = {"en": r"^\W*why\b|\bwhat (?:made|makes|motivated|inspired|prompted)\b|\bfor what reason\b"
              r"|\bwhat (?:is|was) the reason\b",
        "zh": r"为什么|为啥|为何|怎么会|什么原因"}  # fmt: skip
_HOW = {"en": r"^\W*how (?:do|does|did|is|was|are|were|has|have|can|could)\b", "zh": r"怎么|如何|怎样"}
# A question that asks how something was or felt ("How did she feel about the show?", "How
# does he describe the trip?", "How was her stay?"): the composer takes the words that say it.
_DESCRIBE = {"en": r"^\W*how (?:do|does|did|is|was|are|were)\b(?:(?!\bhow\b).){0,80}?\b(?:describe[sd]?|feel|feels|felt|react(?:ed)?)\b"
                   r"|^\W*how (?:is|was|were|are) (?:\w+['’]s )?(?:\w+ ){0,2}?(?:experience|time|trip|stay|visit)\b",
             "zh": r"感觉怎么样|觉得怎么样|怎么形容|心情怎么样"}


# "How often…" asks for a frequency ('three times a week'), "How long…" for a duration ('for
# three years'), never a count of the items a fact holds nor a date.
_OFTEN = {"en": r"\bhow (?:often|frequently)\b", "zh": r"多久.{0,8}?一次|多常|隔多久"}
_LASTS = {"en": r"^\W*(?:and |so )?how long\b(?!\s+ago\b)|\bfor how long\b", "zh": r"多长时间|多久(?!以前|之前|.{0,8}?一次)"}
# "When did he lose his job?" asks when something ended: a fact's value that is no longer
# held answers with the day it stopped.
_ENDS = {"en": r"^\W*when\b.{0,60}?\b(?:lose|lost|quit|left|leave|stop(?:ped)?|end(?:ed)?|close[sd]?|shut|gave up|give up"
               r"|retire[sd]?|broke up|break up|split up|fired|laid off|move[sd]? out)\b",
         "zh": r"(?:什么时候|哪天|何时).{0,12}?(?:丢了|失去|辞职|辞掉|离开|不再|停止|放弃|分手|关掉|退休|被裁)"
               r"|(?:丢了|失去|辞职|辞掉|离开|不再|停止|放弃|分手|关掉|退休|被裁).{0,12}?(?:什么时候|哪天|何时)"}  # fmt: skip


# The noun a what/which question asks for: 'What kind of flooring did…', 'What color glow…',
# 'Which Disney movie is…' (up to three words before the verb after it).
HEAD = lazy(r"\b(?:what|which)\s+(?:kinds?\s+of\s+|types?\s+of\s+|sorts?\s+of\s+)?((?:[A-Za-z'-]+\s+){0,2}?[A-Za-z'-]+)"
            r"\s+(?:did|does|do|is|was|are|were|has|have|had|can|could|would|will)\b", re.I)  # fmt: skip


def head_words(text: str) -> list[str]:
    """The words of the noun a what/which question asks for ('kind of flooring' → flooring)."""
    m = HEAD().search(text)
    return m.group(1).split() if m else []


@cache
def _compiled(lang: str) -> tuple[tuple[str, re.Pattern[str]], ...]:
    return tuple((t, re.compile(p, re.I)) for t, p in RULES.get(lang, _EN))


@cache
def _one(table: str, lang: str) -> re.Pattern[str]:
    src = {"list": _LIST, "why": _WHY, "how": _HOW, "describe": _DESCRIBE, "named": _NAMED, "often": _OFTEN,
           "lasts": _LASTS, "ends": _ENDS}[table]
    return re.compile(src.get(lang) or src["en"], re.I)


# A yes/no question whether someone has a partner, children, pets at all ("Is she married?",
# "Does he have kids?", 她结婚了吗): one mentioned, even unnamed, answers yes.
HAS = lazy(r"^\W*(?:is|are)\s+\w+\s+(?:married|engaged|in a relationship)\b|^\W*(?:does|do|has|have)\s+\w+\s+(?:have|got)\s+(?:a|an|any)?\s*\w+\s*\?\s*$"
           r"|^\w{1,4}(?:结婚|有(?:孩子|小孩|宠物|对象|男朋友|女朋友))(?:了)?吗", re.I)  # fmt: skip
# A clause of time set before the question proper: "When Dave was a child, what did he…".
_SET_BEFORE = re.compile(r"^\W*(?:when|while|after|before|during)\b[^,?]{3,80},\s*(?=(?:what|which|who|where|how|why|when)\b)", re.I)


def question_type(text: str, lang: str) -> str:
    """The answer a question wants: when, where, who, how_many, yes_no or what."""
    if lang == "en" and (m := _SET_BEFORE.match(text)):
        text = text[m.end():]
    for name, rx in _compiled(lang):
        if rx.search(text):
            return name
    return "what"


def asks_for_list(text: str, lang: str) -> bool:
    """Whether the question asks for several things (gathered, deduplicated, counted)."""
    return bool(_one("list", lang).search(text))


def asks_why(text: str, lang: str) -> bool:
    return bool(_one("why", lang).search(text))


def asks_how(text: str, lang: str) -> bool:
    return bool(_one("how", lang).search(text))


def asks_often(text: str, lang: str) -> bool:
    """Whether the question asks how often ('How often does she swim?'): a frequency answers."""
    return bool(_one("often", lang).search(text))


def asks_duration(text: str, lang: str) -> bool:
    """Whether the question asks how long something lasted ('How long have they been
    together?'; 'how long ago' asks when): a duration answers."""
    return bool(_one("lasts", lang).search(text))


def asks_end(text: str, lang: str) -> bool:
    """Whether a when-question asks when something ended ("When did she quit the bakery?")."""
    return bool(_one("ends", lang).search(text))


def asks_describe(text: str, lang: str) -> bool:
    """Whether the question asks how something was or felt (the words that say it answer)."""
    return bool(_one("describe", lang).search(text))


# A what/which question whose noun is a kind of thing known by its name ("What movie did she
# watch?", "Which band…", "What language…"): a name or a quoted title answers it first.
_NAMED = {"en": r"\b(?:what|which)\s+(?:(?:kinds?|types?|sorts?)\s+of\s+)?(?:[a-z-]+\s+){0,2}?"
                r"(?:movies?|films?|books?|novels?|series|shows?|songs?|albums?|bands?|artists?|composers?|authors?"
                r"|singers?|musicians?|games?|video games?|apps?|languages?|brands?|compan(?:y|ies)|teams?|players?"
                r"|characters?|figures?|restaurants?|cafes?|podcasts?|channels?|magazines?|tracks?|poems?|plays?"
                r"|cars?|breeds?|names?)\b(?!\s+of\b)",
          "zh": r"(?!)"}  # fmt: skip


def asks_named(text: str, lang: str) -> bool:
    """Whether a what/which question asks for a thing known by its name (a name answers)."""
    return bool(_one("named", lang).search(text))


# A question that offers a choice ("Does she live near a beach or the mountains?", "Which pet
# came first - Ash or Birch?"): the options, each as the question says it. The second is all
# after 'or'; the first runs back to a dash or a comma, or in a yes/no question to a little
# word ('near', 'by', 'on') or, past names, for as many words as the second has and one more.
_CHOICE = re.compile(r"^(?P<head>.*?)\s+or\s+(?P<b>[^,?]+?)\s*\?\s*$", re.I)
_ARTICLES = frozenset(["a", "an", "the", "some"])
_PREPOSITIONS = frozenset(["near", "like", "between", "without", "behind", "across", "through", "toward", "towards", "around", "beside", "inside", "outside", "versus", "vs"])


def choice_options(text: str, yes_no: bool) -> tuple[str, ...]:
    """The two options a question offers, or () when it offers none ('yes or no' is none)."""
    m = _CHOICE.match(text.strip())
    if m is None or re.search(r"\byes or no\b", text, re.I):
        return ()
    head = m.group("head")
    cut = max(head.rfind(","), head.rfind(" - "), head.rfind("–"))
    if cut >= 0:
        a = head[cut + 1 :].strip(" -–")
    elif yes_no:
        kept: list[str] = []
        for w in reversed(head.split()):
            little = w.lower() in STOP_EN or w.lower() in _PREPOSITIONS
            if not w[:1].isupper() and w.lower() not in _ARTICLES and (little or len(kept) > len(m.group("b").split())):
                break
            kept.insert(0, w)
        a = " ".join(kept)
    else:
        return ()
    options = [" ".join(w for i, w in enumerate(o.split()) if i or w.lower() not in _ARTICLES) for o in (a, m.group("b"))]
    # An option is a few words, never a clause that asks ('…, what advice might she give … or').
    if not all(options) or any(len(o.split()) > 6 or re.search(r"\b(?:what|which|who|how|why)\b", o, re.I) for o in options):
        return ()
    return tuple(options)


# A question about someone's favourite ("What is her favorite dance?"): what they call their
# favourite answers it (read/span_state.favorite).
FAVORITE = re.compile(r"\bfavou?rites?\b|\bfav\b", re.I)  # English: a Chinese span is its clause
