"""What a person owns or runs: "my new mansion", "my gym membership card", "I got a pendant",
"my own studio", "my clothing store", and what they had once ("the film camera I had as a kid").

The nouns, and the slot each fills (possessions, a business of one's own), are the pack's
(`grammar: things`). A thing is kept with the words that say which one ("gym membership card",
"clothing store"), not with the praise around it ("beautiful", "amazing").
"""

from __future__ import annotations

import re

from mdmem.extract.candidates import Found, words
from mdmem.extract.grammar.lexicon import Words

# "my" and the words after it; a lookahead, so that "my family in my new Prius" is read twice
_MY = re.compile(r"(?<![\w'’-])[Mm]y\s+(?=(?P<np>(?:[a-z][a-z-]*\s+){0,3}(?:[a-z][a-z-]*|[A-Z][a-z]+))(?![\w'’-]))")
_GOT = re.compile(
    r"(?<![\w'’-])I(?:['’]ve|\s+have)?\s+(?:just\s+|finally\s+|recently\s+|also\s+)?(?:got|bought|have|own|made|built|"
    r"picked\s+up|treated\s+myself\s+to)\s+(?:myself\s+)?(?:a|an)\s+(?P<np>(?:[a-z][a-z-]*\s+){0,3}[a-z][a-z-]*)(?![\w'’-])"
)
_HAD = re.compile(
    r"(?:(?<![\w'’-])I\s+had\s+(?:a|an)\s+(?P<np>(?:[a-z][a-z-]*\s+){0,3}[a-z][a-z-]*)(?=\s+(?:like\s+this\s+)?(?:as\s+a\s+(?:kid|child)|when\s+I\s+was))"
    r"|(?<![\w'’-])the\s+(?P<np2>(?:[a-z][a-z-]*\s+){0,3}[a-z][a-z-]*)\s+I\s+had\s+(?:as\s+a\s+(?:kid|child)|when\s+I\s+was|growing\s+up))"
)
# What was done with a thing that is no longer had: "I donated my old car", "sold my bike".
_GAVE_AWAY = re.compile(r"\b(?:donated|sold|gave\s+away|gave\s+up|got\s+rid\s+of|lost|crashed|totall?ed|wrecked|returned|traded\s+in)\s+$", re.I)
# Words before the noun that say how it is liked, not which one it is.
_PRAISE = words(
    "new own old little big beautiful amazing awesome cool lovely gorgeous nice great favorite favourite "
    "first dream very super special precious sweet stunning brand-new"
)
# Words that may follow the noun in the phrase matched, so the noun is whole.
_AFTER_NOUN = words("in at on with for and or to from that which is was are were has had it so but because as of by near about")
# Words before the noun that make it not the speaker's own thing: "my local store".
# Words before a business's noun that say it is one the speaker goes to, not one they run.
_LIKED = words("favorite favourite fave go-to usual")
_NOT_MINE = words("local usual nearest neighborhood neighbourhood regular go-to ideal future next dream")


def find_things(sentence: str, things: Words) -> list[Found]:
    """Possessions and businesses the speaker says they have, and ones they had as a child."""
    out: list[Found] = []
    for m in _MY.finditer(sentence):
        gone = _GAVE_AWAY.search(sentence, max(0, m.start() - 30), m.start())
        out += _thing(sentence, m, "np", things, "invalidate" if gone else "assert")  # "I sold my old car": had
    for m in _GOT.finditer(sentence):
        out += _thing(sentence, m, "np", things, "assert")
    for m in _HAD.finditer(sentence):
        out += _thing(sentence, m, "np" if m["np"] else "np2", things, "invalidate")
    return out


def _thing(sentence: str, m: re.Match[str], group: str, things: Words, kind: str) -> list[Found]:
    toks = m[group].split()
    for j in range(len(toks), 0, -1):  # the noun ends the phrase, after its words
        for i in range(max(0, j - things.longest), j):
            noun = things.find(" ".join(toks[i:j]))
            if noun is None or (j < len(toks) and toks[j] not in _AFTER_NOUN):
                continue  # "phone case": the noun goes on
            mods = toks[:i]
            if set(mods) & (_NOT_MINE | _AFTER_NOUN) or (mods and mods[0] in ("a", "an", "the", "this", "that")):
                return []  # "my local store", "my knowledge about cars": not a thing of mine
            if things.slot[noun] == "business" and set(mods) & _LIKED:
                return []  # "my favorite studio": a place liked, not one run
            kept = [w for w in mods if w not in _PRAISE]
            value = " ".join([*kept, *toks[i:j]])
            start = m.start(group) + len(" ".join(toks[:i])) + (1 if i else 0)
            form = "ended" if kind == "invalidate" else ""
            return [Found(things.slot[noun], value, kind, m.start(), start, m.start(group) + len(" ".join(toks[:j])), form=form)]
    return []

