"""Rating dimensions from ``annotations/dimensions.yaml``: 1-5 with an anchor for every point,
or (``categorical: true``) a few unordered choices numbered from 1, each with its text."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import yaml

ITEM_KINDS = ("tasks", "explore", "episodes", "verdicts")
# The judge-check dimension: the agreement with the judge reads its choices by these numbers.
VERDICT_DIMENSION = "verdict_correct"
RIGHT, WRONG, CANT_TELL = 1, 2, 3
FAILURE_MODES = ("stale_state_execution", "trigger_misdiagnosis", "missing_post_adaptation_verification", "other")


class DimensionsError(Exception):
    pass


@dataclass(frozen=True)
class Dimension:
    id: str
    name: str
    question: str
    anchors: dict[int, str]
    optional: bool = False
    # An episode's controllers (human:ana, model:…) are blinded unless the dimension needs them.
    shows_controller: bool = False
    # Unordered choices (right / wrong / can't tell), not a 1-5 scale: kept out of the ordinal
    # agreement table, and their keys are only the anchors' numbers.
    categorical: bool = False

    @property
    def values(self) -> tuple[int, ...]:
        return tuple(sorted(self.anchors))


@dataclass(frozen=True)
class GoldSettings:
    """How gold items are used: one item in ``rate`` of a queue is gold (0: none mixed in); an
    annotator counts once they rated ``min_items`` gold with ``min_accuracy`` right, and drifts
    when their latest ``window`` gold ratings fall below it."""

    rate: int = 10
    min_accuracy: float = 0.8
    min_items: int = 5
    window: int = 10


@dataclass
class Dimensions:
    cap: int = 3
    positive: tuple[int, ...] = (4, 5)
    by_kind: dict[str, list[Dimension]] = field(default_factory=dict)
    gold: GoldSettings = field(default_factory=GoldSettings)

    def of(self, kind: str) -> list[Dimension]:
        return self.by_kind.get(kind, [])

    def find(self, dimension: str) -> Dimension | None:
        return next((d for ds in self.by_kind.values() for d in ds if d.id == dimension), None)


def dimensions_path() -> Path:
    from sttui.paths import PACKAGE_ROOT

    local = Path("annotations") / "dimensions.yaml"
    return local if local.is_file() else PACKAGE_ROOT / "annotations" / "dimensions.yaml"


def load_dimensions(path: Path | None = None) -> Dimensions:
    path = path or dimensions_path()
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise DimensionsError(f"{path}: {exc}") from None
    if not isinstance(data, dict):
        raise DimensionsError(f"{path}: expected a mapping with cap, positive, tasks, explore, episodes")
    out = Dimensions(
        cap=int(data.get("cap", 3)), positive=tuple(data.get("positive", (4, 5))), gold=_gold(data.get("gold"), path)
    )
    for kind in ITEM_KINDS:
        dims = []
        for i, raw in enumerate(data.get(kind) or []):
            where = f"{path}: {kind}[{i}]"
            if not isinstance(raw, dict) or not {"id", "name", "anchors"} <= set(raw):
                raise DimensionsError(f"{where}: expected id, name, question and anchors 1-5")
            try:
                anchors = {int(k): str(v) for k, v in (raw["anchors"] or {}).items()}
            except (TypeError, ValueError, AttributeError):
                raise DimensionsError(f"{where}.anchors: expected numbered anchor texts") from None
            categorical = bool(raw.get("categorical", False))
            if categorical and (not 2 <= len(anchors) <= 5 or sorted(anchors) != list(range(1, len(anchors) + 1))):
                raise DimensionsError(f"{where}.anchors: a categorical dimension numbers its 2 to 5 choices 1, 2, …")
            if not categorical and sorted(anchors) != [1, 2, 3, 4, 5]:
                raise DimensionsError(f"{where}.anchors: expected an anchor text for each of 1, 2, 3, 4, 5")
            if kind == "verdicts" and raw["id"] == VERDICT_DIMENSION and (not categorical or len(anchors) != 3):
                raise DimensionsError(
                    f"{where}: {VERDICT_DIMENSION} is categorical with three choices: 1 right, 2 wrong, 3 can't tell"
                )
            dims.append(
                Dimension(
                    str(raw["id"]),
                    str(raw["name"]),
                    str(raw.get("question", "")),
                    anchors,
                    bool(raw.get("optional", False)),
                    bool(raw.get("shows_controller", False)),
                    categorical,
                )
            )
        out.by_kind[kind] = dims
    return out


def _gold(raw: object, path: Path) -> GoldSettings:
    """The ``gold:`` section (every key optional), each value checked with one line on error."""
    if raw is None:
        return GoldSettings()
    if not isinstance(raw, dict):
        raise DimensionsError(f"{path}: gold: expected a mapping of rate, min_accuracy, min_items, window")
    unknown = sorted(set(map(str, raw)) - {"rate", "min_accuracy", "min_items", "window"})
    if unknown:
        raise DimensionsError(f"{path}: gold.{unknown[0]}: unknown; expected rate, min_accuracy, min_items, window")
    out = GoldSettings()
    for key, lo, hi, kind in (("rate", 0, 1000, int), ("min_items", 1, 100_000, int), ("window", 1, 100_000, int)):
        value = raw.get(key, getattr(out, key))
        if isinstance(value, bool) or not isinstance(value, kind) or not lo <= value <= hi:
            raise DimensionsError(f"{path}: gold.{key}: expected a whole number from {lo} to {hi}; got {value!r}")
    acc = raw.get("min_accuracy", out.min_accuracy)
    if isinstance(acc, bool) or not isinstance(acc, (int, float)) or not 0 <= acc <= 1:
        raise DimensionsError(f"{path}: gold.min_accuracy: expected a share from 0 to 1 (0.8 is 80 %); got {acc!r}")
    return GoldSettings(
        int(raw.get("rate", out.rate)),
        float(acc),
        int(raw.get("min_items", out.min_items)),
        int(raw.get("window", out.window)),
    )
