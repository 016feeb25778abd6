"""Books, films and shows named by their title: what a person read, is reading or is into.

    "Two weeks ago I read "Dune Messiah" by Frank Herbert in one go"   an event: read Dune Messiah by Frank Herbert
    "The novel I'm reading is "Middlemarch""                            an event of the day: reading Middlemarch
    "I'm really into this book called "The Overstory""                  a like: the book The Overstory

A title is quoted, or follows a media noun and "called"/"named"/"titled"; "by" and a name after
it keep the author. "read" is also the present ("I read before bed"), so it tells an event only
after "have"/"just"/"finally" or with a time gone by in the sentence; "reading" and the rest say
themselves. The English grammar of events (extract/happenings.py) reads the verbs it knows
("watched …"); this reads what it passes over: the present-or-past "read", a title said as
the subject's complement, and a title liked.
"""

from __future__ import annotations

import re

from mdmem.extract.candidates import Found
from mdmem.extract.clauses import first_hedge, told_from
from mdmem.extract.kinds import PREFERENCE
from mdmem.extract.timex import FUTURE, find_times
from mdmem.model.life import EVENT, FAMILY_SLOT, Happening

_MEDIA = r"(?:book|novel|memoir|biography|comic|manga|movie|film|show|series|documentary|podcast|album|play)"
_NAMED = r"(?:[A-Z][\w'’:-]*(?:\s+(?:of|the|and|a|an|in|on|to|for|&)?\s*[A-Z][\w'’:-]*){0,6})"
_TITLE = (
    rf"(?:(?:the\s+|this\s+|a\s+|that\s+)?(?:new\s+|great\s+|fantasy\s+|mystery\s+|sci-fi\s+)?{_MEDIA}\s+(?:called|named|titled)\s+)?"
    rf"(?P<q>[\"“])?(?P<title>(?(q)[^\"“”]{{1,60}}|{_NAMED}))(?(q)[\"”])"
    rf"(?:\s+by\s+(?P<by>[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*){{0,2}}))?"
)
_I = r"(?<![\w'’])I(?:\s+(?:just|finally|already|recently|also|even|actually))*"
# "I read …" (a time gone by, or "have"/"just", says it is the past), "I finished …", "I'm reading …"
_READ = re.compile(
    rf"{_I}(?P<have>(?:['’]ve|\s+have)(?:\s+(?:just|finally|already|recently|also))*)?\s+"
    rf"(?P<verb>read|reread|re-read|finished|finished\s+reading|devoured|binged|listened\s+to)\s+{_TITLE}"
)
_READING = re.compile(rf"{_I}(?:['’]m|\s+am)\s+(?:(?:currently|still|now|also)\s+)?(?P<verb>reading|rereading|re-reading|listening\s+to)\s+{_TITLE}")  # fmt: skip
# "The novel I'm reading is "The Great Gatsby"", "the book I'm reading right now is Dune"
_IS = re.compile(
    rf"(?<![\w'’])[Tt]he\s+{_MEDIA}\s+I(?:['’]m|\s+am)\s+(?P<verb>reading|watching|listening\s+to)\s+"
    rf"(?:(?:right\s+)?now\s+|at\s+the\s+moment\s+)?is\s+{_TITLE}"
)
_INTO = re.compile(
    rf"{_I}(?:['’]m|\s+am)\s+(?:(?:really|so|totally|just|also)\s+)*(?:into|hooked\s+on|obsessed\s+with)\s+"
    rf"(?:this|the|a)\s+(?:new\s+)?(?P<noun>{_MEDIA})\s+(?:called|named|titled)\s+{_TITLE}"
)
_JUST = re.compile(r"just|finally|already|recently")
_VERB = {"finished reading": "finished", "reread": "reread", "re-read": "reread", "devoured": "read", "binged": "watched",
         "rereading": "rereading", "re-reading": "rereading"}  # fmt: skip


def find_titles(sentence: str, at: str = "2000-01-01") -> list[Found]:
    """Events and likes of a book, film or show the speaker names by its title."""
    if ('"' not in sentence and "“" not in sentence and " called " not in sentence and " named " not in sentence
            and " titled " not in sentence) or not (stop := told_from(sentence)):  # fmt: skip
        return []
    doubt = min(first_hedge(sentence), stop)
    times = [t for t in find_times(sentence, at, future=False) if t.tense != FUTURE]
    out: list[Found] = []
    for rx in (_READ, _READING, _IS, _INTO):
        for m in rx.finditer(sentence, 0, doubt):
            title = m["title"].strip(" ,.!?")
            if not title or title.lower() in ("it", "this", "that"):
                continue
            named = f"{title} by {m['by']}" if m["by"] else title
            if rx is _INTO:
                out.append(Found(PREFERENCE, f"the {m['noun']} {named}", "assert", m.start(), m.start("noun"), m.end(), polarity="like"))  # fmt: skip
                continue
            verb = " ".join(m["verb"].split())
            when = ""
            if rx is _READ:
                when = times[0].words if times else ""
                if verb == "read" and not (m["have"] or _JUST.search(sentence, m.start(), m.start("verb")) or when):
                    continue  # "I read "Dune" every winter": the present, no event
            what = f"{_VERB.get(verb, verb)} {named}"
            out.append(Found(FAMILY_SLOT[EVENT], what, "assert", m.start(), m.start("verb"), m.end(), form=EVENT,
                             happening=Happening(what, when)))  # fmt: skip
    return out
