"""The fact kinds in the decision table: none, unnamed, per-item dates and polarity (plans and
events: test_plans.py)."""

from mdmem.engine.decide import Statement, plan_statements
from mdmem.model.factfile import Fact
from mdmem.model.rules_yaml import rules_from_mapping

NOW = "2026-03-01T12:00:00Z"
RULES = rules_from_mapping(
    {
        "attributes": {
            "pets": {"cardinality": "many"},
            "likes": {"cardinality": "many"},
            "partner": {},
            "pet_food": {},
        },
        "dependencies": [{"when": "pets", "then": "pet_food", "action": "confirm"}],
    }
)


def run(state, *statements):
    plan = plan_statements(state, RULES, list(statements), now=NOW)
    out = dict(state)
    for c in plan.changes:
        out[c.key] = c.after
    return plan, out


def st(attribute, value=None, at="2026-02-10", **kw):
    return Statement("user", attribute, value=value, at=at, source="t.md#L1", **kw)


def test_a_stated_absence_is_a_fact_of_its_own_not_an_unknown():
    plan, out = run({}, st("pets", form="none"))
    assert [d for _, d in plan.decisions] == ["ADD"]
    assert out["user/pets"].kind == "none" and out["user/pets"].value is None
    assert out["user/pets"].status == "active"


def test_none_replaces_a_held_list_and_keeps_it_in_history_and_cascades():
    held = {
        "user/pets": Fact("user", "pets", ["Max"], valid_from="2025-01-01"),
        "user/pet_food": Fact("user", "pet_food", "kibble", valid_from="2025-01-01"),
    }
    plan, out = run(held, st("pets", form="none"))
    pets = out["user/pets"]
    assert pets.kind == "none" and pets.value is None
    assert pets.history[-1]["value"] == ["Max"]
    assert pets.history[-1]["reason"] == "none now, said the person"
    assert out["user/pet_food"].status == "uncertain"  # it cascades like any change
    again, _ = run(out, st("pets", form="none", at="2026-02-20"))
    assert [d for _, d in again.decisions] == ["NOOP"]


def test_a_value_after_none_archives_the_none():
    _, out = run({}, st("pets", form="none", at="2025-01-01"), st("pets", "Pixie"))
    pets = out["user/pets"]
    assert pets.value == ["Pixie"] and pets.kind is None
    assert pets.history[-1]["kind"] == "none" and pets.history[-1]["valid_to"] == "2026-02-10"


def test_unnamed_gives_way_to_a_name_without_archiving_and_never_hides_one():
    plan, out = run({}, st("partner", form="unnamed", at="2025-06-01"))
    assert out["user/partner"].kind == "unnamed" and out["user/partner"].value is None
    plan, out = run(out, st("partner", "Sam"))
    assert [d for _, d in plan.decisions] == ["UPDATE"]
    partner = out["user/partner"]
    assert (partner.value, partner.kind, partner.history) == ("Sam", None, [])
    assert partner.valid_from == "2025-06-01"  # the one unnamed since then is Sam
    plan, _ = run(out, st("partner", form="unnamed", at="2026-02-20"))
    assert [d for _, d in plan.decisions] == ["NOOP"]


def test_an_unnamed_member_keeps_each_noun_it_was_mentioned_as_until_it_is_named():
    plan, out = run({}, st("partner", "husband", form="unnamed", at="2025-06-01"))
    partner = out["user/partner"]
    assert (partner.value, partner.kind, partner.mentioned_as) == (None, "unnamed", ["husband"])
    plan, out = run(out, st("partner", "husband", form="unnamed", at="2025-07-01"))
    assert [d for _, d in plan.decisions] == ["NOOP"]  # the same noun again says nothing new
    plan, out = run(out, st("partner", "hubby", form="unnamed", at="2025-08-01"))
    assert [d for _, d in plan.decisions] == ["UPDATE"]
    assert (out["user/partner"].mentioned_as, out["user/partner"].valid_from) == (["husband", "hubby"], "2025-06-01")
    assert out["user/partner"].history == []  # nothing stopped being true
    plan, held = run({}, st("pets", "turtle", form="unnamed", tentative=True))
    plan, held = run(held, st("pets", "turtles", form="unnamed"))  # said firmly: confirmed; the same word
    assert [d for _, d in plan.decisions] == ["CONFIRM"]
    assert (held["user/pets"].status, held["user/pets"].mentioned_as) == ("active", ["turtle"])
    plan, held = run(held, st("pets", "Turtles", form="unnamed"))
    assert [d for _, d in plan.decisions] == ["NOOP"]
    plan, out = run(out, st("partner", "Sam", at="2025-09-01"))
    named = out["user/partner"]
    assert (named.value, named.kind, named.mentioned_as, named.valid_from) == ("Sam", None, [], "2025-06-01")


