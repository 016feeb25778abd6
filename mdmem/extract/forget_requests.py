"""Requests to forget, as people say them: "please delete that", "don't keep my address",
"forget what I said about my ex", "别记了", "把刚才那个删掉", "删掉你记的所有关于我的事".

A request is one of:
- `that`: what was just said (the words before it in the message, else the message before);
- `this`: what follows ("off the record: …", "don't save this, but …");
- `named`: a slot the rules name ("forget my phone number", "别记我的手机号了");
- `about`: words the rules do not name ("forget what I said about my ex");
- `all`: everything ("forget everything you know about me") — never carried out from a
  conversation, only reported with the command that would do it.

Not requests: idioms that do not name memory ("forget about it", "never mind the commute",
"算了", "忘了吧"), the opposite ("don't delete that", "别忘了", "别删"), questions about it
("did you delete that?"), what someone else said ("my boss said delete that"), anything in a
quotation, a quote block or code, and a supposition ("if I ask you to forget it…").
"""

from __future__ import annotations

import re
from dataclasses import replace

from mdmem.extract.candidates import Resolver
from mdmem.extract.forget_base import Request, may_ask, named_in, overlap
from mdmem.extract.forget_requests_zh import chinese
from mdmem.extract.prefilter import lowered

__all__ = ["Request", "find_requests", "named_in", "quoted_spans"]
_CJK = re.compile(r"[\u4e00-\u9fff]")

# --- English --------------------------------------------------------------------------------

