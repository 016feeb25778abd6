"""The life of a plan: fulfilled by its event, overdue with a question, confirmed, cancelled."""

from mdmem.engine.decide import Statement, plan_statements
from mdmem.engine.pending import pending
from mdmem.model import life
from mdmem.model.factfile import Fact
from mdmem.model.rules_yaml import load_rules
from tests.conftest import ROOT

RULES = load_rules(ROOT / "rules" / "personal.yaml")
NOW = "2026-01-01T00:00:00Z"


def run(state, *statements, today=None):
    plan = plan_statements(state, RULES, list(statements), now=NOW, today=today)
    out = dict(state)
    for c in plan.changes:
        out[c.key] = c.after
    return plan, out


def planned(what, at, due, **kw):
    return Statement("dana", life.plan_attribute(what), value=what, at=at, tentative=True,
                     form="plan", due=due, **kw)  # fmt: skip


def told(what, when, **kw):
    return Statement("dana", life.event_attribute(what, when), value=what, at=life.first_day(when),
                     form="event", when=when, **kw)  # fmt: skip


CANOE = planned("canoe trip", "2024-05-10", "2024-06", when_said="next month")


def test_a_plan_is_tentative_until_its_day_has_passed_then_uncertain_with_a_question():
    _, out = run({}, CANOE)
    fact = out["dana/plan-canoe_trip"]
    assert (fact.kind, fact.status, fact.valid_from, fact.due) == ("plan", "tentative", "2024-05-10", "2024-06")
    plan, out = run(out, today="2024-06-30")  # June is not over
    assert plan.changes == []
    plan, out = run(out, today="2024-07-01")
    assert [c.decision for c in plan.changes] == ["UNCERTAIN"]
    why = out["dana/plan-canoe_trip"].uncertain_because
    assert why["change"] == "overdue" and why["changed_at"] == "2024-07-01"
    assert why["question"]["en"] == "Did Dana's canoe trip happen in June?"
    assert why["question"]["zh"] == "Dana原本打算6月canoe trip，后来成了吗？"
    assert run(out, today="2024-08-01")[0].changes == []  # asked once


def test_the_event_that_tells_it_fulfils_the_plan_both_linked():
    _, out = run({}, CANOE)
    plan, out = run(out, told("did the canoe trip", "2024-06-22/2024-06-23", when_said="two weekends ago"))
    assert [(c.decision, c.key) for c in plan.changes] == [
        ("ADD", "dana/event-2024-06-22-did_the_canoe_trip"), ("CONFIRM", "dana/plan-canoe_trip")]
    event, done = out["dana/event-2024-06-22-did_the_canoe_trip"], out["dana/plan-canoe_trip"]
    assert done.status == "active" and done.fulfilled_by == "[[facts/dana/event-2024-06-22-did_the_canoe_trip]]"
    assert event.fulfils == "[[facts/dana/plan-canoe_trip]]" and event.when_said == "two weekends ago"
    assert run(out, today="2024-08-01")[0].changes == []  # a fulfilled plan is never overdue


def test_an_event_from_before_the_plan_or_of_another_happening_fulfils_nothing():
    _, out = run({}, CANOE)
    plan, out = run(out, told("canoe trip", "2023-08"), told("trip to Rome", "2024-06-02"))
    assert [c.decision for c in plan.changes] == ["ADD", "ADD"]
    assert out["dana/plan-canoe_trip"].status == "tentative"


def test_an_event_told_twice_is_one_event():
    _, out = run({}, told("10k fun run", "2023-05-07", when_said="last Sunday"))
    plan, out = run(out, told("did a 10k fun run", "2023-05", where="Riverside Park"))
    assert [d for _, d in plan.decisions] == ["UPDATE"]
    event = out["dana/event-2023-05-07-10k_fun_run"]
    assert (event.when, event.when_said, event.where) == ("2023-05-07", "last Sunday", "Riverside Park")


HOME = Statement("dana", "home_city", value="Amsterdam", at="2023-01-01")
ADDRESS = Statement("dana", "home_address", value="Jordaan", at="2023-01-01")
MOVE = planned("move to Utrecht", "2024-01-10", "2024-03", sets=(("home_city", "Utrecht"),))


def test_a_state_changing_plan_changes_nothing_the_day_it_is_announced():
    plan, out = run({}, HOME, ADDRESS, MOVE)
    assert out["dana/home_city"].value == "Amsterdam" and out["dana/home_address"].status == "active"
    assert out["dana/plan-move_to_utrecht"].sets == {"home_city": "Utrecht"}


def test_confirm_keep_makes_the_event_and_cascades_on_the_day_of_the_answer():
    _, out = run({}, HOME, ADDRESS, MOVE)
    _, out = run(out, today="2024-04-02")
    assert out["dana/plan-move_to_utrecht"].status == "uncertain"
    plan, out = run(out, Statement("dana", "plan-move_to_utrecht", kind="keep", at="2024-04-10"))
    event = out["dana/event-2024-03-move_to_utrecht"]
    assert (event.when, event.fulfils) == ("2024-03", "[[facts/dana/plan-move_to_utrecht]]")
    home = out["dana/home_city"]
    assert (home.value, home.valid_from) == ("Utrecht", "2024-04-10")
    assert out["dana/home_address"].status == "uncertain"  # the move cascades like any move
    assert out["dana/home_address"].uncertain_because["changed_at"] == "2024-04-10"


