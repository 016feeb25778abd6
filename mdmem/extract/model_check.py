"""One model candidate, made harmless or refused: normalise what models write, check the rest.

Small models write `"value": [20]`, `"entity": "User"`, `"date": ""`, extra fields, the
schema's example spellings, a paraphrased quote. What is harmless is normalised; what is wrong
refuses that candidate alone, with the reason (`Refused`), never its siblings.

A model may propose; what it proposes is checked against the message by the rule path's own
reader (`Reading`: `find_candidates`, with the request reader that guards forgets), so that a
model cannot change memory in a way the person never said:
- a forget or an invalidate needs the message to ask for it, or to say the end of the slot;
- a dependency (`rule`) needs the person to state it ("if I move, my gym would change"): the
  reader's dependency is the one kept, not the model's;
- a word-for-word note (`verbatim`) needs the message to ask to keep words: the reader's note
  is kept, in the slot the person named or a free note slot, never the one the model named;
- a change of a value held (`assert` over a different current value) needs a statement of
  change by the speaker: the reader reads it so, or the clause holding the value names the slot
  ("I live in …") or says the value replaced another ("moved", "now", "new"). A value merely
  present in the message ("I had dinner in Shanghai") is not evidence that it is the home city;
- a fact about `user` must come from words about the speaker.
A first value of a slot needs only to be in the message about the speaker (that is what the
model finder is for: what no pattern reads).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Collection
from typing import Any

from mdmem.errors import SlugError
from mdmem.extract.candidates import Found, Resolver, slot_names
from mdmem.extract.dates import find_when
from mdmem.extract.guard import Runaway
from mdmem.extract.modality import clause_end, clause_start, mood, said_as_change, sentences
from mdmem.extract.model_prompt import KINDS  # one list for the schema and the check
from mdmem.extract.prefilter import PatternSet
from mdmem.extract.rule_finder import find_candidates
from mdmem.extract.speakers import owner_entity
from mdmem.extract.transcript import Message
from mdmem.model.factfile import ACTIONS, DATE_RE, Value
from mdmem.model.rules import Rules, norm
from mdmem.model.slug import check_slug

_SELF = {"user", "me", "i", "speaker", "myself", "self", "the user", "用户", "我", "自己"}
_NONE = {"", "null", "none", "n/a", "unknown", "无"}
INJECTION = re.compile(
    r"\b(?:ignore|disregard|forget|override)\b.{0,40}\b(?:instructions?|rules|prompt|guidelines)\b"
    r"|\bsystem prompt\b|\byou are now\b|忽略.{0,10}(?:指令|指示|规则|提示)|无视.{0,10}(?:指令|规则)",
    re.I,
)
# Someone other than the speaker as the subject of a clause: "my mom moved …", "她搬到了…".
_KIN = (
    r"mom|mum|mother|dad|father|parents|sister|brother|sibling|wife|husband|partner|boyfriend"
    r"|girlfriend|fianc[ée]e?|son|daughter|kids?|children|child|friend|boss|colleague|coworker"
    r"|cousin|aunt|uncle|grand\w+|neighbou?r|roommate|flatmate"
)
_OTHER = re.compile(
    rf"\b(?:my|our)\s+(?:\w+\s+)?(?:{_KIN})\b|\b(?:he|she|they|his|her|their)\b"
    r"|我(?:的)?(?:妈妈?|爸爸?|母亲|父亲|父母|爸妈|姐姐?|哥哥?|弟弟?|妹妹?|老婆|老公|妻子|丈夫|女朋友|男朋友"
    r"|儿子|女儿|孩子|朋友|同事|老板|室友|邻居)|(?<![其])[他她](?:们)?",
    re.I,
)
_ME = re.compile(r"\b(?:i|i['’](?:m|ve|ll|d)|me|my|mine|we|our|us)\b|我|咱", re.I)
_FILLER = re.compile(r"^(?:(?:a|an|the|my|our|new|current|old|some)\s+)+|^(?:新的?|我的|现在的)", re.I)


class Refused(Exception):
    """Why one candidate is not used; its siblings still are."""


def _text(v: Any) -> str | None:
    """A scalar as text (numbers as the speaker would write them); None for anything else."""
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return str(int(v)) if v.is_integer() else str(v)
    return v.strip() if isinstance(v, str) else None


def normalise(item: Any, rules: Rules, speaker: str, entities: Collection[str]) -> dict[str, Any]:
    """The candidate with harmless slips fixed; Refused for what cannot be fixed."""
    if not isinstance(item, dict):
        raise Refused(f"not an object: {str(item)[:40]!r}")
    kind = str(item.get("kind") or "assert").strip().lower()
    if kind not in KINDS:
        raise Refused(f"kind {kind!r} is not one of {', '.join(KINDS)}")
    attribute = item.get("attribute")
    try:
        attribute = check_slug(attribute if isinstance(attribute, str) else "", "attribute")
    except SlugError as e:
        raise Refused(f"invalid attribute name: {e.bare_message}") from None
    raw_entity = item.get("entity")
    entity = raw_entity.strip() if isinstance(raw_entity, str) else ""
    if not entity or entity.casefold() in _SELF or entity.casefold() == speaker.casefold():
        entity = "user"
    else:
        entity = next((e for e in entities if e.casefold() == entity.casefold()), entity)
        try:
            entity = check_slug(entity, "entity")
        except SlugError as e:
            raise Refused(f"{attribute}: invalid entity name: {e.bare_message}") from None
    value: Any = item.get("value")
    if isinstance(value, list):
        items = [_text(v) for v in value]
        if any(v is None for v in items):
            raise Refused(f"{attribute}: the value must be text or a list of text")
        value = [v for v in items if v]
        one = (a := rules.attributes.get(attribute)) is None or a.cardinality == "one"
        if one and len(value) == 1:
            value = value[0]
        elif one and len(value) > 1 and kind == "assert":
            raise Refused(f"{attribute}: {len(value)} values for an attribute that holds one")
    elif value is not None:
        value = _text(value)
        if value is None:
            raise Refused(f"{attribute}: the value must be text or a list of text")
    if isinstance(value, str) and value.casefold() in _NONE:
        value = None
    if value == []:
        value = None
    date = _text(item.get("date"))
    if date is not None and date.casefold() in _NONE:
        date = None
    if date is not None and not DATE_RE.fullmatch(date):
        raise Refused(f"{attribute}: date {date!r} is not YYYY-MM-DD")
    quote = item.get("quote")
    out = {"kind": kind, "attribute": attribute, "entity": entity, "value": value, "date": date,
           "quote": quote.strip() if isinstance(quote, str) else ""}  # fmt: skip
    if kind == "rule":
        on = item.get("on")
        try:
            out["on"] = check_slug(on if isinstance(on, str) else "", "attribute")
        except SlugError as e:
            raise Refused(f"{attribute}: invalid 'on' attribute: {e.bare_message}") from None
        out["action"] = str(item.get("action") or "confirm").strip().lower()
        if out["action"] not in ACTIONS:
            raise Refused(f"{attribute}: action {out['action']!r} is not one of {', '.join(ACTIONS)}")
    return out


def spellings(rules: Rules, attribute: str, value: str) -> tuple[str, ...]:
    """Every way the value may be written in the message (its values group, or itself)."""
    return rules.group(attribute, value) or (value,)


def unslash(rules: Rules, attribute: str, value: str, text: str) -> str:
    """A value that copies the schema's slash-joined spellings ('海珠/Haizhu/海珠区') as the
    spelling the message uses; Refused when the message uses none of them."""
    if "/" not in value or rules.group(attribute, value):
        return value
    parts = [p.strip() for p in value.split("/") if p.strip()]
    groups = rules.attributes[attribute].values if attribute in rules.attributes else ()
    for group in groups:
        if "/".join(group) in value or all(rules.group(attribute, p) == group for p in parts):
            low = norm(text)
            said = [s for s in group if norm(s) in low]
            if said:
                return max(said, key=len)
            raise Refused(f"{attribute}: {value!r} copies the schema's spellings; the message says none of them")  # fmt: skip
    return value


def where(rules: Rules, attribute: str, values: list[str], quote: str, text: str) -> str:
    """The sentence of the message that states the values: one inside the quote when the quote
    is in the message, else the first that holds them; Refused when no sentence does."""

    def holds(s: str) -> bool:
        low = norm(s)
        return all(any(norm(sp) in low for sp in spellings(rules, attribute, v)) for v in values)

    said = [s for s in sentences(text) if holds(s)]
    if not said:
        if "/" in values[0]:
            raise Refused(f"{attribute}: {values[0]!r} copies the schema's example spellings, not the message")  # fmt: skip
        hint = " (an earlier message, shown as context?)" if quote else ""
        raise Refused(f"{attribute}: the value {values[0] if len(values) == 1 else values!r} is not in this message{hint}")  # fmt: skip
    if quote and quote in text:
        return next((s for s in said if s in quote or quote in s), said[0])
    return said[0]


def names_the_slot(rules: Rules, attribute: str, value: str) -> bool:
    """'new job' for job_title, 'my address': the slot's own name, not a value of it."""
    core = _FILLER.sub("", value.strip()).strip()
    if rules.group(attribute, core):  # 'metro' is commute_mode's alias and also its value
        return False
    words = slot_names(rules, attribute)
    return norm(core) in {norm(w) for w in words}


