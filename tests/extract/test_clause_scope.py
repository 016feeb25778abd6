"""A modal or reported speech stops only its own clause and those after it; a day gone by that
is not named ("the other day") is the week before the message, "recently" the month before.
Made-up sentences, not corpus ones."""

from __future__ import annotations

import pytest

from mdmem.extract.clauses import told_from
from mdmem.extract.rule_finder import extract
from mdmem.extract.transcript import parse_transcript
from tests.extract.test_happenings import PERSONAL, said

LAST_WEEK = "2023-05-01/2023-05-07"  # said on Sunday 2023-05-14


@pytest.mark.parametrize(
    ("text", "what", "when"),
    [
        ("I went to Bruges last week, you would love it there!", "went to Bruges", LAST_WEEK),
        ("I baked sourdough yesterday, maybe you would like the recipe!", "baked sourdough", "2023-05-13"),
        ("Last week I ran a half marathon, which I'd been training for all year.", "ran a half marathon", LAST_WEEK),
        ("I went to Bruges last week, I wish I could go back.", "went to Bruges", LAST_WEEK),
        ("I went to Bruges last week, my sister thought it was too cold.", "went to Bruges", LAST_WEEK),
        ("I ran a 10k last week and my coach said I should rest now.", "ran a 10k", LAST_WEEK),
        ("I'd been meaning to try pottery, so last week I went to a pottery class.", "went to a pottery class", LAST_WEEK),
    ],
)
def test_a_modal_after_the_speakers_own_clause_leaves_that_clause_standing(text, what, when):
    assert [(s.entity, s.form, s.value, s.when) for s in said(f"User: {text}")] == [("user", "event", what, when)]


@pytest.mark.parametrize(
    "text",
    [
        "my boss says I should learn Rust",
        "My coach said I should run the Berlin marathon next month.",
        "if I won the lottery I'd move to Bali",
        "I'd move to Lisbon next month if I could.",
        "I could run a marathon next month.",
        "We would go camping next weekend, but it rains.",
        "I'm moving to Utrecht in March, my sister said.",
        "I'm moving to Utrecht in March, or so she says.",
        "I ran a marathon last week, said my brother.",
        "He thought we were moving to Berlin next month.",
        "I'm moving to Berlin next month, she thinks.",
        "I'm moving to Utrecht in March, my sister said so.",
        "I went to Bruges last week, just kidding, you would hate it.",
    ],
)
def test_a_supposition_or_someone_elses_words_still_give_nothing(text):
    assert [s for s in said(f"User: {text}") if s.entity == "user"] == []


def test_where_the_sentence_stops_telling_the_speakers_own_life():
    s = "I went to Bruges last week, you would love it there!"
    assert s[told_from(s) :] == "you would love it there!"
    assert told_from("I went to Bruges last week.") > len("I went to Bruges last week.")
    assert told_from("I'm moving in March, my sister said.") == 0  # the words before are hers
    assert told_from("Are you moving to Berlin? You would love it.") == 0
    assert told_from("I'd love to move to Lisbon.") == 0  # would
    for had in ("I'd been meaning to learn the cello.", "We'd always planned a trip to Crete.", "I'd finally had enough."):
        assert told_from(had) > len(had)  # "'d" before a participle is "had", not "would"
    assert told_from("I tried what you said and posted my sketches.") > 40  # names words, reports none
    s = "I emailed a few galleries and one replied and said yes!"  # any "and" begins a verb's reach
    assert s[told_from(s) :] == "said yes!"


@pytest.mark.parametrize(
    ("text", "what", "when_said"),
    [
        ("I watched a classic movie the other day.", "watched a classic movie", "the other day"),
        ("The other night we went to a jazz concert.", "went to a jazz concert", "The other night"),
    ],
)
def test_the_other_day_is_the_week_before_the_day_said_with_the_words_kept(text, what, when_said):
    [st] = said(f"User: {text}")
    assert (st.form, st.value, st.when, st.when_said) == ("event", what, "2023-05-07/2023-05-13", when_said)
    assert st.attribute.startswith("event-2023-05-07-")


def test_recently_is_the_month_before_the_day_said_and_a_plan_keeps_its_own_day():
    [st] = said("User: I took a pottery class recently, and it was great!")
    assert (st.form, st.value, st.when, st.when_said) == ("event", "took a pottery class", "2023-04-14/2023-05-13", "recently")
    [plan] = said("User: I recently decided to move to Utrecht next month.")
    assert (plan.form, plan.value, plan.due, plan.when_said) == ("plan", "move to Utrecht", "2023-06", "next month")


@pytest.mark.parametrize("text", ["I went to Lisbon years ago.", "As a kid I went to Lisbon.", "I'm going to Lisbon the other day."])
def test_a_past_with_no_span_or_a_plan_for_a_day_gone_by_makes_no_event(text):
    assert [s for s in said(f"User: {text}") if s.form == "event"] == []


