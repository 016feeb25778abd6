"""rules.yaml templates (derive `value`, `ask`) take plain {attribute} placeholders only."""

from __future__ import annotations

import time

import pytest

from mdmem.errors import RulesError
from mdmem.model.rules import template_fields
from mdmem.model.rules_yaml import parse_rules

HEAD = "version: 1\nattributes:\n  home_city: {}\n  insurance_city: {}\ndependencies:\n"


def dep(key: str, template: str) -> str:
    action = "derive" if key == "value" else "confirm"
    return (
        HEAD + f"  - when: home_city\n    then: insurance_city\n    action: {action}\n"
        f"    {key}: '{template}'\n"
    )


@pytest.mark.parametrize("key", ["value", "ask"])
@pytest.mark.parametrize(
    ("template", "why"),
    [
        ("{home_city:>2000000000}", "{home_city:>2000000000} has a format spec"),
        ("{home_city:,}", "has a format spec"),
        ("{home_city:{home_city}}", "has a format spec"),
        ("{home_city!r}", "{home_city!r} has a format conversion"),
        ("{}", "{} is not a placeholder like {home_city}"),
        ("{home_city.__class__}", "is not a placeholder"),
        ("{home_city[0]}", "is not a placeholder"),
    ],
)
def test_a_format_spec_or_conversion_is_refused_with_its_line(key, template, why):
    start = time.monotonic()
    with pytest.raises(RulesError) as info:
        parse_rules(dep(key, template), "rules.yaml")
    assert time.monotonic() - start < 1
    message = str(info.value)
    assert message.startswith("rules.yaml:9: bad template") and why in message
    assert "a template takes plain placeholders only" in message or "name an attribute" in message


def test_plain_placeholders_and_escaped_braces_pass():
    assert template_fields("Is {insurance_city} still {{right}} after {home_city}?") == [
        "insurance_city",
        "home_city",
    ]
    r = parse_rules(dep("value", "{home_city}"), "rules.yaml")
    assert r.dependencies[0].value == "{home_city}"
