"""Text that fits its row: the checks of every `values_by` column hint (kind `text`).

    rules = text_rules(schema, config)     # one domain check per hinted column

A `values_by` hint (`stateforge.domain.config.ValuesBy`) generates a column's text from the list given for
the row's value of another column (a mail's subject by its category). Its check finds the rows whose text
is not among those listed for their group (an LLM's text, a row whose category a repair changed); its
repair picks again from the right list, in one UPDATE. The checks run with the build's other domain checks
and are shown by kind in the report; they are not rules the tools enforce (a player may still write a
mail with a subject of their own).

A value read `via` parents is computed once per row, in a subquery (`_keyed`), and the texts are chosen
over that column: DuckDB evaluates the subquery again for every branch of the texts' CASE otherwise.
"""

from __future__ import annotations

import duckdb

from stateforge.domain.config import DomainConfig, Rule, ValuesBy
from stateforge.errors import DomainError, StoreError
from stateforge.schema.model import Schema
from stateforge.store import rewrite_table
from stateforge.store.sql import quote_ident as _q
from stateforge.store.sql import quote_literal, table_ref


def _texts(texts: list[str]) -> str:
    return "[" + ", ".join(quote_literal(t) for t in texts) + "]"


def allowed_sql(by: ValuesBy) -> str:
    """The list of texts a row may hold, as SQL over the row (an empty list for a group with none)."""
    cases = " ".join(f"WHEN {quote_literal(k)} THEN {_texts(by.allowed(v))}" for k, v in by.values.items())
    default = _texts(by.allowed(by.default)) if by.default else "[]::VARCHAR[]"
    return f"CASE CAST({by.key_sql()} AS VARCHAR) {cases} ELSE {default} END"


_KEY = "__sf_key"
_RID = "__sf_rid"


def _keyed(by: ValuesBy, t: str) -> tuple[ValuesBy, str]:
    """`by` reading its value from a column of the row, and the rows of table `t` with that column: for a
    `via` hint, the hint reading `__sf_key` and a subquery that computes it once per row (with the row's
    `rowid` as `__sf_rid`); else `by` and `t` itself. The texts, their hashes and NULL shares are the
    same."""
    if by.via is None:
        return by, t
    pick_by = [_RID if c == "rowid" else c for c in by.pick_by]  # the same values, so the same hashes
    keyed = by.model_copy(update={"via": _q(_KEY), "pick_by": pick_by})
    return keyed, f"(SELECT rowid AS {_RID}, *, {by.key_sql()} AS {_KEY} FROM {t})"


def _hinted(schema: Schema, config: DomainConfig):
    """(table, column, values_by, the column as the hint names it) of every `values_by` hint on a table of
    `schema`."""
    for key, hint in config.columns.items():
        if hint.values_by is None:
            continue
        table_name, column = key.rsplit(".", 1)
        if schema.has_table(table_name):
            table = schema.table(table_name)
            yield table, table.column(column), hint.values_by, column


def fill_parent_texts(con: duckdb.DuckDBPyConnection, schema: Schema, config: DomainConfig) -> dict[str, int]:
    """Set the text of every `values_by` hint read `via` the row's parents, once every table has its rows,
    on its non-NULL rows (the fill kept its NULL share): the table built anew with the texts (one
    statement, its own transaction), or an UPDATE where other tables reference it. Returns the rows set per
    `table.column`. The text checks (`text_rules`) then hold unless a later repair changes a
    parent, which they catch and repair like any other."""
    done: dict[str, int] = {}
    for table, column, by, _ in _hinted(schema, config):
        if by.via is None:
            continue
        t, col = table_ref(table.name), _q(column.name)
        keyed, rows = _keyed(by, t)
        referenced = any(fk.ref_table.lower() == table.name.lower()
                         for other in schema.tables if other.name.lower() != table.name.lower()
                         for fk in other.foreign_keys)
        try:
            if referenced:  # no other table may point at a table that is built anew: UPDATE it in place
                key = f"(SELECT {_RID}, {_KEY} FROM {rows})"
                con.execute(f"UPDATE {t} SET {col} = {keyed.expr()} FROM {key} AS k "
                            f"WHERE {t}.rowid = k.{_RID} AND {t}.{col} IS NOT NULL").fetchall()
            else:
                # built anew, the texts lined up with the stored rows by position: DuckDB runs the UPDATE's
                # correlated subquery row by row (5.2 s CPU for music's 101,600 comments at scale 12.7,
                # 0.8 s this way)
                lined = f"SELECT {keyed.expr()} AS __sf_text FROM {rows} AS k ORDER BY {_RID}"
                columns = ", ".join(
                    f"CASE WHEN s.{col} IS NULL THEN NULL ELSE u.__sf_text END" if c.name == column.name
                    else f"s.{_q(c.name)}"
                    for c in table.columns if c.generated is None
                )
                con.begin()
                try:
                    select = f"SELECT {columns} FROM {t} AS s POSITIONAL JOIN ({lined}) AS u"
                    rewrite_table(con, table, select)
                    con.commit()
                except BaseException:
                    con.rollback()
                    raise
        except (duckdb.Error, StoreError) as exc:
            raise DomainError(
                f"columns.{table.name}.{column.name}.values_by.via: DuckDB could not compute it ({exc}). "
                f"It is SQL over the row that names its table as {table.name} (a scalar subquery)."
            ) from None
        done[f"{table.name}.{column.name}"] = int(con.execute(
            f"SELECT count(*) FROM {t} WHERE {col} IS NOT NULL").fetchone()[0])
    return done


def text_rules(schema: Schema, config: DomainConfig) -> list[Rule]:
    """One check (kind `text`) per `values_by` hint of a table of `schema`."""
    out: list[Rule] = []
    for table, column, by, named in _hinted(schema, config):
        t, col = table_ref(table.name), _q(column.name)
        keyed, rows = _keyed(by, t)
        bad = f"{col} IS NOT NULL AND NOT list_contains({allowed_sql(keyed)}, {col})"
        if by.via is None:
            check = f"SELECT rowid AS row_id, {by.key_sql()} AS {_q(by.column)}, {col} FROM {t} WHERE {bad}"
            repair = f"UPDATE {t} SET {col} = {by.expr()} WHERE {bad}"
        else:
            check = (f"SELECT {_RID} AS row_id, {_KEY} AS {_q(by.column)}, {col} FROM {rows} AS k "
                     f"WHERE {bad}")
            repair = (f"UPDATE {t} SET {col} = {keyed.expr()} FROM (SELECT {_RID}, {_KEY} FROM {rows}) AS k "
                      f"WHERE {t}.rowid = k.{_RID} AND {bad}")
        whose = f"row's {by.column}" if by.via is None else f"{by.column} (read through its parents)"
        out.append(Rule(name=f"text_fits_{table.name}_{named}", kind="text",
                        description=f"{table.name}.{column.name} is one of the texts listed for its "
                                    f"{whose} (values_by)", check=check, repair=[repair]))
    return out