# Words that may open an imperative: "please", "ok so", "oh and", "actually, can you".
_LEAD = (
    r"(?:(?:please|pls|plz|kindly|just|also|and|so|now|ok|okay|oh|ah|um|uh|hey|wait|sorry|actually"
    r"|well|then|yeah|yes|no|hmm|right|anyway|honestly|seriously|but|oops|actually|on second thought"
    r"|never\s*mind|nevermind|scratch\s+that|you\s+know\s+what|one\s+more\s+thing"
    r"|(?:can|could|would|will)\s+you(?:\s+please)?|would\s+you\s+mind|do\s+me\s+a\s+favou?r"
    r"|(?:I\s+)?need\s+you\s+to|I\s+want\s+you\s+to|I['’]d\s+like\s+you\s+to|I\s+would\s+like\s+you\s+to"
    r"|I\s+(?:told|asked)\s+you\s+to|make\s+sure\s+(?:you|to)|don['’]t\s+forget\s+to|remember\s+to"
    r"|go\s+ahead\s+and|feel\s+free\s+to|you\s+(?:can|should|may|must)|let['’]s)[\s,!.:;—–-]+)*"
)
_STRONG = (
    r"(?:delete|erase|remove|wipe|scrap|scratch|strike|purge|discard|disregard|unlearn|expunge"
    r"|get\s+rid\s+of|throw\s+(?:away|out)|cross\s+out|take\s+out|take\s+off|black\s+out|redact"
    r"|clear|drop|toss|ditch|trash|bin|nix|ignore)"
)
_WEAK = r"(?:forget|forget\s+about|let\s+go\s+of)"
_REF = (
    r"(?:that|this|it|those|these|them|all\s+(?:of\s+)?(?:that|this|it)|that\s+(?:one|part|bit|line|thing|info|information|detail|number|code|message|last\s+(?:bit|part|one|line|message))"
    r"|the\s+last\s+(?:bit|part|thing|message|line|one|sentence)|my\s+last\s+message|the\s+previous\s+(?:message|one)"
    r"|what\s+I\s+(?:just\s+)?(?:said|told\s+you|mentioned|wrote|typed|shared|gave\s+you|sent|said\s+there)(?!\s+about)"
    r"|(?:everything|anything)\s+I\s+(?:just\s+)?(?:said|told\s+you|mentioned|wrote)(?!\s+about)"
    r"|the\s+(?:above|bit\s+above|part\s+above)|everything\s+above)"
)
_MEMORY = (
    r"(?:from|in|out\s+of|off)\s+(?:your|the|my)?\s*(?:memory|memories|notes|records?|files?|database|"
    r"system|logs?|history|brain|mind|vault|storage|data|list|profile)|from\s+memory|for\s+good|permanently"
)
_KEEP = (
    r"(?:remember(?:ing)?|keep(?:ing)?|stor(?:e|ing)|sav(?:e|ing)|record(?:ing)?|log(?:ging)?|memori[sz](?:e|ing)"
    r"|retain(?:ing)?|note|noting|write|writing|jot|jotting|track(?:ing)?|hold(?:ing)?\s+on\s+to|hang(?:ing)?\s+on\s+to"
    r"|file|filing|put|putting|add|adding|have|having|know|knowing)"
)
_KEEP_TAIL = r"(?:\s+(?:down|on\s+file|on\s+record|in\s+mind|anywhere|around|at\s+all|anymore|any\s+more|either))?"
_NOT_KEEP = (
    r"(?:don['’]?t|do\s+not|dont|never|no\s+need\s+to|(?:you\s+)?(?:don['’]t|do\s+not)\s+(?:need|have)\s+to"
    r"|there['’]s\s+no\s+need\s+to|stop|quit|I['’]d\s+rather\s+you\s+(?:didn['’]t|did\s+not|not|don['’]t)"
    r"|I\s+would\s+rather\s+you\s+(?:didn['’]t|did\s+not|not|don['’]t)|I['’]d\s+prefer\s+(?:it\s+if\s+)?you\s+(?:didn['’]t|did\s+not|not|don['’]t)"
    r"|I\s+(?:don['’]t|do\s+not)\s+want\s+you\s+to|I\s+(?:don['’]t|do\s+not)\s+need\s+you\s+to|(?:can|could|would)\s+you\s+not"
    r"|better\s+not|let['’]s\s+not|please\s+(?:don['’]t|do\s+not)|you\s+(?:shouldn['’]t|should\s+not|mustn['’]t|needn['’]t)"
    r"|no\s+(?:remembering|keeping|storing|saving|recording|logging|notes?\s+on))"
)
_OBJ = r"(?:that|this|it|those|these|them|any\s+of\s+(?:that|this|it)|this\s+one|that\s+one|a\s+record\s+of\s+(?:that|this|it)|track\s+of\s+(?:that|this|it))"
_NAMED_OBJ = r"(?:my|our)\s+(?P<x>[a-z][a-z'’ -]{0,40}?)"
_STOP = r"(?=\s*(?:$|[.,;:!?)\]—–]|\s-\s|\s+(?:please|too|as\s+well|also|either|anymore|any\s+more|for\s+me|for\s+now|thanks|thank\s+you|ok|okay|right\s+away|now|then|because|since|it['’]s|that['’]s|I\s)\b|\s+(?:from|in|out\s+of|off)\s+(?:your|the|my)\b))"

