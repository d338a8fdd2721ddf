"""Helpers for the domain-pack tests: load a pack, run its DDL in DuckDB, insert rows, synthesize rows.

Self-contained on purpose (PyYAML, DuckDB and the DDL text only): the packs are checked before the parser and
the generator exist, and independently of them.
"""

from __future__ import annotations

import functools
import itertools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import yaml

from stateforge.domain.config import ColumnHint
from stateforge.fill.sampling import quantile_counts

SCHEMAS = Path(__file__).resolve().parents[2] / "stateforge" / "packs"
PACKS = ("music", "meeting", "game")

# The contract of docs/domain-packs.md.
TOP_KEYS = {
    "name",
    "description",
    "dialect",
    "seed",
    "time_window",
    "null_rate",
    "batch_size",
    "tables",
    "columns",
    "rules",
    "policies",
    "actors",
    "time_order",
}
TABLE_KEYS = {"rows", "scale", "description", "per_parent"}
PER_PARENT_KEYS = {"fk", "exactly", "min", "max", "quantiles"}
HINT_KEYS = {
    "values_by",
    "shares",
    "strategy",
    "values",
    "weights",
    "min",
    "max",
    "distribution",
    "decimals",
    "after",
    "min_gap",
    "max_gap",
    "within",
    "expr",
    "faker",
    "args",
    "null_rate",
    "unique",
    "pool",
    "constant",
    "pattern",
    "p",
    "unit",
    "skew",
    "follows",
    "at_most",
}
FK_HINT_KEYS = {"distribution", "skew", "null_rate", "expr", "shares", "follows"}
"""What the packs say about foreign-key columns: how the key is drawn (or follows the parent's), or an expr
that computes it."""
STRATEGIES = {
    "first_name",
    "last_name",
    "full_name",
    "username",
    "email",
    "phone",
    "company",
    "job_title",
    "address",
    "street",
    "city",
    "state",
    "country",
    "country_code",
    "postcode",
    "latitude",
    "longitude",
    "timezone",
    "language_code",
    "currency_code",
    "url",
    "domain",
    "ipv4",
    "user_agent",
    "uuid",
    "slug",
    "color",
    "hex",
    "file_path",
    "mime_type",
    "word",
    "words",
    "title",
    "song_title",
    "album_title",
    "artist_name",
    "playlist_name",
    "meeting_title",
    "clan_name",
    "tag",
    "agenda",
    "bio",
    "comment",
    "description",
    "note",
    "message",
    "sentence",
    "paragraph",
    "text",
    "code",
    "json",
    "int",
    "float",
    "decimal",
    "price",
    "rating",
    "bool",
    "sequence",
    "year",
    "timestamp",
    "date",
    "time",
    "duration",
    "values",
    "constant",
    "expr",
    "faker",
}
DISTRIBUTIONS = {"uniform", "normal", "lognormal", "zipf"}
RULE_KEYS = {"name", "description", "kind", "check", "repair"}

_REFERENCES = (
    r"REFERENCES\s+\w+\s*\([^)]*\)"
    r"(?:\s+ON\s+(?:DELETE|UPDATE)\s+(?:CASCADE|SET\s+NULL|SET\s+DEFAULT|RESTRICT|NO\s+ACTION))*"
)


@dataclass(frozen=True)
class ForeignKey:
    table: str
    columns: tuple[str, ...]
    ref_table: str
    ref_columns: tuple[str, ...]


@functools.cache
def ddl(pack: str) -> str:
    return (SCHEMAS / pack / "schema.sql").read_text()


@functools.cache
def domain(pack: str) -> dict[str, Any]:
    return yaml.safe_load((SCHEMAS / pack / "domain.yaml").read_text())


def strip_comments(sql: str) -> str:
    return re.sub(r"--[^\n]*", "", sql)


def strip_foreign_keys(sql: str) -> str:
    """The DDL without FOREIGN KEY / REFERENCES clauses: Stateforge never declares foreign keys to DuckDB."""
    sql = strip_comments(sql)
    sql = re.sub(
        r",\s*(?:CONSTRAINT\s+\w+\s+)?FOREIGN\s+KEY\s*\([^)]*\)\s*" + _REFERENCES, "", sql, flags=re.I
    )
    return re.sub(r"\s+" + _REFERENCES, "", sql, flags=re.I)


def connect(pack: str) -> duckdb.DuckDBPyConnection:
    """An in-memory database holding the pack's tables (constraints enforced, foreign keys not declared)."""
    con = duckdb.connect()
    con.execute(strip_foreign_keys(ddl(pack)))
    return con


