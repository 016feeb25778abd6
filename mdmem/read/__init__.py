"""Answering from the vault: the search index, matching, retrieval, answers, context and timelines."""
