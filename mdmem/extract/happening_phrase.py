"""The words of an event or a plan: where its verb phrase ends, how long a phrase is kept, and
how it is tidied into a short name ("a trip to Rio de Janeiro- we checked out …" → "trip to Rio
de Janeiro"), and which first words make a plan an attitude ("keep pushing") rather than a
doing ("keep learning Portuguese"). Shared by the English grammar of extract/happenings.py and
its plan forms."""

from __future__ import annotations

import re

from mdmem.extract.candidates import words
from mdmem.extract.timex import Time

# The roles "as a" may name in what one does ("volunteering as a mentor", "joined as a coach"):
# part of the doing; any other "as a" ("as a kid", "as a family", "as a gift") ends it.
_ROLES = (
    "volunteer|mentor|tutor|coach|assistant|intern|guide|teacher|nurse|counsel+or|leader|member|speaker|judge|host"
    "|organi[sz]er|referee|captain|chef|cook|driver|helper|sponsor|ambassador|advocate|instructor|trainer|mediator"
    "|moderator|translator|interpreter|caregiver|carer|babysitter|lifeguard|photographer|panelist|panellist|juror"
)
# What a verb phrase ends at: a mark, a joining word, "with" (who was there), a time.
STOP = re.compile(
    r"\s*[,;:.!?()]|\s+-\s|(?<!\bto)(?<!\bat)(?<!\bin)(?<!\bfor)(?<!\bfrom)(?<!\bwith)\s+that\b"  # "went to that meetup": a determiner
    r"|\s+(?:and|but|so|because|cause|cuz|since|when|while|which|who|where|if|though"
    rf"|although|until|before|after|or|then|with|lol|haha|lmao|omg|too|again|yet|anyway|together|as\s+well|as\s+an?(?!\s+(?:[a-z-]+\s+)?(?:{_ROLES})\b)"
    r"|in\s+hopes?\s+of|in\s+order\s+to|this\s+time|just\s+for\s+fun|afterwards?|to\s+see\s+if)\b",
    re.I,
)
PRONOUN = words("it that this these those them there here one some something anything nothing everything him her me you us")

# Objects too slight to make an event of a life.
SLIGHT = words("""home bed work sleep lunch dinner breakfast brunch a_nap nap a_shower shower a_look a_break a_chance a_minute
    a_second time fun a_lot well great good the_store shopping a_walk coffee a_coffee some_rest rest a_bit
    the_bathroom the_toilet back a_while outside out inside online crazy busy sick tired gym the_gym
    a_blast blast a_great_time a_good_time an_amazing_time a_lot_of_fun an_experience an_idea a_feeling
    the_idea a_dream a_thought lots_of_fun a_great_day a_good_day a_bad_day a_rough_day a_long_day
    go_to_bed go_to_sleep go_home go_to_work go_to_the_gym go_shopping go_out sleep_in""")

FUNCTION = words("of for the a an to at in on with my our and or from by about as into so few some during")

# Gerund → the verb ("moving" → "move"), for the name of a plan.
_E_VERBS = words("""move take make have come drive ride hike bake dance leave write live give use close change retire
    relocate graduate celebrate race skate dive serve shave share smile care hope prepare organise organize
    explore exercise practise practice volunteer become behave continue date""")


def gerund_base(word: str) -> str:
    """'moving' → 'move', 'flying' → 'fly', 'running' → 'run', 'visiting' → 'visit'."""
    w = word.lower()
    if not w.endswith("ing") or len(w) < 5:
        return word
    stem = w[:-3]
    if stem.endswith("y") or stem + "e" in _E_VERBS:
        return stem + ("e" if stem + "e" in _E_VERBS else "")
    if len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] not in "lsz":
        return stem[:-1]
    return stem


def phrase(sentence: str, start: int, end: int, times: list[Time], *, past_with: bool = False) -> tuple[str, int]:
    """The verb phrase's words from `start`: up to a mark, a joining word, `with` or a time."""
    stop = STOP.search(sentence, start, end)
    while stop is not None and past_with and stop.group().strip().lower() == "with":
        stop = STOP.search(sentence, stop.end(), end)
    cut = stop.start() if stop else end
    inside = [t.start for t in times if start <= t.start < cut]
    if inside:
        cut = inside[0]
    words = sentence[start:cut].split()
    return " ".join(words[:10]), start + (len(sentence[start:cut]) - len(sentence[start:cut].lstrip()))


# Where a long phrase may end: before a preposition or a clause of its own ("gave a few talks at
# the homeless shelter | I volunteer at", "took a road trip for research | for my next movie").
PHRASE_ENDS = words("to for at in on from during like about because so but that which who where when while I we he she they")


