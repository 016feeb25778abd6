"""Events and plans in what people say: a small grammar over clauses, configured by the pack.

clause → subject → verb phrase → what → time words → where / with whom:

    "I did a 10k fun run for the animal shelter last Sunday"   an event: 10k fun run for the animal shelter
    "We're thinking about a canoe trip next month"             a plan: canoe trip, due next month
    "I'm moving to Utrecht in March"                           a plan that sets home_city = Utrecht
    "we were going to move, but not anymore"                   the plan to move is cancelled

The words (past-tense verbs, plan words, words that cancel, the slots a plan sets) come from the
pack's `grammar:` (model/grammar.py); the pack's `events`/`plans` attributes name what is found.
Only the speaker's own clauses are read, and a sentence that asks, supposes, reports, hedges or
jokes is passed over (extract/clauses.py). Times are resolved later, against the day the
message was said (extract/life_statements.py). Chinese: extract/happenings_zh.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mdmem.extract.candidates import Found, words
from mdmem.extract.clauses import Clause, clauses, first_hedge, tells_nothing, told_from
from mdmem.extract.happening_events import (
    ABLE,
    ADV,
    ADVERBIAL,
    ANAPHORA,
    BEEN,
    DROPPED_CUES,
    EVER,
    MISHAP_CUES,
    ONGOING,
    and_did,
    been,
    candidate,
    dropped_doing,
    event,
    extras,
    mishaps,
    ongoing,
    time_words,
)
from mdmem.extract.happening_phrase import (
    VAGUE_PLAN,
    doing,
    gerund_base,
    meaningful,
    phrase,
    short,
    tidy,
)
from mdmem.extract.happenings_zh import find_zh
from mdmem.extract.relative_events import relative_events
from mdmem.extract.timex import PAST, Time, find_times
from mdmem.lang.detect import has_cjk
from mdmem.lang.tokens import stem
from mdmem.model.grammar import Grammar, per_grammar
from mdmem.model.life import EVENT, PLAN, Happening, specific, starts_with_verb
from mdmem.model.vocab import alternation

_BE = r"(?:\s*['’]m|\s*['’]re|\s*['’]s|\s+am|\s+are|\s+is|\s+was|\s+were|\s*['’]ve\s+been|\s+have\s+been)?"
_DREAMS = words("dream dreams goal goals best passion")
_PARTICLES = ("up", "out", "together")  # a phrasal verb's, before "with": "team up with local schools"
_ARRANGING = ("planning", "organizing", "organising", "booking", "arranging")

@dataclass(frozen=True)
class _Words:
    """One grammar's compiled English expressions."""

    event: re.Pattern[str]
    plan: re.Pattern[str]
    timed: re.Pattern[str]
    progressive: re.Pattern[str]
    cancel: re.Pattern[str] | None
    sets: tuple[tuple[str, str, re.Pattern[str]], ...]  # (attribute, its plan's words, expression)
    nouns: frozenset[str]  # what "had" takes to be an event: "had a party", not "had a nice chat"
    cancelled: re.Pattern[str]
    anchor: frozenset[str]  # the first words the grammar starts from: no such word, nothing to read
    doings: tuple[str, ...]  # "writing", "teaming up": done these days when said with no day to come
    persons: frozenset[str]  # the pack's nouns of a person or pet ("sister", "dog"): their mishaps are theirs


# The words the plans said without a plan word need (`_upcoming`): "coming up", a day to come.
_UPCOMING_CUES = ("coming", "next", "tomorrow", "tonight")
# "My goal is to improve my serve", "one of our goals is to open a second shop": what the speaker
# says they aim to do is a plan (undated unless a day is said); "my goal was to …", "my goal
# would be to …" and "my dream is to …" (a wish, as "dreaming of" is) are not.
_GOAL = re.compile(
    r"(?:^|(?<=[\s,;:(]))(?:[Oo]ne\s+of\s+)?(?:[Mm]y|[Oo]ur)\s+(?:(?:main|big|biggest|next|new|ultimate|personal)\s+)?"
    r"(?P<word>goals?|aims?)\s+(?:(?:right\s+now|now|for\s+(?:this|next)\s+(?:year|season|month))\s+)?(?:is|are)\s+to\s+"
)
_GOAL_CUES = ("goal", "goals", "aim", "aims")
# Plan words that keep their plan over a perfect ("I've been planning to …"; "I've been going to the gym" is no plan).
_INTENDING = ("planning to", "planning on", "thinking about", "thinking of", "hoping to", "looking to", "aiming to",
              "intending to", "looking forward to", "getting ready for", "preparing for", "training for")  # fmt: skip
