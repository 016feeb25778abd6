"""From a transcript to candidate statements: readers, moods, dates and the candidate finders."""
