"""The pure planner: decisions and cascades over in-memory facts, no files."""

from hypothesis import given, settings
from hypothesis import strategies as st

from mdmem.engine.decide import Statement, plan_statements
from mdmem.model.factfile import Fact
from mdmem.model.rules_yaml import rules_from_mapping

NOW = "2026-03-01T12:00:00Z"


def make_rules(deps, **attrs):
    names = {n for d in deps for n in (d["when"], d["then"])} | set(attrs)
    return rules_from_mapping(
        {"attributes": {n: attrs.get(n, {}) for n in sorted(names)}, "dependencies": deps}
    )


def facts(**values):
    return {
        f"user/{k}": Fact("user", k, v, valid_from="2025-01-01", recorded_at=NOW)
        for k, v in values.items()
    }


def say(state, rules, attribute, value, at="2026-02-10", kind="assert", **kw):
    st_ = Statement("user", attribute, kind=kind, value=value, at=at, **kw)
    return plan_statements(state, rules, [st_], now=NOW)


def final(plan, state):
    out = dict(state)
    for c in plan.changes:
        out[c.key] = c.after
    return out


def test_chain_of_four_carries_doubt_downstream_in_order() -> None:
    rules = make_rules(
        [
            {"when": "a", "then": "b"},
            {"when": "b", "then": "c", "action": "confirm"},
            {"when": "c", "then": "d", "action": "confirm"},
        ]
    )
    state = facts(a="1", b="2", c="3", d="4")
    plan = say(state, rules, "a", "9")
    assert [(c.key, c.decision) for c in plan.changes] == [
        ("user/a", "UPDATE"),
        ("user/b", "UNCERTAIN"),
        ("user/c", "UNCERTAIN"),
        ("user/d", "UNCERTAIN"),
    ]
    d = final(plan, state)["user/d"]
    assert d.value == "4" and d.uncertain_because["origin"] == "user/a"
    assert d.uncertain_because["fact"] == "user/c"


def test_diamond_takes_the_strongest_effect_once() -> None:
    rules = make_rules(
        [
            {"when": "top", "then": "left", "action": "derive", "value": "L-{top}"},
            {"when": "top", "then": "right", "action": "confirm"},
            {"when": "left", "then": "bottom", "action": "derive", "value": "{left}"},
            {"when": "right", "then": "bottom", "action": "expire"},
        ]
    )
    state = facts(top="x", left="L-x", right="r", bottom="L-x")
    plan = say(state, rules, "top", "y")
    keys = [c.key for c in plan.changes]
    assert keys.count("user/bottom") == 1
    assert keys.index("user/bottom") > keys.index("user/left")
    after = final(plan, state)
    assert after["user/left"].value == "L-y" and after["user/left"].status == "active"
    assert after["user/bottom"].status == "expired"
    assert after["user/bottom"].history[-1]["value"] == "L-x"


def test_derive_template_and_lookup_with_spellings() -> None:
    rules = make_rules(
        [
            {"when": "city", "then": "insurance", "action": "derive", "value": "{city}"},
            {
                "when": "city",
                "then": "office",
                "action": "derive",
                "lookup": {"Shanghai": "Pudong HQ"},
            },
        ],
        city={"values": [["上海", "Shanghai"], ["广州", "Guangzhou"]]},
    )
    state = facts(city="广州", insurance="广州", office="Tianhe")
    after = final(say(state, rules, "city", "上海"), state)
    assert after["user/insurance"].value == "上海"
    assert after["user/insurance"].derived_from == {"fact": "user/city", "valid_from": "2026-02-10"}
    assert after["user/insurance"].history[-1]["valid_to"] == "2026-02-10"
    assert after["user/office"].value == "Pudong HQ"  # looked up through the 上海/Shanghai group


def test_derive_with_unknown_input_falls_back_to_confirm() -> None:
    rules = make_rules(
        [{"when": "city", "then": "label", "action": "derive", "value": "{city} / {district}"}],
        district={},
    )
    state = facts(city="A", label="A / x")
    after = final(say(state, rules, "city", "B"), state)
    assert after["user/label"].status == "uncertain"
    assert after["user/label"].value == "A / x"


def test_high_stability_and_stated_after_trigger_are_left_alone() -> None:
    rules = make_rules(
        [{"when": "city", "then": "birthday"}, {"when": "city", "then": "employer"}],
        birthday={"stability": "high"},
    )
    state = facts(city="A", birthday="03-14", employer="Old Co")
    state["user/employer"] = state["user/employer"].evolve(valid_from="2026-02-10")
    plan = say(state, rules, "city", "B", at="2026-02-10")
    assert [c.key for c in plan.changes] == ["user/city"]


