"""The fact file's kinds: `kind` and per-item `items`, their round trip and their errors."""

import pytest

from mdmem.errors import FactFileError
from mdmem.model.factfile import Fact, parse, render

HEAD = "---\nentity: user\nattribute: pets\n"


def test_kind_and_items_round_trip_in_canonical_order():
    fact = Fact("user", "pets", ["Max", "Pixie"], valid_from="2021-01-01",
                items={"Pixie": {"valid_from": "2023-04-02"}})  # fmt: skip
    text = render(fact)
    assert text.startswith(HEAD + "values:\n- Max\n- Pixie\nitems:\n  Pixie:\n    valid_from: '2023-04-02'\nstatus")  # fmt: skip
    assert render(parse(text)) == text
    none = Fact("user", "pets", None, kind="none", valid_from="2024-01-01")
    assert "kind: none\nstatus: active" in render(none)
    assert parse(render(none)).kind == "none"


def test_the_noun_an_unnamed_member_was_mentioned_as_round_trips_and_is_checked():
    fact = Fact("user", "children", None, kind="unnamed", valid_from="2024-01-01", mentioned_as=["kids"])
    text = render(fact)
    assert "kind: unnamed\nstatus: active\nvalid_from: '2024-01-01'\nmentioned_as:\n- kids\n" in text
    assert parse(text) == fact and render(parse(text)) == text
    assert parse(HEAD + "kind: unnamed\nmentioned_as: husband\n---\n").mentioned_as == ["husband"]
    with pytest.raises(FactFileError, match=r"must be a list of nouns, like \[husband\]"):
        parse(HEAD + "kind: unnamed\nmentioned_as: {a: 1}\n---\n", path="facts/user/pets.md")
    # on a fact of another kind the key is the person's own, kept as written
    plain = parse(HEAD + "values: [Max]\nmentioned_as: my boys\n---\n")
    assert (plain.mentioned_as, plain.extra) == ([], {"mentioned_as": "my boys"})


def test_a_plain_fact_has_the_same_bytes_as_before():
    assert render(Fact("user", "pets", ["Max"])) == HEAD + "values:\n- Max\nstatus: active\n---\n"


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ("kind: maybe\n", "kind 'maybe' is not one of none, unnamed, event, plan"),
        ("value: Max\nkind: none\n", "remove the value, or remove the kind"),
        ("kind: plan\nstatus: tentative\n", "needs what is planned as its value"),
        ("kind: event\n", "needs what happened as its value"),
        ("value: [Max]\nitems:\n  Rex: {valid_from: '2023-01-01'}\n", "'Rex', which is not in the value"),
        ("value: [Max]\nitems:\n  Max: {polarity: meh}\n", "use like or dislike"),
        ("value: [Max]\nitems:\n  Max: {colour: brown}\n", "an item takes valid_from, polarity"),
        ("value: [Max]\nitems:\n  Max: {valid_from: soon}\n", "write an ISO date"),
        ("value: [Max]\nitems: [Max]\n", "must map each list item"),
    ],
)
def test_bad_kinds_and_items_name_the_line_and_the_fix(body, says):
    with pytest.raises(FactFileError) as e:
        parse(HEAD + body + "---\n", path="facts/user/pets.md")
    assert says in str(e.value)
    assert "facts/user/pets.md" in str(e.value)
