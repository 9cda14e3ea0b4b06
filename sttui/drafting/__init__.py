"""What a model drafts and a person reviews. A task's milestone graph: candidates from a model
(``ask``), the draft's record with its validation, vote and checks (``record``), and writing an
accepted graph into the task file (``write``); the pure parts (validation, signatures, the vote)
are in ``sttui.core.review.consensus``. Whole tasks from a static scenario, through the
STT-Arena pipeline's stages (``tasks``), and explore episodes rated before they are bundled
(``episodes``), with the review screen's adapter (``review``)."""
