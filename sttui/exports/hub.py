"""``--push-to-hub REPO``: the ``hf`` Parquet file and a dataset card, uploaded as one commit to a
Hugging Face dataset repository with ``huggingface_hub`` (its login, its token handling, its
retries; sttui never reads the token).

The repository is laid out as the Hub's loader expects: ``data/train-00000-of-00001.parquet``
and a ``README.md`` whose YAML header names the file as the ``default`` config's train split, so
``load_dataset("REPO")`` (or the same folder on disk) finds it. A repository that does not exist
yet is created private: trajectories may hold what a lab does not mean to publish.
"""

from __future__ import annotations

import shutil
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from sttui.errors import MissingExtra
from sttui.exports.transcripts import Transcript

DATA_FILE = "data/train-00000-of-00001.parquet"

COLUMNS = {
    "episode_id": "the episode's id in the sttui record",
    "task_id": "the task (with `task_hash`, the exact version it ran on)",
    "kind": "`stt` (dynamic tool use, STT-Arena) or `explore` (hidden-rule exploration, AdaExploreBench)",
    "domain, level, subtype": "the task's domain, level and conflict subtype (explore: the rule family)",
    "agent, user": "the controllers that started in the seats",
    "agent_holders, user_holders": "every controller that took the seat's turns (handoffs)",
    "passed": "stt: the checklist's (or the judge's) verdict",
    "stage_score": "stt: the milestone review's stage score (DynSTEER)",
    "calibrated_accuracy": "explore: calibrated accuracy over the batches",
    "seed, setting": "the episode's seed and the papers' setting it ran under",
    "messages": "the agent seat's view as OpenAI chat messages (tool arguments and results as JSON text)",
    "tools": "the tools as OpenAI function schemas, one JSON string",
    "metadata": "a refined episode's provenance (refined_from, edits, editor, verification) as JSON; else null",
}


def _hub() -> Any:
    try:
        import huggingface_hub
    except ImportError:
        raise MissingExtra("--push-to-hub needs huggingface_hub: pip install 'sttui[hf]'") from None
    return huggingface_hub


def dataset_card(found: list[Transcript], repo_id: str) -> str:
    """The README.md of the dataset repository: a YAML header the Hub and ``datasets`` read
    (config, data file, tags, size) and a description of the columns and the episodes in it."""
    hub = _hub()
    n = len(found)
    size = "n<1K" if n < 1000 else "1K<n<10K" if n < 10_000 else "10K<n<100K" if n < 100_000 else "n>100K"
    data = hub.DatasetCardData(
        pretty_name=f"sttui episodes: {repo_id}",
        tags=["sttui", "agents", "tool-use", "trajectories"],
        task_categories=["text-generation"],
        size_categories=[size],
        configs=[{"config_name": "default", "data_files": [{"split": "train", "path": DATA_FILE}]}],
    )
    kinds = Counter(t.record.kind for t in found)
    agents = Counter(t.record.agent for t in found)
    tasks = len({t.record.task_id for t in found})
    lines = [
        "---",
        data.to_yaml(),
        "---",
        "",
        f"# sttui episodes: {repo_id}",
        "",
        f"{n} episode(s) of {tasks} task(s), exported by `sttui export --format hf --push-to-hub`: "
        + ", ".join(f"{v} {k}" for k, v in sorted(kinds.items()))
        + ". One row per episode.",
        "",
        "## Columns",
        "",
        *[f"- `{name}`: {text}" for name, text in COLUMNS.items()],
        "",
        "## Agents",
        "",
        *[f"- `{name}`: {count} episode(s)" for name, count in sorted(agents.items())],
        "",
        "## Use",
        "",
        "```python",
        "from datasets import load_dataset",
        "",
        f'ds = load_dataset("{repo_id}", split="train")',
        "```",
        "",
    ]
    return "\n".join(lines)


def stage(parquet: Path, card: str, folder: Path) -> None:
    """The repository's files, laid out in ``folder``."""
    (folder / "data").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(parquet, folder / DATA_FILE)
    (folder / "README.md").write_text(card, encoding="utf-8")


def push(found: list[Transcript], parquet: Path, repo_id: str) -> str:
    """Upload the Parquet file and its card in one commit; returns the commit's URL."""
    hub = _hub()
    card = dataset_card(found, repo_id)
    api = hub.HfApi()
    api.create_repo(repo_id, repo_type="dataset", private=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="sttui-hub-") as tmp:
        stage(parquet, card, Path(tmp))
        info = api.upload_folder(
            repo_id=repo_id,
            folder_path=tmp,
            repo_type="dataset",
            commit_message=f"sttui export: {len(found)} episode(s)",
        )
    return str(getattr(info, "commit_url", "") or info)
