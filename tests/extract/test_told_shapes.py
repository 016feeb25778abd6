"""Sentence shapes of real chat, each a general form with sentences of our own (issue 21): news
told with "so excited to tell you …", a role done "as a mentor", a pronoun object standing for the
member the sentence before spoke of, and a present perfect with no adverb ("I've joined …")."""

from __future__ import annotations

import pytest

from tests.extract.test_happenings import DAY, said, statements

LAST_WEEK = "2023-05-01/2023-05-07"  # said on Sunday 2023-05-14


def events(text: str) -> list[tuple[str, str]]:
    return [(str(s.value), s.when or "") for s in said(f"User: {text}") if s.form == "event"]


def slot(text: str, attribute: str) -> list[object]:
    return [s.value for s in statements(f"User: {text}") if s.attribute == attribute]


@pytest.mark.parametrize(
    ("text", "what", "when"),
    [
        ("I'm so excited to tell you I joined a choir last week!", "joined a choir", LAST_WEEK),
        ("So happy to say we adopted a rescue greyhound yesterday.", "adopted a rescue greyhound", "2023-05-13"),
        ("I'm so proud to share that I finished a half marathon last week.", "finished a half marathon", LAST_WEEK),
        ("Just wanted to let you know I started a pottery course last week.", "started a pottery course", LAST_WEEK),
        ("好开心告诉你，上周我去了青岛出差", "去青岛出差", LAST_WEEK),
    ],
)
def test_news_told_after_how_the_speaker_feels_is_theirs(text, what, when):
    assert events(text) == [(what, when)]


def test_so_after_a_verb_of_being_is_how_much_and_so_between_clauses_still_joins():
    assert events("I was so tired last week.") == []
    assert ("went to the police station", "2023-05-13") in events("I lost my wallet, so I went to the police station yesterday.")


@pytest.mark.parametrize(
    ("text", "what"),
    [
        ("I've been volunteering as a mentor at the youth centre.", "volunteering as a mentor at the youth centre"),
        ("I'm volunteering as a tutor for refugee kids.", "volunteering as a tutor for refugee kids"),
        ("Last week I joined the hockey club as an assistant coach.", "joined the hockey club as an assistant coach"),
    ],
)
def test_a_role_said_with_as_a_is_part_of_what_is_done(text, what):
    assert [w for w, _ in events(text)] == [what]


def test_as_a_kid_or_as_a_gift_still_ends_the_phrase():
    assert [w for w, _ in events("Last week I baked a pie as a gift for my neighbour.")] == ["baked a pie"]


@pytest.mark.parametrize(
    ("text", "what", "when"),
    [
        ("This is my cat Pebble. We adopted her three years ago.", "adopted Pebble", "2020"),
        ("I got a new kitten last month. I took her to the vet yesterday.", "took my kitten to the vet", "2023-05-13"),
        ("My twins turned six. I took them to the zoo last weekend.", "took my twins to the zoo", "2023-05-06/2023-05-07"),
    ],
)
def test_a_pronoun_object_stands_for_the_member_the_sentence_before_spoke_of(text, what, when):
    assert (what, when) in events(text)


@pytest.mark.parametrize(
    "text",
    [
        "I adopted him two years ago.",  # no one before it
        "My sister visited. I met her colleagues at the bar yesterday.",  # "her" is whose, not whom
        "My cats are fine. I took her to the vet yesterday.",  # the number does not fit
    ],
)
def test_a_pronoun_with_no_member_that_fits_is_left_as_said(text):
    assert not any(w.startswith(("adopted Pebble", "met my", "took my")) for w, _ in events(text))


@pytest.mark.parametrize(
    ("text", "what"),
    [
        ("I've joined a chess club!", "joined a chess club"),
        ("We've organized a bake sale for the library.", "organized a bake sale for the library"),
        ("I have acquired two new pieces for my shop.", "acquired two new pieces for my shop"),
        ("I've also started learning how to play the cello.", "started learning how to play the cello"),
    ],
)
def test_a_present_perfect_with_no_adverb_is_news_of_the_day(text, what):
    assert events(text) == [(what, DAY)]


