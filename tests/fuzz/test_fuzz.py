"""Fuzzing the kinds of file a person hands mdmem: transcripts, fact files, episodes, rules.yaml.

Each case must end in a result or a clean `MdmemError` (the message a person sees), never a
traceback, within a time and a memory bound. The default run is small so CI stays fast; set
MDMEM_FUZZ_EXAMPLES=2000 and run `pytest -m slow tests/fuzz` for the larger run (the figures
are in RELIABILITY.md, "Hostile input").
"""

from __future__ import annotations

import json
import os
import signal
import string
import tempfile
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

from mdmem.errors import MdmemError
from mdmem.extract.rule_finder import extract
from mdmem.extract.transcript import parse_transcript, read_transcript
from mdmem.model.episode import parse as parse_episode
from mdmem.model.factfile import parse as parse_fact
from mdmem.model.factfile import render
from mdmem.model.rules import Rules
from mdmem.model.rules_yaml import load_rules, parse_rules
from mdmem.read.passages import split_passages

ROOT = Path(__file__).resolve().parents[2]
PERSONAL = load_rules(ROOT / "rules" / "personal.yaml")
DAY = "2026-02-10"
SECONDS = 20.0  # per case: the message budget is 2 s, so only a hang comes near this
MEGABYTES = 300  # per case, Python allocations (tracemalloc's peak)
SMALL = 25  # examples per property in the default run
LARGE = int(os.environ.get("MDMEM_FUZZ_EXAMPLES", "0"))
RUNS: dict[str, int] = {}  # property → cases run (printed by the slow run, for RELIABILITY.md)

CI = settings(
    max_examples=SMALL,
    deadline=None,  # the bound below is the deadline, with a clearer failure
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=True,  # the same cases every run: CI must not flake on a new seed
    # No shrinking: a failing case here is a slow one, and shrinking reruns it hundreds of
    # times (six minutes for one hang). Hypothesis still prints the failing example.
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
)


class Hang(Exception):
    """A case ran past its time bound."""


@contextmanager
def bounded(name: str) -> Iterator[None]:
    """Run one case under the time and memory bound; count it."""

    def stop(*_: object) -> None:
        raise Hang(f"{name}: a case took longer than {SECONDS} s")

    RUNS[name] = RUNS.get(name, 0) + 1
    old = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, SECONDS)
    tracemalloc.start()
    try:
        yield
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert peak < MEGABYTES * 2**20, f"{name}: a case allocated {peak / 2**20:.0f} MB"


def clean(call: Callable[[], Any]) -> Any:
    """The call's result, or None for a clean MdmemError; anything else propagates."""
    try:
        return call()
    except MdmemError as e:
        assert str(e).strip(), "an error must say something"
        return None


# --- strategies ---------------------------------------------------------------------------

WORDS = [
    "I moved to Paris", "my name is Bob", "I work at Acme", "I left my employer", "in 2019",
    "from 2019 to 2021", "last year", "forget my address", "remember this word for word:",
    "我搬到了上海", "2024年3月起", "don't", "maybe", "?", ".", ",", ":", "：", "\t", "\n", " ",
    "```", "~~~", "**", "__", "#", "---", "[", "]", "(", ")", "{", "}", '"', "“", "\\", "\x00",
    "\u200b", "\u202e", "\ufeff", "🙂", "ａｂ", "1", "a", "-", "=",
]  # fmt: skip
PREFIXES = [
    "User: ", "Assistant: ", "Alice: ", "Bob (10:00): ", "**User:** ", "[2026-02-10 09:12] User: ",
    "用户：", "## 2026-02-10", "## Session 3", "--- 2026-02-11 ---", "- User: ", "", "",
]  # fmt: skip

# A fragment, sometimes repeated a great many times: the shape of pasted logs and attacks.
fragment = st.one_of(st.sampled_from(WORDS), st.text(max_size=12))
amplified = st.one_of(
    fragment,
    st.tuples(st.sampled_from(WORDS + ["1", " ", "a", "I moved to Paris and "]),
              st.integers(1, 40_000)).map(lambda t: t[0] * t[1]),  # fmt: skip
)
line = st.tuples(st.sampled_from(PREFIXES), st.lists(amplified, max_size=6)).map(
    lambda t: t[0] + " ".join(t[1])
)
text_transcript = st.lists(line, min_size=1, max_size=12).map("\n".join)

