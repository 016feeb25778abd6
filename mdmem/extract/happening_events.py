"""What happened, in the English grammar of events (extract/happenings.py): a past verb and what
it took ("I did a 10k fun run last Sunday"), a doing kept up till the day said ("I've been
networking with local artists"), and the parts every event and plan has: where, with whom, the
time words of its clause, and the candidate it becomes."""

from __future__ import annotations

import re

from mdmem.extract.candidates import Found, words
from mdmem.extract.clauses import Clause
from mdmem.extract.happening_phrase import (
    VAGUE_PLAN,
    gerund_base,
    meaningful,
    phrase,
    purposeless,
    short,
    that_one,
    tidy,
)
from mdmem.extract.timex import PAST, Time
from mdmem.lang.tokens import stem
from mdmem.lang.verbs import past_of
from mdmem.model.life import EVENT, FAMILY_SLOT, Happening, specific

ADV = r"(?:(?:just|finally|also|actually|recently|even|really|totally|already|both|all|once|then|eventually|officially|literally|somehow|still|seriously|definitely|probably|now|currently|soon)\s+){0,3}"
_LIGHT_VERBS = ("did", "went on", "took part in", "participated in", "competed in", "ran in")
# "got to volunteer", "had the chance to attend …": the doing is what happened.
_CHANCE = re.compile(r"(?:to|the\s+(?:chance|opportunity)\s+to|a\s+chance\s+to)\s+", re.I)
_BASE_VERBS = words("""take go get make see try visit run meet watch play buy finish start join win do have
    bring host throw give""")
_PLACES = words("here there")
_HOW = words("alright well great good fine okay ok amazing awesome badly better worse so really pretty")
_NEGATION = words("not never no nothing")
_YOURS = words("you your yours")  # what the other person said or did is not the speaker's doing
# A picture of it is not the happening; a state of mind is not an event.
_NOT_EVENT = re.compile(r"\b(?:pics?|photos?|pictures?|snaps?|selfies?|screenshots?|shot\s+of|your\s+back|the\s+idea)\b"
                        r"|^(?:thinking|feeling|wondering|realizing|realising|worrying|getting|having|figuring|struggling|dealing)\b"
                        r"|^taking\s+(?:the\s+|some\s+)?time\b", re.I)
# A present perfect said with none of "just", "finally", "recently" … is news of the day ("I've
# joined a book club!") unless it counts, spans or denies: "I've visited Rome twice", "I've played
# chess for years", "I've never tried sushi" tell a life, not a day.
EVER = re.compile(
    r"\b(?:ever|never|always|before|since(?!\s+(?:we|I)\s+last\b)|for\s+(?:years|ages|months|weeks|decades|a\s+(?:long\s+)?while|so\s+long|most\s+of|all)"
    r"|for\s+(?:\w+\s+)?(?:years|months|weeks|days)|twice|times|so\s+far|all\s+my\s+life|my\s+whole\s+life|in\s+my\s+(?:life|career)|over\s+the\s+years|many|lots|a\s+lot|plenty|several|countless|often|usually|not|n['’]t)\b",
    re.I,
)
ANAPHORA = words("it its them that this those these there here one ones something stuff")
_WITH = re.compile(
    r"\bwith\s+(?P<w>(?:my|our)\s+[\w'’-]+(?:\s+[A-Z][\w'’-]+)?|[A-Z][\w'’-]+(?:(?:,\s*|\s+and\s+)[A-Z][\w'’-]+){0,4}"
    r"|(?:some\s+|a\s+few\s+|a\s+couple\s+of\s+)?(?:friends|family|colleagues|coworkers|co-workers|the\s+kids"
    r"|the\s+family|the\s+team|the\s+girls|the\s+boys))"
)
_WHERE = re.compile(r"\b(?:in|at|to|from)\s+(?P<p>(?:the\s+)?(?-i:[A-Z][\w'’.-]*(?:\s+(?:of\s+|de\s+)?[A-Z][\w'’.-]*){0,3}))")
# "I've been networking with …"; chat drops the subject at a sentence's head: "Just been hanging out with friends".
ONGOING = re.compile(rf"(?:(?:\s*['’]ve|\s+have)\s+|(?<![\w'’])(?:just\s+)?)been\s+{ADV}(?P<ving>[a-z]+ing)(?![\w'’])", re.I)
# Doings too vague to be an event when kept up: "I've been doing well", "I've been going out".
_NOT_DOING = words("do go get make think feel talk chat say wonder want mean plan look deal mind miss")
_FOUND_STATES = words("comfort peace joy solace strength inspiration motivation myself out time it that courage happiness")
# What one "had to" do that names no doing: "had to dig deep", "had to admit it", "had to pick one".
_FELT = words("dig admit laugh smile cry pick choose agree ask tell share remind learn accept wait leave put let")
# A vague verb whose particle makes a doing of it: "focusing on teaching yoga", "trying out new recipes".
_PHRASAL = frozenset({"focusing on", "trying out"})  # not "looking into": a look is no doing yet
ADVERBIAL = words("hard a lot lots so much nonstop non-stop lately recently more less out around late too all day night long")


