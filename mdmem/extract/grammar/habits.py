"""Routines and ways of coping, said as chat says them: "long drives really help me relax",
"taking a walk around is a great way to destress", "I like to come to this spot by the water",
"I've been spending lots of time at this park lately", "I'm cutting down on soda",
"我每天晚上都会散步".

They go to the pack's `habits` slot as the words said (a doing, cut at the clause's end): what
a person does to relax or keeps doing is worth remembering even when no pack word names it.
"""

from __future__ import annotations

import re

from mdmem.extract.candidates import Found, words
from mdmem.extract.kinds import gerund

HABITS = "habits"
_CALM = (
    r"(?:relax|unwind|de-?stress|chill(?:\s+out)?|calm\s+down|clear\s+my\s+head|recharge|decompress|escape|cope|"
    r"find\s+(?:peace|balance)|(?:relieve|reduce|manage)\s+(?:my\s+)?stress|feel\s+(?:better|free|at\s+peace|peaceful|calm|grounded)|"
    r"stay\s+(?:calm|sane|grounded|positive|centered|centred|connected))"
)
_PHRASE = r"(?P<value>[A-Za-z][\w'’-]*(?:\s+(?:\[[^\]]{1,20}\]|[\w'’-]+)){0,6}?)"
_HELPS = re.compile(
    rf"(?:^|(?<=[.,;!?]\s))(?:(?:and|but|so|honestly|yeah|also)\s+)?{_PHRASE}\s+(?:really\s+|always\s+|usually\s+|just\s+)?"
    rf"(?:(?:helps?|help\s+me\s+to|makes?\s+me)\s+(?:me\s+)?{_CALM}|gives?\s+me\s+(?:peace|comfort|calm))\b",
    re.I,
)
_WAY = re.compile(
    rf"(?:^|(?<=[.,;!?]\s))(?:(?:and|but|so|yeah|also)\s+)?{_PHRASE}\s+(?:is|are)\s+(?:also\s+|always\s+)?(?:a|an|my)\s+"
    rf"(?:great|good|nice|perfect|awesome|amazing|favou?rite|go-to|easy|fun)?\s*way\s+(?:for\s+me\s+)?to\s+{_CALM}\b",
    re.I,
)
_LIKE_TO = re.compile(
    r"(?<![\w'’])I\s+(?:really\s+|also\s+|just\s+)?(?:like|love|enjoy)\s+to\s+(?:just\s+|sometimes\s+|often\s+)?"
    r"(?P<verb>[a-z]+)(?P<rest>(?:\s+[\w'’-]+){1,12}?)(?=\s*(?:$|[.,;:!?—–-]|\s(?:and\s+(?:I|it)|but|because|when|while|so|which|it)\b))"
)
_SPEND = re.compile(
    r"(?<![\w'’])I(?:['’]ve|\s+have)?\s+(?:been\s+)?(?:spending|spend|spent)\s+(?P<value>(?:a\s+lot\s+of\s+|lots\s+of\s+|more\s+|most\s+of\s+my\s+|my\s+)?"
    r"(?:free\s+|spare\s+)?time\s+(?:at|in|with|on|by)\s+(?:[\w'’-]+\s+){0,4}?[\w'’-]+)(?=\s*(?:$|[.,;:!?—–-]|\s(?:lately|recently|these|now|every|and|but|because|when)\b))"
)
# What one eats and drinks, changed on purpose: "I'm trying to eat less processed food and
# sugary snacks", "I've been cutting down on soda", "I'm reducing my soda and candy intake".
_DIET = re.compile(
    r"(?:(?<![\w'’])I(?:['’]m|\s+am|['’]ve\s+been|\s+have\s+been)?\s+(?:(?:really|also|now|still|slowly)\s+)*"
    r"(?:(?:trying|working|starting|beginning)\s+to\s+)?|(?<=\band\s)(?=[a-z]+ing\b))"
    r"(?P<value>(?P<verb>eat|eating|drink|drinking)\s+(?:less|more|fewer)\s+|(?P<cut>cut|cutting)\s+(?:down|back)\s+on\s+|"
    r"(?P<reduce>reduce|reducing|limit|limiting)\s+(?:my\s+)?)"
    r"(?P<what>[a-z][\w'’-]*(?:\s+(?!(?:but|because|even|so|though|to|which|since)\b)[\w'’-]+){0,6}?)"
    r"(?=\s*(?:$|[.,;:!?—–-]|\s(?:and\s+(?:I|it|eat|eating|drink|drinking|cut|cutting|reduc\w*|limit\w*)|but|because|even|so|though|to|which|since)\b))"
)
_AND = re.compile(r"\s+(?:and|&)\s+")
# Verbs of talk and thought: "I like to think …" is no habit.
_NOT_HABIT = words("think say believe imagine hope know see hear point mention remind help share thank keep make be have get go do try feel")


def find_habits(sentence: str) -> list[Found]:
    """Routines and ways of relaxing the speaker states in one sentence (English)."""
    low = sentence.lower()
    out: list[Found] = []
    if "help" in low or "way" in low or "makes me" in low or "give" in low:
        for rx in (_HELPS, _WAY):
            for m in rx.finditer(sentence):
                value = _doing(m["value"])
                if value:
                    out.append(Found(HABITS, value, "assert", m.start("value"), m.start("value"), m.end()))
    if " to" in low and ("like" in low or "love" in low or "enjoy" in low):
        for m in _LIKE_TO.finditer(sentence):
            if m["verb"] in _NOT_HABIT or len(m["rest"].split()) < 2:
                continue  # "I like to cook" is a preference (kinds.py); this takes longer doings
            value = f"{gerund(m['verb'])}{m['rest']}".rstrip("-–—")
            out.append(Found(HABITS, value, "assert", m.start(), m.start("verb"), m.end()))
    if "eat" in low or "drink" in low or "cut" in low or "reduc" in low or "limit" in low:
        for m in _DIET.finditer(sentence):
            verb = m["verb"] or m["cut"] or m["reduce"]
            head = (verb if verb.endswith("ing") else gerund(verb)) + m["value"][len(verb) :]
            what = re.sub(r"\s+(?:intake|consumption)$", "", m["what"])
            pos = 0
            for item in _AND.split(what):  # "less processed food and sugary snacks": each
                at = m.start("what") + what.index(item, pos)
                pos = at - m.start("what") + len(item)
                out.append(Found(HABITS, head + item, "assert", m.start(), at, at + len(item)))
    if "time" in low:
        for m in _SPEND.finditer(sentence):
            out.append(Found(HABITS, f"spending {m['value']}", "assert", m.start(), m.start("value"), m.end()))
    return out


def _doing(value: str) -> str | None:
    """The subject of "… helps me relax" when it is a doing or a thing done, not a person."""
    value = re.sub(r"\[([^\]]*)\]", r"\1", value).strip()  # "[this car]": a transcript's gloss
    first = value.split()[0].lower() if value else ""
    if not value or first in ("it", "that", "this", "he", "she", "they", "you", "i", "we", "which", "what", "there"):
        return None
    return value[0].lower() + value[1:] if not value.split()[0].isupper() else value
