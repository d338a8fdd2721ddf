"""A column's generation plan (`ColumnSpec`): strategy, bounds, gaps, uniqueness and NULL share.

`plan_columns` merges, for every column of a table, in this order of precedence: the hint from
domain.yaml, the keys (identity / single integer primary key -> `sequence`), the allowed values (ENUM or
CHECK IN), and inference from the name, description and type (`stateforge.fill.infer`); then it narrows the
bounds by the CHECKs and the type's limits, and orders the columns so that every column is generated after
the columns it reads (`after` bases, the names an e-mail is made from).

Bounds and gaps are kept in each strategy's native domain: numbers as numbers, timestamps as
numpy datetime64[us], dates as datetime64[D], times of day as timedelta64[us].
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, time
from typing import Any

import numpy as np
import pyarrow as pa

from stateforge.constraints.checks import ColumnFacts
from stateforge.domain.config import ColumnHint, DomainConfig
from stateforge.fill.infer import kind_of
from stateforge.schema.model import Column
from stateforge.types import arrow_type, decimal_params, int_limits

TIME_DOMAINS = {"timestamp": "ts", "date": "date", "time": "time"}
NUMBER_STRATEGIES = (
    "int",
    "float",
    "decimal",
    "price",
    "rating",
    "year",
    "duration",
    "latitude",
    "longitude",
    "sequence",
)
INTEGRAL_STRATEGIES = ("int", "year", "duration", "sequence")
DAY_US = 86_400_000_000
CHECK_SETS_RANGE = ("int", "float", "decimal", "rating", "year")
"""Strategies whose range a two-sided CHECK replaces (others keep their realistic scale inside it)."""


@dataclass
class ColumnSpec:
    """How one column is generated. Set up by `plan_columns`; read by the strategies."""

    column: Column
    strategy: str
    arrow_type: pa.DataType | None
    kind: str
    """The column's type family (see `infer.kind_of`)."""
    reason: str = "type"
    """What chose the strategy: hint, key, values, check, name, description or type."""
    hint: ColumnHint = field(default_factory=ColumnHint)
    lo: Any = None
    hi: Any = None
    distribution: str = "uniform"
    decimals: int | None = None
    values: list[Any] | None = None
    weights: list[float] | None = None
    after: list[str] = field(default_factory=list)
    min_gap: Any = None
    max_gap: Any = None
    within: tuple[str, ...] = ()
    unique: bool = False
    null_rate: float = 0.0
    min_len: int | None = None
    max_len: int | None = None
    pool: int | None = None
    unit: str = "s"
    pattern: str | None = None
    like: list[str] = field(default_factory=list)
    """LIKE patterns a CHECK asks the values to match (`stateforge.fill.shaping`)."""
    case: str | None = None
    """"upper" or "lower": a CHECK asks for values in that case."""
    trimmed: bool = False
    """A CHECK asks for values without leading or trailing spaces."""
    p: float = 0.5
    sources: dict[str, str] = field(default_factory=dict)
    """For e-mails, user names and full names: role (first, last, full) -> column it is made from."""
    topic: str = ""
    """What the table is about (`stateforge.fill.topics.topic_of`): picks a vocabulary's variant."""
    kind_column: str | None = None
    """A categorical column of the row that picks the form of a vocabulary (`artists.artist_type`: a
    band gets a band name and a band's bio)."""

    @property
    def name(self) -> str:
        return self.column.name

    @property
    def key(self) -> str:
        return self.column.name.lower()

    @property
    def domain(self) -> str:
        """ts, date, time (native numpy time values), num (numbers) or other."""
        if self.strategy in TIME_DOMAINS:
            return TIME_DOMAINS[self.strategy]
        return "num" if self.strategy in NUMBER_STRATEGIES else "other"

    @property
    def integral(self) -> bool:
        return self.kind == "int" or self.strategy in INTEGRAL_STRATEGIES or self.decimals == 0

    @property
    def step(self) -> Any:
        """The least positive difference between two values (for strict bounds and gaps)."""
        return {
            "ts": np.timedelta64(1_000_000, "us"),
            "date": np.timedelta64(1, "D"),
            "time": np.timedelta64(1_000_000, "us"),
        }.get(
            self.domain, 1 if self.integral else 10.0 ** -(self.decimals if self.decimals is not None else 2)
        )

    @property
    def generated(self) -> bool:
        """Made by `TableGenerator.generate` (not an expression, not a grouped sequence)."""
        return self.strategy != "expr" and not self.within