@pytest.mark.parametrize(
    "text",
    [
        "I've visited Lisbon twice.",
        "I've played chess for years.",
        "I've never joined a gym.",
        "I've always loved hiking.",
        "I've got a funny story for you.",
        "We've got some big projects in the works.",
        "I've had some great games in my career.",
        "I've volunteered at the shelter many times.",
    ],
)
def test_a_present_perfect_that_counts_spans_denies_or_has_tells_no_day(text):
    assert events(text) == []


def test_joining_a_club_is_no_employer_in_chinese_either():
    assert slot("我上周加入了一个读书会。", "employer") == []
    assert slot("我上个月加入了腾讯。", "employer") == ["腾讯"]


@pytest.mark.parametrize(
    ("text", "what"),
    [
        ("I've been focusing on training for the relay.", "focusing on training for the relay"),
        ("I've been trying out new bread recipes.", "trying out new bread recipes"),
        ("I've been reading this gripping thriller.", "reading gripping thriller"),
    ],
)
def test_a_vague_verb_kept_up_with_its_particle_is_a_doing(text, what):
    assert [w for w, _ in events(text)] == [what]


@pytest.mark.parametrize(
    "text",
    [
        "I've been focusing on myself.",
        "I've been trying out some stuff.",
        "I've been looking into evening courses in law.",  # a look is no doing yet (nor a plan fulfilled)
        "I've been reading this book.",  # which book is the picture's
        "I've been working on this car.",
        "I've been feeling kinda low lately.",
    ],
)
def test_a_kept_up_doing_that_names_nothing_is_no_event(text):
    assert events(text) == []


@pytest.mark.parametrize(
    ("text", "what"),
    [
        ("We were able to raise some money for the food bank!", "raised some money for the food bank"),
        ("I was finally able to buy a new bike last week.", "bought a new bike"),
        ("I was able to visit my grandparents in Porto.", "visited my grandparents in Porto"),
    ],
)
def test_what_the_speaker_was_able_to_do_is_done(text, what):
    assert [w for w, _ in events(text)] == [what]


@pytest.mark.parametrize(
    "text",
    ["I wasn't able to go to the party.", "If I was able to fly, I would.", "I was able to overcome it."],
)
def test_able_to_denied_supposed_or_naming_nothing_is_no_event(text):
    assert events(text) == []


@pytest.mark.parametrize(
    ("text", "what"),
    [
        ("Thanks! Still working on opening my bakery.", "working on opening my bakery"),
        ("Currently writing my second novel.", "writing my second novel"),
    ],
)
def test_a_doing_kept_up_with_its_im_dropped_after_an_adverb_is_an_event(text, what):
    assert [w for w, _ in events(text)] == [what]


def test_a_doing_that_is_a_subject_is_no_event():
    assert events("Working on cars helps me relax.") == []
    assert events("Still thinking about your question.") == []


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("I love going on canal walks with my neighbours.", "going on canal walks"),
        ("I enjoy curling up with a good audiobook.", "curling up with a good audiobook"),
        ("I love capturing the colours of autumn - reds, golds.", "capturing the colours of autumn"),
        ("I love organizing quiz nights for the club.", "organizing quiz nights"),
    ],
)
def test_a_doing_loved_at_length_is_a_like(text, value):
    assert [(v, "like") for v in slot(text, "likes")] == [(value, "like")]


@pytest.mark.parametrize(
    "text",
    [
        "I love seeing them splash in the pond.",
        "I love making this lemon tart with my gran.",  # "this": the one shown
        "I love having you around.",
        "Do you love going on canal walks?",
        "I don't love going to the dentist.",
    ],
)
def test_a_doing_loved_of_someone_else_shown_asked_or_denied_is_no_like(text):
    assert [s for s in slot(text, "likes") if s in ("going on canal walks", "going to the dentist")] == [] and not any(
        str(v).startswith(("seeing", "making", "having")) for v in slot(text, "likes")
    )


def test_a_making_doing_of_the_pack_kept_up_with_no_day_to_come_is_an_event_and_with_one_a_plan():
    assert events("I'm filming a documentary about my street.") == [("filming a documentary about my street", DAY)]
    assert [(s.form, s.value) for s in said("User: I'm editing the wedding video tomorrow.")] == [("plan", "edit the wedding video")]