json_leaf = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), st.text(max_size=30),
    st.sampled_from(["user", "assistant", "2026-02-10", "2026-02-10T09:12:00Z", "I moved to Oslo."]),
)  # fmt: skip
json_value = st.recursive(
    json_leaf, lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.sampled_from(["role", "content", "text", "speaker", "name", "timestamp",
                                         "messages", "type", "time", "x"]), inner, max_size=5),
    ), max_leaves=20,
)  # fmt: skip
message = st.fixed_dictionaries(
    {"role": st.sampled_from(["user", "assistant", "Alice", "", 3]),
     "content": st.one_of(text_transcript, json_value)},
    optional={"timestamp": json_leaf, "speaker": json_value},
)  # fmt: skip
json_transcript = st.one_of(
    st.lists(message, max_size=5).map(json.dumps),
    st.lists(message, min_size=1, max_size=5).map(lambda ms: "\n".join(json.dumps(m) for m in ms)),
    json_value.map(json.dumps),
    st.integers(1, 60_000).map(lambda n: "[" * n + "]" * n),
    st.integers(4_000, 6_000).map(lambda n: '{"role": "user", "content": "hi", "time": ' + "9" * n + "}"),
)  # fmt: skip
ENCODINGS = ["utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-32", "latin-1", "cp1252"]


def transcript_case(text: str) -> None:
    with bounded("transcript"):
        messages = clean(lambda: parse_transcript(text, source="t.md", default_time=DAY))
        if messages:
            extract(messages, PERSONAL, {}, source="t.md", default_date=DAY)


def transcript_file_case(text: str, encoding: str) -> None:
    try:
        data = text.encode(encoding)
    except UnicodeEncodeError:
        data = text.encode(encoding, errors="replace")
    with tempfile.TemporaryDirectory() as d, bounded("transcript file"):
        path = Path(d) / "t.md"
        path.write_bytes(data)
        found = clean(lambda: read_transcript(path, default_time=DAY))
        if found:
            extract(found[0], PERSONAL, {}, source="t.md", default_date=DAY)


# --- fact files -----------------------------------------------------------------------------

KEYS = ["entity", "attribute", "value", "status", "valid_from", "valid_to", "recorded_at",
        "source", "history", "depends_on", "uncertain_because", "evidence", "seen", "x"]  # fmt: skip
YAML_VALUES = [
    "user", "home_city", "Shanghai", "active", "tentative", "deleted", "'2026-02-10'",
    "2026-02-10", "[a, b]", "[", "{a: 1}", "null", "~", "''", "|", ">-", "- a", "yes", "0x10",
    "1e400", "9" * 5001, "!!binary aGk=", "!!python/object:os.system", "'", '"\\x00"',
    "\t", "上海", "\u202e", "[[[[[[[[[[]]]]]]]]]]",
]  # fmt: skip
yaml_value = st.one_of(st.sampled_from(YAML_VALUES), st.text(max_size=20))
fact_line = st.one_of(
    st.tuples(st.sampled_from(KEYS), yaml_value).map(lambda t: f"{t[0]}: {t[1]}"),
    st.tuples(st.sampled_from(["  ", "  - ", "    "]), yaml_value).map("".join),
    st.text(max_size=30),
)
fact_text = st.tuples(
    st.sampled_from(["---\n", "---\r\n", "\ufeff---\n", "", "--- \n"]),
    st.lists(fact_line, max_size=10).map("\n".join),
    st.sampled_from(["\n---\n", "\n---", "\n", "\n...\n"]),
    st.text(max_size=60),
).map("".join)


def fact_case(text: str) -> None:
    with bounded("fact file"):
        fact = clean(lambda: parse_fact(text, "facts/user/home_city.md"))
        if fact is not None:
            # What parsed renders, and what it renders parses to the same fact.
            again = parse_fact(render(fact), "facts/user/home_city.md")
            assert again == fact


# Shapes that cost minutes or overflowed the stack before the limits (issue 23): deep nesting,
# many fields, long histories, long values and lists, each sometimes past its limit.
FACT_HEAD = "---\nentity: user\nattribute: home_city\n"
shape = st.one_of(
    st.integers(1, 600).map(lambda n: "value: x\nextra:\n" + "".join("  " * (i + 1) + f"k{i}:\n" for i in range(n))),
    st.integers(1, 1_200).map(lambda n: "value: " + "[" * n + "]" * n + "\n"),
    st.integers(1, 60_000).map(lambda n: "value: x\n" + "".join(f"k{i}: v\n" for i in range(n))),
    st.integers(1, 40_000).map(lambda n: "value: x\nhistory:\n" + "- value: old\n  valid_from: '2020-01-01'\n" * n),
    st.integers(1, 3_000_000).map(lambda n: "value: " + "x" * n + "\n"),
    st.integers(1, 40_000).map(lambda n: "value:\n" + "- item\n" * n),
    st.integers(1, 200).map(lambda n: "value:\n" + "- " * n + "x\n"),
)  # fmt: skip
fact_shape = st.tuples(shape, st.sampled_from(["status: active\n", ""])).map(lambda t: FACT_HEAD + t[0] + t[1] + "---\n")


