"""Looking up a phrase: one catalogue per language (en.py, zh.py), the same keys in each."""

from __future__ import annotations

from typing import Any

from mdmem.errors import MdmemError
from mdmem.lang import en, zh
from mdmem.lang.documents import DOCUMENTS

# A third language is one more module with the same keys, added here.
CATALOGUES: dict[str, dict[str, str]] = {"en": en.PHRASES, "zh": zh.PHRASES}
LANGS = tuple(CATALOGUES)

# Placeholders that are forms of another one (or of nothing): a language uses the form its
# grammar needs. English capitalises names and agrees 'is/are' with the label; Chinese does
# neither. The phrasebook tests compare placeholders through this table.
FORMS: dict[str, str] = {"whose_lower": "whose", "Name": "name", "is": "", "was": "", "it_was": ""}

UNCERTAIN_WORDS = en.UNCERTAIN_WORDS + zh.UNCERTAIN_WORDS
REMOVED_WORDS = en.REMOVED_WORDS + zh.REMOVED_WORDS


def phrase(key: str, lang: str, **values: Any) -> str:
    """The phrase `key` in `lang`, its placeholders filled in."""
    catalogue = CATALOGUES.get(lang)
    if catalogue is None:
        raise MdmemError(
            f"mdmem/lang/phrases.py: no phrasebook for language {lang!r}; add mdmem/lang/{lang}.py"
            " with the keys of en.py and list it in CATALOGUES"
        )
    return catalogue[key].format(**values)


def doc(key: str, **values: Any) -> str:
    """A phrase of the English-only documents (context, timeline, command output), filled in."""
    return DOCUMENTS[key].format(**values)
