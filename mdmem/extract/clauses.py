"""Clauses and their subjects, for the event and plan grammar (extract/happenings.py).

A sentence is read clause by clause. A clause speaks of the speaker's own life when its subject
is the speaker ("I", "we", "me and my sister", "我", "我们", "我和老公") or when a chat drops the
subject at the head of a sentence ("Lost my job yesterday", "下个月要去东京"). A sentence that
asks, supposes, reports what someone else said, hedges or jokes tells nothing of the kind, so
it is passed over whole: the right kind or nothing, never a wrong fact.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from mdmem.extract.modality import is_question
from mdmem.extract.reported import first_report
from mdmem.extract.timex import Time
from mdmem.lang.detect import has_cjk

# A clause begins at the sentence's head, after a comma-like mark or a joining word.
_EN_BREAK = re.compile(
    r"[,;:()—–]\s*|\s-\s|\band\s+(?=(?:I|we|We|then|also|later|afterwards)\b)"
    r"|\bsince\s+(?:we|I)\s+last\s+(?:spoke|talked|chatted|met|caught\s+up|saw\s+each\s+other)\b\s*"  # a time, not a clause
    r"|\b(?:but|then|because|cause|cuz|plus|though|although|while|when|after|before"
    r"|since|until|which|who|where|whereas|anyway|btw|guess what)\b\s*"
    # "so" joins clauses, but after a verb of being or feeling it says how much ("I'm so excited")
    r"|\bso\b(?<!['’]m\sso)(?<!\bam\sso)(?<!['’]re\sso)(?<!\bare\sso)(?<!\bis\sso)(?<!\bwas\sso)(?<!\bwere\sso)(?<!\bfeel\sso)(?<!\bfelt\sso)\s*"
    # "(I'm so excited) to tell you I started …": what is told begins a clause of its own
    r"|\bto\s+(?:tell\s+you|let\s+you\s+know|say|share|announce)(?:\s+that)?\s+(?=(?:I|we|We)\b)",
    re.I,
)
# Where a modal's or a reporting verb's reach begins: a clause, or any "and" ("I emailed a
# wholesaler and one replied and said yes": the emailing stands).
_EN_SCOPE = re.compile(_EN_BREAK.pattern + r"|\band\s+", re.I)
_ZH_BREAK = re.compile(r"[，,；;：:、（）()—]|(?:但是|可是|不过|然后|而且|所以|因为)")
# A piece that is only its joining words (", then …" breaks twice).
_JOIN_ONLY = re.compile(r"(?:and|then|and\s+then|so|but|plus|also|later|afterwards)[\s,]*", re.I)
# The speaker as subject, and who is with them in it.
EN_SUBJECT = re.compile(
    r"(?:(?P<me>I|i|we|We)|(?:me|Me)\s+and\s+(?P<with1>(?:my|our)\s+[\w'’-]+|[A-Z][\w'’-]+)"
    r"|(?P<with2>(?:[Mm]y|[Oo]ur)\s+[\w'’-]+|[A-Z][\w'’-]+)\s+and\s+(?:I|me))(?!\w)"
)
# Words of talk that may stand before the subject: "Also I watched …", "Just yesterday I joined …".
_DISCOURSE = re.compile(r"(?:(?:also|just|plus|oh|well|yeah|yep|yes|ok|okay|actually|honestly|anyway|only|and|so|btw|lol|haha)\s*,?\s+)+", re.I)
# Who stands before "and I" in one subject: "Anthony and I", "my sister and I".
_WITH_ME = re.compile(r"\s*(?:[A-Z][\w'’-]+|(?:[Mm]y|[Oo]ur)\s+[\w'’-]+)\s+")
# "我", "我们", "我和老公…": after 和/跟 the grammar takes who is with the speaker (happenings.py).
ZH_SUBJECT = re.compile(r"(?P<me>我们|我)(?P<joined>和|跟|与)?")
# Time words that may stand before a Chinese subject ("上周我去了杭州").
_ZH_TIME_CHARS = "0-9年月日号周末上下个这本今明昨前后去天早晚点半星期礼拜初底春夏秋冬一二三四五六七八九十两"
# Words that make a whole sentence tell no fact of the speaker's own life, wherever they stand
# (a supposition or a joke colours every clause: "I'll move to Bali if I win the lottery") …
_NOT_SO = re.compile(
    r"\b(?:if|unless|suppose|supposing|imagine|assuming|in\s+case|dream(?:ing|t)?\s+(?:of|about)"
    r"|hypothetically|pretend|jk|j/k|just\s+kidding|kidding|joking|lmao|rofl"
    r"|reckons?|according\s+to|apparently|rumou?r)\b"
    r"|/s\b|😜|😉|🤪"
    r"|如果|要是|假如|假设|万一|的话|想象|假使|倘若|开玩笑|逗你|哈哈哈|听说|据说|[他她]说|觉得|认为|建议|让我|叫我|希望我",
    re.I,
)
# … and words that make only their own clause and those after it tell nothing: a modal ("…, maybe
# you would like that!"), and reported speech or thought (extract/reported.py: "my boss says I
# should learn Rust", "I heard that …"; "I asked on the forum, one replied and said yes" keeps the
# asking, "I'm excited to tell you I started a yoga class" is the speaker's own telling).
_NOT_SO_ON = re.compile(
    r"\b(?:would|could|should|wish(?:ed|es)?)\b"
    r"|\b\w+['’]d\b(?!(?:\s+(?:always|never|just|already|ever|finally|been|had))*\s+(?:been|had|gone|done|got|seen|[a-z]+ed)\b)",
    re.I,
)  # "I'd been wanting to", "we'd always planned" are "had": neither stops
# A clause that only says who said it, after the words it reports: "…, my sister said", "or so she says".
_TAG = re.compile(
    r"\s*(?:[\w'’]+\s+){0,3}?(?:says|said|tells?\s+me|told\s+(?:me|us)|thinks|thought|reckons)(?:\s+so)?\s*[.!…]*\s*|\s*(?:says|said)\b.*",
    re.I | re.S,
)
# A short question tagged on after a statement, which asks about it or turns to the other person:
# "…- pretty cool, huh?", "…, right?", "… - can you believe it?", "… - what's new with you?".
_TAG_QUESTION = re.compile(
    r"(?:\s[-–—]\s*|[—–]\s*|,\s*)(?:(?:huh|right|eh|ya\s+know|you\s+know|isn['’]t\s+it|pretty\s+\w+(?:,\s*huh)?"
    r"|can\s+you\s+believe\s+(?:it|that)|how\s+cool\s+is\s+that|(?:what|how)\s+about\s+you|(?:what|how)['’]s\s+new(?:\s+with\s+you)?"
    r"|how['’]s\s+(?:it|that|everything|your\s+[\w\s'’-]{1,20}?)\s+going|how\s+(?:are|have)\s+you(?:\s+been)?"
    r"|(?:what|how)\s+do\s+you\s+think|don['’]t\s+you\s+think|wanna\s+see(?:\s+it)?|want\s+to\s+see(?:\s+it)?)"
    r"\s*[?？!]+[\s?？!]*)$",
    re.I,
)
# … and hedges, which doubt what follows them: "maybe we'll go", not "I'm going, maybe you too".
HEDGE = re.compile(
    r"\b(?:maybe|might|(?-i:may)|perhaps|possibly|not\s+sure|i\s+think|i\s+guess|i\s+suppose|i\s+doubt"
    r"|i\s+wonder|sort\s+of|kind\s+of|pretty\s+sure)\b|可能|也许|或许|大概|说不定|不确定|好像|似乎",
    re.I,
)


@dataclass(frozen=True)
class Clause:
    """One clause of a sentence: where it is, where its subject ends (the verb phrase begins),
    whether that subject is the speaker, and who else it names ("me and my sister")."""

    start: int
    end: int
    body: int  # where the words after the subject begin
    speaker: bool  # the speaker's own ("I", "we", or no subject at the sentence's head)
    with_: tuple[str, ...] = ()
    joined: bool = False  # "我和…": the words after the subject begin with who is with them
    carried: bool = False  # no subject of its own, the speaker's from the clause before ("…, then off to Boston")


def tells_nothing(sentence: str) -> bool:
    """A question, a supposition, a joke or someone else's words: read nothing."""
    return told_from(sentence) == 0


