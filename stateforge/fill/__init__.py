"""Filling tables: the offline value generator and the fill engine.

The engine (`engine`, `keys`, `sizing`, `report`) fills tables in plan order, batch by batch, and calls
the offline generator for every column it does not fill itself (foreign keys). Foreign keys are drawn by
`keys` with `sampling` (skewed popularity, pairs, fan-out) and `key_kinds` (which kind of key a table
has, and its hints); `deferred` is the second pass over cycle-breaking keys. The generator:

- `hints`: `check_config`, what the generator needs of a `domain.yaml` (`stateforge.domain`) beyond its
  references: strategy names that exist, foreign-key hints the draw can honour.
- CHECK facts (IN lists, bounds, lengths, column order) come from `stateforge.constraints.checks`.
- `infer`, `spec`, `columns`: choosing a strategy and its bounds for every column.
- `pools`, `draw`, `strings`: Faker pools made once, vectorised draws and string assembly.
- `strategies` (+ `strategies_people`, `strategies_text`, `strategies_time`): the named strategies.
- `convert`: generated values to Arrow arrays of the column's type (`stateforge.types`).
- `generator`: `TableGenerator`, `apply_sequences`, `apply_expressions`.
"""

from __future__ import annotations

from stateforge.constraints.checks import derive_checks, unhandled_checks
from stateforge.fill.generator import (
    TableGenerator,
    apply_expressions,
    apply_sequences,
    column_specs,
    expression_columns,
    sequence_columns,
    strategy_for,
)
from stateforge.fill.hints import check_config
from stateforge.fill.strategies import STRATEGIES

__all__ = [
    "STRATEGIES",
    "TableGenerator",
    "apply_expressions",
    "apply_sequences",
    "check_config",
    "column_specs",
    "derive_checks",
    "expression_columns",
    "sequence_columns",
    "strategy_for",
    "unhandled_checks",
]
