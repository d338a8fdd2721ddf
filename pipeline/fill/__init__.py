"""Filling tables: the domain config, the offline value generator, and the fill engine.

The engine (`engine`, `keys`, `sizing`, `report`) fills tables in plan order, batch by batch, and calls
the offline generator for every column it does not fill itself (foreign keys). Foreign keys are drawn by
`keys` with `sampling` (skewed popularity, pairs, fan-out) and `key_kinds` (which kind of key a table
has, and its hints); `deferred` is the second pass over cycle-breaking keys. The generator:

- `config`: `DomainConfig`, the pydantic model of `domain.yaml` (docs/domain-packs.md).
- `checks`: what CHECK constraints say about values (IN lists, bounds, lengths, column order).
- `infer`, `spec`, `columns`: choosing a strategy and its bounds for every column.
- `pools`, `draw`, `strings`: Faker pools made once, vectorised draws and string assembly.
- `strategies` (+ `strategies_people`, `strategies_text`, `strategies_time`): the named strategies.
- `arrow_types`: DuckDB types as Arrow types, and conversion of generated values to them.
- `generator`: `TableGenerator`, `apply_sequences`, `apply_expressions`.
"""

from __future__ import annotations

from pipeline.fill.arrow_types import arrow_type
from pipeline.fill.checks import derive_checks, unhandled_checks
from pipeline.fill.config import (
    ColumnHint,
    DomainConfig,
    PerParent,
    Rule,
    TableConfig,
    TimeWindow,
    parse_duration,
)
from pipeline.fill.generator import (
    TableGenerator,
    apply_expressions,
    apply_sequences,
    column_specs,
    expression_columns,
    sequence_columns,
    strategy_for,
)
from pipeline.fill.strategies import STRATEGIES

__all__ = [
    "STRATEGIES",
    "ColumnHint",
    "DomainConfig",
    "PerParent",
    "Rule",
    "TableConfig",
    "TableGenerator",
    "TimeWindow",
    "apply_expressions",
    "apply_sequences",
    "arrow_type",
    "column_specs",
    "derive_checks",
    "expression_columns",
    "parse_duration",
    "sequence_columns",
    "strategy_for",
    "unhandled_checks",
]