def short(words: list[str], most: int = 8) -> str:
    """What happened or is planned, in at most `most` words where it can be: a longer phrase ends
    before the last word (at most `most` in, at least three) that opens a phrase or a clause of
    its own, when no name is in what it drops; with none, it is kept as said (at most ten words,
    `phrase`)."""
    cuts = [i for i in range(3, min(most, len(words) - 1) + 1) if _opens(words[i]) and not _names(words[i:])]
    kept = words[: cuts[-1]] if len(words) > most and cuts else words
    return " ".join(kept)


def _opens(word: str) -> bool:
    return word in PHRASE_ENDS or word.lower() in PHRASE_ENDS


def _names(tail: list[str]) -> bool:
    """Whether words a cut would drop name something ("a road trip to Jasper"): never cut off."""
    return any(w[:1].isupper() and w != "I" for w in tail)



def meaningful(what: str) -> bool:
    words = what.lower().split()
    if not words or all(x in PRONOUN for x in words):
        return False
    if words[0] in PRONOUN and len(words) == 1:
        return False
    joined = "_".join(words)
    core = "_".join(x for x in words if x not in ("to", "a", "an", "the", "my", "our", "some"))
    return joined not in SLIGHT and core not in SLIGHT and core != ""


# Chat shorthand for a happening, written out in its name ("a dance comp" → "a dance competition").
_SHORTHAND = {"comp": "competition", "comps": "competitions", "mtg": "meeting", "mtgs": "meetings", "bday": "birthday",
              "b-day": "birthday", "vacay": "vacation", "convo": "conversation", "appt": "appointment", "grad": "graduation"}  # fmt: skip
_THAT = re.compile(r"(?:^|\b(?P<p>to|at|in|on|for|from|with)\s+)(?:that|this)\s+(?=\w)", re.I)


def that_one(what: str) -> str:
    """"went to that community meeting" → "went to community meeting": the one said before;
    "went to this charity thing" → "went to charity thing": the one a story brings in."""
    return _THAT.sub(lambda m: f"{m['p']} " if m["p"] else "", what)


def tidy(what: str) -> str:
    """The phrase without a leading article, or a trailing filler or function word, its shorthand
    written out."""
    words = [_SHORTHAND.get(w.lower(), w) for w in what.split()[:10]]
    for i, w in enumerate(words):  # "a trip to Rio de Janeiro- we checked out …": a dash ends it
        if len(w) > 1 and w[-1] in "-–—":
            words = [*words[:i], w.rstrip("-–—")]
            break
    while words and (words[-1].lower().strip(".,!?") in ("too", "again", "already", "finally", "recently", "lately", "today", "yesterday", "now", "lol", "haha") or words[-1].lower() in FUNCTION):
        words.pop()
    while words and (words[0].lower() in ("a", "an", "the", "to", "on", "upcoming")
                     or (words[0].lower() in ("my", "our") and words[1:2] and words[1].lower() == "upcoming")):
        words.pop(0)  # "my upcoming trip to Boston": the trip
    return " ".join(words).strip(" .,!?")


# Words a plan may begin with that make it an attitude, not a plan: "keep pushing", "be awesome".
VAGUE_PLAN = words("""be keep stay continue believe push chase pursue grind need see hear feel love hope wait
    enjoy rock nail crush slay figure focus spread stick hang chill relax rest kill smash own try find""")


def doing(toks: list[str]) -> bool:
    """A vague head with a doing of its own after it: "keep learning more about auto engineering",
    "try out different flavors", "try painting" (not "keep pushing", "try my best", "try to relax")."""
    kept = len(toks) > 1 and toks[1].endswith("ing") and gerund_base(toks[1]) not in VAGUE_PLAN | {"go", "do", "get", "make"}
    if toks[0] == "try" and kept and len(toks) <= 3:
        return True  # "try painting", "try rock climbing": a doing to take up
    if len(toks) < 3:
        return False
    if toks[0] in ("keep", "continue"):
        return kept
    return toks[0] == "try" and toks[1] in ("out", "new", "different", "a", "an", "the", "some")


# What an event was for, after its object: "worked on a project to support them", "tweaking a
# recipe to make it yummier" (a verb then its own object; "a trip to Rome", "a letter to my mom"
# are not cut).
_PURPOSE = re.compile(r"(?<!\bhow)(?<!\bwhat)(?<!\bwhere)(?<!\bwhen)\s+to\s+[a-z]+\s+(?:it|them|him|her|me|us|you|how|what|more|the|a|an|some|new|my|our)\b.*$")  # not "how to play the piano"


def purposeless(what: str) -> str:
    """The event's words without what it was done for, when the object comes before it."""
    cut = _PURPOSE.sub("", what)
    return cut if len(cut.split()) >= 2 else what

