"""How something was or felt, and what someone's favourite is, as said.

"How did she feel about the fair?" is answered by 'so calm and cheerful' in 'The fair was so
calm and cheerful': the word or two after 'was', 'felt', 'seemed'…, past the words that only
make them stronger, when they look like words that say how something was (by their ending,
'peaceful', 'magical', 'thrilled', or as they are, 'great', 'cool'). "What is her favourite
dance?" is answered by what 'my favourite … is' names, or what 'is my favourite' follows
('contemporary is my top pick'). read/spans.py asks here for a question that
lang/questions.py reads as asking that.
"""

from __future__ import annotations

import re

from mdmem.lang.tokens import STOP, fold, stem
from mdmem.lang.verbs import base
from mdmem.read.question import Question

_STATE = re.compile(
    r"\b(?:is|was|are|were|been|'s|’s|felt|feel|feels|feeling|seemed|seems|looked|looks|sounded|sounds)\s+"
    r"(?:(?:so|really|very|super|pretty|truly|just|totally|absolutely|quite|incredibly|extremely|kinda|such an?)\s+)*"
    r"([a-z][\w'-]*)(?:,?\s+(?:and|&)\s+([a-z][\w'-]*))?(?=\s*(\w*))", re.I,
)  # fmt: skip
_QUALITY = re.compile(r"(?:ful|ous|ive|ble|al|ic|ed|ing|ent|ant|less|ish|ary|ar|ile|some)$")
_QUALITIES = frozenset(
    ["great", "good", "cool", "fun", "nice", "awesome", "happy", "glad", "proud", "free", "calm", "wild", "crazy",
     "scary", "busy", "easy", "hard", "tough", "fine", "sweet", "lovely", "lucky", "ready", "cozy", "chill",
     "unreal", "surreal", "grateful", "thankful", "special", "perfect", "sad", "angry", "bad", "rough", "epic"]
)  # fmt: skip


def _quality(q: Question, word: str, after: str) -> bool:
    """Whether a word says how something was: by its ending or as it is, neither a little
    word nor a word of the question, nor a verb going on ('was working on'), nor a passive
    ('was hit by')."""
    w = fold(word).replace("’", "'")
    if w in STOP or stem(base(w)) in q.stems or fold(after) == "by":
        return False
    if not (w in _QUALITIES or _QUALITY.search(w)):
        return False
    return not (w.endswith("ing") and after and fold(after) not in ("and", "but", "to"))


def state(q: Question, sentence: str) -> str | None:
    """The word or two that say what something was or how it felt ('peaceful and awesome')."""
    for m in _STATE.finditer(sentence):
        if _quality(q, m.group(1), "" if m.group(2) else m.group(3)):
            both = m.group(2) and _quality(q, m.group(2), m.group(3))
            return f"{m.group(1)} and {m.group(2)}" if both else m.group(1)
    return None


_FAV = r"(?:all-time\s+|absolute\s+|very\s+)?(?:fav(?:ou?rite)?s?|top pick)"
# 'my favourite dance is contemporary', 'my fav: lasagna'; 'contemporary is my top pick',
# 'Lasagna is one of my favourites'.
_FAV_FIRST = re.compile(rf"\b(?:my|our)\s+{_FAV}\b(?:\s+[\w'-]+){{0,3}}?\s*(?:\bis\b|\bare\b|\bwas\b|\bhas to be\b|:|-)\s*(?P<y>[^,.!?;:]+)", re.I)
_FAV_LAST = re.compile(rf"(?P<y>[^,.!?;]+?)\s+(?:is|are|was|'s|’s)\s+(?:(?:definitely|probably|still|always)\s+)?(?:one of\s+)?my\s+{_FAV}\b", re.I)
_OPENING = re.compile(r"^(?:(?:and|but|so|oh|well|i think|honestly|probably)\s+)+|^(?:the|a|an)\s+", re.I)
_CLOSING = re.compile(r"\s+(?:and|but|because|which|that|since|so|though)\b.*$", re.I)


def favorite(sentence: str) -> str | None:
    """What 'my favourite … is' names, or what comes before 'is my favourite', in a sentence."""
    for rx in (_FAV_FIRST, _FAV_LAST):
        m = rx.search(sentence)
        if m:
            said = _CLOSING.sub("", _OPENING.sub("", m.group("y").strip())).strip(" \"'“”‘’")
            if said and len(said.split()) <= 6 and fold(said) not in STOP:
                return said
    return None
