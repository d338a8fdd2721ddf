"""Seed rows: the `INSERT ... VALUES` statements of a DDL file (lookup tables: roles, item types, fields).

    INSERT INTO roles (id, name) VALUES (1, 'admin'), (2, 'member');   -> Table.seeds of roles

Each is read into a `Seed` of its table: the columns it lists (every column, in the table's order, when it
lists none) and its rows as DuckDB SQL (rows of plain literals, a dump's data, are read from the tokens
and kept as text too, for a fast load through Arrow). At the end of the parse every seed is tried in a
scratch DuckDB with the table's column types; one DuckDB cannot read (a function it lacks, a date it
cannot cast) is left out with a note at its file:line, and each seeded table gets one note naming its
rows. The fill inserts them first, as given (`stateforge.fill.seeds`). `INSERT ... SELECT`, and INSERTs
into tables the DDL does not define, are not seeds: a note each (sqlite's own bookkeeping tables
silently).
"""

from __future__ import annotations

import duckdb
import pyarrow as pa
from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import TokenError
from sqlglot.tokens import TokenType

from stateforge.errors import SchemaError
from stateforge.schema.context import Context
from stateforge.schema.exprs import name_ref
from stateforge.schema.model import Seed, Table
from stateforge.schema.split import Statement
from stateforge.schema.syntax import parse

_PROBE = '"__stateforge_seed"'


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def read_insert(ctx: Context, stmt: Statement) -> str | None:
    """An `INSERT INTO t [(cols)] VALUES ...` becomes a Seed of `t`; anything else is counted as skipped."""
    if ctx.ignore_seed_inserts or not stmt.text.lstrip()[:6].upper() == "INSERT":
        return "insert"
    head, literal_rows, literals = _literal_rows(stmt.text, ctx.dialect)
    try:
        insert = parse(stmt, ctx.dialect, source=ctx.source, what="INSERT", text=head).expr
    except SchemaError as err:
        ctx.note(f"INSERT not read, so its seed rows are lost: {stmt.text[:80]!r} ({err.message})")
        return "insert"
    if not isinstance(insert, exp.Insert) or not isinstance(insert.this, (exp.Schema, exp.Table)):
        return "insert"
    target = insert.this.this if isinstance(insert.this, exp.Schema) else insert.this
    ref = name_ref(target)
    name = ctx.resolve(ref)
    if not ctx.has_table(name):
        if not (ctx.elsewhere(name) or ref.name.lower().startswith("sqlite_")):
            ctx.note(f"INSERT into {ref}, which the DDL does not define as a table: its rows are left out")
        return "insert"
    table = ctx.tables[name.lower()]
    values = insert.args.get("expression")
    if not isinstance(values, exp.Values):
        ctx.note("INSERT ... SELECT is not a seed row (only INSERT ... VALUES is): left out",
                 table=table.name)
        return "insert"
    if isinstance(insert.this, exp.Schema):
        written = [c.name for c in insert.this.expressions]
        try:
            columns = ctx.find_columns(table, list(written), "INSERT", insert.this)
        except SchemaError as err:  # a seed is best effort: its loss is a note, never a stop
            ctx.note(f"INSERT's rows left out: {err.message}", table=table.name)
            return "insert"
    else:
        columns = tuple(c.name for c in table.columns if c.generated is None)
    if literal_rows is None:
        literal_rows = [(row.sql("duckdb"), len(row.expressions) if isinstance(row, exp.Tuple) else 1)
                        for row in values.expressions]
    if any(width != len(columns) for _, width in literal_rows):
        ctx.note(f"INSERT lists {len(columns)} columns but a row of it has another number of values: its "
                 "rows are left out", table=table.name)
        return "insert"
    tuples = [row for row, _ in literal_rows]
    seed = Seed(columns, "VALUES " + ", ".join(tuples), len(tuples), file=ctx.source, line=stmt.line,
                literals=literals)
    table.seeds.append(seed)
    ctx.seed_rows[id(seed)] = tuples
    return None


