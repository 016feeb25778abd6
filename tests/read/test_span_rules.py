"""The rules a span is taken by (read/spans.py, docs/reading.md#the-answer-first), each on
made-up sentences: the words of a passage that answer, cut where a person would cut them."""

from __future__ import annotations

from mdmem.lang.questions import ACTION, asks_describe, asks_for_list, choice_options, question_type
from mdmem.lang.verbs import base
from mdmem.read.compose import from_passages
from mdmem.read.days import period_text
from mdmem.read.passages import Passage
from mdmem.read.question import Question
from mdmem.read.route import on_head
from mdmem.read.span_state import favorite
from mdmem.read.spans import _trim, phatic, span, when_text

SPEAKERS = ["Priya", "Tomas"]


def said(question: str, text: str, day: str = "2024-03-20") -> str:
    q = Question.of(question).naming([], SPEAKERS)
    return span(q, text, day, "en").text


def test_an_irregular_past_is_the_question_s_verb() -> None:
    assert base("took") == "take" and base("wrote") == "write" and base("walked") == "walked"
    # 'took' is 'take': the words after it answer, not the verb with them.
    assert said("What did Priya take to the lake?", "I took my kayak to the lake on Sunday.") == "kayak"


def test_a_quoted_title_is_said_whole_and_alone() -> None:
    assert said("What book is Tomas reading?", 'I\'m reading "The Salt Road" and hoping it helps my shop.') == "The Salt Road"
    assert said("What album does Priya play at night?", "At night I play an album called 'Low Tide,' which calms me.") == "Low Tide"


def test_a_subject_before_is_and_a_word_of_the_question_is_placed() -> None:
    text = "Reading is my quiet hour. And on rainy days, knitting is therapy for me."
    assert said("What hobby is a therapy for Tomas on rainy days?", text) == "knitting"


def test_and_before_a_subject_or_a_past_verb_starts_a_new_clause() -> None:
    got = said("What did Priya present at recently?", "Recently I presented at a small design meetup and received kind notes.")
    assert got == "small design meetup"
    assert said("What is the name of Tomas's cat?", "Her name's Biscuit and she's very loud.") == "Biscuit"


def test_a_time_at_the_end_of_a_span_goes() -> None:
    assert said("What movie did Tomas watch that cheered him up?", "I watched Paper Moons last night, it cheered me up.") == "Paper Moons"


def test_where_who_and_how_many_prefer_a_span_of_their_type() -> None:
    # Weekdays, 'I'll' and a sentence's opening word are no person or place.
    assert said("Who drove Priya to the airport?", "On Saturday Jonas drove me to the airport.") == "Jonas"
    assert said("Who drove Priya to the airport?", "Maybe Jonas drove me to the airport, I'll ask.") == "Jonas"
    assert said("Which city is Tomas excited to visit?", "It's Lisbon, I'm so excited to visit.") == "Lisbon"


def test_vague_and_future_times_are_said_as_said_never_as_a_made_up_day() -> None:
    assert when_text("We perform at the fair next month.", "2024-01-20", "en") == "February 2024"
    assert when_text("We perform at the fair next month.", "2024-12-05", "en") == "January 2025"
    assert when_text("See you next week!", "2024-01-20", "en") == "the week after 20 January 2024"
    assert when_text("I got the scar a few years ago.", "2024-01-20", "en") == "a few years before 2024"
    assert when_text("I adopted her two weeks ago.", "2024-01-20", "en") == "two weeks before 20 January 2024"
    assert when_text("I finished it a few days ago.", "2024-01-20", "en") == "a few days before 20 January 2024"
    # A count of years is a year: 'six years ago' said in 2024 is 2018.
    assert when_text("I started climbing six years ago.", "2024-01-20", "en") == "2018"
    # A season is a season, not its first month.
    assert when_text("We hiked there last summer.", "2024-01-20", "en") == "summer 2023"
    assert period_text("2023-06-01", "2023-09-01", "zh") == "2023年夏天"
    assert period_text("2023-06-01", "2023-08-01", "en") == "June 2023 – July 2023"


def test_question_words_that_do_not_ask_for_a_list_or_a_time() -> None:
    for one in ("Which city was Priya visiting in May?", "What news did Tomas share?",
                "Which language is Priya learning?", "Why did Tomas name the goat Pepper?"):  # fmt: skip
        assert not asks_for_list(one, "en"), one
    for many in ("Which cities has Priya lived in?", "What board games does Tomas play?", "Name all the cities I lived in"):
        assert asks_for_list(many, "en"), many
    assert question_type("What time management tricks does Priya use?", "en") == "what"
    assert question_type("What time did Tomas leave?", "en") == "when"


def test_a_question_asking_what_someone_did_asks_for_an_action() -> None:
    assert ACTION().search("What did Tomas do with his kids last weekend?")
    assert ACTION().search("What was Priya doing in Porto?")
    assert not ACTION().search("What are the names of Tomas's kids?")