_EN_THAT = re.compile(
    rf"(?:^|(?<=[\s,;:(—–-]))(?P<lead>{_LEAD})(?:(?P<strong>{_STRONG})|(?P<weak>{_WEAK}))\s+(?P<ref>{_REF})\b(?P<mem>\s+{_MEMORY})?",
    re.I,
)
_EN_NOT_KEEP = re.compile(
    rf"(?:^|(?<=[\s,;:(—–-]))(?P<lead>{_LEAD})(?P<neg>{_NOT_KEEP})\s+(?:(?:please|even|really|ever|actually)\s+)?{_KEEP}"
    rf"(?:\s+(?:down|up))?\s+(?:(?P<ref>{_OBJ})\b|{_NAMED_OBJ}{_STOP}){_KEEP_TAIL}(?P<mem>\s+{_MEMORY})?",
    re.I,
)
_EN_NAMED = re.compile(
    rf"(?:^|(?<=[\s,;:(—–-]))(?P<lead>{_LEAD})(?:(?P<strong>{_STRONG})|(?P<weak>forget))\s+"
    rf"(?P<about>(?:about\s+|what\s+I\s+(?:just\s+)?(?:said|told\s+you|mentioned|wrote)\s+(?:about|on|regarding)\s+"
    rf"|(?:everything|anything|all)\s+(?:I\s+(?:just\s+)?(?:said|told\s+you|mentioned)\s+)?(?:about|on|regarding)\s+"
    rf"|(?:the|that)\s+(?:bit|part|stuff|thing|things|line|lines|sentence|message|info|information|details?)\s+(?:about|on|regarding|with)\s+|all\s+of\s+)?)"
    rf"(?:(?P<det>my|our|the)\s+)?(?P<x>[a-z0-9][\w'’ -]{{0,40}}?){_STOP}(?P<mem>\s+{_MEMORY})?",
    re.I,
)
_EN_SAID = re.compile(
    r"(?:^|(?<=[\s,;:(—–-]))(?P<lead>" + _LEAD + r")(?:(?:just\s+)?pretend\s+(?:that\s+)?I\s+(?:never|didn['’]t|did\s+not)\s+(?:said|say|mention(?:ed)?|tell\s+you|told\s+you|write|wrote)"
    r"|forget\s+(?:that\s+)?I\s+(?:ever\s+)?(?:said|mentioned|told\s+you|brought\s+up|wrote)|unsay|un-say|I\s+take\s+(?:that|it)\s+back"
    r"|(?:that['’]s|that\s+is|this\s+is|that\s+was|it['’]s|it\s+is|this|all\s+(?:of\s+)?this\s+is)\s+(?:strictly\s+|totally\s+|completely\s+)?off\s+the\s+record"
    r"|off\s+the\s+record|not\s+for\s+(?:the\s+)?(?:record|memory|your\s+memory|your\s+notes)"
    r"|(?:that['’]s|that\s+is|it['’]s|it\s+is|this\s+is)\s+not\s+(?:something\s+)?(?:for\s+you\s+)?to\s+(?:remember|keep|store|save|note)"
    r"|keep\s+(?:that|this|it)\s+out\s+of\s+(?:your|the)\s+(?:memory|notes|records?))(?P<tail>[^.!?\n]{0,0})",
    re.I,
)
_EN_ALL = re.compile(
    r"\b(?:forget|delete|erase|wipe|remove|clear|purge|drop|lose)\s+(?:(?:absolutely|literally)\s+)?(?:everything|all|anything)"
    r"(?:\s+(?:you\s+(?:know|have|remember|stored|saved|kept|learned|recorded)|(?:that\s+)?you['’]ve\s+(?:got|stored|saved|learned|kept)|of\s+it))?"
    r"(?:\s+(?:about|on|of|regarding)\s+me\b|\s+(?:my|of\s+my)\s+(?:data|info|information|details|stuff|facts|memories))"
    r"|\b(?:forget|delete|erase|wipe|remove|clear|purge)\s+(?:all\s+)?(?:of\s+)?(?:my|me)\s+(?:data|info|information|details|personal\s+(?:data|info|information|details)|profile|memories|facts|stuff)\b"
    r"|\b(?:wipe|clear|erase|reset|empty|purge|delete)\s+(?:(?:your|the|my|all\s+(?:of\s+)?your)\s+)(?:whole\s+|entire\s+)?(?:memory|memories|notes|records|data|files|database)(?:\s+(?:about|of|on)\s+me)?\b"
    r"|\b(?:forget|delete|erase)\s+(?:everything|all)\s*(?:[.!]|$)"
    r"|\bforget\s+(?:that\s+)?(?:you\s+(?:ever\s+)?(?:knew|met)\s+me|I\s+exist(?:ed)?)\b",
    re.I,
)
# "Delete.", "Bin it.", "Scrap that please.": the verb alone is the request.
_EN_BARE = re.compile(
    rf"^\s*(?P<lead>{_LEAD})(?P<strong>delete|erase|remove|wipe|scrap|scratch|strike|purge|bin|nix|redact|unlearn|expunge|trash)"
    r"(?:\s+(?:it|that|this|please|pls|now|thanks|thank\s+you))*\s*[.!]*\s*$",
    re.I,
)
# "take that out of your notes", "cross it off", "get that out of your memory"
_EN_PHRASAL = re.compile(
    rf"(?:^|(?<=[\s,;:(—–-]))(?P<lead>{_LEAD})(?P<verb>take|cross|strike|wipe|scrub|rub|throw|get|leave|cut|pull|knock|rip)\s+"
    rf"(?P<ref>that|this|it|those|them|all\s+that)\s+(?P<dir>out|off|away)\b(?P<mem>\s+(?:of\s+)?(?:your|the|my)\s+"
    r"(?:memory|memories|notes|records?|files?|list|system|database|brain|head|mind|vault|log|logs))?",
    re.I,
)
# Words anywhere in the message that say it is about memory or about a secret: they make an
# idiom's verb a request ("that's private, bin it", "forget the address, keep the rest").
_CUE = re.compile(
    r"\bkeep\s+(?:the\s+rest|everything\s+else|the\s+others?|the\s+other\s+(?:stuff|bits?|things|parts?))"
    r"|\bremember\s+the\s+rest|\b(?:from|in|out\s+of)\s+(?:your\s+)?(?:memory|notes|records)|\bprivate\b|\bpersonal\b"
    r"|\bTMI\b|too\s+much\s+info|\bbetween\s+(?:us|you\s+and\s+me)\b|\bconfidential\b|\bsecret\b|\boff\s+the\s+record\b"
    r"|\bshouldn['’]t\s+have\s+(?:said|told|mentioned|shared)|\bovers(?:hared|haring)\b",
    re.I,
)
_POLITE_AFTER = re.compile(r"\s*,?\s*(?:please|pls|plz|for\s+me|thanks|thank\s+you|will\s+you|would\s+you|ok\?|okay\?)", re.I)
# Not the speaker asking: a question about it, a supposition, someone else's words.
_ASKED = re.compile(
    r"\b(?:did|do|does|have|has|had|why|when|how|where|were|was|is|are)\s+(?:you|u)\b(?![^,.;!?]*\b(?:please|mind)\b)"
    r"|\b(?:if|whether|in\s+case|suppose|supposing|imagine|what\s+if|unless|even\s+if|when(?:ever)?\s+I)\b"
    r"|\b(?:said|says|saying|told\s+(?:me|him|her|them|us)|asked\s+(?:me|him|her|them|us)|wants?\s+(?:me|him|her|them|us)\s+to"
    r"|telling\s+(?:me|him|her|them|us)|yelled|wrote|texted|replied|shouted|asks?|tell\s+(?:him|her|them))\b"
    r"|\b(?:I|we|he|she|they|you)\s+(?:will|['’]ll|would|['’]d|should|might|may|can|could|must|need\s+to|have\s+to|want\s+to|wanted\s+to|tried\s+to|forgot\s+to|am\s+going\s+to|['’]m\s+going\s+to|keep|kept|always|never|often|sometimes|usually|also)\b(?!\s+(?:rather|prefer|like\s+you))"
    r"|\b(?:how\s+(?:to|do\s+I)|can\s+I|could\s+I|should\s+I|able\s+to|want\s+me\s+to)\b",
    re.I,
)
_NEGATED = re.compile(
    r"\b(?:don['’]?t|do\s+not|never|no\s+need\s+to|shouldn['’]t|should\s+not|mustn['’]t|won['’]t|wouldn['’]t|not|please\s+don['’]t|stop)\s*(?:you\s+)?(?:dare\s+)?$",
    re.I,
)
# Someone doing it, not asked to: "I forget my address all the time", "people delete that".
# A verb with a subject before it tells what someone does or did ("I'll drop my kids at school",
# "we had to clear my desk"), up to four words between them and none of them "you"; so does a
# verb after "helps me" ("it helps me clear my head"). Neither asks for anything.
_SUBJECT = re.compile(
    r"\b(?:I|we|he|she|they|people|everyone|someone|it|you|my\s+\w+)(?:['’](?:ll|d|ve|m|re|s))?\s+"
    r"(?:(?!(?:you|u)\b)[\w'’]+\s+){0,4}$"
    r"|\b(?:helps?|helped|helping|makes?|made|lets?|letting)\s+(?:me|us|him|her|them)\s+$",
    re.I,
)
_POLITE = re.compile(
    r"\b(?:can|could|would|will)\s+you(?:\s+please)?\s*$|\byou\s+(?:can|could|should|may|must)(?:\s+(?:please|just))?\s*$"
    r"|\b(?:want|need|like|asking|ask)\s+(?:you|u)\s+to(?:\s+(?:please|just))?\s*$",  # "I'd like you to delete …"
    re.I,
)
# Words that make a slot's name an idiom's object: "forget about the commute" names no memory.
_IDIOM_OBJ = re.compile(r"^(?:it|that|this|them|him|her|everything|anything|the\s+whole\s+thing)$", re.I)