def test_the_event_of_a_move_sets_the_city_on_the_day_it_happened():
    _, out = run({}, HOME, MOVE)
    _, out = run(out, told("moved to Utrecht", "2024-03-04/2024-03-10"))
    assert out["dana/home_city"].value == "Utrecht" and out["dana/home_city"].valid_from == "2024-03-04"
    assert out["dana/plan-move_to_utrecht"].status == "active"


def test_the_state_said_plainly_fulfils_the_plan_that_meant_it():
    _, out = run({}, HOME, MOVE)
    plan, out = run(out, Statement("dana", "home_city", value="Utrecht", at="2024-03-05"))
    done = out["dana/plan-move_to_utrecht"]
    assert done.status == "active" and done.fulfilled_by == "[[facts/dana/event-2024-03-05-move_to_utrecht]]"
    assert out["dana/event-2024-03-05-move_to_utrecht"].kind == "event"


def test_a_cancelled_plan_ends_without_a_fulfilment():
    _, out = run({}, HOME, MOVE)
    cancel = Statement("dana", "plan-move", "invalidate", value="move", at="2024-02-01", form="plan")
    plan, out = run(out, cancel)
    gone = out["dana/plan-move_to_utrecht"]
    assert gone.status == "expired" and gone.value is None and gone.fulfilled_by is None and gone.sets == {}
    assert gone.history[-1]["reason"] == "cancelled, said the person"
    assert gone.history[-1]["sets"] == {"home_city": "Utrecht"} and gone.history[-1]["due"] == "2024-03"
    assert out["dana/home_city"].value == "Amsterdam"
    assert run(out, today="2025-01-01")[0].changes == []
    plan, _ = run({}, cancel)  # nothing planned: nothing to cancel
    assert [d for _, d in plan.decisions] == ["NOOP"] and plan.changes == []


def test_a_plan_said_again_with_a_new_day_is_rescheduled_and_waits_again():
    _, out = run({}, CANOE, today="2024-07-02")
    assert out["dana/plan-canoe_trip"].status == "uncertain"
    plan, out = run(out, planned("the canoe trip", "2024-07-02", "2024-07", when_said="this month"))
    fact = out["dana/plan-canoe_trip"]
    assert [d for _, d in plan.decisions] == ["UPDATE"]
    assert (fact.status, fact.due, fact.uncertain_because) == ("tentative", "2024-07", None)
    assert fact.history[-1]["due"] == "2024-06" and fact.history[-1]["reason"] == "rescheduled"


def test_a_second_plan_of_the_same_name_after_the_first_came_true_is_a_new_plan():
    _, out = run({}, CANOE, told("canoe trip", "2024-06-15"))
    _, out = run(out, planned("canoe trip", "2025-04-01", "2025-06"))
    assert out["dana/plan-canoe_trip-2"].status == "tentative"


def test_forgetting_the_event_unlinks_the_plan():
    _, out = run({}, CANOE, told("canoe trip", "2024-06-15"))
    plan, out = run(out, Statement("dana", "event-2024-06-15-canoe_trip", "forget", at="2024-07-01"))
    assert out["dana/plan-canoe_trip"].fulfilled_by is None


def test_pending_asks_about_a_plan_once_its_day_has_passed_on_read_alone():
    _, out = run({}, CANOE, told("fun run", "2024-05-01"))
    assert pending(out, RULES, "2024-06-10") == []  # not yet its day; an event asks nothing
    asked = pending(out, RULES, "2024-07-03")
    assert [(p["fact"], p["status"]) for p in asked] == [("dana/plan-canoe_trip", "uncertain")]
    assert asked[0]["question"]["en"] == "Did Dana's canoe trip happen in June?"
    assert out["dana/plan-canoe_trip"].status == "tentative"  # reading wrote nothing


def test_reject_says_it_did_not_happen():
    _, out = run({}, CANOE, today="2024-07-02")
    _, out = run(out, Statement("dana", "plan-canoe_trip", "reject", at="2024-07-05"))
    assert out["dana/plan-canoe_trip"].status == "expired"
    assert out["dana/plan-canoe_trip"].history[-1]["reason"] == "rejected by the person"


def test_the_question_names_the_plan_in_the_persons_words():
    fact = Fact("user", "plan-move_to_utrecht", "move to Utrecht", "tentative", kind="plan", due="2025-03-08")
    q = plans_question(fact)
    assert q["en"] == "Did you move to Utrecht on 8 March 2025?"
    assert q["zh"] == "你原本打算2025年3月8日move to Utrecht，后来成了吗？"


def plans_question(fact):
    from mdmem.engine.plans import question

    return question(fact, RULES, "2026-01-01")


def test_a_plan_told_as_done_by_its_name_comes_true_and_nothing_else_does():
    party = planned("gaming party", "2022-06-03", "2022-06-18/2022-06-19")
    _, out = run({}, party)
    told = Statement("dana", "plan-gaming_party", "keep", value="gaming party", at="2022-06-24", form="plan")
    plan, out = run(out, told, today="2022-06-24")
    assert out["dana/plan-gaming_party"].status == "active"  # fulfilled before the day was checked
    assert out["dana/event-2022-06-18-gaming_party"].when == "2022-06-18/2022-06-19"
    plan, _ = run({}, Statement("dana", "plan-weather", "keep", value="weather", at="2022-06-24", form="plan"))
    assert [d for _, d in plan.decisions] == ["NOOP"] and plan.changes == []


def test_volunteering_at_a_shelter_is_not_the_ring_toss_tournament_for_it():
    assert not life.same_happening("ring-toss tournament for the homeless shelter's fundraiser",
                                   "volunteered at the homeless shelter")  # fmt: skip