_LITERALS = {TokenType.NUMBER: None, TokenType.STRING: "'", TokenType.NATIONAL_STRING: "'",
             TokenType.NULL: "NULL", TokenType.TRUE: "TRUE", TokenType.FALSE: "FALSE"}


Literals = list[tuple[str | None, ...]]


Rows = list[tuple[str, int]]


def _literal_rows(text: str, dialect: str) -> tuple[str | None, Rows | None, Literals | None]:
    """The fast path for the common INSERT of plain literals (a dump's data): its head up to the first row
    (for sqlglot to read the table and columns), each row as DuckDB SQL with its width, and the rows'
    values as text, from the tokens alone (parsing a dump's rows into sqlglot trees costs about eight
    times tokenizing them). (None, None, None) when a row holds anything but numbers, strings, NULL and
    booleans: sqlglot then reads the whole statement."""
    try:
        tokens = Dialect.get_or_raise(dialect).tokenize(text)
    except TokenError:
        return None, None, None
    at = next((i for i, t in enumerate(tokens) if t.token_type == TokenType.VALUES), None)
    if at is None:
        return None, None, None
    rows: list[tuple[str, int]] = []
    row: list[str] = []
    texts: list[str | None] = []
    literals: list[tuple[str | None, ...]] = []
    inside, negative, first_end = False, False, None
    for token in tokens[at + 1:]:
        kind = token.token_type
        if kind == TokenType.L_PAREN and not inside:
            inside, row, texts = True, [], []
        elif kind == TokenType.R_PAREN and inside and not negative:
            inside = False
            rows.append(("(" + ", ".join(row) + ")", len(row)))
            literals.append(tuple(texts))
            first_end = token.end if first_end is None else first_end
        elif kind == TokenType.COMMA:
            continue
        elif kind == TokenType.DASH and inside and not negative:
            negative = True
        elif kind in _LITERALS and inside and (kind == TokenType.NUMBER or not negative):
            quote = _LITERALS[kind]
            if quote is None:
                row.append(("-" if negative else "") + token.text)
                texts.append(row[-1])
            elif quote == "'":
                row.append("'" + token.text.replace("'", "''") + "'")
                texts.append(token.text)
            else:
                row.append(quote)
                texts.append(None if kind == TokenType.NULL else quote)
            negative = False
        elif kind == TokenType.SEMICOLON and not inside:
            break
        else:
            return None, None, None
    if inside or first_end is None:
        return None, None, None
    return text[: first_end + 1], rows, literals


def seed_rows(con: duckdb.DuckDBPyConnection, seed: Seed, name: str = "__sf_seed") -> str:
    """What to select the seed's rows FROM (columns col0, col1, ... as in DuckDB's VALUES): its literals
    registered as an Arrow table of text called `name` (DuckDB casts them on insert), else its VALUES.
    Unregister `name` when done."""
    if seed.literals is None:
        return f"({seed.values})"
    columns = {f"col{i}": pa.array([row[i] for row in seed.literals], pa.string())
               for i in range(len(seed.columns))}
    con.register(name, pa.table(columns))
    return name


def finish_seeds(ctx: Context) -> None:
    """Try every seed in a scratch DuckDB with its table's column types (left out with a note when DuckDB
    cannot read it), merge a table's consecutive seeds over the same columns, and note each seeded table."""
    seeded = [t for t in ctx.schema.tables if t.seeds]
    if not seeded:
        return
    con = duckdb.connect()
    try:
        for table in seeded:
            readable = [seed for seed in table.seeds if _readable(ctx, con, table, seed)]
            kept = [s for s in (_allowed(ctx, con, table, seed) for seed in readable) if s is not None]
            table.seeds = _merged(kept)
            if table.seeds:
                first = table.seeds[0]
                ctx.note(
                    f"{table.seeded_rows} seed rows from the DDL's INSERT ... VALUES: inserted as given and "
                    "kept (rows are generated only past them); --ignore-seed-inserts leaves them out",
                    table=table.name, file=first.file, line=first.line,
                )
    finally:
        con.close()
        ctx.seed_rows.clear()


