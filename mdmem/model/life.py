"""Events and plans as facts: their file names, their time notation, and when two are one happening.

An event is what happened to a person ("10k fun run for the animal shelter", on 2023-05-07); a
plan is what they mean to do ("canoe trip", due 2023-06). Each is a fact file of its own,
`event-<start>-<what>` / `plan-<what>`, so a person's timeline is a folder listing and each
plan has a state of its own (docs/fact-file.md#events-and-plans, docs/states.md#plans).

Times are written at the precision they were said: a day `2023-05-07`, a month `2023-05`, a
year `2023`, or a span of those `2023-05-01/2023-05-07` (both ends included, as a person reads
"1–7 May").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta
from functools import lru_cache
from typing import Any

from mdmem.errors import SlugError
from mdmem.lang.tokens import cjk_grams, fold, stem, token_re
from mdmem.lang.verbs import base
from mdmem.model.slug import MAX_SLUG, check_slug, slugify

EVENT, PLAN = "event", "plan"
KINDS = (EVENT, PLAN)
PREFIX = {EVENT: "event-", PLAN: "plan-"}
# The pack attribute that names each family (label, aliases): `events`, `plans`.
FAMILY_SLOT = {EVENT: "events", PLAN: "plans"}
UNNAMED = "unnamed"
# The fields an event or a plan has beyond a plain fact, in file order, and the one of a member
# that exists unnamed: the noun it was mentioned as ("my husband"); `with` is `with_` in Python.
FIELDS = ("when", "due", "when_said", "where", "with", "sets", "fulfils", "fulfilled_by",
          "mentioned_as")  # fmt: skip
# Those fields emptied, for `Fact.evolve` (an expired fact holds no value of any kind).
CLEARED: dict[str, Any] = {"when": None, "due": None, "when_said": None, "where": None, "with_": [], "sets": {},
           "fulfils": None, "fulfilled_by": None, "mentioned_as": []}  # fmt: skip
# The kinds that read a field as their own; a field not named here is an event's and a plan's.
OWNERS = {"when": (EVENT,), "fulfils": (EVENT,), "due": (PLAN,), "sets": (PLAN,), "fulfilled_by": (PLAN,),
          "mentioned_as": (UNNAMED,)}  # fmt: skip

@dataclass(frozen=True)
class Happening:
    """What a finder read of an event or a plan, before its time is resolved (extract/)."""

    what: str
    time_words: str = ""  # as said: "last Sunday", "下个月" ('' when none)
    where: str = ""
    with_: tuple[str, ...] = ()
    sets: tuple[tuple[str, str], ...] = ()  # a plan's: (attribute, value)
    cancel: bool = False  # a plan said with its own end ("we were going to move, but not anymore")
    needs_future: bool = False  # a plan only if its time is to come ("I'll…", "I'm moving … in March")


_TIME = re.compile(r"(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?")


def family(attribute: str) -> str | None:
    """`event` or `plan` for an attribute named like one (event-2023-05-07-fun_run), else None."""
    if attribute.startswith("event-"):
        return EVENT
    if attribute.startswith("plan-"):
        return PLAN
    return None


def family_slot(attribute: str) -> str:
    """The pack attribute an event or plan belongs to (`events`, `plans`), else the attribute."""
    kind = family(attribute)
    return FAMILY_SLOT[kind] if kind else attribute


def _slug(what: str, room: int) -> str:
    slug = slugify(what)[:room].rstrip("_-")
    return slug or "x"


def event_attribute(what: str, when: str) -> str:
    """The file name of an event: `event-2023-05-07-fun_run` (its time's first day or month)."""
    start = when.split("/", 1)[0] if when else "undated"
    head = f"event-{start}-"
    return head + _slug(what, MAX_SLUG - len(head))


def plan_attribute(what: str, taken: frozenset[str] | set[str] = frozenset()) -> str:
    """The file name of a plan: `plan-canoe_trip`, or `plan-canoe_trip-2` … when taken."""
    base = "plan-" + _slug(what, MAX_SLUG - len("plan-") - 3)
    n, name = 1, base
    while name in taken:
        n += 1
        name = f"{base}-{n}"
    return name


def fields_of(fact: Any) -> dict[str, Any]:
    """A fact's own fields of its kind that hold something, by their file keys (`with`)."""
    out = {}
    for name in FIELDS:
        value = getattr(fact, "with_" if name == "with" else name)
        if value:
            out[name] = value
    return out


def more_nouns(held: list[str], said: list[str]) -> list[str]:
    """The nouns an unnamed member was mentioned as, with those just said that are new ("my
    aunt", later "my uncle"); a noun held in another number ("turtle", "turtles") is not new."""
    seen = {stem(n.casefold()) for n in held}
    return [*held, *(n for n in said if stem(n.casefold()) not in seen)]


def check_fields(data: dict[str, Any], kind: Any, fail: Any) -> dict[str, Any]:
    """A kind's own fields (an event's, a plan's, an unnamed member's) of a fact mapping,
    checked (`fail(key, message)` makes the error); keyed by their names in `Fact` (`with` is
    `with_`). On any other fact (and `due` on an event, `when` on a plan) these keys are the
    person's own, kept as they are: see `own`."""
    out: dict[str, Any] = {}
    for key in own(kind):
        v = data.get(key)
        if v is None or v == [] or v == {}:
            continue
        if key in ("when", "due"):
            if not isinstance(v, str) or span(v) is None:
                raise fail(key, f"is {v!r}; write a day '2023-05-07', a month '2023-05', a year"
                                " '2023' or a span '2023-05-01/2023-05-07'")  # fmt: skip
        elif key in ("with", "mentioned_as"):
            v = [v] if isinstance(v, str) else v
            if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
                like = "names, like [Mia, my sister]" if key == "with" else "nouns, like [husband]"
                raise fail(key, f"must be a list of {like}")
        elif key == "sets":
            if not isinstance(v, dict) or not all(isinstance(x, str) for x in v.values()):
                raise fail(key, "must map attributes to the values the plan gives them, like {home_city: Utrecht}")  # fmt: skip
            for name in v:
                try:
                    check_slug(str(name))
                except SlugError as e:
                    raise fail(key, f"names {name!r}: {e.bare_message}") from None
            v = {str(k): x for k, x in v.items()}
        elif not isinstance(v, str):
            raise fail(key, "must be text")
        out["with_" if key == "with" else key] = v
    return out


def own(kind: Any) -> tuple[str, ...]:
    """The fields a fact of this kind reads as its own: an event's, a plan's, an unnamed
    member's, or none."""
    return tuple(k for k in FIELDS if kind in OWNERS.get(k, KINDS))


# --- time notation ---------------------------------------------------------------------------


def _one(text: str) -> tuple[date, date] | None:
    """[first day, day after the last) of one `YYYY`, `YYYY-MM` or `YYYY-MM-DD`."""
    m = _TIME.fullmatch(text)
    if m is None:
        return None
    try:
        y, mo, d = int(m[1]), int(m[2] or 1), int(m[3] or 1)
        first = date(y, mo, d)
    except ValueError:
        return None
    if m[3]:
        return first, first + timedelta(days=1)
    if m[2]:
        return first, _add_months(first, 1)
    return first, date(y + 1, 1, 1)


def span(text: str | None) -> tuple[date, date] | None:
    """The days a time names, as [first, day after the last); None when it is not one."""
    if not text or not isinstance(text, str):
        return None
    a, sep, b = text.partition("/")
    first = _one(a)
    if first is None:
        return None
    if not sep:
        return first
    last = _one(b)
    if last is None or last[1] <= first[0]:
        return None
    return first[0], last[1]


def time_text(first: date, after: date) -> str:
    """The notation of [first, after): a day, a month, a year, or a span of them."""
    if after <= first + timedelta(days=1):
        return first.isoformat()
    if first.day == 1 and after.day == 1:
        months = (after.year - first.year) * 12 + after.month - first.month
        if first.month == 1 and months % 12 == 0:
            return str(first.year) if months == 12 else f"{first.year}/{after.year - 1}"
        if months == 1:
            return f"{first:%Y-%m}"
        last = _add_months(after, -1)
        return f"{first:%Y-%m}/{last:%Y-%m}"
    return f"{first.isoformat()}/{(after - timedelta(days=1)).isoformat()}"


def precision(text: str) -> str:
    """`day`, `month`, `year` or `span`: how exactly a time (already checked) was said."""
    if "/" in text:
        return "span"
    return {10: "day", 7: "month"}.get(len(text), "year")


def first_day(text: str | None) -> str | None:
    """The first day of a time, ISO, or None."""
    s = span(text)
    return s[0].isoformat() if s else None


def end_day(text: str | None) -> str | None:
    """The day after a time's last day, ISO (a plan is overdue from then), or None."""
    s = span(text)
    return s[1].isoformat() if s else None


def _add_months(d: date, months: int) -> date:
    index = d.year * 12 + d.month - 1 + months
    return date(index // 12, index % 12 + 1, 1)


# --- one happening ---------------------------------------------------------------------------


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Words that say how something happened, not what: "went on a canoe trip" is the canoe trip.
_LIGHT = _words(
    """go goe went gone going do did done doing take took taken taking have had having get got
    getting make made making finally final just actually really also still again my our your his
    her their the a an to for at in on of with and some new first big little this that it
    plan planning think thinking want wanna gonna will would hope hoping try trying start starting
    started begin began own is are was were be been up"""
)
_ZH_LIGHT = frozenset("去了要想打算准备计划的个一次趟在和跟我们终于已经刚")


@lru_cache(maxsize=4096)  # a pure function of the text: the planner asks it of every held event per statement
def key_words(what: str) -> frozenset[str]:
    """What a phrase is about: stems of its content words, CJK bigrams without function marks."""
    out: set[str] = set()
    for m in token_re().finditer(fold(what)):
        run, word = m.group(1), m.group(2)
        if word is not None:
            word = base(word)  # "ran" is "run", "met" is "meet"
            if word not in _LIGHT and not (len(word) == 1 and not word.isdigit()):
                out.add(stem(word))
        else:
            core = "".join(c for c in run if c not in _ZH_LIGHT)
            grams = [g for g in cjk_grams(core) if len(g) == 2] or ([core] if core else [])
            out.update(grams)
    return frozenset(out)


# Base verbs a plan may begin with ("move to Utrecht"); other plans are things ("canoe trip").
_VERBS = _words(
    """go move start join visit travel fly drive run do take try learn buy build get make see
    meet open launch finish write sign adopt study apply attend begin change quit leave retire
    marry celebrate host throw teach enter compete perform present publish record release
    renovate paint plant sell switch hike climb camp swim volunteer graduate enroll register
    book organize organise plan spend stay return come have give head hit check look find
    rent explore collaborate read watch play send submit cook bake share invite"""
)
_ARTICLE = ("a ", "an ", "the ", "my ", "our ")


def starts_with_verb(what: str) -> bool:
    """Whether a plan's phrase is an action ("move to Utrecht"), not a thing ("canoe trip")."""
    first = what.split(" ", 1)[0].casefold()
    return first in _VERBS


def bare(what: str) -> str:
    """A phrase without its leading article or "my": "a canoe trip" → "canoe trip"."""
    low = what.casefold()
    for art in _ARTICLE:
        if low.startswith(art):
            return what[len(art):]
    return what


# Words too common to tell one happening from another on their own ("team" in "team trip" and
# "played a top team").
_GENERIC = _words(
    """place plac team thing stuff time day week party friend family event class game work job hous
    home project cours lot fun people city town country way life year month night weekend show trip
    group meeting session today"""
)
# Steps towards a plan, not the plan happening: "signed up for a meditation course".
_PRELUDE = ("signed up", "booked", "registered", "applied", "bought tickets", "got tickets", "reserved", "planned")


def same_happening(a: str, b: str) -> bool:
    """Whether two phrases tell one happening: "canoe trip" / "did the canoe trip", "move to
    Utrecht" / "moved to Utrecht", "考研" / "参加了考研"; not "trip to Rome" / "trip to Paris",
    nor "team trip" / "played a top team"."""
    ka, kb = key_words(a), key_words(b)
    if not ka or not kb:
        return fold(a).strip() == fold(b).strip()
    shared = ka & kb
    if ka <= kb or kb <= ka:
        return bool(shared - _GENERIC) or len(shared) >= 2
    return len(shared) >= 2 and len(shared) * 3 >= 2 * max(len(ka), len(kb))


def specific(what: str) -> bool:
    """Whether a phrase names something of its own, not only common words ("a place", "team up")."""
    return bool(key_words(what) - _GENERIC)


def is_prelude(what: str) -> bool:
    """An event that is a step towards a plan ("booked a trip to Lisbon"), which fulfils none."""
    return fold(what).startswith(_PRELUDE)


def overlaps(a: str | None, b: str | None) -> bool:
    """Whether two times share a day."""
    sa, sb = span(a), span(b)
    return sa is not None and sb is not None and sa[0] < sb[1] and sb[0] < sa[1]