# A quotation, a quote block and code are recited, never asked.
_QUOTED = re.compile(
    r"“[^”\n]*”|\"[^\"\n]*\"|「[^」\n]*」|『[^』\n]*』|‘[^’\n]{4,}’|`[^`\n]*`|^[ \t]*>.*$|```.*?```|~~~.*?~~~",
    re.M | re.S,
)


def quoted_spans(text: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in _QUOTED.finditer(text)]


def _inside(spans: list[tuple[int, int]], a: int, b: int) -> bool:
    return any(x <= a and b <= y for x, y in spans)


def find_requests(text: str, resolver: Resolver) -> list[Request]:
    """Every request to forget in a message, in order (none inside quotes or code)."""
    english = may_ask(lowered(text)) and _EN_ANY.search(text) is not None
    if not (english or _CJK.search(text)) or not _gated(text):
        return []  # (no expression could match: the gate's own search, slow, is not needed)
    quotes = quoted_spans(text)
    cue = _CUE.search(text) is not None
    out: list[Request] = []
    for a, b in _clauses(text):
        piece = text[a:b]
        said = _english(piece, resolver, cue) if english and _EN_ANY.search(piece) else []
        for r in said + (chinese(piece, resolver) if _CJK.search(piece) else []):
            r = replace(r, start=r.start + a, end=r.end + a)
            if r.kind == "that" and _AHEAD.match(text, r.end):  # "don't store it: I'm …"
                r = replace(r, kind="this")
            if not _inside(quotes, r.start, r.end) and not any(overlap(r, o) for o in out):
                out.append(r)
    return sorted(out, key=lambda r: r.start)


