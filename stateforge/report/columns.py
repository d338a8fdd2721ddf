"""Column profiles, computed in DuckDB: one query for every column's counts and range, then one per plot.

    profiles, sampled = profile_columns(con, table, rows=50_000, sample_rows=200_000)

Counts of NULLs, minimums and maximums always read every row (a column scan each: cheap). Distinct counts
are exact up to `sample_rows` rows and a HyperLogLog estimate above (`approx_count_distinct`, within a few
percent). Distributions (histograms, top values) read a deterministic sample of about `sample_rows` rows
of a larger table: rows whose `hash(rowid)` falls under a threshold, so the same file gives the same
sample, whatever the number of threads.
"""

from __future__ import annotations

import math
import re
from typing import Any

import duckdb

from stateforge.report.model import ColumnProfile, Histogram, Kind, Values
from stateforge.schema.model import Table
from stateforge.store.sql import quote_ident, table_ref

BINS = 30
"""Histogram bins."""
SMALL_SCALE = 25
"""Integer columns with at most this many distinct values are drawn value by value, not binned."""
TOP = 8
"""Most frequent values shown for a text column."""
TAIL_SHARE = 0.6
"""A histogram with more than this share of values in one bin is redrawn up to the 99th percentile."""

_INTEGER = re.compile(r"^U?(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT)$")
_NUMBER = re.compile(r"^(FLOAT|DOUBLE|REAL|DECIMAL.*)$")
_TIME = re.compile(r"^(DATE|TIMESTAMP.*)$")


def kind_of(duckdb_type: str) -> Kind:
    """How a column of this DuckDB type is profiled."""
    t = duckdb_type.upper()
    if _INTEGER.match(t):
        return "integer"
    if _NUMBER.match(t):
        return "number"
    if _TIME.match(t):
        return "time"
    if t == "TIME":
        return "clock"
    if t == "INTERVAL":
        return "interval"
    if t == "BOOLEAN":
        return "boolean"
    if t in ("VARCHAR", "UUID") or t.startswith("ENUM"):
        return "text"
    return "other"


def column_types(con: duckdb.DuckDBPyConnection, table: str) -> dict[str, str]:
    """Column -> DuckDB type of a table of the `main` schema, in column order."""
    found = con.execute(
        "SELECT column_name, data_type FROM duckdb_columns() WHERE database_name = current_database() "
        "AND schema_name = 'main' AND table_name = ? ORDER BY column_index", [table]
    ).fetchall()
    return dict(found)


def _numeric(kind: Kind, col: str) -> str | None:
    """The column as a DOUBLE for binning (seconds for times and intervals), or None if not binnable."""
    if kind in ("integer", "number"):
        return f"CAST({col} AS DOUBLE)"
    if kind in ("time", "clock", "interval"):
        return f"epoch({col})"
    return None


def sample_source(table: str, rows: int, sample_rows: int) -> tuple[str, bool]:
    """The FROM clause distributions read: the table, or a deterministic sample of it."""
    if rows <= sample_rows:
        return table_ref(table), False
    threshold = int(sample_rows / rows * (2**64 - 1))
    return f"(SELECT * FROM {table_ref(table)} WHERE hash(rowid) <= {threshold}::UBIGINT)", True


def _roles(table: Table) -> dict[str, str]:
    roles: dict[str, str] = {}
    for fk in table.foreign_keys:
        for col in fk.columns:
            roles.setdefault(col.lower(), f"foreign key -> {fk.ref_table}({', '.join(fk.ref_columns)})")
    for key in table.unique:
        if len(key) == 1:
            roles.setdefault(key[0].lower(), "unique")
    if len(table.primary_key) == 1:
        roles[table.primary_key[0].lower()] = "primary key"
    return roles


