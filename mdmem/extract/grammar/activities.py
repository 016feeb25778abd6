"""What a person does, can do and no longer does: hobbies and habits, skills, ended hobbies.

"Most evenings I squeeze in some swimming, sketching or a bit of cello" lists three hobbies;
"I've done a lot of Go and some Rust" two skills; "I used to sing in a choir but stopped last
year" a hobby that ended. The grammar here holds the verbs and the shape of a list in English
and Chinese; which words are activities or skills, and the slot they fill, is the pack's
(`grammar: activities / skills`, rules.md#grammar). A word the pack does not know is left
alone, except an -ing word after a verb that says "a hobby of mine" ("I've taken up bouldering").
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from itertools import islice

from mdmem.extract.candidates import Found, words
from mdmem.extract.grammar.clauses import Clause, speaker_clauses, zh_clauses
from mdmem.extract.grammar.lexicon import Lexicon, Words
from mdmem.extract.kinds import gerund

_ADV = r"(?:(?:also|still|really|just|usually|often|always|sometimes|regularly|mostly|recently|finally|even|now|currently|actually|totally|occasionally|normally|generally|typically|then|again|more|kinda|like)\s+)*"  # fmt: skip
# Verbs after which a list of activities is what the speaker does (present or habitual).
_DOING = re.compile(
    rf"^(?:['’](?:m|ve|d|re)|\s+(?:am|are|have|has|had|do|did|will|would|can))?\s+{_ADV}(?:off\s+to\s+)?"
    r"(?P<v>(?:been\s+)?(?:busy|doing|do|does|did|done|practi[cs](?:e|es|ed|ing)|squeez(?:e|es|ed|ing)\s+in|fit(?:s|ting)?\s+in|"
    r"get(?:s|ting)?\s+in|play(?:s|ed|ing)?|go(?:es|ing)?|went|gone|into|start(?:ed|ing)?|(?:took|taken|take|taking)\s+up|"
    r"pick(?:ed|ing)?\s+(?:back\s+)?up|(?:got|gotten|getting)\s+(?:back\s+)?into|train(?:s|ed|ing)?\s+in|learn(?:s|ed|t|ing)?|"
    r"took|taking|take)(?:\s+(?:doing|to\s+do|playing|to\s+play|practi[cs]ing|to\s+practi[cs]e|learning|to\s+learn))?)"
    r"\s+(?P<rest>.*)$",
    re.I | re.S,
)
_BASE = re.compile(rf"^(?:['’](?:re|ve)|\s+(?:do|will|would))?\s+{_ADV}(?=[a-z])", re.I)
_STRONG = re.compile(r"practi|up$|into$|start|learn|train|busy", re.I)  # say outright it is a hobby
_PAST = re.compile(r"^(?:did|done|went|gone|played|took|practi[cs]ed)$", re.I)
_QUANT = re.compile(r"(?:(?:some|a\s+bit\s+of|a\s+little(?:\s+bit\s+of)?|a\s+lot\s+of|lots\s+of|plenty\s+of|loads\s+of|a\s+few|the|my|more|much|a|an)\s+)+", re.I)  # fmt: skip
_SEP = re.compile(r"(?:\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or|&)\s+|\s*/\s*)", re.I)
_TOKEN = re.compile(r"[\w'’+#-]+")
_ING = re.compile(r"^[a-z]{3,}ing$")
_NOT_ING = words(
    "something anything nothing everything thing king morning evening building clothing feeling being "
    "ring wedding bring spring swing string during ceiling outing darling sibling"
)
# An -ing word the pack does not know is a hobby only when it names a doing by itself: a verb
# that needs its object ("learning", "taking", "shooting a video") is not one, nor is any unknown
# -ing word whose object follows it ("Started hitting the gym": the gym is what is hit).
_LIGHT_ING = words(
    "learning taking making doing getting having trying working looking going using giving putting keeping "
    "thinking planning helping seeing finding hitting shooting setting letting showing telling asking "
    "sending bringing buying paying selling"
)
_OBJECT_NEXT = re.compile(r"\s+(?:the|a|an|my|our|his|her|their|this|that|these|those|some|it|them)\b", re.I)
_USED_TO = re.compile(r"^\s+used\s+to\s+(?P<v>[a-z]+)(?P<rest>(?:\s+[a-z][\w'’-]*){0,4})", re.I)
_STOPPED = re.compile(
    rf"^(?:['’]ve|\s+have)?\s+{_ADV}(?:stopped|quit|gave\s+up|given\s+up)\s+(?P<rest>.*)$", re.I | re.S
)
_AT = re.compile(r"\s+(?P<p>(?:at|for)\s+(?:the\s+|a\s+|an\s+|my\s+|our\s+|a\s+local\s+)?(?:(?!(?:and|or|but|to)\b)[a-z][\w-]*\s+){0,2}(?P<head>(?!(?:and|or|but|to)\b)[a-z][\w-]*))(?![\w'’-])", re.I)  # fmt: skip
_WHEN_HEADS = words("night nights weekend weekends work home times time least moment first noon dawn lunch once while bit years months weeks days hours minutes fun")
_STOP_WHEN = re.compile(r",?\s+(?:but|and)\s+(?:I\s+)?(?:stopped|quit|gave\s+(?:it\s+)?up)(?:\s+(?:it|that))?\s+(?P<when>[^,.;!?]{3,30})", re.I)  # fmt: skip
# "sing in a choir", "compete in a few dance competitions" (after "a few": up to a plural noun)
_PREP_TAIL = re.compile(
    r"\s+(?P<p>(?:in|at|with|on|for)\s+(?:(?:a|an|the|my)\s+(?!few\b|couple\b|lot\b|bit\b)[a-z][a-z-]*|"
    r"(?:a\s+few|a\s+couple\s+of|some|many|lots\s+of)\s+(?:[a-z][a-z-]*\s+)?[a-z][a-z-]*s\b|(?!a\b|an\b|the\b|my\b)[a-z][a-z-]*))", re.I)  # fmt: skip
# Skills: "I've done a lot of Go", "I speak Portuguese", "I code in Rust", "my marketing skills".
_SKILL = re.compile(
    rf"^(?:['’](?:m|ve|d)|\s+(?:am|have|can|could))?\s+{_ADV}(?:(?:done|written|used|use|know|knows|learned|learnt|"
    r"studied|study|speak|speaks|spoke|write|writes|code|coded|program|programmed|work|worked|working)"
    r"(?:\s+(?:in|with))?|(?:fluent|proficient|good|great|experienced)\s+(?:in|at|with))\s+(?P<rest>.*)$",
    re.I | re.S,
)
_MY_SKILLS = re.compile(r"(?<![\w'’])[Mm]y\s+(?P<x>[a-z]+(?:\s+[a-z]+)?)\s+skills\b")
_SKILL_STOP = words("people social life communication soft new own best basic")
# Chinese: 我每天晚上游泳 / 我平时会弹吉他 / 我最近开始学画画了 / 我以前唱合唱，去年不唱了 / 我会说葡萄牙语
_ZH_TAKEN = re.compile(r"开始|学|练|在|迷上|坚持")  # 开始学吉他, 迷上了攀岩 (喜欢 is a preference)
_ZH_NOT = re.compile(r"[你他她它]|没|不|想|要|打算|准备|如果|要是")
_ZH_BEFORE = re.compile(r"以前|之前|小时候|曾经|原来|那时候")
_ZH_ENDED = re.compile(r"(?:已经|早就|现在)?(?:不再|不)(?P<v>[\u4e00-\u9fff]{1,4}?)了")
_ZH_SKILL = re.compile(r"^(?:也|还)?(?:会说|会讲|会|懂|学过|精通|擅长)(?P<x>[\u4e00-\u9fffA-Za-z+#]{1,8}?)(?=$|[，,。！!和、]|了)")


def find_activities(sentence: str, lex: Lexicon) -> list[Found]:
    """Hobbies, skills and ended hobbies the speaker states of themself in one sentence."""
    if not (lex.activities.slot or lex.skills.slot):
        return []
    if re.search(r"[\u4e00-\u9fff]", sentence):
        return list(_zh(sentence, lex))
    out: list[Found] = []
    for c in speaker_clauses(sentence):
        out += _clause(sentence, c, lex)
    for m in _MY_SKILLS.finditer(sentence):
        x = m["x"].lower()
        slot = lex.skills.slot_of(x) or (next(iter(set(lex.skills.slot.values())), None) if not set(x.split()) & _SKILL_STOP else None)  # fmt: skip
        if slot:
            out.append(Found(slot, x, "assert", m.start(), m.start("x"), m.end()))
    return out


def _clause(sentence: str, c: Clause, lex: Lexicon) -> list[Found]:
    text = sentence[c.verb : c.end]
    if c.subject == "":  # a dropped subject: the predicate is all there is
        text = " " + text
    if m := _USED_TO.match(text):
        return _used_to(sentence, c, m, lex)
    if m := _STOPPED.match(text):
        at = c.verb + m.start("rest")
        return [Found(f.attribute, f.value, "invalidate", f.start, f.value_start, f.end, form="ended")
                for f in _items(sentence, at, c.end, lex.activities, strong=True)]  # fmt: skip
    if m := _SKILL.match(text):
        found = _items(sentence, c.verb + m.start("rest") - (c.subject == ""), c.end, lex.skills, strong=False)
        if found:
            return found
    if m := _DOING.match(text):
        verb = m["v"].split()[-1]
        if _PAST.match(verb) and not c.habitual:
            return []  # "I went hiking last weekend": an event, not a hobby
        strong = bool(_STRONG.search(m["v"]))
        at = c.verb + m.start("rest") - (c.subject == "")
        return _items(sentence, at, c.end, lex.activities, strong=strong, go=verb.lower().startswith(("go", "went")))  # fmt: skip
    if c.habitual and (m := _BASE.match(text)):  # "We usually watch movies, hike, and have game nights"
        return _doings(sentence, c.verb + m.end() - (c.subject == ""), c.end, lex.activities)
    return []


def _doings(sentence: str, pos: int, end: int, words: Words) -> list[Found]:
    """A habitual list of verbs with their objects, each an activity the pack knows: "watch
    movies" (watching movies), "hike" (hiking), "have game nights" (game nights)."""
    out: list[Found] = []
    while pos < end:
        verb = _TOKEN.match(sentence, pos, end)
        if verb is None:
            break
        v, after = verb.group().lower(), verb.end()
        hit = None
        if v in ("have", "play", "do", "host", "throw"):
            hit = _word_at(sentence, _skip(sentence, after, end), end, words)
        if hit is None and v.isalpha():  # "watch movies": read as "watching movies"
            ing = gerund(v)
            probe = ing + sentence[after : min(end, after + 40)]
            hit = _word_at(probe, 0, len(probe), words)
            if hit is not None:  # where the words end in the sentence itself
                hit = (hit[0], after + hit[1] - len(ing), hit[2])
        if hit is None or hit[2] is None:
            break
        out.append(Found(hit[2], hit[0], "assert", pos, pos, hit[1]))
        sep = _SEP.match(sentence, hit[1], end)
        if sep is None:
            break
        pos = sep.end()
    return out


