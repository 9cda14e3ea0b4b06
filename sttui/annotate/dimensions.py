"""Rating dimensions from ``annotations/dimensions.yaml``: 1-5 with an anchor for every point."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import yaml

ITEM_KINDS = ("tasks", "explore", "episodes")
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


@dataclass
class Dimensions:
    cap: int = 3
    positive: tuple[int, ...] = (4, 5)
    by_kind: dict[str, list[Dimension]] = field(default_factory=dict)

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
    out = Dimensions(cap=int(data.get("cap", 3)), positive=tuple(data.get("positive", (4, 5))))
    for kind in ITEM_KINDS:
        dims = []
        for i, raw in enumerate(data.get(kind) or []):
            where = f"{path}: {kind}[{i}]"
            if not isinstance(raw, dict) or not {"id", "name", "anchors"} <= set(raw):
                raise DimensionsError(f"{where}: expected id, name, question and anchors 1-5")
            anchors = {int(k): str(v) for k, v in (raw["anchors"] or {}).items()}
            if sorted(anchors) != [1, 2, 3, 4, 5]:
                raise DimensionsError(f"{where}.anchors: expected an anchor text for each of 1, 2, 3, 4, 5")
            dims.append(
                Dimension(
                    str(raw["id"]),
                    str(raw["name"]),
                    str(raw.get("question", "")),
                    anchors,
                    bool(raw.get("optional", False)),
                    bool(raw.get("shows_controller", False)),
                )
            )
        out.by_kind[kind] = dims
    return out
