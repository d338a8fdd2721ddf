"""Small readers over sqlglot expressions: names, key column lists, FK actions, CHECKs, defaults."""

from __future__ import annotations

import re
from typing import Any

from sqlglot import exp

from stateforge.schema.model import FK_ACTIONS
from stateforge.schema.namespaces import Ref
from stateforge.schema.translate import to_duckdb

_ACTION = re.compile(r"ON\s+(DELETE|UPDATE)\s+(NO\s+ACTION|RESTRICT|CASCADE|SET\s+NULL|SET\s+DEFAULT)", re.I)
_NOW = {"NOW", "SYSDATE", "SYSTIMESTAMP", "LOCALTIMESTAMP", "GETDATE", "CURRENT_TIMESTAMP", "SYSDATETIME"}
_TEXT_TYPES = {exp.DType.VARCHAR, exp.DType.NVARCHAR, exp.DType.TEXT, exp.DType.CHAR, exp.DType.NCHAR,
               exp.DType.BPCHAR, exp.DType.NAME, exp.DType.USERDEFINED}  # fmt: skip
_TIME_TYPES = exp.DataType.TEMPORAL_TYPES | {exp.DType.INTERVAL}
_NUMERIC_TYPE = re.compile(r"(U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?|DECIMAL.*|DOUBLE|FLOAT)$")


def table_name(node: exp.Expr) -> str:
    """The bare name of a table reference: `public.users` -> `users`, `` `db`.`t` `` -> `t`."""
    if isinstance(node, exp.Schema):
        node = node.this
    return node.name


def name_ref(node: exp.Expr) -> Ref:
    """A table reference as written, namespace and name: `sales.orders` -> Ref("sales", "orders"); a
    catalog (`db.dbo.t`) is dropped."""
    if isinstance(node, exp.Schema):
        node = node.this
    namespace = node.args.get("db") if isinstance(node, exp.Table) else None
    return Ref(namespace.name if isinstance(namespace, exp.Expr) and namespace.name else None, node.name)


def column_names(nodes: list[exp.Expr]) -> list[str | None]:
    """Names of the columns of a key or index; None where an entry is an expression, not a column.

    A MySQL prefix (`name(10)`) counts as the column.
    """
    out: list[str | None] = []
    for node in nodes:
        if isinstance(node, exp.Ordered):
            node = node.this
        if isinstance(node, (exp.Collate, exp.ColumnPrefix)):
            node = node.this
        if isinstance(node, (exp.Identifier, exp.Column)):
            out.append(node.name)
        elif isinstance(node, exp.Anonymous) and len(node.expressions) == 1 and node.expressions[0].is_int:
            out.append(node.name)
        else:
            out.append(None)
    return out


def fk_actions(fk: exp.Expr) -> tuple[str, str]:
    """(on_delete, on_update) of a ForeignKey or Reference, spelled as in FK_ACTIONS."""
    found = {"DELETE": "NO ACTION", "UPDATE": "NO ACTION"}
    texts = []
    for node in (fk, fk.args.get("reference")):
        if node is None:
            continue
        texts += [str(o) for o in node.args.get("options") or []]
        texts += [f"ON {event} {node.args[event]}" for event in ("delete", "update") if node.args.get(event)]
    for text in texts:
        for event, action in _ACTION.findall(text):
            found[event.upper()] = " ".join(action.upper().split())
    assert found["DELETE"] in FK_ACTIONS and found["UPDATE"] in FK_ACTIONS
    return found["DELETE"], found["UPDATE"]


def normalize_check(expr: exp.Expr) -> exp.Expr:
    """Undo what dumps add to a CHECK: casts of literals and text columns, `= ANY (ARRAY[...])` for IN, and
    SQL Server's `c = 'a' OR c = 'b' OR ...` (how it stores `c IN ('a', 'b')`)."""
    changed = True

    def rewrite(node: exp.Expr) -> exp.Expr:
        nonlocal changed
        new = _normalize_node(node)
        changed = changed or new is not node
        return new

    expr = expr.copy()
    while changed:  # a replaced node's children are not visited in the same pass
        changed = False
        expr = expr.transform(rewrite, copy=False)
    return expr


def _normalize_node(node: exp.Expr) -> exp.Expr:
    if isinstance(node, exp.Cast) and _plain_cast(node):
        return node.this.unnest() if isinstance(node.this, exp.Paren) else node.this
    if isinstance(node, exp.EQ) and isinstance(node.expression, exp.Any):
        array = node.expression.this.unnest()
        while isinstance(array, exp.Cast):
            array = array.this.unnest()
        if isinstance(array, exp.Array):
            return exp.In(this=node.this, expressions=list(array.expressions))
    if isinstance(node, exp.Paren) and isinstance(node.this, (exp.Column, exp.Literal)):
        return node.this
    if isinstance(node, exp.Or) and not isinstance(node.parent, exp.Or):
        return _or_of_equalities(node) or node
    return node