@pytest.mark.parametrize(
    "text",
    [
        "It all began in June last year when we met at a conference and she said she wanted to work with me.",
        "Last week, when we went to Bruges, it rained.",
    ],
)
def test_a_when_clause_with_its_day_in_another_clause_is_never_dated_the_day_said(text):
    assert [s for s in said(f"User: {text}") if s.form == "event" and s.when == "2023-05-14"] == []


def _all(text: str) -> list[tuple[str, str, object]]:
    """(entity, attribute, value) of every statement the rule finder makes of one message."""
    msgs = parse_transcript(f"User: {text}", default_time="2023-05-14")
    return [(s.entity, s.attribute, s.value) for s in extract(msgs, PERSONAL, {}, source="t.md", default_date="2023-05-14").statements]


@pytest.mark.parametrize(
    "text",
    [
        "She tells me I moved to Paris.",
        "my boss says I should move to Berlin",
        "My friend said that I live in Berlin.",
        "My sister heard I moved to Paris.",
        "I heard that I moved to Paris, which is news to me.",
        "I live in Berlin, my sister says.",
        "She tells me, as always, that I moved to Paris.",
        "我妈说我搬到了北京。",
        "她告诉我我住在北京。",
    ],
)
def test_a_slot_pattern_after_someone_elses_reporting_verb_writes_nothing_of_the_speaker(text):
    assert [(e, a, v) for e, a, v in _all(text) if a in ("home_city", "events", "plans") or a.startswith(("event-", "plan-"))] == []


@pytest.mark.parametrize(
    ("text", "city"),
    [
        ("As I said, I live in Berlin.", "Berlin"),
        ("I told you I moved to Paris.", "Paris"),
        ("My sister said hi! I moved to Paris.", "Paris"),  # her words end with her sentence
        ("My mom said I should, so I moved to Paris.", "Paris"),  # … or where the speaker speaks again
        ("我说过我住在北京。", "北京"),
        ("我在读一本小说，我住在北京。", "北京"),  # 小说 is a novel, not 说
    ],
)
def test_the_speakers_own_words_are_not_reported_speech(text, city):
    assert ("user", "home_city", city) in _all(text)


def test_hearing_reports_only_the_words_after_it_and_never_blocks_the_whole_sentence():
    s = "Fixed up the engine of my old truck last week, heard a weird noise though."
    assert [(st.form, st.value) for st in said(f"User: {s}")] == [("event", "fixed up the engine of my old truck")]
    s = "I ran a half marathon last week, then I heard that the race was cancelled next year."
    assert [(st.form, st.value) for st in said(f"User: {s}")] == [("event", "ran a half marathon")]
    assert said("User: I heard that Tomas moved to Linz last week.") == []
    assert said("User: I heard from my sister that we are moving to Graz next month.") == []
    s = "Hey, I'm so excited to tell you I started a pottery class!"  # the speaker's own telling
    assert told_from(s) > len(s)
    assert told_from("I heard back from the gallery and we're opening in May.") > 40


@pytest.mark.parametrize(
    ("text", "what", "when"),
    [
        ("Also I baked sourdough yesterday.", "baked sourdough", "2023-05-13"),
        ("Just yesterday I joined a rowing club.", "joined a rowing club", "2023-05-13"),
        ("I opened my own bike shop not so long ago - pretty cool, huh?", "opened my own bike shop", "2023-04-14/2023-05-13"),
        ("I ran a half marathon last week - what's new with you?", "ran a half marathon", LAST_WEEK),
        ("I had to close my old bank account last week.", "close my old bank account", LAST_WEEK),
        ("On Friday I had a breakthrough with my thesis.", "had a breakthrough", "2023-05-12"),
        ("Last week I found an amazing hiking trail near the lake.", "found an amazing hiking trail near the lake", LAST_WEEK),
    ],
)
def test_talk_before_the_subject_a_tagged_question_and_had_to_leave_the_event_standing(text, what, when):
    assert [(s.form, s.value, s.when) for s in said(f"User: {text}")] == [("event", what, when)]


@pytest.mark.parametrize(
    "text",
    [
        "Did you open your own bike shop not so long ago, right?",  # a question from its first word
        "Are you moving to Berlin - what do you think?",
        "I had to dig deep.",  # what was needed, no doing named
        "I had to be brave last week.",
        "If I had to pick a city last week, it would be Oslo.",
        "I found comfort in my work last week.",  # a state of mind, no find
        "I read your message yesterday.",  # "read" is no event verb: present or past, and yours
    ],
)
def test_a_real_question_a_need_or_a_state_of_mind_is_still_no_event(text):
    assert [s for s in said(f"User: {text}") if s.form == "event"] == []


@pytest.mark.parametrize(
    ("text", "what", "when"),
    [
        ("Here's a pic of a cake I made recently!", "made a cake", "2023-04-14/2023-05-13"),
        ("Check out these puppies we met at the shelter!", "met puppies at the shelter", "2023-05-14"),
        ("This reminds me of a road trip we took last year.", "took a road trip", "2022"),
        ("Here's a photo of a ramen bowl that I tried in Kyoto.", "tried a ramen bowl in Kyoto", "2023-05-14"),
    ],
)
def test_an_event_told_in_a_relative_clause_is_the_noun_it_hangs_on(text, what, when):
    assert [(s.form, s.value, s.when) for s in said(f"User: {text}")] == [("event", what, when)]


