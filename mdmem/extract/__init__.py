"""From a transcript to candidate statements: readers, moods, dates and the candidate finders."""

from mdmem import regex_cache

regex_cache.seed()  # the extractor's few hundred expressions, as earlier processes compiled them
