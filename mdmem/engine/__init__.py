"""Deciding and cascading: what a statement does to the facts it touches. Pure: no disk, no clock."""