_AHEAD = re.compile(r"[ \t]*(?:[:：]|—|–|--)[ \t]*\S")


_GATE = re.compile(
    r"forget|delete|erase|remov|wipe|scrap|scratch|strike|purge|discard|disregard|unlearn|expunge|rid\s+of"
    r"|throw|cross\s+out|take\s+(?:out|off)|redact|clear|drop|toss|ditch|trash|\bbin\b|\bnix\b|ignore|let\s+go"
    r"|remember|keep|stor|sav|record|\blog|memori|retain|note|writ|jot|track|hold|hang|file|\bput|\badd|\bhav|know"
    r"|pretend|unsay|un-say|take|cross|get|leave|cut|pull|knock|rip|scrub|rub|off\s+the\s+record|not\s+for"
    r"|忘|删|记|存|保存|保留|留|写|备忘|去掉|抹|清|移除|撤回|划掉|拿掉|丢掉|扔掉|当我没",
    re.I,
)


# In ASCII text, matching _GATE (all lower case, caseless CJK beside) regardless of case is
# matching it as written in the lower-cased text: the same answer, three times faster than
# re.IGNORECASE's search (which most messages reach: "keep", "have", "get" are in them).
_GATE_LOW = (re.compile(_GATE.pattern) if _GATE.pattern == _GATE.pattern.lower()
             and all(c.isascii() or "\u4e00" <= c <= "\u9fff" for c in _GATE.pattern) else None)  # fmt: skip


def _gated(text: str) -> bool:
    """`_GATE.search(text)`, as a bool."""
    if _GATE_LOW is not None and text.isascii():
        return _GATE_LOW.search(text.lower()) is not None
    return _GATE.search(text) is not None


