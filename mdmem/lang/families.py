"""Word families: words a question and a message use for one thing ('fave' for 'favorite', 'son'
among 'kids', 'film' for 'movie', 妈妈 for 母亲).

The light stemmer (tokens.stem) already joins 'paint', 'painting' and 'painted'; these are the
words it cannot join. Read by read/cover.py (how much of a question a sentence holds) and
read/spans.py (which words of a sentence the question already says, so are no answer). Each
family is one line; a word belongs to one family at most. Kept small and plain: a family
joins words that name the same thing in chat, never a word and its opposite.
"""

from __future__ import annotations

from functools import cache

from mdmem.lang.tokens import fold, stem

_EN = """
favorite favourite fave fav favorites favourites faves
kid kids child children son sons daughter daughters
mom mum mother mommy mama
dad father daddy papa
movie movies film films flick
picture pictures photo photos pic pics snapshot
dog dogs puppy puppies pup pups doggy
cat cats kitten kittens kitty
friend friends pal pals buddy buddies
gift gifts
store stores shop shops boutique
job jobs career
trip trips journey
begin began begun start started starting
"""
_ZH = """
孩子 儿子 女儿 小孩
妈妈 母亲 老妈
爸爸 父亲 老爸
电影 影片
照片 相片
狗 狗狗 小狗
猫 猫咪 小猫
朋友 好友
"""


@cache
def _table() -> dict[str, frozenset[str]]:
    out: dict[str, frozenset[str]] = {}
    for line in (*_EN.strip().splitlines(), *_ZH.strip().splitlines()):
        members = frozenset(stem(fold(w)) for w in line.split())
        for m in members:
            out[m] = members
    return out


def family(token: str) -> frozenset[str]:
    """The stems of the words of a token's family (the token's stem among them); the token
    alone when it belongs to none."""
    return _table().get(token) or frozenset([token])


def kin_of(token: str) -> frozenset[str]:
    """The other members of a token's family (empty when it belongs to none)."""
    return family(token) - {token}