def about_someone_else(sentence: str, at: int) -> str | None:
    """The words that make someone other than the speaker the subject of the clause holding
    position `at` ('my mom', 'she', '我妈'), or None when the speaker is (or no one is named)."""
    for lo in (clause_start(sentence, at), 0):
        head = sentence[lo:at]
        other = list(_OTHER.finditer(head))
        me = [m for m in _ME.finditer(head) if not any(o.start() <= m.start() < o.end() for o in other)]
        if other and (not me or other[-1].start() > me[-1].start()):
            return other[-1].group(0)
        if me:
            return None
    return None


class Reading:
    """What the rule path's reader finds in one message, read once for all the model's
    candidates of it; `held(key)` is the value a slot holds now (None: nothing current)."""

    def __init__(self, msg: Message, resolver: Resolver, patterns: PatternSet[tuple[str, str]],
                 held: Callable[[str], Value] = lambda key: None, entity: str = "user") -> None:  # fmt: skip
        self.msg, self.resolver, self.patterns = msg, resolver, patterns
        self.held, self.entity = held, entity
        self._found: list[tuple[str, Found]] | None = None

    def found(self) -> list[tuple[str, Found]]:
        """The reader's candidates; none for a message too slow to read (it confirms nothing)."""
        if self._found is None:
            try:
                self._found = find_candidates(self.msg.text, self.patterns, self.resolver)
            except Runaway:
                self._found = []
        return self._found


