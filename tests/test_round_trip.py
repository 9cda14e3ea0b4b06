"""Issue 24 (3): any record the tools can make survives export → import → export byte for byte
and replays to the same scores. The records are a seeded, small set of generated combinations:
episodes run by baselines (stt and explore), forks at random rows (and forks of forks), a
refinement, a handoff between a person and a model, and ratings of tasks and episodes.

    STTUI_ROUNDTRIP_SEEDS=20 python -m pytest tests/test_round_trip.py   # more combinations
"""

from __future__ import annotations

import asyncio
import json
import os
import random
from pathlib import Path

import pytest
from click.testing import CliRunner

from sttui.cli import main
from sttui.store.store import Store
from tests.conftest import ROOT

STT = ROOT / "tasks" / "stt" / "logistics" / "insulin-reefer-fault-st2-easy.yaml"
EXPLORE = ROOT / "tasks" / "explore" / "finance" / "additive-1.yaml"
SEEDS = range(int(os.environ.get("STTUI_ROUNDTRIP_SEEDS", "3")))
FIX = ["--set", "3.args.vehicle_id=TRK-9", "--drop", "5", "--insert", "1:list_vehicles(location='HUB-NORTH')"]
FIX += ["--insert", "6:> TRK-7's refrigeration failed, so the insulin went on reefer van TRK-9.", "--move", "1:2"]


def cli(db: str, *args: object, ok: bool = True):
    result = CliRunner().invoke(main, ["--db", db, *map(str, args)])
    if ok:
        assert result.exit_code == 0, result.output
    return result


def _ids(db: str) -> list[str]:
    return [r.id for r in Store(db).list_episodes()]


def _fork(db: str, episode: str, rng: random.Random) -> str | None:
    """A fork of ``episode`` at a random row the tool accepts (rows it refuses are skipped)."""
    last = max(e.seq for e in Store(db).events(episode))
    for row in rng.sample(range(2, last), min(6, last - 2)):
        before = set(_ids(db))
        result = cli(db, "fork", episode, "--at", row, "--headless", "--agent", "baseline:oracle", ok=False)
        made = set(_ids(db)) - before
        if made:
            return made.pop()
        assert result.exit_code != 0 and "Traceback" not in result.output
    return None


def _handoff(db: str) -> None:
    from tests.test_mixed_control import _human_then_model

    asyncio.run(_human_then_model(db, handed_at=2))


def _ratings(db: str, tmp: Path, rng: random.Random) -> None:
    rows = [
        {"item_kind": "task", "item_id": "logistics-insulin-reefer-st2-easy", "dimension": "checklist_correctness"},
        *({"item_kind": "episode", "item_id": e, "dimension": "overall_quality"} for e in _ids(db)[:2]),
    ]
    lines = []
    for row in rows:
        for who in rng.sample(["ana", "ben", "chloe", "yes", "Zoë"], 2):
            lines.append(
                {**row, "annotator": who, "value": rng.randint(1, 5), "comment": rng.choice([None, "ok", "two\nlines"])}
            )
    (tmp / "r.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    cli(db, "import-ratings", tmp / "r.jsonl")


def _make_record(db: str, tmp: Path, seed: int) -> None:
    rng = random.Random(seed)
    cli(db, "run", STT)
    cli(db, "run", STT, "--agent", "baseline:naive")
    oracle, naive = _ids(db)[1], _ids(db)[0]
    steps = [lambda: _fork(db, oracle, rng), lambda: _handoff(db)]
    steps.append(lambda: cli(db, "refine", naive, *FIX, "--save", "--as", "ana"))
    if seed % 2 == 0:
        steps.append(lambda: cli(db, "run", EXPLORE))
    rng.shuffle(steps)
    for step in steps:
        step()
    forks = [e for e in _ids(db) if Store(db).events(e)[0].payload.get("forked_from")]
    if forks:  # a fork of a fork: its prefix skips the first fork's own rows (forked, resumed)
        _fork(db, rng.choice(forks), rng)
    _ratings(db, tmp, rng)


def _replays(db: str) -> dict[str, str]:
    """Each episode's replay: its re-scored outcome and review, and whether it reproduces."""
    out = {}
    for episode in sorted(_ids(db)):
        result = cli(db, "replay", episode, "--json", ok=False)
        replay = json.loads(result.stdout)
        replay.pop("trusted_by", None)  # where the code's trust came from: here, or the bundled file
        out[episode] = f"{result.exit_code} {json.dumps(replay, indent=1, sort_keys=True)}"
    return out


@pytest.mark.parametrize("seed", SEEDS)
def test_any_record_survives_export_import_export_byte_for_byte(tmp_path, seed):
    source, copy = f"sqlite:///{tmp_path / 'a.db'}", f"sqlite:///{tmp_path / 'b.db'}"
    _make_record(source, tmp_path, seed)
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    cli(source, "export", "--all", "-o", first)
    imported = cli(copy, "import", first)
    assert f"imported {len(_ids(source))} episode(s)" in imported.output
    cli(copy, "export", "--all", "-o", second)
    assert first.read_bytes() == second.read_bytes()
    ratings_a, ratings_b = tmp_path / "ra.jsonl", tmp_path / "rb.jsonl"
    cli(source, "export-ratings", "-o", ratings_a, "--format", "jsonl")
    cli(copy, "import-ratings", ratings_a)
    cli(copy, "export-ratings", "-o", ratings_b, "--format", "jsonl")
    assert ratings_a.read_bytes() == ratings_b.read_bytes() and ratings_a.stat().st_size > 0
    before, after = _replays(source), _replays(copy)
    assert before == after, _debug_diff(before, after)
    assert all(v.startswith("0 ") and '"reproduces_record": true' in v for v in before.values()), before


def _debug_diff(a: dict[str, str], b: dict[str, str]) -> str:
    import difflib

    return "\n".join(
        "\n".join(difflib.unified_diff(a[k].splitlines(), b.get(k, "").splitlines(), lineterm="", n=1))
        for k in a
        if a[k] != b.get(k)
    )
