"""DuckDB as the judge of translated expressions: does it accept this default, CHECK or generated column?

Each expression is tried once in a scratch in-memory DuckDB, in a table with the columns it reads (with
their model types), exactly as the store will create it; the answer is cached by the expression and those
types, so a 2,000-table dump with the same CHECK everywhere costs one try. DuckDB's own error is the
reason given when it refuses.
"""

from __future__ import annotations

import duckdb

from stateforge.schema.model import Column

_PROBE = '"__stateforge_probe"'


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


class Probe:
    """A scratch DuckDB that tries expressions; `refusal` is None when DuckDB accepts one."""

    def __init__(self) -> None:
        self._con: duckdb.DuckDBPyConnection | None = None
        self._seen: dict[tuple, tuple[str | None, str | None]] = {}

    @property
    def con(self) -> duckdb.DuckDBPyConnection:
        if self._con is None:
            self._con = duckdb.connect()
        return self._con

    def close(self) -> None:
        """Close the scratch database."""
        if self._con is not None:
            self._con.close()
            self._con = None

    def check(self, sql: str, columns: list[Column]) -> str | None:
        """Why DuckDB refuses `CHECK (sql)` over `columns`, or None."""
        defs = _defs(columns) or ['"__stateforge_probe_column" INTEGER']  # a table needs a column
        return self._try(("check", sql), [*defs, f"CHECK ({sql})"], columns)[0]

    def default(self, sql: str, column: Column) -> str | None:
        """Why DuckDB refuses `DEFAULT sql` on `column` (or cannot give the column that value), or None."""
        key = ("default", sql, column.type)
        if key not in self._seen:
            item = f"{_q(column.name)} {column.type} DEFAULT {sql}"
            refusal = self._try(("default", sql), [item], [column])[0]
            if refusal is None:  # DuckDB binds a default when the table is made, but casts it on insert
                try:
                    self.con.execute(f"SELECT CAST(({sql}) AS {column.type})").fetchall()
                except duckdb.Error as exc:
                    refusal = str(exc).strip().splitlines()[0]
            self._seen[key] = (refusal, None)
        return self._seen[key][0]

    def always_false(self, sql: str) -> bool:
        """Whether the column-free expression `sql` is FALSE (a CHECK that no row can pass)."""
        key = ("false", sql)
        if key not in self._seen:
            try:
                value = self.con.execute(f"SELECT CAST(({sql}) AS BOOLEAN)").fetchall()[0][0]
            except duckdb.Error:
                value = None
            self._seen[key] = (None, "false" if value is False else None)
        return self._seen[key][1] == "false"

    def generated(
        self, sql: str, column: Column, columns: list[Column], typed: bool
    ) -> tuple[str | None, str]:
        """(why DuckDB refuses the generated column, or None; its type: DuckDB's own when not `typed`)."""
        kind = f" {column.type}" if typed else ""
        target = f"{_q(column.name)}{kind} GENERATED ALWAYS AS ({sql}) VIRTUAL"
        refusal, found = self._try(
            ("generated", sql, column.name.lower(), column.type if typed else None),
            [*_defs(columns), target],
            columns,
            typed_column=None if typed else column.name,
        )
        return refusal, found or column.type

    def _try(
        self, key: tuple, items: list[str], columns: list[Column], typed_column: str | None = None
    ) -> tuple[str | None, str | None]:
        full = (*key, tuple((c.name.lower(), c.type) for c in columns))
        if full not in self._seen:
            self._seen[full] = self._create(items, typed_column)
        return self._seen[full]

    def _create(self, items: list[str], typed_column: str | None) -> tuple[str | None, str | None]:
        try:
            self.con.execute(f"CREATE OR REPLACE TEMP TABLE {_PROBE} ({', '.join(items)})")
        except duckdb.Error as exc:
            return str(exc).strip().splitlines()[0], None
        found = None
        if typed_column is not None:
            rows = self.con.execute(
                "SELECT data_type FROM duckdb_columns() WHERE table_name = '__stateforge_probe' "
                "AND column_name = ?",
                [typed_column],
            ).fetchall()
            found = rows[0][0] if rows else None
        self.con.execute(f"DROP TABLE {_PROBE}")
        return None, found


def _defs(columns: list[Column]) -> list[str]:
    return [f"{_q(c.name)} {c.type}" for c in columns]