def told_from(sentence: str) -> int:
    """Where the sentence stops telling the speaker's own life: 0 for a question, a supposition
    or a joke (nothing of it), the start of the clause that holds a modal or reported speech
    (what comes before it stands), 0 again when that clause only names who said the words before
    it ("I'm moving to Berlin, my sister said"); past its end when nothing stops it."""
    if _NOT_SO.search(sentence) is not None:
        return 0
    if is_question(sentence):
        tag = _TAG_QUESTION.search(sentence)
        if tag is None or tag.start() == 0 or is_question(sentence[: tag.start()]):
            return 0
        return tag.start()  # "I started my own store not so long ago - pretty cool, huh?": the store stands
    m = _NOT_SO_ON.search(sentence)
    report = first_report(sentence, thoughts=True)
    at = min(m.start() if m else len(sentence) + 1, report if report >= 0 else len(sentence) + 1)
    if at > len(sentence):
        return at
    breaks = _ZH_BREAK if has_cjk(sentence) else _EN_SCOPE
    start, joined = 0, False
    for b in breaks.finditer(sentence, 0, at):  # the last break before it begins its reach
        start, joined = b.end(), b.group().lower().startswith("and")
    if start and not joined and _TAG.fullmatch(sentence, start):
        return 0  # the words before it are someone else's ("and said yes" is the same subject's doing)
    return start