def ongoing(sentence: str, c: Clause, m: re.Match[str], lead: str, times: list[Time]) -> Found | None:
    """ "I've been networking with local artists": a doing kept up till the day said, its event."""
    ving = m["ving"].lower()
    obj, at = phrase(sentence, m.end(), c.end, times)
    shown, obj = obj, that_one(obj)  # "reading this inspiring book" (the one shown): an inspiring book
    if shown != obj and len([t for t in obj.split() if t.lower() not in _PREPOSITIONS]) < 2:
        return None  # "reading this book", "working on this car": which one is the picture's, not said
    toks = obj.lower().split()
    phrasal = len(toks) > 1 and f"{ving} {toks[0]}" in _PHRASAL and toks[1] not in _DONE_TO | {"myself", "ourselves"}
    if (gerund_base(ving) in VAGUE_PLAN | _NOT_DOING and not phrasal) or _NOT_EVENT.match(ving):
        return None  # "I've been feeling down", "I've been thinking about you" (not "focusing on teaching yoga")
    if len(obj.split()) <= 1 and sentence[at + len(obj) :].lstrip().lower().startswith("with "):
        obj, at = phrase(sentence, m.end(), c.end, times, past_with=True)  # "networking with …"
    if _head(obj) == ["some"] or _NOT_EVENT.match(f"{ving} {obj}"):
        return None  # "brainstorming some to help …", "taking the time to reflect"
    toks = obj.lower().split()
    if not toks or _NOT_EVENT.search(obj) or any(t in _HOW or t in _YOURS for t in toks) or any(t in ANAPHORA for t in _head(obj)) or not specific(obj):
        return None  # "I've been doing it", "I've been loving it", "I'm reading your message"
    if all(t in ADVERBIAL for t in toks):
        return None  # "I've been working hard", "… a lot lately": how, not what
    what = tidy(short(purposeless(f"{ving} {obj}").split()))
    if not meaningful(what):
        return None
    where, people = extras(sentence, c, what)
    return candidate(EVENT, c.start, m.start("ving"), at + len(obj), Happening(what, time_words(c, lead, times), where, people))


# "I was able to raise some funds", "we were finally able to get the permit": done, said as a feat.
ABLE = re.compile(r"\s*(?:was|were)\s+(?:finally\s+|also\s+|even\s+|just\s+)?able\s+to\s+(?P<verb>[a-z]+)(?![\w'’])", re.I)


# Chat drops "I'm" before a doing kept up: "Still working on opening a dance studio", "Currently
# writing a novel". An adverb must lead, so a doing that is a subject ("Working on cars helps me
# relax") stays one.
DROPPED_CUES = ("still", "currently", "busy")
_DROPPED_DOING = re.compile(r"\s*(?:still|currently|busy)\s+(?P<ving>[a-z]+ing)(?![\w'’])", re.I)


def dropped_doing(sentence: str, c: Clause, doings: tuple[str, ...], lead: str, times: list[Time]) -> Found | None:
    """A doing of the pack's (`doings`) kept up, its "I'm" dropped at the sentence's head."""
    m = _DROPPED_DOING.match(sentence, c.body, c.end)
    if m is None or c.body != c.start or not sentence[m.start("ving") : c.end].lower().startswith(doings):
        return None
    return ongoing(sentence, c, m, lead, times)