def _clauses(text: str) -> list[tuple[int, int]]:
    """Sentences of the message (line breaks and sentence ends), as spans."""
    out = []
    for m in re.finditer(r"[^\n.!?。！？]+[.!?。！？]*", text):
        if m.group().strip():
            out.append((m.start(), m.end()))
    return out


def _english(s: str, resolver: Resolver, cue: bool = False) -> list[Request]:
    out: list[Request] = []
    # (reached only by a piece that passed may_ask and _EN_ANY: few, so no literal tests more)
    bare = _EN_BARE.match(s)
    if bare and _speaker_asks(s, bare.start("strong")):
        return [Request("that", bare.start(), bare.end())]
    for m in _EN_PHRASAL.finditer(s):
        asked = bool(re.search(r"please|pls|you", m["lead"], re.I) or _POLITE_AFTER.match(s, m.end()))
        if (m["mem"] or cue or (asked and m["verb"].lower() in ("take", "cross", "strike", "scrub", "cut"))) and _speaker_asks(s, m.start("verb")):
            out.append(Request("that", m.start(), m.end()))
    for m in _EN_ALL.finditer(s):
        if _speaker_asks(s, m.start()):
            out.append(Request("all", m.start(), m.end()))
    for m in _EN_SAID.finditer(s):
        if _speaker_asks(s, m.start("lead") + len(m["lead"])):
            back = re.search(r"\b(?:that|it)\b|take|was", m.group(), re.I) and not re.search(r"\bthis\b|^\s*off", m.group(), re.I)
            out.append(Request("that" if back else "this", m.start(), m.end()))
    for m in _EN_NOT_KEEP.finditer(s):
        at = m.start("neg")
        if not _speaker_asks(s, at, negation_ok=True):
            continue
        if m["ref"]:
            out.append(Request(_ref_kind(m["ref"], s, m.end()), m.start(), m.end()))
        elif m["x"]:
            out += _named(m, resolver, m["x"], strong=True)
    for m in _EN_THAT.finditer(s):
        at = m.start("strong") if m["strong"] else m.start("weak")
        if not _speaker_asks(s, at, memory=bool(m["mem"])):
            continue
        polite = bool(m["mem"] or cue or re.search(r"please|pls|plz|kindly|you|need|want|like", m["lead"], re.I)
                      or _POLITE_AFTER.match(s, m.end())
                      or re.match(r"what|everything|anything|all|the|my|that\s+\w", m["ref"], re.I))  # fmt: skip
        if m["weak"] and not polite:
            continue  # "forget it, I'm tired": an idiom
        if m["strong"] and m["strong"].lower() in ("drop", "clear", "ignore", "toss", "bin") and not polite:
            continue  # "drop it", "ignore that": a conversation move, unless memory is named
        out.append(Request(_ref_kind(m["ref"], s, m.end()), m.start(), m.end()))
    for m in _EN_NAMED.finditer(s):
        at = m.start("strong") if m["strong"] else m.start("weak")
        if any(r.start <= at < r.end for r in out) or not _speaker_asks(s, at, memory=bool(m["mem"])):
            continue
        x = m["x"].strip()
        if _IDIOM_OBJ.match(x) or re.match(r"(?:that|this|it|what|everything|anything)\b", x, re.I):
            continue
        said_about = bool(re.match(r"what|everything|anything|all|the|that", m["about"] or "", re.I))
        memory = bool(m["mem"]) or said_about or cue
        polite = bool(re.search(r"please|pls|you|need|want|like", m["lead"], re.I))
        mine = (m["det"] or "").lower() in ("my", "our")
        if m["weak"] and not (memory or polite or (mine and not m["about"])):
            continue  # "forget about the commute", "forget the whole thing": no memory named
        if m["strong"] and not (mine or memory):
            continue  # "please delete TikTok", "remove the cast": an act, not a memory ("please"
            # is polite, and says nothing about memory)
        out += _named(m, resolver, x, strong=True, about=said_about)
    return out