def first_hedge(sentence: str) -> int:
    """Where the sentence's first hedge stands (its length when it has none): a clause that ends
    after it is doubted."""
    m = HEDGE.search(sentence)
    return m.start() if m is not None else len(sentence)


def clauses(sentence: str, zh: bool, times: list[Time]) -> list[Clause]:
    """The sentence's clauses in order, each with its subject read (`times`: the sentence's)."""
    breaks = _ZH_BREAK if zh else _EN_BREAK
    cuts = [0]
    for m in breaks.finditer(sentence):
        if not zh and m.group().lower().startswith("and") and _WITH_ME.fullmatch(sentence, cuts[-1], m.start()):
            continue  # "Anthony and I went …": one subject, not two clauses
        cuts.append(m.end())
    cuts.append(len(sentence) + 1)
    out: list[Clause] = []
    for a, b in zip(cuts, cuts[1:], strict=False):
        end = min(b, len(sentence))
        while a < end and sentence[a] in " \t\"“”'‘’*_":
            a += 1
        if a >= end or _JOIN_ONLY.fullmatch(sentence, a, end):
            continue  # ", then off to Boston": the joining word begins the clause after it
        # No subject of its own: the speaker's at the sentence's head, or when the clause before
        # named the speaker ("I was busy too - went to a community meetup last Friday").
        said = bool(out) and out[-1].body > out[-1].start
        out.append(_subject(sentence, a, end, times, first=not out or said, carried=said, zh=zh))
    return out


def _subject(sentence: str, a: int, end: int, times: list[Time], *, first: bool, carried: bool, zh: bool) -> Clause:
    m = (ZH_SUBJECT if zh else EN_SUBJECT).match(sentence, a, end)
    if m is None and zh:  # "上周我去了杭州": a time before the subject
        m = _zh_late_subject().match(sentence, a, end)
    if m is None and not zh and (d := _DISCOURSE.match(sentence, a, end)):  # "Also I watched …", "Plus we …"
        m = EN_SUBJECT.match(sentence, d.end(), end)
        a_time = d.end() if m is None else a
    else:
        a_time = a
    if m is None and not zh:  # "Yesterday I went to Paris", "last Sunday we ran", "just yesterday I …"
        lead = next((t for t in times if t.start == a_time), None)
        if lead is not None:
            after = lead.end
            while after < end and sentence[after] in " ,":
                after += 1
            m = EN_SUBJECT.match(sentence, after, end)
    if m is not None:
        with_ = tuple(w.strip() for w in (m.groupdict().get(k) for k in ("with1", "with2")) if w)
        return Clause(a, end, m.end(), True, with_, joined=bool(m.groupdict().get("joined")))
    return Clause(a, end, a, first, carried=carried)  # no subject: the speaker's at the head, or carried on


@cache
def _zh_late_subject() -> re.Pattern[str]:
    return re.compile(f"[{_ZH_TIME_CHARS}]{{1,6}}?" + ZH_SUBJECT.pattern)
