"""Annotation: dimensions, queues, blinding, agreement statistics, rating files. No UI."""
