"""Sentences, clauses and the mood of a statement: plain, hedged, future, negated, questioned."""

from __future__ import annotations

import re
from dataclasses import dataclass

from mdmem.extract.reported import reported_at

# A sentence ends at . ! ? (followed by a space or the end, and not after a title such as
# "Dr."), at Chinese full stops, at ";", or at a line break.
_BOUNDARY = re.compile(
    r"(?<=[.!?…])(?<!\bMr\.)(?<!\bMs\.)(?<!\bDr\.)(?<!\bSt\.)(?<!Mrs\.)(?<!e\.g\.)(?<!i\.e\.)(?<!\bvs\.)"
    r"[\"”’')\]]*\s+"  # the cheap look-behind first: the exceptions are tried only after a stop
    r"|(?<=[。！？；…])[”’」』）)]*\s*"
    r"|(?<=;)\s+"
    r"|\s*\n\s*"
)
_CLAUSE = re.compile(
    r"[,;，；、:：—–]|\s-\s|\b(?:but|and|so|because|though|although|while)\b", re.I
)

# An auxiliary opens a question only before its subject ("Did you…", "Have your kids…"); chat
# drops the subject of statements ("Haven't seen one", "Can't do that here", "Will be cool").
_QUESTION_START = re.compile(
    r"^\s*(?:and |but |so |oh,? |hey,? )?(?:did|do|does|is|are|was|were|can|could|would|should|have|has|"
    r"will|am|shall|may|might|isn['’]t|aren['’]t|didn['’]t|don['’]t|doesn['’]t|haven['’]t|hasn['’]t|"
    r"won['’]t|can['’]t|wouldn['’]t|couldn['’]t|shouldn['’]t|wasn['’]t|weren['’]t)"
    r"(?![\w'’])\s+(?:n['’]t\s+)?(?:not\s+)?"
    r"(?:i|you|he|she|it|we|they|there|this|that|these|those|the|a|an|my|your|his|her|its|our|their"
    r"|any|anyone|anybody|someone|somebody|everyone|everybody|u|ya|y['’]all|(?-i:[A-Z][a-z]+))\b",
    re.I,
)
_QUESTION_END = re.compile(
    r"[?？]\s*[\"”’)]*\s*$|[吗么嘛][。！!]?\s*$|(?:是不是|有没有|对不对|是吗)"
)
_HYPOTHETICAL = re.compile(
    r"\b(?:if|unless|suppose|supposing|imagine|assuming|in case|would|wish|dream(?:ing|t)? of)\b"
    r"|如果|要是|假如|假设|万一|的话|想象|假使|倘若|如若",
    re.I,
)
_HEDGE = re.compile(
    r"\b(?:might|may|maybe|perhaps|probably|possibly|likely|could|not sure|unsure|i think|i guess|"
    r"i suppose|i believe|thinking (?:of|about)|considering|hopefully|sort of|kind of|apparently|"
    r"seems?|rumou?r)\b"
    r"|可能|也许|或许|大概|说不定|不确定|考虑|好像|似乎|估计|应该|不一定|说不准|听说|据说",
    re.I,
)
_AMOUNT = re.compile(r"\d|[一二两三四五六七八九十半](?:个|多)?(?:分钟|小时|钟头|十)|half an|an hour", re.I)
_APPROX = re.compile(r"(?:大概|大约|差不多|估计|\babout|\baround|\broughly|\bmaybe)\s*$", re.I)
_FUTURE = re.compile(
    r"\b(?:will|shall|going to|gonna|plan(?:ning|s)? to|about to|intend(?:ing|s)? to|want(?:s|ing)? to|"
    r"would like to|hop(?:e|ing) to|trying to|aim(?:ing)? to|looking to|next (?:week|month|year)|"
    r"soon|tomorrow|someday|one day)\b|\w'll\b"
    r"|将要|将会|打算|准备|计划|下个?月|下周|明年|以后|将来|未来|快要|即将|要(?=搬|去|换|转|入职|跳槽)|想(?=搬|去|换|转)",
    re.I,
)
_FUTURE_AFTER = re.compile(
    r"^[^,;，；]*?(?:\b(?:next (?:week|month|year|spring|summer|fall|autumn|winter)|tomorrow|soon|"
    r"later this (?:year|month))\b|下个?月|下周|明年)",
    re.I,
)
_NEGATION = re.compile(
    r"\b(?:not|never|no|nobody|neither|nor|cannot|without)\b|n[’']t\b"
    r"|(?<!差)不(?!错|过|久|少|同|仅|但|如|然|断|停|管)|没(?!错)|未(?!来)|别(?!人|的|处)|非(?!常)",
    re.I,
)
_NO_LONGER = re.compile(
    r"\bno longer\b|\bany ?more\b|\bnot\b.{0,30}\bagain\b|不再|再也不|不[^，。！？,]{0,8}了", re.I
)
# A past tense of living or working somewhere: the value held once, and is history now.
_BYGONE = re.compile(
    r"\b(?:was|were)\s+(?:working|employed|living|based|staying)\b|\b(?:lost|quit|left)\s+my\s+(?:\w+\s+)?job\b"
    r"|\bI(?:['’]ve|\s+have)?\s+(?:\w+\s+)?(?:quit|left)\s+(?:my\s+(?:job|work)\s+at\s+|working\s+(?:at|for)\s+)?$"
    r"|(?<!['’]ve\s)(?<!have\s)(?<!has\s)(?<!['’]d\s)(?<!had\s)\b(?:worked(?!\s+out\b)|lived)\b",
    re.I,
)
_PAST_ONLY = re.compile(
    r"\bused to\b|\bback then\b|\bformerly\b|以前|之前|曾经|原来|当年|那时候|小时候", re.I
)


