"""A study's design and its report at scale: CPU time to design a study of thousands of tasks
and participants, and to bootstrap the clustered interval over many participants.

    PYTHONPATH=. python bench/study.py
"""

from __future__ import annotations

import random
import time

from sttui.core.stats import bootstrap, clustered_bootstrap, mean_of
from sttui.study.design import design
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