def episode_case(text: str) -> None:
    with bounded("episode file"):
        ep = clean(lambda: parse_episode(text, "episodes/2026/2026-02-10-chat.md"))
        if ep is not None:
            for said in ep.messages:
                assert all(len(p) <= 600 for p in split_passages(said.text))


episode_text = st.tuples(
    st.sampled_from(["'2026-02-10'", "2026-02-10", "not-a-date", "2026-13-45", "", "[]", "2026-02-10T09:00:00"]),
    st.lists(st.tuples(st.sampled_from(["User", "Alice", "用户", "**", ""]),
                       st.sampled_from(["—", "2026-02-10T09:12:00", "yesterday", "2026-02-30", "9"]),
                       amplified), max_size=5),
).map(lambda t: f"---\nsource: chat\nsha256: x\ndate: {t[0]}\nspeakers:\n- User\n---\n\n"
      + "\n".join(f"**{s}** · {when} ^m{i + 1}\n\n{body}\n" for i, (s, when, body) in enumerate(t[1])))  # fmt: skip

# --- rules.yaml ----------------------------------------------------------------------------

PATTERNS = [
    r"I moved to (?P<value>[A-Z]\w+)", r"(?P<value>(a+)+)$", r"(?P<value>(a|aa)+)$",
    r"(?P<value>(\w+\s?)+)$", r"my (?P<value>.*)", r"(?P<value>.*?)(?P<date>\d+)", r"(",
    r"(?P<value>x)(?P<value>y)", r"no value group", r"(?i)(?P<value><<cities>>)", r"<<nope>>",
    r"(?P<value>[\s\S]{0,100000})", r"(?<=a+)(?P<value>b)", r"\\", r"(?P<value>\d{1,3}){1,3}",
]  # fmt: skip
TEMPLATES = ["{home_city}", "{home_city:>2000000000}", "{}", "{home_city!r}", "{x}", "{",
             "{home_city.__class__}", "plain", "{{home_city}}", "{a:{b}}"]  # fmt: skip
# Mostly good names, so that most documents load and their patterns and templates get used.
NAMES = ["home_city", "employer", "nick"] * 6 + ["Home City", "a/b", "..", "con", "x" * 300, "上海"]
rule_attr = st.fixed_dictionaries(
    {},
    optional={
        "extract": st.lists(st.sampled_from(PATTERNS), max_size=3),
        "invalidate": st.lists(st.sampled_from(PATTERNS), max_size=2),
        "cardinality": st.sampled_from(["one", "many", "some"]),
        "stability": st.sampled_from(["low", "high", 3]),
        "values": st.lists(st.lists(st.sampled_from(["Shanghai", "上海", "SH"]), max_size=3), max_size=2),
        "label": st.one_of(st.text(string.ascii_letters + " 上海", max_size=10), st.dictionaries(st.sampled_from(["en", "zh"]), st.text(max_size=5))),
    },
)  # fmt: skip
rule_dep = st.fixed_dictionaries(
    {"when": st.sampled_from(NAMES), "then": st.sampled_from(NAMES)},
    optional={"action": st.sampled_from(["derive", "confirm", "expire", "explode"]),
              "value": st.sampled_from(TEMPLATES),
              "ask": st.one_of(st.sampled_from(TEMPLATES),
                               st.dictionaries(st.sampled_from(["en", "zh"]), st.sampled_from(TEMPLATES))),
              "lookup": st.dictionaries(st.sampled_from(["Shanghai", "x"]), st.sampled_from(["SH", 1]))},
)  # fmt: skip
rules_doc = st.fixed_dictionaries(
    {"version": st.sampled_from([1] * 8 + [2, "1"])},
    optional={
        "vocab": st.dictionaries(st.sampled_from(["cities"] * 4 + ["bad name", "re"]),
                                 st.one_of(st.lists(st.sampled_from(["Paris", "St. Louis", "("]), min_size=1, max_size=3),
                                           st.fixed_dictionaries({"regex": st.sampled_from(PATTERNS)})), max_size=1),
        "attributes": st.dictionaries(st.sampled_from(NAMES), rule_attr, min_size=1, max_size=4),
        "dependencies": st.lists(rule_dep, max_size=2),
        "topics": st.dictionaries(st.sampled_from(["home", "work"]), st.lists(st.sampled_from(NAMES), max_size=2)),
    },
)  # fmt: skip
rules_text = st.one_of(
    rules_doc.map(lambda d: yaml.safe_dump(d, allow_unicode=True, sort_keys=False)),
    st.lists(st.one_of(st.sampled_from(["version: 1", "attributes:", "  home_city:", "    extract:",
                                        "      - '(?P<value>(a+)+)$'", "dependencies:", "  - when: x",
                                        "\t", "- ", "? ", "!!python/name:os.system", "&a [*a]"]),
                       st.text(max_size=20)), max_size=12).map("\n".join),
)  # fmt: skip
HOSTILE_CHAT = "User: " + "a" * 40 + "!\nUser: I moved to Paris and I work at Acme.\nUser: " + "1" * 3000