# "I've been to Paris yesterday", "been to Lisbon last spring": a visit, when its day is said.
# "Three years ago I was in Rio de Janeiro", "we were in Lisbon last week": a stay, the same way.
BEEN = re.compile(
    rf"(?:(?:\s*['’]ve|\s+have)?\s*{ADV}(?P<been>been)\s+(?:only\s+)?to|\s*(?:was|were)\s+{ADV}in)"
    rf"\s+(?P<p>(?-i:[A-Z][\w'’.-]*(?:\s+(?:de\s+)?[A-Z][\w'’.-]*){{0,2}}))",
    re.I,
)


def been(sentence: str, c: Clause, m: re.Match[str], lead: str, times: list[Time]) -> Found | None:
    """A visit said with "been to" and a day ("I've been to Paris yesterday"); with none ("I've
    been to Rome once") no day is said to put it on, so nothing."""
    when = time_words(c, lead, times)
    if not when:
        return None
    what = f"{'been to' if m['been'] else 'was in'} {m['p']}"
    where, people = extras(sentence, c, what)
    return candidate(EVENT, c.start, m.start("p"), m.end(), Happening(what, when, where, people))


def time_words(c: Clause, lead: str, times: list[Time]) -> str:
    inside = [t for t in times if c.start <= t.start < c.end]
    return inside[0].words if inside else lead


def extras(sentence: str, c: Clause, what: str) -> tuple[str, tuple[str, ...]]:
    """(where, with whom) said in the clause."""
    where = m["p"] if (m := _WHERE.search(what)) else ""
    rest = sentence[c.body : c.end]
    people = list(c.with_)
    if wm := _WITH.search(rest):
        people += [p.strip() for p in re.split(r",\s*|\s+and\s+", wm["w"]) if p.strip()]
    return where.removeprefix("the ").strip(), tuple(dict.fromkeys(people))


def event(sentence: str, c: Clause, m: re.Match[str], lead: str, times: list[Time], nouns: frozenset[str],
          them: str = "") -> Found | None:  # fmt: skip
    verb = " ".join(m["verb"].lower().split())
    obj, at = phrase(sentence, m.end(), c.end, times)
    obj = standing_for(that_one(obj), them)
    if verb in ("got", "had") and (chance := _CHANCE.match(obj)):
        base = obj[chance.end():].split(" ", 1)[0].lower()
        if verb == "had" and obj.lower().startswith("to ") and (base in VAGUE_PLAN | _NOT_DOING | _FELT or len(obj.split()) < 3):
            return None  # "had to dig deep", "had to be vulnerable": what was needed, not a doing named
        verb, obj, at = "", obj[chance.end():], at + chance.end()  # "got to volunteer at a career fair", "had to close my shop"
    if len(obj.split()) <= 1 and sentence[at + len(obj):].lstrip().lower().startswith("with "):
        obj, at = phrase(sentence, at, c.end, times, past_with=True)  # "met with some artists", "speak with …"
        obj = that_one(obj)
    first = obj.split(" ", 1)[0].lower()
    if verb == "did" and first in _BASE_VERBS:
        verb = ""  # "I did take Seraphim to the park": the emphatic do
    elif first in _NEGATION or (verb == "did" and first in _HOW):
        return None  # "I did not", "we did alright"
    elif verb == "had" and not any(stem(t) in nouns for t in obj.lower().split()):
        return None  # "had a nice chat", "had an awesome summer": no happening the pack names
    elif verb in ("decided to", "chose to") and (
            not any(t.tense == PAST and t.words == time_words(c, lead, times) for t in times)
            or any(t.tense != PAST and c.start <= t.start < c.end for t in times)):  # fmt: skip
        return None  # "last week I decided to run for office again": the deciding, with its day gone by (a day to come: the plan)
    elif verb == "found" and first in _FOUND_STATES:
        return None  # "found comfort in my work", "found out": a state of mind or news, no find
    elif verb == "tried" and obj.lower().startswith("to "):
        return None  # "I tried to stay calm": no happening named
    elif obj and all(t in ADVERBIAL for t in obj.lower().split()):
        return None  # "I studied hard", "we trained a lot": how, not what
    if verb in ("graduated", "retired", "moved", "quit") and not obj:
        pass  # "I graduated last week": the verb is the event
    elif _NOT_EVENT.search(obj) or not meaningful(obj) or not specific(obj) or any(t in ANAPHORA - _PLACES for t in _head(obj)):
        return None  # "got a shot of a glacier", "visited a place", "took it for a ride"
    said = sentence[m.start("verb") : m.end("verb")].lower()
    said = past_of(said) if m.re is ABLE else said  # "was able to raise some funds": raised them
    what = obj if verb in _LIGHT_VERBS or not verb else f"{said} {obj}".strip()
    what = tidy(short(purposeless(what).split()))
    where, people = extras(sentence, c, what)
    h = Happening(what, time_words(c, lead, times), where, people)
    return candidate(EVENT, c.start, at if verb in _LIGHT_VERBS else m.start("verb"), at + len(obj), h)