def _skip(sentence: str, pos: int, end: int) -> int:
    q = _QUANT.match(sentence, pos, end)
    return q.end() if q else pos + len(sentence[pos:end]) - len(sentence[pos:end].lstrip())


def _used_to(sentence: str, c: Clause, m: re.Match[str], lex: Lexicon) -> list[Found]:
    """ "I used to sing in a choir": an activity that ended; "…, but stopped last year" dates it."""
    stop = _STOP_WHEN.match(sentence, c.end)
    return [dataclasses.replace(f, date=stop["when"] if stop else None) for f in _used(sentence, c, m, lex)]


def _used(sentence: str, c: Clause, m: re.Match[str], lex: Lexicon) -> list[Found]:
    verb = m["v"].lower()
    at = c.verb + m.start("v") - (c.subject == "")
    if verb in ("play", "do", "go", "practice", "practise"):
        found = _items(sentence, c.verb + m.end("v") + 1 - (c.subject == ""), c.end, lex.activities, strong=False, go=verb == "go")  # fmt: skip
        return [Found(f.attribute, f.value, "invalidate", at, f.value_start, f.end, form="ended") for f in found]
    ing = gerund(verb)
    slot = lex.activities.slot_of(ing)
    if slot is None:
        return []
    value, end = ing, at + len(m["v"])
    if t := _PREP_TAIL.match(sentence, end):  # "sing in a choir": what is sung, where
        value, end = f"{ing} {' '.join(t['p'].split())}", t.end()
    return [Found(slot, value, "invalidate", at, at, end, form="ended")]


