"""Option dates (commands/dates.py, dateparser) and message dates (extract/dates.py) agree on
one table of phrases, and a bad option date is refused naming the option."""

from __future__ import annotations

import pytest

from mdmem.commands.dates import span
from mdmem.errors import MdmemError
from mdmem.extract.dates import find_when

NOW = "2026-03-18T12:00:00Z"
# phrase → the first day of the time it names, said on 2026-03-18
TABLE = {
    "yesterday": "2026-03-17",
    "last month": "2026-02-01",
    "last year": "2025-01-01",
    "3 days ago": "2026-03-15",
    "2 weeks ago": "2026-03-04",
    "昨天": "2026-03-17",
    "上个月": "2026-02-01",
    "去年": "2025-01-01",
}


@pytest.mark.parametrize(("phrase", "start"), sorted(TABLE.items()))
def test_both_resolvers_read_the_same_phrase_the_same_way(phrase: str, start: str) -> None:
    assert span(phrase, "--since", NOW)[0] == start
    found = find_when(phrase, NOW[:10])
    assert found is not None and found.start == start


def test_digits_are_read_strictly() -> None:
    assert span("2025-06", "--as-of") == ("2025-06-01", "2025-06-30")
    assert span("2024", "--as-of") == ("2024-01-01", "2024-12-31")
    assert span("2024-02-29", "--as-of") == ("2024-02-29", "2024-02-29")
    for bad in ("2025-13", "2025-02-30", "2025-06-01-02", "never ever"):
        with pytest.raises(MdmemError, match="--as-of"):
            span(bad, "--as-of", NOW)
