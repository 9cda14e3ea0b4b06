"""A study's design and its report at scale: CPU time to design a study of thousands of tasks
and participants, to work out where it stands (``study status`` and ``study watch``, over every
slot: 30,000 slots of 2,000 people had taken 36 s), and to bootstrap the clustered interval
over many participants.

    PYTHONPATH=. python bench/study.py
"""

from __future__ import annotations

import random
import time
from types import SimpleNamespace

from sttui.core.stats import bootstrap, clustered_bootstrap, mean_of
from sttui.study.design import design
from sttui.study.progress import progress
from sttui.study.spec import Study


def cpu(fn, *args) -> float:
    t0 = time.process_time()
    fn(*args)
    return time.process_time() - t0


def main() -> None:
    for tasks, people in ((100, 30), (1000, 500), (3000, 5000)):
        ids = [f"t{i}" for i in range(tasks)]
        study = Study.model_validate(
            {
                "study": 1,
                "id": "b",
                "tasks": ids,
                "replication": 3,
                "participants": {"anonymous": people},
                "instructions": "x",
            }
        )
        print(f"design {tasks} tasks × 3 replications, {people} participants: {cpu(design, study, ids):.3f} s CPU")
        made = design(study, ids)
        people_rows = [
            SimpleNamespace(name=n, status="active", joined_as=None, acknowledged_at=None) for n in study.names
        ]
        slots = [
            SimpleNamespace(
                participant=s.participant,
                practice=s.practice,
                task_id=s.task_id,
                position=s.position,
                status="assigned",
                episode_status=None,
                assigned_at=None,
                started_at=None,
                episode_id=None,
                outcome=None,
                end_reason=None,
                scores=None,
            )
            for s in made.slots
        ]
        print(f"  where it stands ({len(slots):,} slots): {cpu(progress, study, people_rows, slots):.3f} s CPU")
    rng = random.Random(1)
    for people, each in ((10, 8), (100, 8), (1000, 8)):
        clusters = [[float(rng.random() < 0.5) for _ in range(each)] for _ in range(people)]
        flat = [v for c in clusters for v in c]
        print(
            f"{people} participants × {each} episodes: clustered interval {cpu(clustered_bootstrap, clusters):.2f} s CPU, "
            f"plain {cpu(bootstrap, flat, mean_of):.2f} s CPU (2000 rounds)"
        )


if __name__ == "__main__":
    main()