def _items(sentence: str, pos: int, end: int, words: Words, *, strong: bool, go: bool = False) -> list[Found]:
    """The list of known words (an unknown -ing word too, when `strong`) at sentence[pos:end]."""
    out: list[Found] = []
    while pos < end:
        q = _QUANT.match(sentence, pos, end)
        pos = q.end() if q else pos
        hit = _word_at(sentence, pos, end, words)
        if hit is None and (strong or go):
            w = re.match(r"[a-z]+", sentence[pos:end])
            if (
                w and _ING.match(w.group()) and w.group() not in _NOT_ING and w.group() not in _LIGHT_ING
                and _ends_item(sentence, pos + w.end(), end) and not _OBJECT_NEXT.match(sentence, pos + w.end(), end)
            ):  # fmt: skip
                hit = (w.group(), pos + w.end(), next(iter(set(words.slot.values())), None))
        if hit is None or hit[2] is None:
            break
        value, stop, slot = hit
        if go and not value.endswith("ing"):
            break  # "I go to …": only "go swimming" names an activity
        if (t := _AT.match(sentence, stop, end)) and t["head"].lower() not in _WHEN_HEADS:
            value, stop = f"{value} {' '.join(t['p'].split())}", t.end()  # "volunteering at the shelter"
        out.append(Found(slot, value, "assert", pos, pos, stop))
        sep = _SEP.match(sentence, stop, end)
        if sep is None:
            break
        pos = sep.end()
    return out


