"""Classes of wrong value found by judging the lifecycle on real chat by hand (issue 21), each
with sentences of our own: a verb cut from its object is no hobby, a place liked is not a business
run, what "they" are to the speaker is no friend, and a second object of an -ing verb keeps it."""

from __future__ import annotations

import pytest

from tests.extract.test_happenings import statements


def values(text: str, attribute: str) -> list[object]:
    """What a message says of `attribute`, events and plans aside."""
    return [s.value for s in statements(f"User: {text}") if s.attribute == attribute and s.form not in ("event", "plan")]


@pytest.mark.parametrize(
    "text",
    [
        "Started hitting the pool most mornings to stay in shape.",
        "Last month I started filming a documentary about my street.",
        "I just started shooting a short film with my cousin.",
        "Recently started learning, but I haven't had a lesson yet.",
        "I started taking evening classes at the college.",
        "I've started making a quilt for my niece.",
    ],
)
def test_an_ing_verb_said_with_its_object_or_one_that_needs_one_is_no_hobby(text):
    assert values(text, "hobby") == []


@pytest.mark.parametrize(
    ("text", "hobby"),
    [
        ("I've taken up bouldering.", "bouldering"),
        ("I started knitting last winter.", "knitting"),
        ("Just started doing aerial yoga, it's great.", "aerial yoga"),
        ("I recently took up woodturning and it's so relaxing.", "woodturning"),
    ],
)
def test_an_ing_word_that_names_a_doing_by_itself_is_still_a_hobby(text, hobby):
    assert values(text, "hobby") == [hobby]


@pytest.mark.parametrize(
    "text",
    [
        "This is my favorite studio, the light there is lovely.",
        "We had lunch at my favourite cafe near the river.",
        "That's my go-to bakery on the way to work.",
    ],
)
def test_a_business_the_speaker_likes_is_not_one_they_run(text):
    assert values(text, "business") == []


def test_a_business_of_their_own_is_still_theirs():
    assert values("I love running my own bakery.", "business") == ["bakery"]
    assert values("My little studio is doing well these days.", "business") == ["studio"]


@pytest.mark.parametrize(
    "text",
    [
        "They're my little buddies, always sleepy in the sun.",
        "These are my pals, the two goldfish on the shelf.",
        "It's like my best friend, this old bike.",
    ],
)
def test_what_they_are_to_the_speaker_is_no_friend(text):
    assert values(text, "friends") == []


def test_friends_spoken_of_are_still_friends():
    assert values("I went bowling with my buddies on Friday.", "friends") == ["buddies"]


def test_a_second_object_of_an_ing_verb_is_done_too_not_an_item_of_its_own():
    assert values("Watching the rain and the passing trains really helps me relax.", "habits") == [
        "watching the rain",
        "watching the passing trains",
    ]
    assert values("Playing chess and watching films help me unwind.", "habits") == [
        "playing chess",
        "watching films",
    ]