def test_each_list_item_keeps_its_own_start_even_an_earlier_one():
    held = {"user/pets": Fact("user", "pets", ["Pepper"], valid_from="2023-06-01")}
    _, out = run(held, st("pets", "Pixie", at="2023-04-02"), st("pets", "Panda", at="2024-01-05"))
    pets = out["user/pets"]
    assert pets.value == ["Pepper", "Pixie", "Panda"]
    assert pets.items == {
        "Pixie": {"valid_from": "2023-04-02"},
        "Panda": {"valid_from": "2024-01-05"},
    }
    assert pets.history == []


def test_a_preference_keeps_its_polarity_and_a_flip_is_history():
    _, out = run({}, st("likes", "bowling", at="2025-01-01", polarity="dislike"))
    assert out["user/likes"].items == {"bowling": {"polarity": "dislike"}}
    plan, out = run(out, st("likes", "bowling", polarity="like"))
    assert [d for _, d in plan.decisions] == ["UPDATE"]
    likes = out["user/likes"]
    assert likes.value == ["bowling"]
    assert likes.items == {"bowling": {"valid_from": "2026-02-10"}}
    assert likes.history[-1]["items"] == {"bowling": {"polarity": "dislike"}}
    assert likes.history[-1]["reason"] == "preference changed"


CASCADE_RULES = rules_from_mapping(
    {
        "attributes": {"home_city": {}, "likes": {"cardinality": "many"},
                       "pets": {"cardinality": "many"}, "gym": {}},
        "dependencies": [
            {"when": "home_city", "then": "likes", "action": "expire"},
            {"when": "home_city", "then": "pets", "action": "expire"},
            {"when": "home_city", "then": "gym", "action": "derive",
             "lookup": {"Berlin": "FitX Berlin"}},
        ],
    }
)  # fmt: skip


def test_a_cascade_keeps_the_kind_and_items_of_what_it_archives():
    held = {
        "user/home_city": Fact("user", "home_city", "Munich", valid_from="2025-01-01"),
        "user/likes": Fact("user", "likes", ["bowling", "hiking"], valid_from="2025-01-01",
                           items={"bowling": {"polarity": "dislike"},
                                  "hiking": {"valid_from": "2025-03-01"}}),
        "user/pets": Fact("user", "pets", None, valid_from="2025-01-01", kind="none"),
        "user/gym": Fact("user", "gym", "FitX Munich", valid_from="2025-01-01", kind="plan",
                         status="tentative"),
    }  # fmt: skip
    plan = plan_statements(held, CASCADE_RULES, [st("home_city", "Berlin")], now=NOW)
    out = {**held, **{c.key: c.after for c in plan.changes}}
    likes = out["user/likes"]
    assert likes.status == "expired" and likes.value is None and not likes.items
    assert likes.history[-1]["value"] == ["bowling", "hiking"]
    assert likes.history[-1]["items"] == {"bowling": {"polarity": "dislike"},
                                          "hiking": {"valid_from": "2025-03-01"}}  # fmt: skip
    pets = out["user/pets"]  # "no pets" said in Munich is no longer known either
    assert pets.status == "expired" and pets.kind is None
    assert pets.history[-1]["kind"] == "none" and pets.history[-1]["valid_to"] == "2026-02-10"
    gym = out["user/gym"]
    assert gym.value == "FitX Berlin" and gym.kind is None
    assert gym.history[-1]["kind"] == "plan" and gym.history[-1]["value"] == "FitX Munich"


def test_one_item_of_a_list_ends_into_history_with_its_own_period_and_the_rest_stays():
    held = {
        "user/pets": Fact("user", "pets", ["Max", "Pixie"], valid_from="2021-01-01",
                          items={"Pixie": {"valid_from": "2023-04-02"}}),
        "user/pet_food": Fact("user", "pet_food", "kibble", valid_from="2025-01-01"),
    }  # fmt: skip
    plan, out = run(held, st("pets", "pixie", kind="invalidate"))
    assert [d for _, d in plan.decisions] == ["UPDATE"]
    pets = out["user/pets"]
    assert pets.value == ["Max"] and pets.items == {} and pets.status == "active"
    gone = pets.history[-1]
    assert (gone["value"], gone["valid_from"], gone["valid_to"]) == ("Pixie", "2023-04-02", "2026-02-10")
    assert gone["reason"] == "no longer true, said the person"
    assert out["user/pet_food"].status == "uncertain"  # the list changed: what hangs on it is asked


def test_the_last_item_ending_expires_the_list_and_an_item_never_held_changes_nothing():
    held = {"user/likes": Fact("user", "likes", ["bowling"], valid_from="2025-01-01",
                               items={"bowling": {"polarity": "dislike"}})}  # fmt: skip
    none, _ = run(held, st("likes", "chess", kind="invalidate"))
    assert [d for _, d in none.decisions] == ["NOOP"]
    plan, out = run(held, st("likes", "bowling", kind="invalidate"))
    likes = out["user/likes"]
    assert [d for _, d in plan.decisions] == ["EXPIRE"]
    assert likes.status == "expired" and likes.value is None
    assert likes.history[-1]["items"] == {"bowling": {"polarity": "dislike"}}
