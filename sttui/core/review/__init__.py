"""Milestone review (DynSTEER) over stt episodes: the milestone DAG and minefields, the
ready frontier as actions close, stage scores, stop signals and first-error localisation."""