# How every English request starts, at a word's start: a verb of _STRONG or _WEAK and a space
# (_EN_BARE's verbs: a space, "." or "!" or the end), a refusal, the word for keeping and what
# is not to be kept, a phrasal verb with its object and direction, the words of _EN_SAID and
# _EN_ALL's own verbs and a space. A match of any of the seven expressions holds a match of this
# one (each is led by one of these, after the start of the text or a character that is no
# letter), so a text without one holds no request: one search rules out the many messages that
# only say "get", "have", "clearly" or "don't know" in passing.
_EN_ANY = re.compile(
    rf"\b(?:{_STRONG}\s|(?:delete|erase|remove|wipe|scrap|scratch|strike|purge|bin|nix|redact|unlearn|expunge|trash)(?:[\s.!]|$)"
    rf"|{_WEAK}\s|forget\s|(?:lose|reset|empty)\s"
    rf"|{_NOT_KEEP}\s+(?:(?:please|even|really|ever|actually)\s+)?{_KEEP}(?:\s+(?:down|up))?\s+(?:{_OBJ}|my|our)"
    r"|(?:take|cross|strike|wipe|scrub|rub|throw|get|leave|cut|pull|knock|rip)\s+(?:that|this|it|those|them|all\s+that)\s+(?:out|off|away)"
    r"|pretend\s|unsay|un-say|take\s+(?:that|it)\s+back|off\s+the\s+record|not\s+for\s"
    r"|to\s+(?:remember|keep|store|save|note)|keep\s+(?:that|this|it)\s+out)",
    re.I,
)
_EN_EXPRESSIONS = (_EN_BARE, _EN_PHRASAL, _EN_ALL, _EN_SAID, _EN_NOT_KEEP, _EN_THAT, _EN_NAMED)  # all _english runs


def _ref_kind(ref: str, s: str, end: int) -> str:
    """`this` points forward when something follows it in the message; otherwise back."""
    if re.match(r"(?:this|these)\b", ref, re.I) and s[end:].strip(" \t.,;:!?—–-\n"):
        return "this"
    return "that"


def _named(m: re.Match[str], resolver: Resolver, x: str, *, strong: bool, about: bool = False) -> list[Request]:
    x = re.sub(r"\s+(?:please|too|again|now|then)$", "", x.strip(), flags=re.I)
    owner = None
    whose = re.match(r"^(?P<owner>[a-z]+)['’]s\s+(?P<slot>.+)$", x, re.I)
    if whose and re.fullmatch(r"(?:full\s+)?(?:name|names|details|info|information|contact|contact\s+details)", whose["slot"], re.I):
        x = whose["owner"]  # "my doctor's name": the doctor slot
    elif whose:
        owner, x = whose["owner"], whose["slot"]  # "my mum's phone number": mum's phone
    attr = resolver.named(x) if not re.fullmatch(r"(?:it|that|this|them)", x, re.I) else None
    words = m["x"].strip() if m.groupdict().get("x") else x
    if attr:
        return [Request("named", m.start(), m.end(), attribute=attr, words=words, owner=owner)]
    return [Request("about", m.start(), m.end(), words=words)] if about or strong else []


def _speaker_asks(s: str, at: int, *, negation_ok: bool = False, memory: bool = False) -> bool:
    """Whether the words before `at` leave it the speaker's own request. "You should" and
    "you can" ask only when the assistant's memory is named ("you should delete my birthday
    from your notes"); between two people "you should delete my number" is said to the other."""
    head = s[:at]
    clause = re.split(r"[,;:—–]\s*|\s-\s", head)[-1]
    told = memory and re.search(r"\byou\s+(?:can|should|may|must)(?:\s+(?:please|just))?\s*$", clause, re.I)
    if _ASKED.search(clause) and not (told or re.search(r"\b(?:can|could|would|will)\s+you\b|\bplease\b", clause, re.I)):
        return False
    if not negation_ok and _NEGATED.search(head):
        return False
    if re.search(r"\b(?:did|have|has)\s+(?:you|u)\s*$", clause, re.I):
        return False
    if _SUBJECT.search(clause) and not _POLITE.search(clause):
        return False
    return not s.rstrip().endswith("?") or bool(re.search(r"\b(?:can|could|would|will)\s+you\b|please", s, re.I))