def _or_of_equalities(node: exp.Or) -> exp.In | None:
    """`c = 'a' OR c = 'b' OR ...` (any nesting) as `c IN ('a', 'b', ...)`; None for any other OR."""
    leaves, todo = [], [node]
    while todo:
        part = todo.pop().unnest()
        if isinstance(part, exp.Or):
            todo += [part.expression, part.this]
        else:
            leaves.append(part)
    column, values = None, []
    for leaf in leaves:
        if not isinstance(leaf, exp.EQ):
            return None
        col, value = (leaf.this, leaf.expression) if isinstance(leaf.this, exp.Column) else (
            leaf.expression, leaf.this
        )
        if not isinstance(col, exp.Column) or not isinstance(value, exp.Literal):
            return None
        if column is not None and col.name.lower() != column.name.lower():
            return None
        column = col
        values.append(value)
    return exp.In(this=column.copy(), expressions=[v.copy() for v in values]) if column else None


def _plain_cast(cast: exp.Cast) -> bool:
    """A cast DuckDB does not need: to text on a column, or of a literal to anything but a time type."""
    inner = cast.this.unnest()
    if isinstance(inner, (exp.Literal, exp.Array)):
        return cast.to.this not in _TIME_TYPES and not isinstance(cast.to.this, exp.Interval)
    return isinstance(inner, exp.Column) and cast.to.this in _TEXT_TYPES


def in_values(expr: exp.Expr) -> tuple[str, list[Any]] | None:
    """(column, values) when a normalized CHECK is exactly `column IN (literal, ...)`."""
    expr = expr.unnest()
    if isinstance(expr, exp.In) and isinstance(expr.this, exp.Column) and expr.expressions:
        if all(isinstance(v, exp.Literal) or _negative(v) for v in expr.expressions):
            return expr.this.name, [v.to_py() for v in expr.expressions]
    return None


def _negative(node: exp.Expr) -> bool:
    return isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal)


def replace_value(expr: exp.Expr, column: str) -> exp.Expr:
    """A domain's CHECK for one column: VALUE becomes the column's name."""

    def rewrite(node: exp.Expr) -> exp.Expr:
        if isinstance(node, exp.Column) and not node.table and node.name.upper() == "VALUE":
            return exp.column(column, quoted=True)
        return node

    return expr.copy().transform(rewrite)


def default_sql(expr: exp.Expr, duck_type: str) -> tuple[str | None, bool]:
    """(the default as DuckDB SQL, whether it is a sequence: the column is then an identity)."""
    expr = expr.unnest()
    while isinstance(expr, exp.Cast) and _plain_cast(expr):
        expr = expr.this.unnest()
    if isinstance(expr, exp.Null):
        return None, False
    name = (expr.name if isinstance(expr, exp.Anonymous) else "").upper()
    if name == "NEXTVAL" or isinstance(expr, exp.NextValueFor):
        return None, True
    if isinstance(expr, (exp.CurrentTimestamp, exp.CurrentDatetime)) or name in _NOW:
        return "CURRENT_TIMESTAMP", False
    expr = to_duckdb(expr)  # vendor functions: sys_guid(), uuid_generate_v4(), datetime('now'), ...
    if isinstance(expr, (exp.CurrentTimestamp, exp.CurrentDatetime)):
        return "CURRENT_TIMESTAMP", False
    if isinstance(expr, exp.CurrentDate):
        return "CURRENT_DATE", False
    if isinstance(expr, exp.CurrentTime):
        return "CURRENT_TIME", False
    return _literal_for(expr.transform(_now_literal), duck_type).sql("duckdb"), False


def _now_literal(node: exp.Expr) -> exp.Expr:
    """'now' as a time inside a default ('now'::timestamp, sqlite's strftime(fmt, 'now')): DuckDB has none."""
    inner = node.this if isinstance(node, exp.Cast) else node
    nested = node.parent is not None or node is not inner
    if nested and isinstance(inner, exp.Literal) and inner.is_string and inner.name.lower() == "now":
        return exp.CurrentTimestamp()
    return node


def _literal_for(expr: exp.Expr, duck_type: str) -> exp.Expr:
    """MySQL writes numeric and boolean defaults as strings ('0') or bits (b'1'), PostgreSQL writes arrays
    as '{a,b}': give them their DuckDB type."""
    value = expr.to_py() if isinstance(expr, (exp.Literal, exp.Boolean)) else None
    if duck_type.endswith("[]") and isinstance(value, str) and value.startswith("{") and value.endswith("}"):
        items = [i.strip().strip('"') for i in value[1:-1].split(",") if i.strip()]
        return exp.Array(expressions=[exp.Literal.string(i) for i in items])
    if isinstance(expr, exp.BitString):
        value = int(str(expr.this) or "0", 2)
    if duck_type == "BOOLEAN" and str(value).lower() in ("0", "1", "false", "true", "f", "t", "n", "y"):
        return exp.Boolean(this=str(value).lower() in ("1", "true", "t", "y"))
    if isinstance(value, str) and _NUMERIC_TYPE.match(duck_type) and re.fullmatch(r"-?\d+(\.\d+)?", value):
        return exp.Literal.number(value)
    if isinstance(expr, exp.BitString):
        return exp.Literal.number(value)
    return expr