def asked_for(reading: Reading, attribute: str, kind: str) -> str | None:
    """'forget' or 'invalidate' when the rule path's reader finds the message asking to forget
    or saying the end of this slot; None when it does not (the model's word is not enough)."""
    msg, resolver = reading.msg, reading.resolver
    kinds = {f.kind for _, f in reading.found() if f.attribute == attribute}
    if "forget" in kinds:
        return "forget"
    if kind == "invalidate" and "invalidate" in kinds:
        return "invalidate"
    if kind == "invalidate":  # "I don't commute any more": no pattern, but a change of state
        for s in sentences(msg.text):
            low = s.lower()
            for n in slot_names(resolver.rules, attribute):
                at = low.find(n.lower())
                if len(n) > 1 and at >= 0 and mood(s, 0, at, at + len(n)).no_longer:
                    return "invalidate"
    return None


def stated_dependency(reading: Reading, attribute: str, on: str) -> tuple[str, Found]:
    """The reader's dependency of `attribute` (or of "this") on `on`, as the person said it."""
    for sentence, f in reading.found():
        if f.kind == "depends" and f.dep.get("on") == on and f.attribute in (None, attribute):
            return sentence, dataclasses.replace(f, attribute=attribute)
    raise Refused(f"{attribute}: a dependency on {on}, but the message does not state one (the person must say it, as in 'if my {on.replace('_', ' ')} changes, my {attribute.replace('_', ' ')} …')")  # fmt: skip


def kept_words(reading: Reading, attribute: str, value: Any) -> tuple[str, Found]:
    """The reader's word-for-word note holding `value`, in the slot the person named (or the
    next free note slot): never the slot the model named."""
    if isinstance(value, str):
        for sentence, f in reading.found():
            if f.kind == "verbatim" and isinstance(f.value, str) and value.strip() and value in f.value:
                return sentence, f
    raise Refused(f"{attribute}: a word-for-word note, but the message does not ask to keep these words as said")  # fmt: skip