_COPULA = re.compile(r"\b(?:is|are|was|were|isn['’]t|wasn['’]t)\b", re.I)


@per_grammar
def _words(g: Grammar) -> _Words:
    verbs = alternation(w.lower() for w in g.words("event_verbs", "en")) if g.words("event_verbs", "en") else "(?!)"
    plans = alternation(g.words("plan_words", "en")) if g.words("plan_words", "en") else "(?!)"
    timed = alternation(g.words("timed_plan_words", "en")) if g.words("timed_plan_words", "en") else "(?!)"
    sets = tuple(
        (attr, words["en"][0], re.compile(
            rf"\b(?:{alternation(words['en'])[3:-1]})\s+(?P<v>(?-i:[A-Z][\w&'’.-]*(?:\s+(?:of\s+|de\s+)?[A-Z][\w&'’.-]*){{0,3}}))",
            re.I))
        for attr, words in g.sets.items() if words.get("en")
    )  # fmt: skip
    cancel = g.words("cancel_words", "en")
    out = _Words(
        event=re.compile(rf"\s*(?:(?P<perf>['’]ve|\s+have)\s+(?P<padv>(?:just|finally|already|now|officially|recently)\s+)?)?{ADV}(?P<verb>{verbs})(?![\w'’])", re.I),
        plan=re.compile(rf"(?P<be>{_BE})\s*{ADV}(?P<word>{plans})(?![\w'’])", re.I),
        timed=re.compile(rf"\s*{ADV}(?P<word>{timed})(?![\w'’])", re.I),
        progressive=re.compile(rf"(?:\s*['’]m|\s*['’]re|\s+am|\s+are)\s*{ADV}(?P<ving>[a-z]+ing)(?![\w'’])", re.I),
        cancel=re.compile(rf"(?<![\w'’]){alternation(cancel)}(?![\w'’])", re.I) if cancel else None,
        sets=sets,
        nouns=frozenset(stem(n.lower()) for n in g.words("event_nouns", "en")),
        anchor=frozenset(
            p.split()[0].lower().strip("'’")
            for p in (*g.words("event_verbs", "en"), *g.words("plan_words", "en"), *g.words("timed_plan_words", "en"),
                      *cancel, *(x for ws in g.sets.values() for x in ws.get("en", ())), "am", "are", "was", "were", "m", "re", "been",
                      *_UPCOMING_CUES, *_GOAL_CUES, *MISHAP_CUES, *DROPPED_CUES)
        ),  # fmt: skip
        doings=tuple(f"{d.lower()} " for d in g.words("doing_verbs", "en")),
        persons=frozenset(n.lower() for ws in (*g.people.values(), *g.names.values()) for n in ws.get("en", ())),
        cancelled=re.compile(
            r"\b(?:cancel(?:l?ed)?|called\s+off|scrapped)\s+(?:the|our|my)\s+(?P<a>[a-z][\w\s'’-]{1,40}?)(?=\s*(?:$|[,.;!?]|\b(?:because|since|as)\b))"
            r"|\b(?:the|our|my)\s+(?P<b>[a-z][\w\s'’-]{1,40}?)\s+(?:is|was|got|has\s+been)\s+(?:off|cancel(?:l?ed)|called\s+off|scrapped)\b",
            re.I,
        ),
    )  # fmt: skip
    return out