@dataclass
class Ctx:
    """What a strategy function gets: the spec, a seeded generator, the batch's size and first ordinal."""

    spec: ColumnSpec
    rng: np.random.Generator
    n: int
    start: int
    config: DomainConfig
    seed: int
    row: dict[str, Any]
    """Raw values (before NULLs) of the columns generated earlier in this batch, by lower-cased name."""

    @property
    def ordinals(self) -> np.ndarray:
        """1-based global row numbers of the batch: unique across batches."""
        return np.arange(self.start + 1, self.start + self.n + 1, dtype=np.int64)


def native(value: Any, domain: str) -> Any:
    """A bound (number, date, datetime, time or ISO string) in `domain`'s form, or None if it does not fit."""
    if value is None:
        return None
    if isinstance(value, str):
        for parse in (date.fromisoformat, datetime.fromisoformat, time.fromisoformat, float):
            try:
                value = parse(value)  # type: ignore[operator]
                break
            except ValueError:
                continue
        else:
            return None
    if domain == "num":
        return value if isinstance(value, int | float) and not isinstance(value, bool) else None
    if domain in ("ts", "date"):
        if isinstance(value, datetime):
            stamp = np.datetime64(value.replace(tzinfo=None), "us")
        elif isinstance(value, date):
            stamp = np.datetime64(value, "D").astype("datetime64[us]")
        else:
            return None
        return stamp if domain == "ts" else stamp.astype("datetime64[D]")
    if domain == "time" and isinstance(value, time):
        micros = ((value.hour * 60 + value.minute) * 60 + value.second) * 1_000_000 + value.microsecond
        return np.timedelta64(micros, "us")
    return None