def test_same_message_statement_is_justified() -> None:
    rules = make_rules([{"when": "city", "then": "employer"}])
    state = facts(city="A", employer="Old")
    sts = [
        Statement("user", "employer", value="New", at="2026-02-10"),
        Statement("user", "city", value="B", at="2026-02-10"),
    ]
    after = final(plan_statements(state, rules, sts, now=NOW), state)
    assert after["user/employer"].status == "active" and after["user/employer"].value == "New"


def test_applying_the_same_statement_twice_changes_nothing() -> None:
    rules = make_rules([{"when": "a", "then": "b"}, {"when": "b", "then": "c", "action": "expire"}])
    state = facts(a="1", b="2", c="3")
    once = final(say(state, rules, "a", "9"), state)
    again = say(once, rules, "a", "9")
    assert again.changes == []
    assert again.decisions[0][1] == "NOOP"


def test_cascade_already_reflected_is_not_repeated() -> None:
    """Like a git pull that brings files already cascaded elsewhere."""
    rules = make_rules([{"when": "a", "then": "b"}])
    state = facts(a="1", b="2")
    after = final(say(state, rules, "a", "9"), state)
    pulled = dict(after)
    pulled["user/a"] = state["user/a"]  # replay the change on a copy whose dependent already saw it
    replay = say(pulled, rules, "a", "9")
    assert [c.key for c in replay.changes] == ["user/a"]


def test_decision_table() -> None:
    rules = make_rules([], pets={"cardinality": "many"}, city={"values": [["上海", "Shanghai"]]})
    state = facts(city="上海")
    assert say(state, rules, "new", "x").decisions[0][1] == "ADD"
    assert say(state, rules, "city", "Shanghai").decisions[0][1] == "NOOP"
    assert say(state, rules, "city", "Beijing").decisions[0][1] == "UPDATE"
    assert say(state, rules, "city", "广州", at="2020-01-01").decisions[0][1] == "BACKFILL"
    assert say(state, rules, "city", None, kind="invalidate").decisions[0][1] == "EXPIRE"
    assert say(state, rules, "city", None, kind="forget").decisions[0][1] == "DELETE"
    doubtful = {
        "user/city": state["user/city"].evolve(status="uncertain", uncertain_because={"fact": "x"})
    }
    confirm = say(doubtful, rules, "city", "Shanghai")
    assert confirm.decisions[0][1] == "CONFIRM"
    assert confirm.changes[0].after.uncertain_because is None
    pets = final(say({}, rules, "pets", "cat"), {})
    pets = final(say(pets, rules, "pets", "dog"), pets)
    assert pets["user/pets"].value == ["cat", "dog"]


def test_hedged_statement_never_overwrites() -> None:
    rules = make_rules([])
    state = facts(city="A")
    plan = say(state, rules, "city", "Berlin", tentative=True)
    assert plan.changes == []
    doubtful = {"user/city": state["user/city"].evolve(status="uncertain")}
    assert say(doubtful, rules, "city", "Berlin", tentative=True).changes == []
    new = final(say({}, rules, "city", "Berlin", tentative=True), {})
    assert new["user/city"].status == "tentative"


def test_backfill_keeps_history_in_date_order() -> None:
    rules = make_rules([])
    state = facts(city="C")
    state["user/city"] = state["user/city"].evolve(valid_from="2024-01-01")
    s1 = final(say(state, rules, "city", "A", at="2019-01-01"), state)
    s2 = final(say(s1, rules, "city", "B", at="2021-06-01"), s1)
    hist = s2["user/city"].history
    assert [(h["value"], h["valid_from"], h["valid_to"]) for h in hist] == [
        ("A", "2019-01-01", "2021-06-01"),
        ("B", "2021-06-01", "2024-01-01"),
    ]
    assert s2["user/city"].value == "C"


def test_delete_never_copies_the_forgotten_value() -> None:
    rules = make_rules([{"when": "address", "then": "commute"}])
    state = facts(address="12 Secret Lane", commute="bike")
    after = final(say(state, rules, "address", None, kind="forget"), state)
    assert after["user/address"].status == "deleted" and after["user/address"].value is None
    assert after["user/address"].history == []
    assert "Secret" not in repr(after["user/commute"])
    assert after["user/commute"].status == "uncertain"


GRAPH = [
    {"when": "a", "then": "b", "action": "derive", "value": "{a}+"},
    {"when": "a", "then": "c", "action": "confirm"},
    {"when": "b", "then": "d", "action": "expire"},
    {"when": "c", "then": "d", "action": "confirm"},
    {"when": "d", "then": "e", "action": "confirm"},
    {"when": "b", "then": "f", "action": "derive", "value": "{b}!"},
]