def find_happenings(sentence: str, grammar: Grammar | None, taken: list[tuple[int, int]] | None = None,
                    them: str = "") -> list[Found]:  # fmt: skip
    """The events and plans of the speaker's own clauses in one sentence; `taken` are the spans a
    slot's pattern already read ("I moved to Porto last week": the city's change, no event too);
    `them` the member the sentence before spoke of, whom "him"/"her"/"them" may stand for."""
    if grammar is None:
        return []
    if has_cjk(sentence):
        return [] if tells_nothing(sentence) else find_zh(sentence, grammar)
    w = _words(grammar)
    if w.anchor.isdisjoint(_WORD.findall(sentence.lower())) or not (stop := told_from(sentence)):
        return []
    sentence = sentence[:stop]  # "I ran a 10k and my coach said I should rest": the run stands
    cancel = w.cancel.search(sentence) is not None if w.cancel else False  # and what they said cancels nothing
    out: list[Found] = []
    times = find_times(sentence, "2000-01-01", future=False)  # once a sentence: where its times are
    parts = clauses(sentence, zh=False, times=times)
    quoted, hedge = _quoted(sentence), first_hedge(sentence)
    prev: Found | None = None  # what the clause before read
    for n, clause in enumerate(parts):
        if not clause.speaker or hedge < clause.end or any(a <= clause.start < b for a, b in quoted):
            continue  # "I'm gonna make him an offer he can't refuse": a quote is someone's words
        lead = _lead_time(parts[n - 1], times) if n else ""
        if not lead and sentence[: clause.start].rstrip().lower().endswith("when") and _dated_elsewhere(clause, times):
            continue  # "It started in August last year when we met at a festival": its day is the other clause's
        slot = any(a < clause.end and clause.start < b for a, b in taken or ())
        found = _clause(sentence, clause, w, cancel, lead, times, events=not slot, them=them)
        if found is None and clause.carried and prev is not None and prev.form == PLAN:
            found = _also(sentence, prev, clause.body, clause.end, times)  # "…, try out the local food"
        # "I visited home and caught up with my family": the first verb's object too slight, the second's kept
        if (found is None and not slot and not cancel and clause.body > clause.start and w.event.match(sentence, clause.body, clause.end)
                and (lead or not _dated_elsewhere(clause, times)) and (j := _AND_DID.search(sentence, clause.body, clause.end))):
            found = and_did(sentence, Clause(clause.start, clause.end, j.end(), True), j.end() - 1, w.event, lead, times, w.nouns)
        prev = found
        out += _joined(sentence, found, clause.end, times, w, lead)
    if not out and cancel and (m := w.cancelled.search(sentence)):  # "we cancelled the canoe trip"
        what = (m["a"] or m["b"]).strip()
        out.append(candidate(PLAN, m.start(), m.start(), m.end(), Happening(what, cancel=True), statement="invalidate"))
    elif not out and not cancel and (m := _WENT.search(sentence)) and specific(m["what"]):
        # "The gaming party was a great success!": a plan of that name, if one is held, happened
        out.append(candidate(PLAN, m.start(), m.start("what"), m.end("what"), Happening(m["what"].strip()), statement="keep"))
    doubt = min([hedge, *(a for a, _ in quoted)])
    if not cancel and not any(f.form == EVENT for f in out):  # "Here's a pic of a cake I made recently"
        out += relative_events(sentence, grammar, times, len(sentence), doubt)
    if not cancel and "my" in sentence.lower():
        out += mishaps(sentence, times, doubt, w.persons)
    if not any(f.form == PLAN for f in out) and not cancel:
        out += _upcoming(sentence, w, times, doubt) or _goal(sentence, w, parts, times, doubt)
    if not any(f.form == PLAN for f in out):
        out += _set_by_time(sentence, w, parts, times, hedge)
    return out