def says_change(reading: Reading, attribute: str, value: str, sentence: str, start: int, end: int) -> bool:  # fmt: skip
    """Whether the message states `value` as the slot's value now: the reader reads it so, or
    the clause holding it names the slot ("I live in …") or says it replaced another."""
    rules = reading.resolver.rules
    for _, f in reading.found():
        if f.kind == "assert" and f.attribute == attribute and isinstance(f.value, str) and rules.same_value(attribute, f.value.strip(" .,;:!?，。"), value):  # fmt: skip
            return True
    if said_as_change(sentence, start):
        return True
    lo = clause_start(sentence, start)
    clause = sentence[lo:start] + " " * (end - start) + sentence[end : clause_end(sentence, end)]
    for name in slot_names(rules, attribute):  # the slot's name, not a value ('metro' is both)
        if len(name) > 1 and not rules.group(attribute, name) and (re.search(rf"(?<!\w){re.escape(name)}(?!\w)", clause, re.I) if name.isascii() else name in clause):  # fmt: skip
            return True
    return False


def checked(c: dict[str, Any], msg: Message, rules: Rules, resolver: Resolver,
            patterns: PatternSet[tuple[str, str]], reading: Reading | None = None) -> tuple[str, Found]:  # fmt: skip
    """The (sentence, Found) of a normalised candidate for message `msg`; Refused if wrong."""
    attribute, kind, text = c["attribute"], c["kind"], msg.text
    value, quote = c["value"], c["quote"]
    owner = None if c["entity"] == "user" else c["entity"]
    reading = reading or Reading(msg, resolver, patterns)
    if kind == "rule":
        return stated_dependency(reading, attribute, c["on"])
    if kind == "verbatim":
        return kept_words(reading, attribute, value)
    if kind in ("forget", "invalidate"):
        asked = asked_for(reading, attribute, kind)
        if asked is None:
            word = "ask to forget" if kind == "forget" else "say the end of"
            raise Refused(f"{attribute}: {'an' if kind == 'invalidate' else 'a'} {kind}, but the message does not {word} {attribute}")
        sentence = next((s for s in sentences(text) if quote and quote in s), text)
        start = max(sentence.find(quote), 0) if quote else 0
        end = start + len(quote) if quote else len(sentence)
        return sentence, Found(attribute, None, asked, start, start, end, owner=owner)
    if value is None:
        raise Refused(f"{attribute}: an assert needs a value")
    values = value if isinstance(value, list) else [value]
    values = [unslash(rules, attribute, v, text) for v in values]
    for v in values:
        if names_the_slot(rules, attribute, v):
            raise Refused(f"{attribute}: {v!r} names the attribute, not its value")
    sentence = where(rules, attribute, values, quote, text)
    low = norm(sentence)
    first = next((sp for sp in spellings(rules, attribute, values[0]) if norm(sp) in low), values[0])
    vstart = max(sentence.lower().find(first.lower()), 0)
    if owner is None and (who := about_someone_else(sentence, vstart)):
        raise Refused(f"{attribute}: said of someone else ({who!r}), not the speaker")
    now = reading.held(f"{owner_entity(reading.entity, owner)}/{attribute}")
    one = (a := rules.attributes.get(attribute)) is None or a.cardinality == "one"
    if one and now is not None and not rules.same_value(attribute, now, values[0]) and not says_change(reading, attribute, values[0], sentence, vstart, vstart + len(first)):  # fmt: skip
        raise Refused(f"{attribute}: {values[0]!r} is in the message, but nothing there says it replaced {now!r} (a change needs the person to say it: the {attribute.replace('_', ' ')} named, or 'moved', 'now', 'new' …)")  # fmt: skip
    date = c["date"]
    day = (msg.time or "")[:10]
    if date is not None and date != day:
        when = find_when(sentence, day or None)
        if when is None or when.start != date:
            date = None  # a date the message never gives: the message's own date stands
    elif date == day:
        date = None
    kept: Any = values if isinstance(value, list) else values[0]
    start = clause_start(sentence, vstart)
    return sentence, Found(attribute, kept, "assert", start, vstart, vstart + len(first),
                           owner=owner, date=date)  # fmt: skip

