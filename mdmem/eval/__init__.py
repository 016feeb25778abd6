"""Scenario files and the evaluation runner."""