def _readable(ctx: Context, con: duckdb.DuckDBPyConnection, table: Table, seed: Seed) -> bool:
    defs = ", ".join(f"{_q(c)} {table.column(c).type}" for c in seed.columns)
    try:
        con.execute(f"CREATE OR REPLACE TEMP TABLE {_PROBE} ({defs})")
        con.execute(f"INSERT INTO {_PROBE} SELECT * FROM {seed_rows(con, seed)}")
        return True
    except duckdb.Error as exc:
        reason = str(exc).strip().splitlines()[0]
        ctx.note(f"INSERT's {seed.rows} rows left out: DuckDB cannot read them ({reason})",
                 table=table.name, file=seed.file, line=seed.line)
        return False


def _allowed(ctx: Context, con: duckdb.DuckDBPyConnection, table: Table, seed: Seed) -> Seed | None:
    """`seed` with the rows whose value is not among its column's allowed values left out (a note each
    column), or None when no row is left. A MySQL SET value of several members ("streamer,coach", each
    an allowed value) is kept, and added to the column's allowed values: the model reads a SET as one
    of its members (with a note), and the DDL's own rows say which combinations occur."""
    dropped: set[int] = set()
    source = seed_rows(con, seed)
    for i, name in enumerate(seed.columns):
        column = table.column(name)
        if column.allowed_values is None:
            continue
        allowed = {str(v) for v in column.allowed_values if v is not None}
        found = con.execute(f"SELECT DISTINCT CAST(col{i} AS VARCHAR) FROM {source} "
                            f"WHERE col{i} IS NOT NULL").fetchall()
        bad = sorted(v for (v,) in found if v not in allowed)
        subsets = [v for v in bad if "," in v and set(v.split(",")) <= allowed]
        column.allowed_values = [*column.allowed_values, *subsets]
        rest = [v for v in bad if v not in subsets]
        if not rest:
            continue
        listed = ", ".join("'" + v.replace("'", "''") + "'" for v in rest)
        rows = con.execute(f"SELECT i FROM (SELECT row_number() OVER () - 1 AS i, CAST(col{i} AS VARCHAR) "
                           f"AS v FROM {source}) WHERE v IN ({listed})").fetchall()
        dropped.update(r for (r,) in rows)
        values = ", ".join(map(repr, rest[:5]))
        ctx.note(f"{len(rows)} seed rows of this INSERT left out: {name} = {values} is not among the "
                 "column's allowed values", table=table.name, column=column.name, file=seed.file,
                 line=seed.line)
    if not dropped:
        return seed
    tuples = [row for r, row in enumerate(ctx.seed_rows[id(seed)]) if r not in dropped]
    if not tuples:
        return None
    literals = [row for r, row in enumerate(seed.literals) if r not in dropped] if seed.literals else None
    return Seed(seed.columns, "VALUES " + ", ".join(tuples), len(tuples), seed.file, seed.line, literals)


def _merged(seeds: list[Seed]) -> list[Seed]:
    """Consecutive seeds over the same columns as one (one INSERT at fill time for a file of one-row
    INSERTs)."""
    groups: list[list[Seed]] = []
    for seed in seeds:
        if groups and [c.lower() for c in groups[-1][0].columns] == [c.lower() for c in seed.columns]:
            groups[-1].append(seed)
        else:
            groups.append([seed])
    return [
        Seed(group[0].columns, "VALUES " + ", ".join(s.values.removeprefix("VALUES ") for s in group),
             sum(s.rows for s in group), group[0].file, group[0].line,
             [row for s in group for row in s.literals or []] if all(s.literals for s in group) else None)
        for group in groups
    ]
