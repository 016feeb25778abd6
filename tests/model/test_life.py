"""Events and plans in the fact file: their names, their time notation, their fields and errors."""

from datetime import date

import pytest

from mdmem.errors import FactFileError
from mdmem.model import life
from mdmem.model.factfile import Fact, parse, render
from mdmem.model.fastparse import parse_canonical


def test_names_are_slugs_a_folder_listing_sorts_by_time():
    assert life.event_attribute("10k fun run", "2023-05-07") == "event-2023-05-07-10k_fun_run"
    assert life.event_attribute("去杭州出差", "2023-05-01/2023-05-07") == "event-2023-05-01-去杭州出差"
    assert life.plan_attribute("canoe trip") == "plan-canoe_trip"
    assert life.plan_attribute("canoe trip", {"plan-canoe_trip"}) == "plan-canoe_trip-2"
    long = life.event_attribute("x" * 200, "2023-05-07")
    assert len(long) == 64 and long.startswith("event-2023-05-07-x")
    assert life.family("event-2023-05-07-run") == "event" and life.family("plans") is None


@pytest.mark.parametrize(
    ("text", "first", "after"),
    [
        ("2023-05-07", date(2023, 5, 7), date(2023, 5, 8)),
        ("2023-05", date(2023, 5, 1), date(2023, 6, 1)),
        ("2023", date(2023, 1, 1), date(2024, 1, 1)),
        ("2023-12", date(2023, 12, 1), date(2024, 1, 1)),
        ("2023-05-01/2023-05-07", date(2023, 5, 1), date(2023, 5, 8)),
        ("2023-06/2023-08", date(2023, 6, 1), date(2023, 9, 1)),
    ],
)
def test_time_notation_names_its_days_and_writes_back_the_same(text, first, after):
    assert life.span(text) == (first, after)
    assert life.time_text(first, after) == text


@pytest.mark.parametrize("bad", ["", "soon", "2023-13", "2023-02-30", "2023-05-07/2023-05-01", "2023/"])
def test_a_time_that_is_not_one_is_refused(bad):
    assert life.span(bad) is None


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("canoe trip", "did the canoe trip", True),
        ("move to Utrecht", "moved to Utrecht", True),
        ("canoeing", "canoe trip", True),
        ("trip to Rome", "trip to Paris", False),
        ("考研", "参加了考研", True),
        ("去杭州出差", "去了杭州出差", True),
        ("fun run", "pottery class", False),
    ],
)
def test_one_happening_told_two_ways(a, b, same):
    assert life.same_happening(a, b) is same


def test_an_event_and_a_plan_round_trip_and_read_fast():
    event = Fact("dana", "event-2023-05-07-fun_run", "10k fun run", kind="event", valid_from="2023-05-07",
                 when="2023-05-07", when_said="last Sunday", where="Riverside Park", with_=["Mia", "my sister"],
                 fulfils="[[facts/dana/plan-fun_run]]")  # fmt: skip
    plan = Fact("dana", "plan-move_to_utrecht", "move to Utrecht", "tentative", kind="plan",
                valid_from="2024-01-10", due="2024-03", when_said="in March", sets={"home_city": "Utrecht"})  # fmt: skip
    for fact in (event, plan):
        text = render(fact)
        assert parse(text) == fact
        assert parse_canonical(text, "x", None) == fact
    text = render(event)
    assert "when: '2023-05-07'\nwhen_said: last Sunday\nwhere: Riverside Park\nwith:\n- Mia\n- my sister\n" in text
    assert "due: 2024-03\nwhen_said: in March\nsets:\n  home_city: Utrecht\n" in render(plan)


HEAD = "---\nentity: dana\nattribute: plan-x\nvalue: x\n"


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ("kind: plan\ndue: next month\n", "write a day '2023-05-07', a month '2023-05'"),
        ("kind: plan\nwith: {a: b}\n", "must be a list of names"),
        ("kind: plan\nsets: [home_city]\n", "must map attributes to the values"),
        ("kind: plan\nsets: {Home City: Utrecht}\n", "names 'Home City'"),
        ("kind: plan\nwhere: [a, b]\n", "field 'where' must be text"),
    ],
)
def test_bad_event_and_plan_fields_name_the_line_and_the_fix(body, says):
    with pytest.raises(FactFileError) as e:
        parse(HEAD + body + "---\n", path="facts/dana/plan-x.md")
    assert says in str(e.value) and "facts/dana/plan-x.md" in str(e.value)
    assert e.value.line is not None


def test_on_another_fact_the_same_keys_are_the_persons_own():
    fact = parse("---\nentity: user\nattribute: employer\nvalue: Acme\nwhere: Leeds\ndue: soon\n---\n")
    assert fact.extra == {"where": "Leeds", "due": "soon"} and fact.where is None
    assert render(fact).endswith("value: Acme\nstatus: active\ndue: soon\nwhere: Leeds\n---\n")
    event = parse(HEAD.replace("plan-x", "event-x") + "kind: event\ndue: someday\n---\n")
    assert event.extra == {"due": "someday"} and event.due is None


def test_a_hand_written_single_name_is_read_as_a_list():
    fact = parse(HEAD + "kind: event\nwhen: '2023'\nwith: Mia\n---\n")
    assert fact.with_ == ["Mia"]


@pytest.mark.parametrize(("plan", "told"), [("catch a marlin", "caught a marlin"), ("grow tomatoes", "grew tomatoes"),
                                            ("run a 10k", "ran a 10k"), ("move to Utrecht", "moved to Utrecht")])  # fmt: skip
def test_a_past_tells_the_same_thing_as_its_base(plan: str, told: str) -> None:
    assert life.key_words(plan) == life.key_words(told) != frozenset()