def test_how_it_was_or_felt_is_said_by_the_words_that_say_it() -> None:
    assert asks_describe("How does Tomas describe his new flat?", "en")
    assert asks_describe("How did Priya feel after the race?", "en")
    assert not asks_describe("How did Priya get to the race?", "en")
    assert said("How did Priya feel about the pottery fair?", "The pottery fair was so calm and cheerful, I loved it.") == "calm and cheerful"
    # A verb going on ('was working on') says nothing of how it was; the sentence after does.
    assert said("How does Tomas describe the pottery fair?", "At the pottery fair I was working on a vase. It was lovely.") == "lovely"
    # 'That's awesome!' before the sentence that tells of it greets the other person.
    assert said("How does Tomas describe the pottery fair?", "That's awesome! The pottery fair I went to was really peaceful.") == "peaceful"


def test_the_sentence_after_one_that_sets_up_the_question_answers_it() -> None:
    # 'I ran a bake sale' holds the question; 'It was all to help…' goes on about it.
    text = "I ran a bake sale at our school last week. It was all to help the animal rescue in town."
    assert said("What cause did Priya's bake sale support?", text) == "help the animal rescue in town"


def test_a_passage_that_holds_more_of_the_question_answers_before_one_that_echoes_it() -> None:
    q = Question.of("What did Tomas plant in the garden by the shed?").naming([], SPEAKERS)
    echo = Passage("episodes/2024/a.md", "m1", "2024-03-01", None, "Tomas", "The garden by the shed is lovely.", 2.0)
    told = Passage("episodes/2024/b.md", "m2", "2024-03-02", None, "Tomas",
                   "The garden by the shed is my pride. I planted tulips there.", 1.9)  # fmt: skip
    got = from_passages(q, [echo, told], "en")
    assert got is not None and got.first == "Tulips" and got.basis[0]["anchor"] == "m2"


def test_what_someone_did_to_a_thing_is_an_action_not_the_thing() -> None:
    assert ACTION().search("What did Priya design for her shop?")
    assert ACTION().search("What did Tomas and Priya celebrate at the cafe?")
    assert not ACTION().search("What pets does Priya have?")
    assert not ACTION().search("What does Tomas like to eat?")


def test_a_thing_known_by_its_name_is_answered_by_a_name() -> None:
    assert Question.of("Which band did Priya see at the festival?").named
    assert not Question.of("What did Priya see at the festival?").named
    assert said("What movie did Tomas watch with his sister?", "My sister and I watched Paper Moons, it was so moving.") == "Paper Moons"
    # A greeting names the one spoken to, by name or the start of it ('Pri'), never the answer.
    assert said("Which band did Priya see at the festival?", "Cheers, Tomas! At the festival we saw The Quiet Hours play live.") == "The Quiet Hours"
    assert said("Which book is Tomas reading?", "Thanks, Pri! I am reading a book by Ann Vale.") == "Ann Vale"
    # A name never runs across a comma ('Thanks, Tomas, Jonas' is no one).
    assert said("Who drove Priya to the airport?", "Thanks, Tomas, Jonas drove me to the airport.") == "Jonas"


def test_a_choice_is_answered_by_the_option_that_was_said() -> None:
    assert choice_options("Does Priya live near a lake or the hills?", True) == ("lake", "hills")
    assert choice_options("Which dog came first - Ash or Birch?", False) == ("Ash", "Birch")
    assert choice_options("Would Tomas read books by A. N. Rook or Lee Hale?", True) == ("A. N. Rook", "Lee Hale")
    assert choice_options("Did it rain? Answer yes or no.", True) == ()
    assert choice_options("What kind of songs or poems does Priya write?", False) == ()
    q = Question.of("Does Priya live near a lake or the hills?").naming([], SPEAKERS)
    home = Passage("episodes/2024/a.md", "m1", "2024-03-01", None, "Priya", "From my window at home I see the lake every morning.", 1.0)
    other = Passage("episodes/2024/b.md", "m2", "2024-03-02", None, "Priya", "I live a quiet life near home.", 2.0)
    got = from_passages(q, [other, home], "en")
    assert got is not None and got.first == "Lake" and got.basis[0]["anchor"] == "m1"
    # Words that hold both options alike, or neither, choose none; and never 'Yes'.
    vague = Passage("episodes/2024/c.md", "m3", "2024-03-03", None, "Priya", "I live near home, it is quiet.", 1.0)
    got = from_passages(q, [vague], "en")
    assert got is not None and got.first not in ("Lake", "Hills", "Yes", "No")


def test_a_gathered_list_leaves_out_a_clause_of_its_own() -> None:
    q = Question.of("What instruments does Priya play?").naming([], SPEAKERS)
    texts = ["I play the cello in a trio.", "Lately I play the banjo on the porch.", "Playing music is something you never regret."]
    found = [Passage("episodes/2024/a.md", f"m{i}", "2024-03-01", None, "Priya", t, 3.0 - i / 10) for i, t in enumerate(texts)]
    got = from_passages(q, found, "en")
    assert got is not None and got.first == "Cello in a trio, banjo on the porch"  # comma-separated: an item may hold "and"


