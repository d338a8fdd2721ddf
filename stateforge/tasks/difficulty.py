"""A task's difficulty label, computed from its structure (docs/tasks.md, "Difficulty").

    label = difficulty(horizon=24, writes=5, knobs=2, capabilities=["cross_step_dependency", ...])

Points, added up:

| part | points |
|---|---|
| horizon (reference calls with reads, without the decline) | 0 for 1-2, 1 for 3-7, 2 for 8-19, 3 for 20+ |
| writes | 0 for 0-1, 1 for 2-3, 2 for 4 or more |
| knobs the generator set (`provenance` knobs: paging, distractors, detours, ...) | 1 each, at most 3 |
| capabilities | 1 for each beyond the first, at most 2 |

easy: 0-1 points; medium: 2-4; hard: 5 or more. The recipe's or the model's own label is not used: the
label says what the task asks, whoever wrote it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from stateforge.tools import CANNOT_COMPLETE

HORIZON_STEPS = ((20, 3), (8, 2), (3, 1))
WRITE_STEPS = ((4, 2), (2, 1))
MAX_KNOBS = 3
MAX_EXTRA_CAPABILITIES = 2
MEDIUM, HARD = 2, 5


def _steps(value: int, steps: tuple[tuple[int, int], ...]) -> int:
    return next((points for low, points in steps if value >= low), 0)


def difficulty_points(horizon: int, writes: int, knobs: int, capabilities: Iterable[str]) -> dict[str, int]:
    """The points of each part (see the module docstring) and their `total`."""
    parts = {
        "horizon": _steps(horizon, HORIZON_STEPS),
        "writes": _steps(writes, WRITE_STEPS),
        "knobs": min(max(knobs, 0), MAX_KNOBS),
        "capabilities": min(max(len(set(capabilities)) - 1, 0), MAX_EXTRA_CAPABILITIES),
    }
    return {**parts, "total": sum(parts.values())}


def difficulty(horizon: int, writes: int, knobs: int, capabilities: Iterable[str]) -> str:
    """`easy`, `medium` or `hard` for a task of this structure."""
    total = difficulty_points(horizon, writes, knobs, capabilities)["total"]
    return "hard" if total >= HARD else "medium" if total >= MEDIUM else "easy"


def knob_count(provenance: Mapping[str, Any]) -> int:
    """The knobs a generator recorded: `knobs` of the provenance (or of its details), a list of names or a
    mapping of name -> setting (falsy settings not counted)."""
    knobs = provenance.get("knobs")
    if knobs is None:
        knobs = (provenance.get("details") or {}).get("knobs")
    if isinstance(knobs, Mapping):
        return sum(bool(v) for v in knobs.values())
    if isinstance(knobs, (list, tuple, set)):
        return len(knobs)
    return 0


def structure(tools: Iterable[str], is_write: Callable[[str], bool]) -> tuple[int, int]:
    """(horizon, writes) of a reference solution given by its tool names."""
    made = [t for t in tools if t != CANNOT_COMPLETE]
    return len(made), sum(is_write(t) for t in made)
