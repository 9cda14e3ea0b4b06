"""The STT-Arena taxonomy: conflict subtypes and levels (plain constants, cheap to import)."""

CONFLICTS = ("T1", "T2", "T3", "S1", "S2", "S3", "ST1", "ST2", "ST3")
LEVELS = ("easy", "medium", "hard", "impossible")
