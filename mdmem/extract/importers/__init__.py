"""Transcript readers, one module per format, behind one registry (`registry.py`)."""
