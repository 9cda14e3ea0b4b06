"""Measurements over a suite of bundled tasks (the baselines' difficulty)."""
