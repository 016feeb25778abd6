"""Events and plans read from chat, English and Chinese: what, when, where, with whom; and the
sentences that must give nothing (a question, a supposition, reported speech, a joke, someone
else's doing, a plan said with its own cancellation)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from mdmem.engine.decide import Statement
from mdmem.extract.rule_finder import extract
from mdmem.extract.transcript import parse_transcript
from mdmem.model.rules_yaml import load_rules

ROOT = Path(__file__).resolve().parents[2]
PERSONAL = load_rules(ROOT / "rules" / "personal.yaml")
DAY = "2023-05-14"  # a Sunday


def statements(text: str, day: str = DAY) -> list[Statement]:
    """Everything the personal pack reads in a transcript said on `day`."""
    msgs = parse_transcript(text, default_time=day)
    return extract(msgs, PERSONAL, {}, source="t.md", default_date=day).statements


def said(text: str, day: str = DAY) -> list[Statement]:
    return [s for s in statements(text, day) if s.form in ("event", "plan")]


def one(text: str, day: str = DAY) -> Statement:
    [st] = said(f"User: {text}", day)
    return st


@pytest.mark.parametrize(
    ("text", "what", "when", "when_said"),
    [
        ("I did a 10k fun run for the animal shelter last Sunday.", "10k fun run for the animal shelter", "2023-05-07", "last Sunday"),
        ("We finally did the canoe trip two weekends ago!", "canoe trip", "2023-04-29/2023-04-30", "two weekends ago"),
        ("I presented our project at a meetup last week.", "presented our project at a meetup", "2023-05-01/2023-05-07", "last week"),
        ("Yesterday I went to Bruges with my sister.", "went to Bruges", "2023-05-13", "Yesterday"),
        ("We adopted a second kitten called Biscuit.", "adopted a second kitten called Biscuit", DAY, ""),
        ("上周我去了杭州出差。", "去杭州出差", "2023-05-01/2023-05-07", "上周"),  # weeks run Monday to Sunday
        ("前天我跑了一个半程马拉松。", "跑一个半程马拉松", "2023-05-12", "前天"),
        ("去年夏天我们去了青岛。", "去青岛", "2022-06/2022-08", "去年夏天"),
    ],
)
def test_an_event_is_what_happened_and_when_resolved_against_the_day_said(text, what, when, when_said):
    st = one(text)
    assert (st.form, st.value, st.when, st.when_said, st.tentative) == ("event", what, when, when_said, False)
    assert st.attribute.startswith(f"event-{when.split('/')[0]}-")


def test_a_clause_with_no_subject_after_the_speakers_own_is_theirs_too():
    assert one("I was busy too - went to a community meetup last Friday.").value == "went to a community meetup"
    assert one("Last Friday, I did yoga and meditation to relax.").value == "yoga"
    assert one("I did take Seraphim to the park last Sunday.").value == "take Seraphim to the park"
    assert one("Also, last weekend, I had the opportunity to attend a rock concert in Boston.").value == (
        "attend a rock concert in Boston")
    assert said("User: I had to dig deep last week.") == []
    assert one("I had an audition yesterday for a writing gig.").value == "had an audition"  # a noun the pack names
    assert said("User: We had a nice chat yesterday.") == [] and said("User: We did alright last week.") == []


def test_where_and_with_whom_when_said():
    st = one("Yesterday I went to Bruges with my sister.")
    assert (st.where, st.with_) == ("Bruges", ("my sister",))
    st = one("Me and my husband went to a concert in Leeds last night.")
    assert (st.value, st.where, st.with_) == ("went to a concert in Leeds", "Leeds", ("my husband",))
    st = one("我和老公前天去爬了山。")
    assert (st.value, st.with_) == ("爬山", ("老公",))
    assert one("上周我去了杭州出差。").where == "杭州"


@pytest.mark.parametrize(
    ("text", "day", "what", "due", "sets"),
    [
        ("We're thinking about a canoe trip next month.", "2023-05-10", "canoe trip", "2023-06", ()),
        ("I'm moving to Utrecht in March.", "2024-01-10", "move to Utrecht", "2024-03", (("home_city", "Utrecht"),)),
        ("I'm moving to Utrecht in March.", "2024-04-10", "move to Utrecht", "2025-03", (("home_city", "Utrecht"),)),
        ("I accepted an offer from Nordlicht Labs, starting in May.", "2024-01-10", "start at Nordlicht Labs", "2024-05",
         (("employer", "Nordlicht Labs"),)),
        ("打算明年考研。", "2023-05-10", "考研", "2024", ()),
        ("我还打算十二月去日本。", "2023-10-10", "去日本", "2023-12", ()),
        ("下个月要去东京。", "2023-05-10", "去东京", "2023-06", ()),
        ("I'll visit my parents in Oslo next weekend.", "2023-05-10", "visit my parents in Oslo", "2023-05-13/2023-05-14", ()),
    ],
)  # fmt: skip
def test_a_plan_is_tentative_with_its_due_the_next_month_or_day_named(text, day, what, due, sets):
    st = one(text, day)
    assert (st.form, st.value, st.due, st.sets, st.tentative, st.at) == ("plan", what, due, sets, True, day)


def test_a_plan_said_with_its_end_cancels_and_never_plans():
    for text in ("We were going to move, but not anymore.", "本来打算搬家，后来不搬了。"):
        st = one(text)
        assert (st.kind, st.form) == ("invalidate", "plan")
    st = one("We cancelled the canoe trip because of the weather.")
    assert (st.kind, st.value) == ("invalidate", "canoe trip")


def test_the_slot_a_plan_sets_is_not_todays_value():
    keys = [s.key for s in parse("User: I accepted an offer from Nordlicht Labs, starting in May.")]
    assert "user/employer" not in keys and "user/plan-start_at_nordlicht_labs" in keys


def parse(text: str) -> list[Statement]:
    msgs = parse_transcript(text, default_time="2024-01-10")
    return extract(msgs, PERSONAL, {}, source="t.md", default_date="2024-01-10").statements


@pytest.mark.parametrize(
    "text",
    [
        "if I won the lottery I'd move to Bali",
        "are you moving to Berlin?",
        "Are you going to the concert next week?",
        "my boss says I should learn Rust",
        "She said we're going to move next year.",
        "lol jk I'm moving to Mars next week",
        "My sister ran a marathon last week.",
        "My sister ran a marathon, then went to Paris last week.",
        "I never went to Paris.",
        "no, I did not",
        "We went not to Paris but stayed home.",
        "I didn't go to the party last week.",
        "I might go to Rome next month.",
        "Maybe we'll go camping next weekend.",
        "Did I tell you I ran a marathon last week?",
        "We went there yesterday.",
        "I had lunch with Mia yesterday.",
        "I want to learn Rust.",  # a wish with no day to come
        "I'm going to the gym tomorrow.",  # too slight to ask about later
        "I'm reading a good book this month.",  # going on now, not to come
        "我妈说我应该考公务员。",
        "要是中了彩票我就搬去大理。",
        "你下个月要去东京吗？",
        "他上周去了杭州出差。",
        "我没去杭州。",
        "我想学吉他。",
        "开玩笑的，我下周要搬去火星。",
    ],
)
def test_nothing_is_read_where_nothing_is_the_speakers_own(text):
    assert [s for s in said(f"User: {text}") if s.entity == "user"] == []


def test_a_doing_of_someone_the_speaker_names_is_theirs():
    # "My sister ran a marathon": the sister's event (the people grammar), never the speaker's
    assert [(s.entity, s.value, s.when) for s in said("User: My sister ran a marathon last week.")] == [
        ("sister", "ran a marathon", "2023-05-01/2023-05-07"),
    ]  # fmt: skip


def test_a_past_tense_move_is_the_city_not_a_plan_and_a_plan_for_a_day_gone_is_nothing():
    keys = [s.key for s in parse("User: I moved to Porto last week.")]
    assert keys == ["user/home_city"]  # the slot's change tells it; no event beside it, no plan
    assert said("User: I'm moving to Porto last week.") == []


def test_reading_stays_linear_in_the_length_of_a_message():
    base = "I did a 10k fun run last Sunday with Mia and we are going to visit Rome next month, "
    timings = []
    for n in (50, 400):
        start = time.perf_counter()
        said("User: " + base * n)
        timings.append((time.perf_counter() - start) / n)
    assert timings[1] < timings[0] * 4  # per sentence, the cost does not grow with the message


def test_a_name_that_is_also_a_word_is_never_made_an_event_of_its_own():
    # "my cat Ginger" is the names grammar's; the event grammar reads the doing, word as said
    assert [s.value for s in said("User: I bought some ginger yesterday.")] == ["bought some ginger"]
    assert said("User: My cat Ginger is asleep.") == []


def test_a_hundred_names_in_one_message_make_no_event_or_plan():
    names = ", ".join(f"Name{i}" for i in range(100))
    assert said(f"User: My friends are {names}.") == []


def test_a_long_phrase_ends_where_a_phrase_of_its_own_begins_never_cutting_off_a_name() -> None:
    assert one("Last week I gave a few talks at the homeless shelter I volunteer at.").value == (
        "gave a few talks at the homeless shelter")
    assert one("Last month I took a road trip for research for my next movie.").value == (
        "took a road trip for research")
    assert one("Last weekend I took my family on a road trip to Jasper.").value == (
        "took my family on a road trip to Jasper")
    assert one("Yesterday I got back from an awesome trip to Rio de Janeiro- we checked out yoga.").value == (
        "got back from an awesome trip to Rio de Janeiro")


@pytest.mark.parametrize(
    ("text", "what", "due"),
    [
        ("I'm going to keep learning Portuguese and reading more.", "keep learning Portuguese", ""),
        ("We have a family reunion coming up next month.", "family reunion", "2023-06"),
        ("Our wedding is next Saturday, so nervous!", "wedding", "2023-05-20"),
        ("I'm looking forward to my upcoming trip to Lisbon.", "trip to Lisbon", ""),
        ("I'm looking forward to trying out new recipes from my grandma's notebook.", "try out new recipes from my grandma's notebook", ""),
        ("I'm getting ready for a chess comp next month.", "chess competition", "2023-06"),
        ("I'm training for the Oslo marathon in September!", "Oslo marathon", "2023-09"),
    ],
)
def test_a_plan_said_as_a_happening_coming_up_a_doing_kept_up_or_one_looked_forward_to(text, what, due):
    st = one(text)
    assert (st.form, st.kind, st.value, st.due, st.tentative) == ("plan", "assert", what, due, True)


@pytest.mark.parametrize(
    "text",
    [
        "I'm gonna keep going strong.",
        "I'm going to try my best.",
        "I have a lot of work coming up.",  # no happening the pack names
        "My sister is next door.",
        "My birthday is 14 March.",  # a day of the year, not a plan
        "My birthday is next week.",
        "Maybe our party is next week.",  # a hedge
        "Is your wedding next Saturday?",  # a question
        "I'm looking forward to it!",
        "Our party was amazing last week.",  # gone by
    ],
)
def test_a_coming_happening_or_a_kept_up_doing_that_names_nothing_to_follow_is_no_plan(text):
    assert said(f"User: {text}") == []


@pytest.mark.parametrize(
    ("text", "what", "due"),
    [
        ("My goal is to improve my free throw percentage.", "improve my free throw percentage", ""),
        ("Honestly, one of my goals is to learn to sail.", "learn to sail", ""),
        ("Our main goal for this year is to open a second shop in Leeds.", "open a second shop in Leeds", "2023"),
        ("My goal is to run a marathon next spring.", "run a marathon", "2024-03/2024-05"),
    ],
)
def test_a_goal_the_speaker_states_is_a_plan(text, what, due):
    st = one(text)
    assert (st.form, st.value, st.due, st.tentative) == ("plan", what, due, True)


@pytest.mark.parametrize(
    "text",
    [
        "My goal was to finish it before June.",  # gone by
        "My goal would be to sail around the world.",  # a supposition
        "If I get the job, my goal is to buy a boat.",
        "Is your goal to win the league?",  # a question
        "My boss says my goal is to sell more cars.",  # reported speech
        "I guess my goal is to learn Rust.",  # a hedge
        "His goal is to win the cup.",  # someone else's
        "The goal is to finish the report.",  # no one's in particular
        "My goal is to chase my dreams.",  # nothing to follow
        "My dream is to sail around the world.",  # a wish, as "dreaming of" is
        "My goal is to make it happen.",
    ],
)
def test_a_goal_that_is_not_the_speakers_own_aim_now_is_no_plan(text):
    assert said(f"User: {text}") == []


def test_a_clause_with_no_subject_carries_the_speaker_on_to_a_plan():
    sts = said("User: Last month I went to Lisbon, then off to Porto next week.")
    assert [(s.form, s.value, s.due or s.when) for s in sts] == [
        ("event", "went to Lisbon", "2023-04"), ("plan", "go to Porto", "2023-05-15/2023-05-21")]  # fmt: skip
    assert [(s.form, s.value) for s in said("User: We finished the move, and then going to paint the kitchen next weekend.")] == [
        ("event", "finished the move"), ("plan", "paint the kitchen")]  # fmt: skip
    # someone else's clause carries on as theirs; a doing that is a clause's subject is no plan
    assert [(s.entity, s.value) for s in said("User: My sister is in Lisbon now, then off to Porto next week.")] == [
        ("sister", "go to Porto")]  # fmt: skip
    assert [s.value for s in said("User: I finished the report, but going to the gym is hard.")] == ["finished the report"]


def test_a_plan_word_of_intention_keeps_its_plan_over_a_perfect_and_try_takes_a_doing():
    assert (one("We've been planning to visit Kyoto next spring.").value, one("I've been thinking about trying painting.").value) == (
        "visit Kyoto", "try painting")  # fmt: skip
    assert one("I have been hoping to learn the cello.").value == "learn the cello"
    # "going to" after a perfect is where one goes, not a plan; "try" with no doing of its own is none
    assert said("User: I've been going to the gym a lot.") == []
    assert said("User: I'm going to try being nicer.") == [] and said("User: I'm going to try it.") == []


@pytest.mark.parametrize(
    ("text", "what"),
    [
        ("I've been networking with local artists lately.", "networking with local artists"),
        ("I've been working hard on my online store.", "working hard on my online store"),
        ("We have been renovating the attic.", "renovating the attic"),
    ],
)
def test_a_doing_kept_up_till_now_is_an_event_of_the_day_said(text, what):
    st = one(text)
    assert (st.form, st.value, st.when, st.tentative) == ("event", what, DAY, False)


@pytest.mark.parametrize(
    "text",
    [
        "I've been feeling down.", "I've been working hard.", "I've been working a lot lately.", "I've been doing well.",
        "I've been thinking about you.", "I've been loving it.", "I've been super busy.", "Have you been running lately?",
        "If I had been training more, I'd have won.", "My boss says I've been slacking on the reports.",
    ],
)  # fmt: skip
def test_a_kept_up_doing_that_names_nothing_done_or_is_not_told_as_so_is_no_event(text):
    assert [s for s in said(f"User: {text}") if s.entity == "user"] == []


def test_an_event_told_with_the_verbs_of_chat_and_its_shorthand_written_out():
    assert one("Last week I scored 30 points in the final.").value == "scored 30 points in the final"
    assert one("Yesterday I bonded with Priya during a pottery class.").value == "bonded with Priya during a pottery class"
    assert one("I just watched \"Spirited Away\" and loved it.").value == 'watched "Spirited Away"'
    assert one("Last night I went to that neighbourhood mtg.").value == "went to neighbourhood meeting"
    assert one("Hi, since we last talked I went to that neighbourhood mtg.").value == "went to neighbourhood meeting"
    assert one("Two days ago I had a scary incident on the motorway.").value == "had a scary incident on the motorway"
    assert said("User: I found that it works.") == [] and said("User: I went to that.") == []
    assert one("I donated my old sofa to a charity shop yesterday.").value == "donated my old sofa to a charity shop"
    assert one("Just skyped with my cousin in Perth.").value == "skyped with my cousin in Perth"
    assert one("Last week I sent my novel to three publishers.").value == "sent my novel to three publishers"
    assert one("I restored an old motorbike last year.").when == "2022"
    assert one("I taught a pottery class last Tuesday.").value == "taught a pottery class"
    assert one("I rehearsed with a small choir after work.").value == "rehearsed with a small choir"
    assert said("User: I studied hard.") == [] and said("User: We trained a lot last week.") == []  # how, not what



def test_a_doing_said_in_the_progressive_with_no_day_to_come_is_an_event_of_the_day_said():
    st = one("Big news - I'm writing a cookbook about Basque stews for a small publisher.")
    assert (st.form, st.value, st.when) == ("event", "writing a cookbook about Basque stews", DAY)
    assert one("I'm teaming up with a bakery down the road.").value == "teaming up with a bakery down the road"
    assert one("I'm learning Norwegian.").value == "learning Norwegian"
    plan = one("I'm writing a cookbook next spring.")  # a day to come: still a plan
    assert (plan.form, plan.value) == ("plan", "write a cookbook")
    for text in ("I'm reading your letter right now.", "I'm working on it.", "Are you writing a cookbook?",
                 "I'm working hard."):
        assert said(f"User: {text}") == [], text
    assert [s.entity for s in said("User: My sister is writing a cookbook.")] == ["sister"]  # hers, not the user's


def test_this_or_that_before_a_noun_is_a_determiner_and_who_stands_before_and_i_shares_the_subject():
    st = one("Priya and I went to this pottery fair downtown last Saturday.")
    assert (st.value, st.with_, st.when) == ("went to pottery fair downtown", ("Priya",), "2023-05-13")
    assert one("I met with that landlord yesterday.").value == "met with landlord"
    # only "and I" keeps its subject whole: a clause still begins after "after"
    assert one("Especially after I failed my driving test last week, I've been feeling low.").value == "failed my driving test"
    assert one("Just facetimed with that climbing instructor from Oslo.").value == "facetimed with climbing instructor from Oslo"
    for text in ("I bought this yesterday.", "I went to this place yesterday.", "I did that last week."):
        assert said(f"User: {text}") == [], text


def test_a_verb_joined_to_a_plans_verb_is_a_plan_of_the_same_word():
    plans = said("User: I'm going to visit Tromsø and rent a kayak next month.")
    assert [p.value for p in plans] == ["visit Tromsø", "rent a kayak"]
    assert {p.due for p in plans} == {"2023-06"}
    plans = said("User: We're planning to rent a cabin, then hike the ridge trail in June.")
    assert [p.value for p in plans] == ["rent a cabin", "hike the ridge trail"]
    plans = said("User: My goal is to keep running the book club and organising the swap meet.")
    assert [p.value for p in plans] == ["keep running the book club", "keep organising the swap meet"]
    # no verb, an attitude, a hedge, a cancellation: no second plan
    assert [p.value for p in said("User: I'm going to visit Tromsø and my aunt too.")] == ["visit Tromsø"]
    assert said("User: I'm gonna keep pushing and make it happen.") == []
    assert [p.value for p in said("User: I'm planning to rent a cabin, and perhaps hike the ridge.")] == ["rent a cabin"]
    assert [p.kind for p in said("User: We were going to rent a cabin and hike the ridge, but not anymore.")] == ["invalidate"]


def test_been_to_a_place_with_its_day_said_is_a_visit():
    st = one("We've been to Tallinn last spring with my cousin.")
    assert (st.value, st.where, st.with_, st.when) == ("been to Tallinn", "Tallinn", ("my cousin",), "2022-03/2022-05")
    assert one("Been to Ghent yesterday, so much fun!").when == "2023-05-13"  # no subject at the head: the speaker's
    for text in ("I've been to Tallinn twice.", "I've never been to Tallinn.", "Have you been to Tallinn?",
                 "I've been to the gym yesterday."):
        assert said(f"User: {text}") == [], text  # no day to put it on, a negation, a question, no place


def test_a_happening_the_pack_names_with_its_day_said_right_after_is_a_plan():
    st = one("I've got a chess tournament next month and I feel ready.")
    assert (st.form, st.value, st.due) == ("plan", "chess tournament", "2023-06")
    assert one("We have a pottery workshop this Saturday!").due == "2023-05-20"
    assert one("We had an amazing silent retreat last week.").value == "had an amazing silent retreat"  # a noun the pack names
    for text in ("I have a lot of work next week.", "I have a game in my head.", "I had a tournament next month."):
        assert [s for s in said(f"User: {text}") if s.form == "plan"] == [], text


def test_helping_and_raising_are_events_of_the_speaker():
    assert one("Last year, I helped rebuild a playground in my village.").value == "helped rebuild a playground in my village"
    assert one("We raised a lot of money for the food bank last month!").when == "2023-04"
    assert said("User: It helped me a lot last week.") == [] and said("User: I helped.") == []


def test_what_befell_a_thing_of_the_speakers_is_their_event():
    st = one("My old scooter broke down last week, so I walk now.")
    assert (st.value, st.when) == ("old scooter broke down", "2023-05-01/2023-05-07")
    assert one("Ugh - my new camera, the one from Kyoto, got stolen yesterday!").value == "new camera got stolen"
    for text in ("My heart broke when I heard.", "If my scooter broke down I'd walk.", "Maybe my laptop died.",
                 "My grandpa died last year."):  # no thing; supposed; hedged; a person's, not a thing's
        assert [s for s in said(f"User: {text}") if s.entity == "user"] == [], text