def _word_at(sentence: str, pos: int, end: int, words: Words) -> tuple[str, int, str | None] | None:
    """The longest pack word that starts at `pos` and ends at a word boundary."""
    toks = list(islice(_TOKEN.finditer(sentence, pos, end), words.longest))
    if not toks or toks[0].start() != pos:
        return None
    for n in range(len(toks), 0, -1):
        stop = toks[n - 1].end()
        said = sentence[pos:stop]
        word = words.find(said)
        if word is not None and _ends_item(sentence, stop, end):
            return word, stop, words.slot[word]
    return None


def _ends_item(sentence: str, stop: int, end: int) -> bool:
    """Whether an item may end here: at the clause's end, punctuation, a list word or a
    preposition ("swimming in the lake"), not inside a longer noun ("swimming pool")."""
    rest = sentence[stop:end]
    return not rest or bool(re.match(r"\s*(?:$|[,.!?;:)]|(?:and|or|&|in|at|with|on|for|every|most|after|before|since|to|too|lately|now|a\s+lot|sometimes|again|these|this|last|each|twice|once|when|while|because|but|so|which|a|an|the|\d+|one|two|three|four|five|six|seven|eight|nine|ten|several|years?|months?|weeks?)\b)", rest, re.I))  # fmt: skip


def _zh(sentence: str, lex: Lexicon) -> Iterator[Found]:
    ended: dict[str, Found] = {}  # 我以前唱合唱，去年不唱了: one ending, dated by the second clause
    for c in zh_clauses(sentence):
        text = sentence[c.verb : c.end]
        if m := _ZH_SKILL.match(text):
            slot = lex.skills.slot_of(m["x"])
            if slot:
                a = c.verb + m.start("x")
                yield Found(slot, m["x"], "assert", c.start, a, c.verb + m.end("x"))
                continue
        if (m := _ZH_ENDED.search(text)) and not re.search(r"[你他她]", text[: m.start()]):
            word = _zh_word(m["v"], lex.activities)
            if word is not None:
                a = c.verb + m.start("v")
                when = text[: m.start()].strip() or None
                ended[word] = Found(lex.activities.slot[word], word, "invalidate", c.start, a, c.verb + m.end(), form="ended", date=when)  # fmt: skip
                continue
        for f in _zh_items(sentence, c, lex.activities):
            if _ZH_BEFORE.search(text):  # 我以前唱歌: it held once
                ended.setdefault(str(f.value), dataclasses.replace(f, kind="invalidate", form="ended"))
            else:
                yield f
    yield from ended.values()


def _zh_word(verb: str, words: Words) -> str | None:
    """The activity a verb said alone stands for: 唱 → 唱歌, 游 → 游泳."""
    if words.find(verb):
        return words.find(verb)
    return next((w for w in words.slot if w.startswith(verb) and len(w) <= len(verb) + 2), None)


def _zh_items(sentence: str, c: Clause, words: Words) -> Iterator[Found]:
    """Known activities in a Chinese first-person clause: 我每天晚上游泳、画画 / 我最近开始学吉他了."""
    text = sentence[c.verb : c.end]
    found: list[tuple[int, int, str]] = []
    i = 0
    while i < len(text):
        hit = next(((j, w) for j in range(min(len(text), i + 8), i, -1) if (w := words.find(text[i:j]))), None)
        if hit is None:
            i += 1
            continue
        if found and not re.fullmatch(r"[、和或跟]|还有|以及", text[found[-1][1] : i]):
            break
        found.append((i, hit[0], hit[1]))
        i = hit[0]
    if not found:
        return
    head = text[: found[0][0]]
    if not (c.habitual or _ZH_TAKEN.search(head) or _ZH_BEFORE.search(head)) or _ZH_NOT.search(head):
        return
    for i, j, word in found:
        yield Found(words.slot[word], word, "assert", c.start, c.verb + i, c.verb + j)