# Someone else's opinion or advice about the speaker: "my boss says I should learn Rust", "my mom
# thinks I …", "我妈觉得我该换工作". (What a doctor says I have is news, not an opinion.)
_REPORTED = re.compile(
    r"(?<!\bI\s)(?<!\bwe\s)\b(?:thinks?|thought|believes?|reckons?|suggest(?:s|ed)?|keeps?\s+saying|insists?|"
    r"claims?|swears?|wants?\s+me\s+to|wanted\s+me\s+to)\s+(?:that\s+)?(?:I|we|me)\b"
    r"|(?<!\bI\s)(?<!\bwe\s)\b(?:says?|said|told\s+me|tells\s+me)\s+(?:that\s+)?(?:I|we)\s+(?:should|ought|need|must|have\s+to|could|might|would)\b"
    r"|(?<![我们])(?:觉得|认为|建议|希望|想让)我|(?<![我们])说我(?:应该|该|得|要|必须)",
    re.I,
)
# A joke taken back: "I'm moving to Mars. Just kidding!", "开玩笑的".
_JOKE = re.compile(r"\b(?:jk|j/k|just\s+kidding|kidding|joking|lol\s+no)\b|开玩笑|说着玩|逗你", re.I)


def is_joke(sentence: str) -> bool:
    """Whether a sentence says it (or the one before) was a joke."""
    return _JOKE.search(sentence) is not None


@dataclass(frozen=True)
class Mood:
    """How a statement was said; only `plain` (and `weak`, as tentative) may write a value."""

    question: bool = False
    hypothetical: bool = False
    negated: bool = False
    hedged: bool = False
    future: bool = False
    past: bool = False
    no_longer: bool = False  # "not … any more", "不…了": a change of state, not a plain denial
    bygone: bool = False  # "I was working at …", "I lived in …": a value of the past, not now
    reported: bool = False  # "my boss says I should …": someone else's words, or a joke

    @property
    def blocked(self) -> bool:
        """Said as a question, a supposition, a denial, about the past or in someone else's
        words: states nothing now."""
        return self.question or self.hypothetical or self.negated or self.past or self.reported

    @property
    def weak(self) -> bool:
        """Hedged or about the future: at most a tentative fact."""
        return self.hedged or self.future


def sentences(text: str) -> list[str]:
    """Split a message into sentences (English and Chinese punctuation, line breaks)."""
    return [s.strip() for s in _BOUNDARY.split(text) if s and s.strip()]


def clause_start(sentence: str, pos: int) -> int:
    """Where the clause holding position `pos` begins."""
    start = 0
    for m in _CLAUSE.finditer(sentence, 0, pos):
        start = m.end()
    return start


def is_question(sentence: str) -> bool:
    """A question, by its mark, its opening word ("did I…") or a Chinese question particle."""
    return bool(_QUESTION_END.search(sentence) or _QUESTION_START.match(sentence))


