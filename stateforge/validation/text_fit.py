"""Text that fits its row: the checks of every `values_by` column hint (kind `text`).

    rules = text_rules(schema, config)     # one domain check per hinted column

A `values_by` hint (`stateforge.domain.config.ValuesBy`) generates a column's text from the list given for
the row's value of another column (a mail's subject by its category). Its check finds the rows whose text
is not among those listed for their group (an LLM's text, a row whose category a repair changed); its
repair picks again from the right list, in one UPDATE. The checks run with the build's other domain checks
and are shown by kind in the report; they are not rules the tools enforce (a player may still write a
mail with a subject of their own).
"""

from __future__ import annotations

from stateforge.domain.config import DomainConfig, Rule, ValuesBy
from stateforge.schema.model import Schema
from stateforge.store.sql import quote_ident as _q
from stateforge.store.sql import quote_literal, table_ref


def _texts(texts: list[str]) -> str:
    return "[" + ", ".join(quote_literal(t) for t in texts) + "]"


def allowed_sql(by: ValuesBy) -> str:
    """The list of texts a row may hold, as SQL over the row (an empty list for a group with none)."""
    cases = " ".join(f"WHEN {quote_literal(k)} THEN {_texts(v)}" for k, v in by.values.items())
    default = _texts(by.default) if by.default else "[]::VARCHAR[]"
    return f"CASE CAST({_q(by.column)} AS VARCHAR) {cases} ELSE {default} END"


def text_rules(schema: Schema, config: DomainConfig) -> list[Rule]:
    """One check (kind `text`) per `values_by` hint of a table of `schema`."""
    out: list[Rule] = []
    for key, hint in config.columns.items():
        if hint.values_by is None:
            continue
        table_name, column = key.rsplit(".", 1)
        if not schema.has_table(table_name):
            continue
        table = schema.table(table_name)
        by, t, col = hint.values_by, table_ref(table.name), _q(table.column(column).name)
        bad = f"{col} IS NOT NULL AND NOT list_contains({allowed_sql(by)}, {col})"
        check = f"SELECT rowid AS row_id, {_q(by.column)}, {col} FROM {t} WHERE {bad}"
        expr = by.expr()
        repair = f"UPDATE {t} SET {col} = {expr} WHERE {bad}"
        out.append(Rule(name=f"text_fits_{table.name}_{column}", kind="text",
                        description=f"{table.name}.{column} is one of the texts listed for its row's "
                                    f"{by.column} (values_by)", check=check, repair=[repair]))
    return out