def _stats_query(table: str, types: dict[str, str], exact: bool) -> tuple[str, list[int]]:
    """One SELECT for every column: non-NULL count, distinct count, min, max, mean, text lengths,
    and the binnable min and max. Returns it with the offset of each column's first value."""
    parts, offsets = ["count(*)"], []
    for name, duck_type in types.items():
        kind, col = kind_of(duck_type), quote_ident(name)
        offsets.append(len(parts))
        nested = kind == "other" and not duck_type.upper().startswith(("BLOB", "BIT"))
        target = f"CAST({col} AS VARCHAR)" if nested else col
        distinct = f"count(DISTINCT {target})" if exact else f"approx_count_distinct({target})"
        orderable = kind not in ("other", "boolean")
        num = _numeric(kind, col)
        parts += [
            f"count({col})",
            distinct,
            f"min({col})" if orderable else "NULL",
            f"max({col})" if orderable else "NULL",
            f"avg({col})" if kind in ("integer", "number") else "NULL",
            f"min(length({col}))" if kind == "text" and duck_type.upper() == "VARCHAR" else "NULL",
            f"max(length({col}))" if kind == "text" and duck_type.upper() == "VARCHAR" else "NULL",
            f"min({num}) FILTER (WHERE isfinite({num}))" if num else "NULL",
            f"max({num}) FILTER (WHERE isfinite({num}))" if num else "NULL",
        ]
    return f"SELECT {', '.join(parts)} FROM {table_ref(table)}", offsets


def profile_columns(
    con: duckdb.DuckDBPyConnection, table: Table, *, rows: int, sample_rows: int, top: int = TOP
) -> tuple[list[ColumnProfile], int | None]:
    """Every column's profile and the sample size (None when every row was read)."""
    types = column_types(con, table.name)
    sql, offsets = _stats_query(table.name, types, exact=rows <= sample_rows)
    [stats] = con.execute(sql).fetchall()
    source, sampled = sample_source(table.name, rows, sample_rows)
    sample_size = con.execute(f"SELECT count(*) FROM {source}").fetchall()[0][0] if sampled else None
    roles = _roles(table)
    out = []
    for (name, duck_type), at in zip(types.items(), offsets, strict=True):
        nonnull, distinct, lo, hi, mean, short, long_, bin_lo, bin_hi = stats[at : at + 9]
        model = table.column(name) if table.has_column(name) else None
        profile = ColumnProfile(
            name=name, type=duck_type, kind=kind_of(duck_type),
            nullable=model.nullable if model is not None else True, role=roles.get(name.lower()),
            nulls=rows - int(nonnull), distinct=int(distinct or 0), distinct_exact=rows <= sample_rows,
            min=lo, max=hi, mean=float(mean) if mean is not None else None,
            length=(int(short), int(long_)) if short is not None else None,
        )
        if not profile.distinct_exact:  # an estimate can overshoot the rows it counts
            profile.distinct = min(profile.distinct, rows - profile.nulls)
        _distribution(con, profile, rows, source, (bin_lo, bin_hi), top)
        out.append(profile)
    return out, sample_size


def _distribution(con: duckdb.DuckDBPyConnection, p: ColumnProfile, rows: int, source: str,
                  bounds: tuple[Any, Any], top: int) -> None:
    """Fill `p.histogram`, `p.values` or `p.examples`, or say in `p.note` why a plot would say nothing."""
    col = quote_ident(p.name)
    lo, hi = bounds
    nonnull = rows - p.nulls
    if nonnull == 0:
        p.note = "Every value is NULL."
    elif p.distinct == 1:
        p.note = "One value in every non-NULL row."
        p.values = _top_values(con, col, source, 1)
    elif p.role and p.role.startswith("foreign key"):
        p.note = "A foreign key: how many rows share each parent is in the fan-out below."
    elif p.role and p.kind not in ("time", "text"):
        p.note = f"A key ({p.role}): every value distinct."
    elif p.kind == "boolean" or (p.kind == "integer" and p.distinct <= SMALL_SCALE):
        ordered = p.kind == "integer"
        p.values = _ordered_values(con, col, source) if ordered else _top_values(con, col, source, top)
    elif _numeric(p.kind, col) is not None:
        if lo is not None and hi is not None:
            p.histogram = _histogram(con, _numeric(p.kind, col) or col, source, float(lo), float(hi),
                                     integer=p.kind == "integer")
    elif p.distinct >= nonnull:
        p.note = "Every value distinct; the first ones:"
        p.examples = [str(r[0]) for r in con.execute(
            f"SELECT CAST({col} AS VARCHAR) FROM {source} WHERE {col} IS NOT NULL LIMIT 3").fetchall()]
    elif p.type.upper().startswith(("BLOB", "BIT")):
        p.note = "Binary values: no distribution drawn."
    else:
        p.values = _top_values(con, col, source, top)


