"""The extractor's grammar: what a sentence says that a pattern cannot read.

Patterns (rules.yaml `extract`) read one shape of sentence each. Some facts need grammar: the
clause a subject governs ("Most evenings I squeeze in some swimming, sketching or a bit of
cello"), a list, a name given in apposition or as an answer, another person's facts. These
modules hold that grammar for English and Chinese, as small rules over clauses, in the manner
of duckling's dimensions; the words that say which slot a finding fills are the pack's
(`grammar:` names … things, docs/rules.md#grammar), so a pack extends what is read by
adding words, not code.

- `clauses`: the clauses whose subject is the speaker, and whether they say a habit;
- `activities`: hobbies, habits, skills, and activities that ended;
- `names`: the names and counts of what a person has, and the people in their life;
- `people`: what is said of those people, re-voiced as theirs;
- `preferences`: favourites and "my hobbies", and hobbies given as an answer;
- `things`: what a person owns or runs, and what they had as a child;
- `habits`: routines and ways of relaxing, kept in the words said;
- `titles`: books, films and shows named by their title, read, being read or liked.

Every finder here returns `Found` candidates, weighed for mood and time like any other.
"""

from __future__ import annotations

import re

from mdmem.extract.candidates import Found, Resolver, words
from mdmem.extract.grammar.activities import find_activities
from mdmem.extract.grammar.habits import HABITS, find_habits
from mdmem.extract.grammar.lexicon import lexicon, tokens
from mdmem.extract.grammar.names import find_members
from mdmem.extract.grammar.preferences import find_favourites
from mdmem.extract.grammar.things import find_things
from mdmem.extract.grammar.titles import find_titles
from mdmem.extract.values import tidy
from mdmem.lang.detect import has_cjk

# Words without one of which a form cannot match (a superset: the form itself decides), so
# that each form runs only where it may. Members: "my"/"our", "named"/"called", a count, a name
# given later ("we ended up naming her Juno"); things: "my", the verbs of having, "had".
_MEMBER_CUES = words("my our named called naming name call calling two three four five six seven eight nine ten couple")
_THING_CUES = words("my got bought have own made built had picked treated")
# Activities beside the pack's words: the verbs after which an "-ing" word the pack does not
# know is a hobby ("I've taken up bouldering", "we go kayaking"), an ending, "my … skills".
_ACTIVITY_CUES = words(
    "practice practices practiced practicing practise practises practised practising up into start starts "
    "started starting learn learns learned learnt learning train trains trained training busy go goes going "
    "went gone used stopped quit gave given skills"
)
_DIGIT = re.compile(r"\d")


def find_grammar(sentence: str, resolver: Resolver) -> list[Found]:
    """The grammar's candidates in one sentence of the speaker's."""
    lex = lexicon(resolver.rules)
    found: list[Found] = []
    if has_cjk(sentence):
        found = find_members(sentence, lex, resolver) + find_activities(sentence, lex)
        return tidy(found + find_favourites(sentence, resolver, lex.activities))
    # One pass over the sentence's words decides which forms may match at all.
    said = tokens(sentence)
    if said & _MEMBER_CUES or _DIGIT.search(sentence):
        found += find_members(sentence, lex, resolver)
    if said & lex.cues or said & _ACTIVITY_CUES:
        found += find_activities(sentence, lex)
    found += find_favourites(sentence, resolver, lex.activities)
    if lex.things.slot and said & _THING_CUES:
        found += find_things(sentence, lex.things)
    if HABITS in resolver.rules.attributes:
        found += find_habits(sentence)
    found += find_titles(sentence)
    # Of two readings of one slot whose values overlap, the longer wins ("playing video games").
    return tidy(found)