def rules_case(text: str) -> None:
    with bounded("rules.yaml"):
        rules = clean(lambda: parse_rules(text, "rules.yaml"))
        if isinstance(rules, Rules):
            messages = parse_transcript(HOSTILE_CHAT, default_time=DAY)
            extract(messages, rules, {}, source="t.md", default_date=DAY)


# --- the properties: a small run always, a larger one on request -----------------------------

vocab_rules = st.tuples(st.integers(1, 1_500), st.integers(0, 60)).map(
    lambda t: "version: 1\nvocab:\n  big: [" + ", ".join(f"w{i}x" for i in range(t[0])) + "]\nattributes:\n"
    "  home_city:\n    extract: [" + ", ".join(["'in (?P<value><<big>>)'"] * t[1]) + "]\n"
)  # fmt: skip

CASES = {
    "transcripts": (transcript_case, (st.one_of(text_transcript, json_transcript),)),
    "transcript-files": (transcript_file_case, (st.one_of(text_transcript, json_transcript), st.sampled_from(ENCODINGS))),  # fmt: skip
    "fact-files": (fact_case, (fact_text,)),
    "fact-file-shapes": (fact_case, (fact_shape,)),
    "episode-files": (episode_case, (episode_text,)),
    "rules": (rules_case, (rules_text,)),
    "rules-vocab": (rules_case, (vocab_rules,)),
}
RULES_HEAD = "version: 1\nattributes:\n  home_city: {}\n  nick:\n    extract: ['%s']\n"
# The inputs run in every small run too, whatever the random cases are.
EXAMPLES: dict[str, list[tuple[Any, ...]]] = {
    "transcripts": [
        ("User: I moved to Paris in " + "1" * 32_000,),
        ("User: " + "I moved to Paris and " * 2000,),
        ("User: " + ("I moved to Paris and 1 " * 50_000)[:1_000_000],),
        ("[" * 100_000 + "]" * 100_000,),
    ],
    "transcript-files": [
        ('{"role": "user", "content": "hi", "timestamp": ' + "9" * 5001 + "}", "utf-8"),
        ("User: I moved to Berlin.", "utf-16"),
    ],
    "fact-files": [("---\nvalue: [\n",), ("---\nvalue: " + "9" * 5001 + "\n---\n",)],
    "fact-file-shapes": [(FACT_HEAD + "value: x\nextra:\n" + "".join("  " * (i + 1) + f"k{i}:\n" for i in range(500)) + "---\n",)],
    "episode-files": [("---\nsource: chat\nsha256: x\ndate: not-a-date\n---\n\n**User** · — ^m1\n\nhi\n",)],
    "rules-vocab": [("version: 1\nvocab:\n  big: [" + ", ".join(f"w{i}x" for i in range(130_000)) + "]\nattributes:\n  home_city: {}\n",)],
    "rules": [
        (RULES_HEAD % "(?P<value>(a+)+)$",),
        (RULES_HEAD % "(?P<value>(a|aa)+)$",),
        (RULES_HEAD.replace("home_city: {}", "home_city: {}\n  city: {}") + "dependencies:\n"
         "  - {when: home_city, then: city, action: derive, value: '{home_city:>2000000000}'}\n",),
    ],
}


def with_examples(name: str, test: Any) -> Any:
    for args in EXAMPLES[name]:
        test = example(*args)(test)
    return test


@pytest.mark.parametrize("name", sorted(CASES))
def test_fuzz_small(name):
    """A result or a clean error, in bounded time and memory; the same cases every run."""
    case, strategies = CASES[name]
    CI(with_examples(name, given(*strategies)(case)))()


@pytest.mark.slow
@pytest.mark.skipif(not LARGE, reason="set MDMEM_FUZZ_EXAMPLES=N for the larger fuzz run")
@pytest.mark.parametrize("name", sorted(CASES))
def test_fuzz_large(name):
    """The same properties with MDMEM_FUZZ_EXAMPLES fresh random cases each."""
    case, strategies = CASES[name]
    RUNS.clear()
    settings(CI, max_examples=LARGE, derandomize=False)(given(*strategies)(case))()
    print(f"fuzz {name}: {sum(RUNS.values())} cases, no traceback, no hang")