# "I have a community meeting coming up", "our season opener is next week": a happening the pack
# names (its event nouns), still to come.
_COMING = re.compile(
    r"\b(?:I|we)(?:\s*['’]ve\s+got|\s+have\s+got|\s+have|\s+got)\s+(?P<what>(?:a|an|my|our|the|another)\s+"
    r"(?:[\w'’-]+\s+){0,3}?[\w'’-]+)(?:\s+coming\s+up\b|(?P<soon>\s+(?=(?:next|tomorrow|tonight|this|on|in)\b)))",
    re.I,
)  # "I've got a gaming tournament next month": the day said right after it
_COMING_DAY = re.compile(r"(?:next|tomorrow|tonight|this|coming|in\s+(?:a|two|three|\d+)\s)", re.I)  # not a date: a day of the year
_YEARLY = frozenset({"birthday", "anniversary"})
_DUE = re.compile(r"(?:^|(?<=[\s,;:(]))(?:[Mm]y|[Oo]ur)\s+(?P<what>(?:[\w'’-]+\s+){0,3}?[\w'’-]+)\s+(?:is|are)\s+(?:coming\s+up\s+)?")


def _upcoming(sentence: str, w: _Words, times: list[Time], doubt: int) -> list[Found]:
    """Plans said without a plan word: a happening coming up, or one whose day is named."""
    later = [t for t in times if t.tense != PAST]
    for m in (*_COMING.finditer(sentence, 0, doubt), *_DUE.finditer(sentence, 0, doubt)):
        what = tidy(m["what"])
        head = stem(what.split()[-1].lower()) if what else ""
        if head not in w.nouns or head in _YEARLY:
            continue  # "a lot of work coming up", "my sister is next door", "my birthday is 14 March": no plan
        when = next((t.words for t in later if t.start == m.end() and _COMING_DAY.match(t.words)), "") if m.re is _DUE else (
            later[0].words if later else "")  # fmt: skip
        if m.re is _COMING and m["soon"] is not None:
            when = next((t.words for t in later if t.start == m.end()), "")
        if (m.re is _DUE or m["soon"] is not None) and not when:
            continue  # "our party is amazing", "I have a game in my head": no day to come
        return [candidate(PLAN, m.start(), m.start("what"), m.end("what"), Happening(what, when))]
    return []


def _goal(sentence: str, w: _Words, parts: list[Clause], times: list[Time], doubt: int) -> list[Found]:
    """A goal said as the speaker's own ("my goal is to …"): the plan its verb phrase names."""
    for m in _GOAL.finditer(sentence, 0, doubt):
        c = next((p for p in parts if p.start <= m.start() < p.end), None)
        if c is None or c.end <= m.end():
            continue
        theirs = Clause(c.start, c.end, m.start("word"), True)  # "my goal": the speaker's to do
        if (found := _plan(sentence, theirs, w, m.end(), m, False, "", times, needs_future=False)) is not None:
            return _joined(sentence, found, c.end, times)
    return []


# "the canoe trip was amazing", "our party went great": told as done, of a plan held by that name.
_WENT = re.compile(
    r"(?:^|[,;:!.]\s+)(?:the|our|my)\s+(?P<what>[a-z][\w'’-]*(?:\s+[a-z][\w'’-]*){0,3}?)\s+"
    r"(?:was|went|turned\s+out)\s+(?!(?:postponed|delayed|moved|pushed|rescheduled|off|not|never|cancel\w*|called)\b)",
    re.I,
)
_WORD = re.compile(r"[a-z]+")
_QUOTE = re.compile(r"[\"“]([^\"“”]{3,300})[\"”]")


def _quoted(sentence: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in _QUOTE.finditer(sentence)]


def _dated_elsewhere(c: Clause, times: list[Time]) -> bool:
    """Whether the sentence names a time, none of it in this clause."""
    return bool(times) and not any(c.start <= t.start < c.end for t in times)


def _lead_time(prev: Clause, times: list[Time]) -> str:
    """"Last Sunday, I did …": a clause that is only a time gives the next one its time."""
    inside = [t for t in times if prev.start <= t.start < prev.end]
    return inside[0].words if len(inside) == 1 and inside[0].start == prev.start and prev.end - inside[0].end <= 2 else ""