def test_a_favourite_is_what_they_call_their_favourite() -> None:
    assert Question.of("What is Priya's favorite dance?").favorite
    assert favorite("My favorite dance is contemporary, it feels free.") == "contemporary"
    assert favorite("I love all dances, but contemporary is my top pick.") == "contemporary"
    assert favorite("Sea Glass: Blue Hour is one of my favorites!") == "Sea Glass: Blue Hour"
    assert favorite("My fav snack: roasted chickpeas.") == "roasted chickpeas"
    assert favorite("That is my favorite.") is None and favorite("I went to the lake.") is None
    assert said("What is Tomas's favorite dance?", "I try every dance at the studio. Salsa is my favorite.") == "Salsa"


def test_since_of_a_time_is_no_reason() -> None:
    q = Question.of("Why did Ana start the blog?").naming([], SPEAKERS)
    assert span(q, "Since we last talked, I started a blog because I wanted to share recipes.", "2024-01-01", "en").text == "wanted to share recipes"
    assert span(q, "I started a blog since nobody shares vegan recipes.", "2024-01-01", "en").text == "nobody shares vegan recipes"
    # 'since I was a kid' is when, not why: no reason is taken from it.
    assert not span(q, "Since I was a kid I loved food, so I started a blog.", "2024-01-01", "en").typed


def test_how_many_takes_a_number_before_both_and_both_before_a_few() -> None:
    # 'both' counts two; 'a few' and 'several' answer only when the sentence says no number.
    assert said("How many bikes does Priya own?", "I take both my bikes out on a few weekends.") == "two"
    assert said("How many bikes does Priya own?", "I own three bikes, and both are red on a few days.") == "three"
    assert said("How many trips did Tomas take?", "I took a few trips to the coast.") == "a few"


def test_a_run_that_only_says_when_answers_no_what_question() -> None:
    # 'last night', 'next Monday', 'every morning and evening' say when, not what or why.
    assert said("What activity did Tomas and his dad do together in May 2024?", "My dad and I made some soup together last night!") == "made some soup"
    text = "Wanna meet up at that bakery next Monday? Let's try their cinnamon buns."
    assert said("What do Priya and Tomas plan to try when they meet at the bakery?", text) == "cinnamon buns"
    text = "Fresh air is really important to me, so I walk him in the park every morning and evening."
    assert said("Why does Priya walk her dog in the park every day?", text) == "Fresh air is really important"
    # A time at a span's start goes as one at its end does.
    assert _trim("Last night I cooked this smoky bean stew") == "cooked this smoky bean stew"


def test_how_old_takes_the_age_said() -> None:
    assert said("How old is Biscuit?", "Biscuit is already old, he is 11 years old.") == "11 years old"


def test_a_favourite_the_question_already_names_is_not_the_answer() -> None:
    text = "Salted pretzels are one of my favorites, but I also love a spicy rice cracker."
    assert said("What is one of Tomas's favorite snacks besides salted pretzels?", text) == "love a spicy rice cracker"


def test_a_formula_of_talk_answers_less_than_what_is_told() -> None:
    assert phatic("Long time no see!") and phatic("Sorry to hear that, Tomas.") and phatic("That's a gorgeous poster!")
    assert not phatic("That poster is from a gallery in Porto.") and not phatic("I can swim now.")
    text = "Can't wait for the opening tomorrow! Let's fill the opening with music from my dad's records."
    assert said("What does Priya say about the opening?", text) == "music from my dad's records"


def test_a_fact_answers_a_what_question_only_when_it_holds_the_noun_asked_for() -> None:
    q = Question.of("What outdoor activities has Tomas done with his colleagues?")
    at = {u.text: i for i, u in enumerate(q.units)}
    assert not on_head(q, {at["colleagues"]}, [{"value": ["Rob"]}])  # his colleagues' slot: not activities
    assert on_head(q, {at["activities"]}, [])
    q = Question.of("Which types of cars does Tomas like?")
    at = {u.text: i for i, u in enumerate(q.units)}
    assert on_head(q, {at["like"]}, [{"value": ["music", "classic cars"]}])  # the value holds the noun
    assert not on_head(q, {at["like"]}, [{"value": ["music"]}])
    assert on_head(Question.of("What is Tomas allergic to?"), {0}, [])  # no noun asked for


def test_to_before_a_verb_is_no_place() -> None:
    # 'to check it out', 'to visit' are verbs; 'to the lake' and a name after 'in' are places.
    assert said("Where did Tomas start filming his video?", "I started filming my video - can't wait for you to check it out!") != "check it out"
    assert said("Where did Tomas start filming his video?", "I started filming my video in Porto, come and check it out!") == "Porto"
    assert said("Where did Priya and her cousin plan to try rowing?", "My cousin and I plan to try rowing, close to the lake.") == "lake"