def mood(
    sentence: str, start: int, value_start: int, end: int, names: tuple[str, ...] = ()
) -> Mood:
    """The mood of the statement at sentence[start:end] whose value begins at value_start.

    `names` are what the slot is called (its label and aliases): "运动计划是每天快走" or "my
    training plan is …" name a slot that happens to hold a plan; its name is no hedge."""
    sentence = _unnamed(sentence, value_start, names)
    while start < value_start and sentence[start] in "，,；;：: \t":
        start += 1  # a match that begins at a clause boundary belongs to the clause after it
    window = sentence[clause_start(sentence, start) : value_start]
    if _AMOUNT.match(sentence, value_start):
        window = _APPROX.sub("", window)  # "大概四十分钟", "about 15 minutes": a rounded amount, no hedge
    return Mood(
        question=is_question(sentence) and not _tagged(sentence, end),
        hypothetical=bool(_HYPOTHETICAL.search(sentence, 0, value_start)),
        negated=bool(_NEGATION.search(window)),
        hedged=bool(_HEDGE.search(window)),
        future=_future(sentence, window, start, end),
        past=bool(_PAST_ONLY.search(window)),
        bygone=bool(_BYGONE.search(window)),
        reported=bool(
            _REPORTED.search(sentence, clause_start(sentence, start), value_start)
            or _JOKE.search(sentence)
            or reported_at(sentence, value_start)  # "She tells me I moved to Paris", "…, my sister said"
        ),
        no_longer=bool(
            _NO_LONGER.search(sentence[clause_start(sentence, start) : clause_end(sentence, end)])
        ),
    )


# "Here's my new mansion - pretty cool huh?": a remark tagged on after a dash asks about it,
# it does not ask whether it is so.
_TAG = re.compile(r"\s*(?:\s[-–—]\s*|[—–]\s*)[^?!.]{0,40}[?？]\s*$")


def _tagged(sentence: str, end: int) -> bool:
    """Whether the sentence's question is only a remark tagged on after the statement."""
    return not _QUESTION_START.match(sentence) and bool(_TAG.match(sentence, clause_end(sentence, end)))


def _unnamed(sentence: str, value_start: int, names: tuple[str, ...]) -> str:
    """The sentence with the slot's own name blanked before the value, where that name holds a
    future or hedge word (and no denial, supposition or question word) that would mislead."""
    head = sentence[:value_start]
    for name in sorted(names, key=len, reverse=True):
        if len(name) < 2 or not (_FUTURE.search(name) or _HEDGE.search(name)):
            continue
        if _NEGATION.search(name) or _HYPOTHETICAL.search(name) or is_question(name):
            continue
        flags = re.I if name.isascii() else 0
        bound = r"(?<!\w){}(?!\w)" if name.isascii() else "{}"
        head = re.sub(
            bound.format(re.escape(name)), lambda m: " " * len(m.group()), head, flags=flags
        )
    return head + sentence[value_start:]


def _future(sentence: str, window: str, start: int, end: int) -> bool:
    if _FUTURE_AFTER.match(sentence, end):
        return True
    found = [m.group() for m in _FUTURE.finditer(window)]
    # "以后改成周二发版了": "from now on", a change made (了), not a plan.
    if found == ["以后"] and sentence[end : clause_end(sentence, end)].rstrip("。！!").endswith(
        "了"
    ):
        return False
    return bool(found)


def clause_end(sentence: str, pos: int) -> int:
    """Where the clause holding position `pos` ends."""
    m = _CLAUSE.search(sentence, pos)
    return m.start() if m else len(sentence)


# Words that say a value replaced another: "transferred my care to Guy's", "my new doctor is
# Dr. Berg", "换成了", "搬到". A first value said this way still puts its dependents in doubt.
_CHANGE = re.compile(
    r"(?i)\b(?:moved|relocated|switched|swapped|transferred|changed|new|now|started|joined)\b"
    r"|换|转到|转院|搬|改成|改为|新的?|现在"
)


def said_as_change(sentence: str, value_start: int) -> bool:
    """Whether the clause before the value says the value replaced an earlier one."""
    return _CHANGE.search(sentence, clause_start(sentence, value_start), value_start) is not None