@settings(max_examples=60, deadline=None)
@given(order=st.permutations(["a", "b", "c", "d", "e", "f"]))
def test_result_does_not_depend_on_load_order(order) -> None:
    rules = make_rules(GRAPH)
    base = facts(a="1", b="1+", c="c", d="d", e="e", f="1+!")
    shuffled = {f"user/{k}": base[f"user/{k}"] for k in order}
    plan = say(shuffled, rules, "a", "2")
    reference = say(base, rules, "a", "2")
    assert [(c.key, c.decision, c.after) for c in plan.changes] == [
        (c.key, c.decision, c.after) for c in reference.changes
    ]
    assert final(plan, shuffled)["user/f"].value == "2+!"


def test_backfill_of_a_closed_period_keeps_its_end() -> None:
    rules = make_rules([])
    state = facts(city="Shanghai")
    state["user/city"] = state["user/city"].evolve(valid_from="2026-02-10")
    st_ = Statement("user", "city", value="Berlin", at="2019-01-01", until="2021-01-01")
    after = final(plan_statements(state, rules, [st_], now=NOW), state)
    assert after["user/city"].history == [
        {
            "value": "Berlin", "status": "archived", "valid_from": "2019-01-01",
            "valid_to": "2021-01-01", "recorded_at": NOW, "source": "cli",
            "reason": "earlier value, stated later",
        }
    ]  # fmt: skip


def test_second_change_on_the_same_day_is_derived_again() -> None:
    rules = make_rules(
        [{"when": "city", "then": "insurance", "action": "derive", "value": "{city}"}]
    )
    state = facts(city="A", insurance="A")
    once = final(say(state, rules, "city", "B", at="2026-02-10"), state)
    twice = final(say(once, rules, "city", "C", at="2026-02-10"), once)
    assert twice["user/insurance"].value == "C"


def test_a_first_value_said_as_a_change_cascades() -> None:
    rules = make_rules([{"when": "hospital", "then": "doctor"}])
    state = facts(doctor="Dr. Okafor")
    plain = say(state, rules, "hospital", "St Mary's")
    assert [c.key for c in plain.changes] == ["user/hospital"]  # just learned: nothing changed
    moved = final(say(state, rules, "hospital", "St Mary's", change=True), state)
    doctor = moved["user/doctor"]
    assert doctor.status == "uncertain" and doctor.value == "Dr. Okafor"
    assert doctor.uncertain_because["new"] == "St Mary's" and "old" not in doctor.uncertain_because


def test_a_planned_fact_shares_nothing_with_the_one_it_replaces() -> None:
    """Fact.evolve copies by a plain walk, not copy.deepcopy: the same fact, nothing shared."""
    import copy
    from dataclasses import replace

    before = Fact(
        "user", "employer", ["Acme", "Initech"], valid_from="2025-01-01",
        derived_from={"fact": "user/home_city", "valid_from": "2025-01-01"},
        depends_on=[{"on": "home_city", "ask": {"en": "Still {employer}?"}}],
        history=[{"value": "Globex", "status": "archived", "valid_to": "2025-01-01"}],
        items={"Acme": {"since": "2024"}}, extra={"note": {"mine": ["a", 1, 2.5, True]}},
    )  # fmt: skip
    after = before.evolve(status="uncertain")
    assert after == replace(copy.deepcopy(before), status="uncertain")
    for name in ("value", "derived_from", "depends_on", "history", "items", "extra"):
        assert getattr(after, name) is not getattr(before, name), name
    after.history[0]["value"] = "changed"
    after.depends_on[0]["ask"]["en"] = "changed"
    after.extra["note"]["mine"].append("x")
    assert before.history[0]["value"] == "Globex"
    assert before.depends_on[0]["ask"]["en"] == "Still {employer}?"
    assert before.extra["note"]["mine"] == ["a", 1, 2.5, True]


def test_a_derived_or_expired_value_keeps_no_stale_evidence() -> None:
    rules = make_rules(
        [
            {"when": "city", "then": "insurance", "action": "derive", "value": "{city}"},
            {"when": "city", "then": "gym", "action": "expire"},
        ]
    )
    old = "[[episodes/2025/2025-01-01-chat#^m1]]"
    state = facts(city="Guangzhou", insurance="Guangzhou", gym="Tianhe Fit")
    for fact in state.values():
        fact.evidence = old
    new = "[[episodes/2026/2026-02-10-chat#^m4]]"
    after = final(say(state, rules, "city", "Shanghai", evidence=new), state)
    # Shanghai was never said to be the insurance city: it points at the message that moved the city
    assert after["user/insurance"].evidence == new
    assert after["user/insurance"].history[-1]["evidence"] == old
    assert after["user/gym"].value is None and after["user/gym"].evidence is None
    assert after["user/gym"].history[-1]["evidence"] == old
