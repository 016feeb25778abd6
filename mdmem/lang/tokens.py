"""Search tokens for English and Chinese: stemmed words, and character uni- and bigrams for CJK."""

from __future__ import annotations

import functools
import re
import unicodedata
from functools import cache


def _set(text: str) -> frozenset[str]:
    return frozenset(text.split())


_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"


@cache
def token_re() -> re.Pattern[str]:
    """A CJK run, or a run of other letters and digits (underscores split: home_city → home
    city). Compiled on first use: its large classes take milliseconds, and not every
    process that imports this tokenizes anything."""
    return re.compile(rf"([{_CJK}]+)|([^\W_{_CJK}]+)")


STOP = _set(
    """a an the is are was were be been being am do does did doing i me my mine myself we our ours
    us you your yours he she they them his her their it its of to in on at for with about from by
    and or but if then than so as not no yes that this these those there here what which who whom
    whose where when why how can could would should will shall may might must have has had having
    tell know please just also still now currently current today any some all every anything
    everything something right into over under up down out off again very too much many more most
    own same other such only both each few s t d ll m re ve"""
)
# Chinese function words that carry no topic: left out of queries (they stay in the index).
ZH_STOP_CHARS = frozenset(
    "我你他她它们的了是在吗呢吧么啊呀哦嗯和与及或还也都就要会能可以这那哪个些什怎样有没不很最被把给让对从到过着"
)
ZH_STOP_BIGRAMS = _set(
    """我的 你的 我们 你们 他们 什么 怎么 哪里 哪个 哪儿 那个 这个 现在 目前 知道 告诉 是不 不是
    还是 是否 有没 没有 一下 一个 可以 请问 记得 以前 之前 过去 原来 曾经 时候"""
)


@functools.lru_cache(maxsize=1 << 16)  # words repeat: an index build stems each once
def stem(word: str) -> str:
    """Light English normalisation: plural, -ing, -ed and a final -e go (moved, moving, move → mov)."""
    w = word
    if len(w) <= 3 or not w.isascii() or w.isdigit():
        return w
    if w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith("sses"):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    if w.endswith("ing") and len(w) > 5:
        w = w[:-3]
    elif w.endswith("ed") and len(w) > 4:
        w = w[:-2]
    if len(w) > 4 and w[-1] == w[-2] and w[-1] not in "lsz":
        w = w[:-1]  # running → runn → run
    if w.endswith("e") and len(w) > 3:
        w = w[:-1]
    return w


def fold(text: str) -> str:
    """NFKC (full/half width) and case-folded: the form every comparison uses."""
    if text.isascii():  # NFKC leaves ASCII as it is, and its case-fold is lower()
        return text.lower()
    return unicodedata.normalize("NFKC", text).casefold()


def words(text: str) -> list[str]:
    """Raw folded words and CJK runs, unstemmed (for names and literal phrases)."""
    return [m.group(0) for m in token_re().finditer(fold(text))]


# In ASCII text the letters and digits of token_re are these (no CJK run, `_` splits).
_ASCII_WORD = re.compile(r"[a-z0-9]+")


def tokens(text: str, *, query: bool = False) -> list[str]:
    """Index tokens of text; with query=True the function words of a question are left out."""
    if text.isascii():  # most messages: one findall on the lower-cased text, as token_re reads it
        return [stem(w) for w in _ASCII_WORD.findall(text.lower()) if w not in STOP and (len(w) > 1 or w.isdigit())]
    out: list[str] = []
    for m in token_re().finditer(fold(text)):
        run, word = m.group(1), m.group(2)
        if word is not None:
            if word in STOP or (len(word) == 1 and not word.isdigit()):
                continue
            out.append(stem(word))
        else:
            out.extend(cjk_grams(run, query=query))
    return out


def cjk_grams(run: str, *, query: bool = False) -> list[str]:
    """Unigrams and bigrams of a CJK run; a query drops the function-word ones."""
    unis = list(run)
    bis = [run[i : i + 2] for i in range(len(run) - 1)]
    if query:
        unis = [c for c in unis if c not in ZH_STOP_CHARS] if len(run) > 1 else unis
        bis = [b for b in bis if b not in ZH_STOP_BIGRAMS and not set(b) <= ZH_STOP_CHARS]
    return unis + bis


def weight(token: str) -> float:
    """How much one matched token says: a CJK single character says little."""
    if len(token) == 1 and "\u3400" <= token <= "\ufaff":
        return 0.3
    return 1.0


def is_cjk(text: str) -> bool:
    # ASCII first: `ask` tests every entity name of a vault (thousands), nearly all ASCII.
    return not text.isascii() and any(_is_cjk_char(c) for c in text)


def _is_cjk_char(c: str) -> bool:
    return "\u3400" <= c <= "\u4dbf" or "\u4e00" <= c <= "\u9fff" or "\uf900" <= c <= "\ufaff"