def _clause(sentence: str, c: Clause, w: _Words, cancel: bool, lead: str, times: list[Time], *,
            events: bool = True, them: str = "") -> Found | None:  # fmt: skip
    body, end = c.body, c.end
    m = w.plan.match(sentence, body, end)
    if m and (m["be"] or "").endswith("been") and not m["word"].lower().endswith(_INTENDING):
        m = None  # "I've been going to the gym": where one goes, no plan
    if m:
        past = (m["be"] or "").strip().lower() in ("was", "were")
        return _plan(sentence, c, w, m.end(), m, past or cancel, lead, times, needs_future=False)
    if m := w.timed.match(sentence, body, end):
        return None if cancel else _plan(sentence, c, w, m.end(), m, False, lead, times, needs_future=True)
    if m := w.progressive.match(sentence, body, end):
        if cancel:
            return None
        arranging = m["ving"].lower() in _ARRANGING  # "I'm planning a trip to the East Coast": a plan, day or not
        if events and not lead and sentence[m.start("ving"):end].lower().startswith(w.doings) and not any(
                c.start <= t.start < c.end for t in times):
            return ongoing(sentence, c, m, lead, times)  # "I'm writing a novel": done these days, no plan
        return _plan(sentence, c, w, m.start("ving"), m, False, lead, times, needs_future=not arranging, ving=m["ving"])
    if events and (m := w.event.match(sentence, body, end)):
        if cancel or (m["perf"] and not m["padv"] and (m["verb"].lower() in ("got", "had") or EVER.search(sentence, body, end))):
            return None  # "we did the trip, but not anymore": unclear; "I've visited Rome twice", "I've got/had …": a state
        return event(sentence, c, m, lead, times, w.nouns, them)
    if events and not cancel and (m := ABLE.match(sentence, body, end)):
        return event(sentence, c, m, lead, times, w.nouns, them)
    if events and not cancel and (m := ONGOING.match(sentence, body, end)):
        return ongoing(sentence, c, m, lead, times)
    if events and not cancel and (m := BEEN.match(sentence, body, end)):
        return been(sentence, c, m, lead, times)
    return dropped_doing(sentence, c, w.doings, lead, times) if events and not cancel else None


def _plan(sentence: str, c: Clause, w: _Words, start: int, m: re.Match[str], cancel: bool, lead: str,
          times: list[Time], *, needs_future: bool, ving: str = "") -> Found | None:  # fmt: skip
    obj, at = phrase(sentence, start, c.end, times)
    head = obj.split()
    if (len(head) <= (1 if not ving else 2) or (len(head) == 2 and head[1].lower() in _PARTICLES)) and sentence[
            at + len(obj):].lstrip().lower().startswith("with "):  # "thinking of teaming up with …"
        obj, at = phrase(sentence, start, c.end, times, past_with=True)  # "working with some fashion bloggers"
    words = obj.split()
    if ving:
        if ving.lower() in _ARRANGING:
            words = words[1:]  # "planning a trip to Rome": the trip is the plan
        else:
            words = [gerund_base(words[0]), *words[1:]] if words else words
    elif words and words[0].lower() == "to" and (m["word"] or "").lower().startswith("going"):
        words = ["go", *words]  # "going to the gym tomorrow"
    elif (m["word"] or "").lower() == "off to":
        words = ["go", "to", *words]  # "we're off to Canada next month"
    elif words and words[0].lower().endswith("ing") and words[0].lower() not in ("something", "nothing", "anything", "everything"):
        words = [gerund_base(words[0]), *words[1:]]  # "thinking about going camping"
    what = tidy(short(words))
    toks = what.lower().split()
    if not meaningful(what) or not toks:
        return None
    if not cancel and _vague(what, toks):
        return None  # "keep pushing", "make it happen", "chase my dreams", "team up": no plan to follow
    if c.body == c.start and (not c.carried or _COPULA.search(obj)):
        return None  # "Going to those places is on my list": a plan needs its speaker said (and
        # in "…, but going to the gym is hard" the doing is a subject, not the speaker's plan)
    where, people = extras(sentence, c, what)
    sets: tuple[tuple[str, str], ...] = ()
    for attr, base, rx in w.sets:
        if (s := rx.search(sentence, c.body, c.end)) is not None:
            sets, what = ((attr, s["v"].strip()),), f"{base} {s['v'].strip()}"
            break
    said_when = time_words(c, lead, times)
    if len(toks) == 1 and not said_when and not cancel:
        return None  # "I'm gonna chat": one word and no day is no plan to hold anyone to
    h = Happening(what, said_when, where, people, sets, cancel=cancel, needs_future=needs_future)
    return candidate(PLAN, c.start, at, at + len(obj), h, statement="invalidate" if cancel else "assert")




