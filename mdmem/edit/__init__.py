"""Changing the vault: ingest, hand edits (sync, watch), undo and git commits."""