def _split_top_level(body: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(body):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(body[start:i].strip())
            start = i + 1
    parts.append(body[start:].strip())
    return [p for p in parts if p]


def _names(text: str) -> tuple[str, ...]:
    return tuple(n.strip() for n in text.split(","))


@functools.cache
def foreign_keys(pack: str) -> tuple[ForeignKey, ...]:
    """Foreign keys read from the DDL text (inline REFERENCES and table-level FOREIGN KEY clauses)."""
    fks = []
    for table, body in re.findall(r"CREATE TABLE (\w+) \((.*?)\n\);", strip_comments(ddl(pack)), flags=re.S):
        for item in _split_top_level(body):
            m = re.match(
                r"(?:CONSTRAINT\s+\w+\s+)?FOREIGN\s+KEY\s*\(([^)]*)\)\s*REFERENCES\s+(\w+)\s*\(([^)]*)\)",
                item,
                flags=re.I,
            )
            if m:
                fks.append(ForeignKey(table, _names(m[1]), m[2], _names(m[3])))
                continue
            m = re.match(r"(\w+)\s.*?REFERENCES\s+(\w+)\s*\(([^)]*)\)", item, flags=re.I | re.S)
            if m:
                fks.append(ForeignKey(table, (m[1],), m[2], _names(m[3])))
    return tuple(fks)


@dataclass(frozen=True)
class ColumnInfo:
    name: str
    type: str
    nullable: bool
    default: str | None


def columns(con: duckdb.DuckDBPyConnection) -> dict[str, dict[str, ColumnInfo]]:
    """table -> column -> info, in column order."""
    out: dict[str, dict[str, ColumnInfo]] = {}
    rows = con.sql(
        "SELECT table_name, column_name, data_type, is_nullable, column_default FROM duckdb_columns() "
        "WHERE NOT internal ORDER BY table_name, column_index"
    ).fetchall()
    for table, col, dtype, nullable, default in rows:
        out.setdefault(table, {})[col] = ColumnInfo(col, dtype, nullable, default)
    return out


def unique_keys(con: duckdb.DuckDBPyConnection) -> dict[str, list[tuple[str, ...]]]:
    """table -> primary key and UNIQUE column tuples (CREATE UNIQUE INDEX included)."""
    out: dict[str, list[tuple[str, ...]]] = {}
    for table, cols in con.sql(
        "SELECT table_name, constraint_column_names FROM duckdb_constraints() "
        "WHERE constraint_type IN ('PRIMARY KEY', 'UNIQUE')"
    ).fetchall():
        out.setdefault(table, []).append(tuple(cols))
    for table, sql in con.sql("SELECT table_name, sql FROM duckdb_indexes() WHERE is_unique").fetchall():
        m = re.search(r"\(([^)]*)\)\s*;?\s*$", sql)
        out.setdefault(table, []).append(_names(m[1]))
    return out


def single_column_checks(con: duckdb.DuckDBPyConnection) -> dict[tuple[str, str], list[str]]:
    """(table, column) -> CHECK expressions that read that column only."""
    out: dict[tuple[str, str], list[str]] = {}
    for table, expr, cols in con.sql(
        "SELECT table_name, expression, constraint_column_names FROM duckdb_constraints() "
        "WHERE constraint_type = 'CHECK'"
    ).fetchall():
        if len(cols) == 1:
            out.setdefault((table, cols[0]), []).append(expr)
    return out


def allowed_values(pack: str, table: str, column: str) -> list[str] | None:
    """The list of a CHECK (column IN (...)) or an ENUM type, if the column has one."""
    return _allowed(pack).get((table, column))


@functools.cache
def _allowed(pack: str) -> dict[tuple[str, str], list[str]]:
    con = connect(pack)
    out = {}
    for (table, col), exprs in single_column_checks(con).items():
        for expr in exprs:
            m = re.fullmatch(rf"\({col} IN \((.*)\)\)", expr)
            if m:
                out[(table, col)] = re.findall(r"'((?:[^']|'')*)'", m[1])
    for table, cols in columns(con).items():
        for col in cols.values():
            if col.type.startswith("ENUM("):
                out[(table, col.name)] = re.findall(r"'((?:[^']|'')*)'", col.type)
    return out


# ----------------------------------------------------------------------------------------------------
# Rows at scale 1


def fixed_tables(pack: str) -> set[str]:
    """Tables that keep their size at every scale (`scale: false`)."""
    return {t for t, spec in domain(pack)["tables"].items() if spec.get("scale") is False}


def expanded(hint: dict) -> dict:
    """A hint as the generator reads it: `values_by` is the `expr` it makes (`ValuesBy.expr`)."""
    if "values_by" not in hint:
        return hint
    return {**{k: v for k, v in hint.items() if k != "values_by"}, "expr": ColumnHint(**hint).expr}


def rows_at_scale_one(pack: str) -> dict[str, int]:
    """Rows per table at scale 1: `rows`, or parents x `exactly` for per_parent tables without rows."""
    tables = domain(pack)["tables"]
    fks = {(fk.table, fk.columns[0]): fk.ref_table for fk in foreign_keys(pack) if len(fk.columns) == 1}
    out: dict[str, int] = {}

    def count(table: str) -> int:
        if table not in out:
            spec = tables[table]
            pp = spec.get("per_parent") or {}
            if "quantiles" in pp:  # a declared distribution: what it sums to (stateforge.fill.sizing)
                points = [(0.0, pp.get("min", 0)), *sorted(pp["quantiles"].items()), (1.0, pp["max"])]
                parent = next(fk.ref_table for fk in foreign_keys(pack) if fk.table == table
                              and pp["fk"] in fk.columns)
                out[table] = int(quantile_counts(count(parent), points).sum())
            elif "rows" in spec:
                out[table] = spec["rows"]
            else:
                out[table] = count(fks[(table, pp["fk"])]) * pp["exactly"]
        return out[table]

    for table in tables:
        count(table)
    return out


# ----------------------------------------------------------------------------------------------------
# Inserting hand-made rows


def _filler(con: duckdb.DuckDBPyConnection, pack: str, table: str, col: ColumnInfo, n: int) -> Any:
    """A value for a NOT NULL column a scenario left out: first listed value, an allowed value, or by type."""
    hint = domain(pack).get("columns", {}).get(f"{table}.{col.name}", {})
    if "constant" in hint:
        return hint["constant"]
    if "values" in hint:
        return hint["values"][0]
    allowed = allowed_values(pack, table, col.name)
    if allowed:
        return allowed[0]
    t = col.type.upper()
    if t in ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT"):
        return n
    if t.startswith("DECIMAL") or t in ("DOUBLE", "FLOAT"):
        return 1
    if t == "BOOLEAN":
        return False
    if t == "DATE":
        return "2025-01-01"
    if t.startswith("TIMESTAMP"):
        return "2025-01-01 00:00:00"
    if t == "TIME":
        return "09:00:00"
    return f"{col.name}-{n}"


_serial = itertools.count(1)


def insert(con: duckdb.DuckDBPyConnection, pack: str, table: str, rows: list[dict[str, Any]]) -> None:
    """Insert `rows` into `table`; NOT NULL columns without a default that a row leaves out get a filler."""
    cols = columns(con)[table]
    for row in rows:
        n = next(_serial)
        unknown = set(row) - set(cols)
        assert not unknown, f"{table} has no column {sorted(unknown)}"
        values = dict(row)
        for col in cols.values():
            if col.name not in values and not col.nullable and col.default is None:
                values[col.name] = _filler(con, pack, table, col, n)
        names = list(values)
        con.execute(
            f"INSERT INTO {table} ({', '.join(names)}) VALUES ({', '.join('?' for _ in names)})",
            [values[c] for c in names],
        )


def snapshot(con: duckdb.DuckDBPyConnection) -> dict[str, list[tuple]]:
    """Every table's rows, sorted: to compare database states."""
    tables = [t for (t,) in con.sql("SELECT table_name FROM duckdb_tables() ORDER BY 1").fetchall()]
    return {t: con.sql(f"SELECT * FROM {t} ORDER BY ALL").fetchall() for t in tables}


# ----------------------------------------------------------------------------------------------------
# Synthesizing rows the way the hints describe them (a small stand-in for the generator)


def _literal(value: Any) -> str:
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int | float):
        return repr(value)
    text = str(value).replace("'", "''")
    return f"'{text}'"