@pytest.mark.parametrize(
    "text",
    [
        "The cake she made was great.",  # hers
        "My mom and I made dinner.",  # no noun the clause hangs on (and no event verb phrase after 'made')
        "The impact we made on their lives was huge.",
        "Even as a child I learned to swim on my own.",
        "It's the time I spent with her.",
        "The job I had was boring.",
        "Remember the festival I went to?",
        "Maybe the cake I made will be good.",
        "Take a look at how I performed with the band.",
    ],
)
def test_a_relative_clause_of_someone_else_or_of_no_happening_is_no_event(text):
    assert [s.value for s in said(f"User: {text}") if s.form == "event" and s.value.startswith(("made", "spent", "had", "went", "learned", "performed"))] == []


def test_a_past_verb_joined_by_and_is_an_event_of_its_own_and_never_one_done_to_the_speaker():
    assert [(s.value, s.when) for s in said("User: I went to Bruges last week and visited a chocolate museum.")] == [
        ("went to Bruges", LAST_WEEK), ("visited a chocolate museum", LAST_WEEK)]  # fmt: skip
    [st] = said("User: Last week I visited home and caught up with my old classmates.")  # home: too slight
    assert (st.value, st.when) == ("caught up with my old classmates", LAST_WEEK)
    assert said("User: It helped me grow and made me appreciate life more.") == []
    assert said("User: My friend got me into it and gave me some advice.") == []
    assert said("User: When I was younger, we had some money problems and had to rely on outside help.") == []


@pytest.mark.parametrize(
    ("text", "what"),
    [
        ("My cousins wanted to try pottery, so I hosted a class for them on Friday.", "hosted a class for them"),
        ("Just been restoring an old sailboat lately.", "restoring an old sailboat"),
        ("Been practicing my violin scales lately.", "practicing my violin scales"),
        ("I'm taking a woodworking class at the community center.", "taking a woodworking class at the community center"),
    ],
)
def test_a_pronoun_after_a_preposition_and_a_doing_said_without_its_subject_are_read(text, what):
    assert [s.value for s in said(f"User: {text}") if s.form == "event"] == [what]


@pytest.mark.parametrize(
    "text",
    [
        "Been having some tough times lately.",
        "I'm taking the time to reflect.",
        "We've been figuring out how to add these values.",
        "We're brainstorming some to help kids.",
        "I hosted it for them.",
        "I'm planning a party.",  # arranging: a plan's word, no doing of the day
    ],
)
def test_a_state_a_pronoun_or_an_arrangement_is_no_doing_of_the_day(text):
    assert [s for s in said(f"User: {text}") if s.form == "event"] == []


@pytest.mark.parametrize(
    ("text", "what", "when"),
    [
        ("Three years ago I was in Rio de Janeiro with my aunt.", "was in Rio de Janeiro", "2020"),
        ("We were in Lisbon last week.", "was in Lisbon", LAST_WEEK),
        ("Last week, I decided to run for the school board.", "decided to run for the school board", LAST_WEEK),
        ("I'm wrapping up my thesis and looking for a job.", "wrapping up my thesis", "2023-05-14"),
        ("I'm participating in a chess tournament this weekend.", None, None),  # a day to come: the plan, no doing
    ],
)
def test_a_stay_a_decision_with_its_day_gone_by_and_more_doings_of_the_day(text, what, when):
    events = [(s.value, s.when) for s in said(f"User: {text}") if s.form == "event"]
    assert events == ([(what, when)] if what else [])


@pytest.mark.parametrize(
    "text",
    [
        "I was in Chicago, it was awesome!",  # no day said to put the stay on
        "I decided to learn Spanish.",  # no day: a decision is no event without it
        "I recently decided to move to Utrecht next month.",  # the plan, not the deciding too
    ],
)
def test_a_stay_or_a_decision_with_no_day_gone_by_is_no_event(text):
    assert [s for s in said(f"User: {text}") if s.form == "event"] == []


@pytest.mark.parametrize(
    ("text", "what"),
    [
        ("Last week I worked on a project to support them.", "worked on a project"),
        ("Been tweaking a pasta recipe to make it healthier.", "tweaking a pasta recipe"),
        ("I sent a letter to my mom yesterday.", "sent a letter to my mom"),  # to whom, not what for
        ("I went to Rome last week.", "went to Rome"),
    ],
)
def test_an_event_is_named_without_what_it_was_done_for(text, what):
    # "worked on a project to support them" would fulfil a plan "get support" by one shared word
    assert [s.value for s in said(f"User: {text}") if s.form == "event"] == [what]


def test_what_a_doctor_says_one_has_is_news_not_reported_speech():
    from mdmem.extract.reported import reported_at

    s = "医生说我有高血压，不算严重。"
    assert not reported_at(s, s.index("高血压"))
    s = "My doctor said I have high blood pressure."
    assert not reported_at(s, s.index("high"))
    s = "My sister said I have high blood pressure."
    assert reported_at(s, s.index("high"))