def _bins(con: duckdb.DuckDBPyConnection, expr: str, source: str, lo: float, hi: float) -> Histogram:
    width = (hi - lo) / BINS if hi > lo else 1.0
    found = dict(con.execute(
        f"SELECT least(CAST(floor(({expr} - {lo!r}) / {width!r}) AS BIGINT), {BINS - 1}) AS b, count(*) "
        f"FROM {source} WHERE isfinite({expr}) AND {expr} <= {hi!r} GROUP BY b"
    ).fetchall())
    bins = BINS if hi > lo else 1
    return Histogram(edges=[lo + i * width for i in range(bins + 1)],
                     counts=[int(found.get(i, 0)) for i in range(bins)])


def log_edges(lo: float, hi: float, integer: bool, bins: int = BINS) -> list[float]:
    """Edges of `bins` bins equal in log10(1 + x) from `lo` to `hi` (both >= 0); for integers, whole
    numbers with no bin narrower than one value (so that no bin is empty by construction)."""
    a, b = math.log10(lo + 1), math.log10(hi + 1)
    edges = [10 ** (a + (b - a) * i / bins) - 1 for i in range(bins + 1)]
    if not integer:
        return edges
    whole = sorted({int(lo), *(math.ceil(e) for e in edges[1:-1]), int(hi) + 1})
    return [float(e) for e in whole]


def _log_bins(con: duckdb.DuckDBPyConnection, expr: str, source: str, lo: float, hi: float,
              integer: bool) -> Histogram:
    """Counts in `log_edges` bins, by DuckDB's `histogram` with the bins' upper bounds (inclusive: for
    whole numbers, the next edge less one)."""
    edges = log_edges(lo, hi, integer)
    uppers = [e - 1 if integer else e for e in edges[1:]]
    [(found,)] = con.execute(
        f"SELECT histogram({expr}, [{', '.join(repr(u) for u in uppers)}]::DOUBLE[]) "
        f"FROM {source} WHERE isfinite({expr})"
    ).fetchall()
    by_upper = {float(k): int(v) for k, v in (found or {}).items()}
    return Histogram(edges=edges, counts=[by_upper.get(float(u), 0) for u in uppers], log=True)


def _histogram(con: duckdb.DuckDBPyConnection, expr: str, source: str, lo: float, hi: float,
               integer: bool = False) -> Histogram:
    """Equal bins from `lo` to `hi`. When one bin holds most values, a long tail stretches the axis: a
    non-negative column spanning three orders of magnitude gets logarithmic bins; another is cut at its
    99th percentile, the tail counted in `above`."""
    full = _bins(con, expr, source, lo, hi)
    total = sum(full.counts)
    if total == 0 or max(full.counts) <= TAIL_SHARE * total:
        return full
    if lo >= 0 and hi >= 1000 * (lo + 1):
        return _log_bins(con, expr, source, lo, hi, integer)
    [(cut,)] = con.execute(
        f"SELECT quantile_cont({expr}, 0.99) FROM {source} WHERE isfinite({expr})").fetchall()
    if cut is None or not lo < float(cut) < hi:
        return full
    histogram = _bins(con, expr, source, lo, float(cut))
    histogram.above = total - sum(histogram.counts)
    return histogram


def _top_values(con: duckdb.DuckDBPyConnection, col: str, source: str, top: int) -> Values:
    found = con.execute(
        f"SELECT v, n, sum(n) OVER () AS total, count(*) OVER () AS groups FROM ("
        f"SELECT CAST({col} AS VARCHAR) AS v, count(*) AS n FROM {source} GROUP BY v) "
        f"QUALIFY row_number() OVER (ORDER BY v IS NULL DESC, n DESC, v) <= {top + 1}"
    ).fetchall()
    if not found:
        return Values([], 0, 0, 0, 0)
    total, groups = int(found[0][2]), int(found[0][3])
    nulls = next((int(n) for v, n, _, _ in found if v is None), 0)
    shown = [(str(v), int(n)) for v, n, _, _ in found if v is not None][:top]
    other = total - nulls - sum(n for _, n in shown)
    return Values(shown, nulls, other, groups - len(shown) - (1 if nulls else 0), total)


def _ordered_values(con: duckdb.DuckDBPyConnection, col: str, source: str) -> Values:
    found = con.execute(f"SELECT {col}, count(*) FROM {source} GROUP BY 1 ORDER BY 1 NULLS LAST").fetchall()
    nulls = next((int(n) for v, n in found if v is None), 0)
    shown = [(str(v), int(n)) for v, n in found if v is not None]
    return Values(shown, nulls, 0, 0, sum(int(n) for _, n in found), ordered=True)
