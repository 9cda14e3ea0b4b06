"""Human-baseline studies: the study file and its design (``spec``, ``design``), assigning its
slots to participants and playing them (``running``), and the analysis a lab publishes
(``analysis``). The record side (tables, safe assignment) is ``sttui.store.studies``.

Nothing here imports textual: the workbench opens a participant's task through a ``PlayPlan``.
"""