def _interval(gap: Any) -> str:
    if isinstance(gap, int | float):
        return f"INTERVAL {gap} SECOND"
    m = re.fullmatch(r"(\d+)\s*([smhd])", str(gap))
    assert m, f"bad duration {gap!r}"
    unit = {"s": "SECOND", "m": "MINUTE", "h": "HOUR", "d": "DAY"}[m[2]]
    return f"INTERVAL {m[1]} {unit}"


def _wide(dtype: str) -> str:
    """The type a generator is likely to hand over before the final cast (numpy int64, float64, str)."""
    t = dtype.upper()
    if t in ("TINYINT", "SMALLINT", "INTEGER", "BIGINT"):
        return "BIGINT"
    if t.startswith("DECIMAL"):
        return "DOUBLE"
    if t.startswith(("VARCHAR", "CHAR", "ENUM")):
        return "VARCHAR"
    return dtype


def synthesize(con: duckdb.DuckDBPyConnection, pack: str, table: str, n: int, wide: bool = False) -> None:
    """Insert `n` rows into `table` made from its hints, the way the docs describe them.

    Keys are 1..n, foreign keys point at ids near the row's (so link-table keys stay unique), `values` cycle,
    `sequence` numbers within its groups, `after` adds the minimum gap, and `expr` is computed last over the
    other columns. NOT NULL columns without a hint get a value by type. DuckDB then enforces the table's
    PRIMARY KEY, UNIQUE, NOT NULL and CHECK constraints on the result. With `wide`, the columns an expr
    reads have wide types (BIGINT, DOUBLE, VARCHAR) instead of the declared ones, as a generator working
    with numpy arrays would hand them over.
    """
    typed = _wide if wide else (lambda dtype: dtype)
    spec = domain(pack)
    hints = {k.split(".", 1)[1]: expanded(v) for k, v in spec.get("columns", {}).items()
             if k.split(".", 1)[0] == table}
    cols = columns(con)[table]
    per_parent = spec["tables"].get(table, {}).get("per_parent")
    fk_offset: dict[str, int] = {}
    for k, fk in enumerate([fk for fk in foreign_keys(pack) if fk.table == table]):
        for c in fk.columns:
            fk_offset.setdefault(c, k)
    window_start = spec.get("time_window", {}).get("start", "2024-01-01")

    layer1: dict[str, str] = {}
    later: dict[str, dict] = {}
    for col in cols.values():
        hint = hints.get(col.name, {})
        t = col.type.upper()
        if "expr" in hint or hint.get("strategy") == "sequence" or "after" in hint:
            later[col.name] = hint
            continue
        if col.name in fk_offset:
            if col.nullable:
                value = "NULL"
            elif per_parent and per_parent["fk"] == col.name:
                size = per_parent.get("exactly", 3)
                value = f"(i - 1) // {size} + 1"
            else:
                value = f"i + {fk_offset[col.name]}"
        elif "constant" in hint:
            value = _literal(hint["constant"])
        elif "values" in hint:
            listed = ", ".join(_literal(v) for v in hint["values"])
            value = f"([{listed}])[(i - 1) % {len(hint['values'])} + 1]"
        elif col.nullable and (not hint or hint.get("null_rate") == 1):
            value = "NULL"
        elif "min" in hint:
            value = _literal(hint["min"])
        elif t in ("TINYINT", "SMALLINT", "INTEGER", "BIGINT"):
            value = "i"
        elif t.startswith("DECIMAL") or t in ("DOUBLE", "FLOAT"):
            value = "1"
        elif t == "BOOLEAN":
            value = "FALSE"
        elif t == "DATE":
            value = f"DATE '{window_start}' + CAST(i AS INTEGER)"
        elif t.startswith("TIMESTAMP"):
            value = f"TIMESTAMP '{window_start}' + to_hours(CAST(i AS INTEGER))"
        elif t == "TIME":
            value = "TIME '09:00:00'"
        elif allowed_values(pack, table, col.name):
            value = _literal(allowed_values(pack, table, col.name)[0])
        else:
            value = f"'{col.name}-' || CAST(i AS VARCHAR)"
        layer1[col.name] = f"CAST({value} AS {typed(col.type)}) AS {col.name}"

    query = f"SELECT {', '.join(layer1.values())} FROM (SELECT range + 1 AS i FROM range({n}))"
    known = set(layer1)
    # sequence and after columns, in dependency order; expr columns last, over everything else.
    pending = {c: h for c, h in later.items() if "expr" not in h}
    while pending:
        ready = {c: h for c, h in pending.items() if h.get("strategy") == "sequence" or h["after"] in known}
        assert ready, f"{table}: cannot order columns {sorted(pending)}"
        parts = []
        for c, h in ready.items():
            if h.get("strategy") == "sequence":
                within = ", ".join(h.get("within", [])) or "1"
                parts.append(
                    f"CAST(row_number() OVER (PARTITION BY {within} ORDER BY rowid_)"
                    f" AS {typed(cols[c].type)}) AS {c}"
                )
            else:
                base = h["after"]
                t = cols[c].type.upper()
                step = (
                    _interval(h.get("min_gap", "1d"))
                    if ("TIME" in t or t == "DATE")
                    else str(h.get("min_gap", 1))
                )
                parts.append(f"CAST({base} + {step} AS {typed(cols[c].type)}) AS {c}")
        query = f"SELECT *, {', '.join(parts)} FROM (SELECT *, row_number() OVER () AS rowid_ FROM ({query}))"
        query = f"SELECT * EXCLUDE (rowid_) FROM ({query})"
        known |= set(ready)
        for c in ready:
            del pending[c]
    exprs = [f"CAST(({h['expr']}) AS {cols[c].type}) AS {c}" for c, h in later.items() if "expr" in h]
    if exprs:
        query = f"SELECT *, {', '.join(exprs)} FROM ({query})"
    names = ", ".join(cols)
    con.execute(f"INSERT INTO {table} ({names}) SELECT {names} FROM ({query})")