def native_gap(seconds: float | None, domain: str) -> Any:
    """A gap given in seconds (or in the column's unit, for numbers) in `domain`'s form."""
    if seconds is None:
        return None
    if domain in ("ts", "time"):
        return np.timedelta64(int(seconds * 1_000_000), "us")
    if domain == "date":
        return np.timedelta64(int(seconds // 86_400), "D")
    return seconds


def default_bounds(spec: ColumnSpec, config: DomainConfig) -> tuple[Any, Any]:
    """Bounds when nothing else gives them."""
    window = config.time_window
    if spec.domain == "ts":
        return native(window.start, "ts"), native(window.end, "ts") + np.timedelta64(DAY_US - 1, "us")
    if spec.domain == "date":
        return native(window.start, "date"), native(window.end, "date")
    if spec.domain == "time":
        return np.timedelta64(0, "us"), np.timedelta64(DAY_US - 1, "us")
    by_strategy: dict[str, tuple[Any, Any]] = {
        "rating": (1, 5),
        "year": (1970, window.end.year),
        "latitude": (-90.0, 90.0),
        "longitude": (-180.0, 180.0),
        "price": (1, 500),
        "duration": {"ms": (1_000, 600_000), "min": (1, 240)}.get(spec.unit, (1, 7_200)),
    }
    return by_strategy.get(spec.strategy, (0, 1000))


def type_limits(spec: ColumnSpec) -> tuple[Any, Any]:
    """The column type's own limits, for number strategies."""
    limits = int_limits(spec.column.type)
    if limits is not None:
        return limits
    if spec.kind == "decimal":
        precision, scale = decimal_params(spec.column.type)
        top = 10.0 ** min(precision - scale, 18 - scale) - 10.0**-scale
        return -top, top
    return None, None


def resolve_bounds(
    spec: ColumnSpec, facts: ColumnFacts | None, inferred: dict[str, Any], config: DomainConfig
) -> None:
    """Set `spec.lo`/`spec.hi`: defaults < inferred < hint, then narrowed by CHECKs and type limits."""
    domain = spec.domain
    if domain == "other":
        return
    lo, hi = default_bounds(spec, config)
    if facts is not None and spec.strategy in CHECK_SETS_RANGE:
        check_lo, check_hi = native(facts.lo, domain), native(facts.hi, domain)
        if check_lo is not None and check_hi is not None:
            lo, hi = check_lo, check_hi
    for source in (inferred, {"min": spec.hint.min, "max": spec.hint.max}):
        new_lo, new_hi = native(source.get("min"), domain), native(source.get("max"), domain)
        lo = new_lo if new_lo is not None else lo
        hi = new_hi if new_hi is not None else hi
    hard_lo, hard_hi = type_limits(spec) if domain == "num" else (None, None)
    if facts is not None:
        check_lo, check_hi = native(facts.lo, domain), native(facts.hi, domain)
        if check_lo is not None:
            check_lo = check_lo + spec.step if facts.lo_strict else check_lo
            hard_lo = check_lo if hard_lo is None else max(hard_lo, check_lo)
        if check_hi is not None:
            check_hi = check_hi - spec.step if facts.hi_strict else check_hi
            hard_hi = check_hi if hard_hi is None else min(hard_hi, check_hi)
    if hard_lo is not None and lo < hard_lo:
        lo = hard_lo
        hi = max(hi, _widen(lo, hi, spec))
    if hard_hi is not None and hi > hard_hi:
        hi = hard_hi
        lo = min(lo, hi) if hard_lo is None else max(min(lo, hi), hard_lo)
    if lo > hi:
        hi = _widen(lo, hi, spec) if hard_hi is None else min(hard_hi, _widen(lo, hi, spec))
    if spec.unique and domain == "num" and spec.hint.max is None and "max" not in inferred:
        # distinct numbers need room: up to the type's (or the CHECK's) limit, not the default range
        hi = max(hi, hard_hi if hard_hi is not None else lo + 2**31)
    spec.lo, spec.hi = lo, hi


def _widen(lo: Any, hi: Any, spec: ColumnSpec) -> Any:
    """An upper bound above a lower bound that a one-sided CHECK moved past the default upper bound."""
    if lo <= hi:
        return hi
    if spec.domain == "num":
        return lo + max(abs(lo), 1000)
    return lo + (np.timedelta64(30, "D") if spec.domain == "date" else np.timedelta64(30 * DAY_US, "us"))


def resolve_gaps(spec: ColumnSpec, strict: bool, check_gap: float) -> None:
    """Set `spec.min_gap`/`spec.max_gap` for a column generated `after` another."""
    domain = spec.domain
    least = spec.step if strict else spec.step * 0
    if check_gap and domain in ("num", "date"):
        least = max(least, np.timedelta64(int(np.ceil(check_gap)), "D") if domain == "date" else check_gap)
    min_gap = native_gap(spec.hint.min_gap, domain)
    min_gap = least if min_gap is None else max(min_gap, least)
    max_gap = native_gap(spec.hint.max_gap, domain)
    if max_gap is None:
        max_gap = {
            "ts": np.timedelta64(30 * DAY_US, "us"),
            "date": np.timedelta64(30, "D"),
            "time": np.timedelta64(4 * 3_600_000_000, "us"),
        }.get(domain)
        if max_gap is None:
            max_gap = max((spec.hi - spec.lo) / 4, spec.step) if spec.hi is not None else 100
    spec.min_gap, spec.max_gap = min_gap, max(max_gap, min_gap)


def new_spec(column: Column, strategy: str, hint: ColumnHint | None, reason: str) -> ColumnSpec:
    """A spec with the hint's tuning keys copied in (bounds, gaps and links are resolved later)."""
    hint = hint or ColumnHint()
    kind = kind_of(column)
    spec = ColumnSpec(
        column=column,
        strategy=strategy,
        arrow_type=arrow_type(column.type),
        kind=kind,
        reason=reason,
        hint=hint,
    )
    spec.distribution = hint.distribution or {"price": "lognormal", "duration": "lognormal"}.get(
        strategy, "uniform"
    )
    if hint.decimals is not None:
        spec.decimals = hint.decimals
    elif kind == "decimal":
        spec.decimals = decimal_params(column.type)[1]
    elif kind == "float":
        spec.decimals = {"latitude": 6, "longitude": 6, "rating": 1}.get(strategy, 2)
    spec.values, spec.weights = hint.values, hint.weights
    spec.within = tuple(hint.within or ()) if strategy == "sequence" else ()
    spec.pool, spec.pattern = hint.pool, hint.pattern
    spec.unit = hint.unit or "s"
    spec.p = 0.5 if hint.p is None else hint.p
    return spec