def _vague(what: str, toks: list[str]) -> bool:
    """Whether a plan's words name no plan to follow: an attitude, a pronoun, a dream, common words."""
    named = any(w[:1].isupper() for w in what.split()[1:])  # "stay in Galway", not "stay positive"
    return ((toks[0] in VAGUE_PLAN and not named and not doing(toks)) or any(t in ANAPHORA or t in _DREAMS for t in toks)
            or not specific(" ".join(toks[1:]) if starts_with_verb(what) else what))  # fmt: skip


_AND = re.compile(r"\s*,?\s+and\s+(?:then\s+|also\s+)?", re.I)
_AND_DID = re.compile(r"\s+and\s+(?:then\s+|also\s+)?", re.I)


def _joined(sentence: str, found: Found | None, end: int, times: list[Time], w: _Words | None = None,
            lead: str = "") -> list[Found]:  # fmt: skip
    """`found` and the plans or events joined to it by "and" in its clause (which ends at `end`)."""
    out = []
    while found is not None:
        out.append(found)  # "I'm going to visit Oslo and rent a boat": a plan each
        after = next((t.end for t in times if found.end <= t.start <= found.end + 1), found.end)  # "… last week and …"
        j = _AND.match(sentence, after)
        if j is None or j.end() >= end:
            break
        if found.form == PLAN:
            found = _also(sentence, found, j.end(), end, times)
        elif w is not None:  # "I visited Oslo and hiked a glacier"
            when = lead or (found.happening.time_words if found.happening else "")
            found = and_did(sentence, Clause(found.start, end, j.end(), True), j.end() - 1, w.event, when, times, w.nouns)
        else:
            break
    return out


def _also(sentence: str, first: Found, start: int, end: int, times: list[Time]) -> Found | None:
    """A verb joined to a plan's is a plan of the same word and day: "I'm going to visit Oslo and
    see the fjords", "…, try out the local food", "my goal is to keep teaching yoga and supporting
    my community" (a doing after "keep" is kept up too)."""
    h = first.happening
    obj, at = phrase(sentence, start, end, times)
    words = obj.split()
    if h is None or h.cancel or not words or words[0].lower().endswith("ing") and h.what.split()[0] not in ("keep", "continue"):
        return None
    if all(t.lower() in ADVERBIAL for t in words[1:]):
        return None  # "… and reading more": how much, not what
    if words[0].lower().endswith("ing"):
        words = [h.what.split()[0], *words]  # "keep teaching yoga and supporting my community"
    elif not starts_with_verb(words[0]):
        return None  # "I'm going to visit Oslo and my sister too": no verb, no plan
    what = tidy(short(words))
    toks = what.lower().split()
    if len(toks) < 2 or not meaningful(what) or _vague(what, toks):
        return None
    return candidate(PLAN, first.start, at, at + len(obj), Happening(what, h.time_words, needs_future=h.needs_future))


def _set_by_time(sentence: str, w: _Words, parts: list[Clause], times: list[Time], hedge: int) -> list[Found]:
    """"I accepted an offer from Nordlicht Labs, starting in May": a slot a plan sets, said with a
    day to come, is that plan (and not the slot's value today)."""
    for attr, base, rx in w.sets:
        for c in parts:
            if not c.speaker or hedge < c.end or (s := rx.search(sentence, c.body, c.end)) is None:
                continue
            after = [t for t in times if t.start >= s.start() and t.tense != PAST]
            if not after:
                continue
            value = s["v"].strip()
            h = Happening(f"{base} {value}", after[0].words, sets=((attr, value),), needs_future=True)
            return [candidate(PLAN, c.start, s.start(), s.end(), h)]
    return []
