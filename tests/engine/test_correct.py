"""Corrections: a wrong value replaced as if it had never been said (pure, no files)."""

from mdmem.engine.decide import Statement, plan_statements
from tests.engine.test_cascade import NOW, facts, final, make_rules, say


def rules():
    deps = [
        {"when": "home_city", "then": "commute", "action": "confirm"},
        {"when": "home_city", "then": "region", "action": "derive",
         "lookup": {"Munich": "Bavaria", "Berlin": "Brandenburg"}},
    ]  # fmt: skip
    return make_rules(deps)


def moved_to_wrong_value():
    """Munich since 2025; then 'I live in Schwabing now' (a district, not a city)."""
    r = rules()
    state = facts(home_city="Munich", commute="U-Bahn", region="Bavaria")
    state = final(say(state, r, "home_city", "Schwabing", at="2026-02-10"), state)
    assert state["user/commute"].status == "uncertain"
    return r, state


def test_the_wrong_value_leaves_history_and_the_old_period_goes_on():
    r, state = moved_to_wrong_value()
    plan = say(state, r, "home_city", "Munich", at="2026-03-01", kind="correct")
    after = final(plan, state)["user/home_city"]
    assert plan.decisions[0][1] == "CORRECT"
    assert (after.value, after.valid_from, after.history) == ("Munich", "2025-01-01", [])


def test_dependents_are_put_back_as_before_the_wrong_value():
    r, state = moved_to_wrong_value()
    after = final(say(state, r, "home_city", "Munich", kind="correct"), state)
    assert after["user/commute"].status == "active"
    assert after["user/commute"].uncertain_because is None
    assert after["user/region"].value == "Bavaria"


def test_a_real_move_to_another_value_re_derives_the_dependents():
    r, state = moved_to_wrong_value()
    after = final(say(state, r, "home_city", "Berlin", kind="correct"), state)
    city = after["user/home_city"]
    assert (city.value, city.valid_from) == ("Berlin", "2026-02-10")
    assert [h["value"] for h in city.history] == ["Munich"]  # Schwabing is gone
    assert after["user/region"].value == "Brandenburg"
    assert after["user/commute"].uncertain_because["new"] == "Berlin"


def test_set_first_then_fix_drops_the_value_set_replaced():
    r, state = moved_to_wrong_value()
    state = final(say(state, r, "home_city", "Munich", at="2026-02-10"), state)
    assert [h["value"] for h in state["user/home_city"].history] == ["Munich", "Schwabing"]
    after = final(say(state, r, "home_city", "Munich", kind="correct"), state)["user/home_city"]
    assert (after.valid_from, after.history) == ("2025-01-01", [])


def test_nothing_to_correct_is_a_plain_statement_or_nothing():
    r = rules()
    plan = say({}, r, "home_city", "Munich", kind="correct")
    assert plan.decisions[0][1] == "ADD"
    state = facts(home_city="Munich")
    assert say(state, r, "home_city", "Munich", kind="correct").decisions[0][1] == "NOOP"


def test_a_correction_in_the_same_batch_as_the_mistake():
    r = rules()
    state = facts(home_city="Munich", region="Bavaria")
    sts = [Statement("user", "home_city", value="Schwabing", at="2026-02-10"),
           Statement("user", "home_city", kind="correct", value="Munich", at="2026-02-10")]  # fmt: skip
    after = final(plan_statements(state, r, sts, now=NOW), state)
    assert after["user/home_city"].history == [] and after["user/region"].value == "Bavaria"