def standing_for(obj: str, them: str) -> str:
    """ "adopted her from a shelter" → "adopted Luna from a shelter": an object pronoun for the
    member the sentence before spoke of (`them`: a name, or "my kitten"), when its number fits;
    "her parents" (a possessive) and a pronoun with no member before are left as said."""
    toks = obj.split()
    if not them or not toks or toks[0].lower() not in ("him", "her", "them"):
        return obj
    if len(toks) > 1 and toks[1].lower() not in _AFTER_OBJECT:
        return obj  # "met her parents": whose, not whom
    many = them.startswith("my ") and them.endswith("s")
    return " ".join([them, *toks[1:]]) if many == (toks[0].lower() == "them") else obj


_AFTER_OBJECT = words("for to with at in on from about near by into home out up back over around along off")
_DONE_TO = words("me us you him her them it myself")


def and_did(sentence: str, c: Clause, at: int, verbs: re.Pattern[str], lead: str, times: list[Time],
            nouns: frozenset[str]) -> Found | None:  # fmt: skip
    """The event of a past verb (`verbs`, at `at`) joined by "and" to the speaker's own ("… and
    caught up with my family"); not one done to someone ("… and made me appreciate life")."""
    m = verbs.match(sentence, at, c.end)
    after = sentence[m.end() :].split() if m else []
    if m is None or (after and after[0].lower().strip(",.!?") in _DONE_TO):
        return None
    return event(sentence, c, m, lead, times, nouns)


_PREPOSITIONS = words("for to with at in on from about near by")


def _head(obj: str) -> list[str]:
    """The object's words before its first preposition: "a class for them" is a class."""
    toks = obj.lower().split()
    cut = next((i for i, t in enumerate(toks) if i and t in _PREPOSITIONS), len(toks))
    return toks[:cut]


def candidate(kind: str, start: int, value_start: int, end: int, h: Happening, *, statement: str = "assert") -> Found:
    """The candidate: the family slot (`events`, `plans`), what, and the happening read."""
    return Found(FAMILY_SLOT[kind], h.what, statement, start, value_start, max(end, value_start),
                 form=kind, happening=h)  # fmt: skip


# "My old Prius broke down last week", "my bike got stolen": what befell a thing of the speaker's
# is their event (what befalls a person of theirs is that person's: extract/grammar/people.py).
_MISHAP = re.compile(
    r"(?<![\w'’-])[Mm]y\s+(?P<what>(?:[\w'’-]+\s+){0,2}?[\w'’-]+)(?:,\s+[^,]{1,40},)?\s+(?:just\s+|totally\s+|completely\s+)?"
    r"(?P<verb>broke\s+down|broke|died|crashed|got\s+stolen|was\s+stolen|got\s+towed|got\s+damaged|flooded|caught\s+fire)(?![\w'’-])"
)
MISHAP_CUES = ("broke", "died", "crashed", "stolen", "towed", "damaged", "flooded", "caught")
_NOT_THINGS = words("heart heart's mind voice back brain spirit mood patience confidence will hopes dreams plans streak")


def mishaps(sentence: str, times: list[Time], doubt: int, people: frozenset[str]) -> list[Found]:
    """What befell the speaker's things in one sentence (`people`: the nouns of persons, whose
    mishaps are theirs; `doubt`: where a hedge begins)."""
    out = []
    for m in _MISHAP.finditer(sentence, 0, doubt):
        toks = m["what"].lower().split()
        if toks[-1] in people or toks[-1] in _NOT_THINGS or any(t in ANAPHORA for t in toks):
            continue  # "my grandma died": hers; "my heart broke": no thing
        what = f"{m['what']} {' '.join(m['verb'].split())}"
        when = next((t.words for t in times if t.start >= m.end() and t.tense != "future"), "")
        out.append(candidate(EVENT, m.start(), m.start("what"), m.end(), Happening(what, when)))
    return out
