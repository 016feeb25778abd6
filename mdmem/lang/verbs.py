"""English verbs whose past is not made with -ed ('took', 'made', 'went'): their base form, and
the past of a base form (`past_of`).

The light stemmer (tokens.stem) folds 'moved' and 'moving' into 'mov', but not 'took' into
'take'; a span (read/spans.py) asks whether a word of a message is a word of the question, and
"What did Nate take to the beach?" is answered by 'I took my turtles to the beach'.
"""

from __future__ import annotations

import re

_PAST = """
ate:eat bought:buy brought:bring built:build began:begin became:become broke:break broken:break
caught:catch chose:choose chosen:choose came:come did:do done:do drew:draw drawn:draw drank:drink
drove:drive driven:drive fell:fall fallen:fall felt:feel fought:fight found:find flew:fly flown:fly
forgot:forget forgotten:forget gave:give given:give got:get gotten:get went:go gone:go grew:grow
grown:grow had:have heard:hear held:hold hung:hang kept:keep knew:know known:know led:lead left:leave
lent:lend lost:lose made:make meant:mean met:meet paid:pay ran:run rode:ride ridden:ride rang:ring
rose:rise said:say sang:sing sung:sing sat:sit saw:see seen:see sent:send sold:sell spent:spend
spoke:speak spoken:speak stood:stand stole:steal stuck:stick swam:swim swum:swim taught:teach
took:take taken:take told:tell thought:think threw:throw thrown:throw understood:understand
woke:wake won:win wore:wear worn:wear wrote:write written:write
"""
PAST: dict[str, str] = dict(pair.split(":") for pair in _PAST.split())


def base(word: str) -> str:
    """The base form of an irregular English past ('took' → 'take'); any other word as given."""
    return PAST.get(word, word)


# Pasts `past_of` makes that `base` leaves as they are: the same word, and 'shot' (as often a
# noun, "a shot of the glacier", which a span must not read as 'shoot').
_MORE_PASTS = {"put": "put", "read": "read", "set": "set", "shoot": "shot"}
# base → its simple past: the first past the table gives for it ('broke', not 'broken')
_PAST_OF = {**{b: p for p, b in reversed(PAST.items())}, **_MORE_PASTS}


def past_of(word: str) -> str:
    """'raise' → 'raised', 'give' → 'gave', 'try' → 'tried', 'plan' → 'planned' (lower case)."""
    w = word.lower()
    if w in _PAST_OF:
        return _PAST_OF[w]
    if w.endswith("e"):
        return w + "d"
    if w.endswith("y") and len(w) > 2 and w[-2] not in "aeiou":
        return w[:-1] + "ied"
    if re.fullmatch(r"[^aeiou]*[aeiou][bdgmnpt]", w):
        return w + w[-1] + "ed"
    return w + "ed"
