"""Drafting a task's milestone graph: candidates from a model (``ask``), the draft's record with
its validation, vote and checks (``record``), and writing an accepted graph into the task file
(``write``). The pure parts (validation, signatures, the vote) are in
``sttui.core.review.consensus``."""
