"""The generic toolkit: five tools per table, derived from the schema model, so that any DDL works.

    search_<table>    filters (column, op, value), sort, descending, limit, offset -> rows + total
    get_<row>         by primary key (else a UNIQUE NOT NULL key)
    create_<row>      every column; ids allocated; optional columns take their defaults
    update_<row>      by key, the given columns only
    delete_<row>      by key, with every ON DELETE action

Names are snake case (`search_order_lines`, `get_order_line`), at most 64 characters, unique; a table
outside the default namespace has it first (`search_sales_orders`); descriptions come from the DDL
comments and name a table as `main.orders` where another namespace has an `orders` too. Tables with no
key get only search and create.
"""

from __future__ import annotations

import hashlib
import json
import threading
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, TypeAdapter, ValidationError, create_model

from stateforge.schema.model import DEFAULT_NAMESPACE, Column, Schema, Table
from stateforge.store.sql import quote_ident, table_ref
from stateforge.tools.arguments import INT64, STRICT
from stateforge.tools.base import Tool
from stateforge.tools.columns import describe_column, python_type, type_words
from stateforge.tools.constraints import show
from stateforge.tools.context import SchemaIndex
from stateforge.tools.env import Env
from stateforge.tools.errors import ArgumentError, ToolError
from stateforge.tools.naming import Names, singular, snake
from stateforge.tools.toolkit import Toolkit
from stateforge.values import dumps

OPERATORS = ("eq", "ne", "lt", "le", "gt", "ge", "contains", "in", "is_null")
MAX_LIMIT = 100
_CACHE: dict[str, Toolkit] = {}
_LOCK = threading.Lock()


def generic_toolkit(schema: Schema, *, name: str = "generic") -> Toolkit:
    """Search, get, create, update and delete tools for every table of `schema` (cached per model)."""
    digest = hashlib.sha256(json.dumps(schema.to_dict(), sort_keys=True, default=str).encode()).hexdigest()
    key = f"{name}:{digest}"
    with _LOCK:
        found = _CACHE.get(key)
    if found is None:
        found = Toolkit(generic_tools(schema), name=name)
        with _LOCK:
            _CACHE[key] = found
    return found


def generic_tools(
    schema: Schema,
    tables: list[str] | None = None,
    ops: tuple[str, ...] = ("search", "get", "create", "update", "delete"),
) -> list[Tool]:
    """The generic tools of `tables` (default: all), only the operations in `ops`; for packs to reuse."""
    index = SchemaIndex(schema)
    names = Names()
    out: list[Tool] = []
    chosen = [index.table(t) for t in tables] if tables else schema.tables
    for table in chosen:
        # main's tables by their own name (`audit.log` -> audit_log), others with their namespace first
        plural = snake(table.local_name if table.namespace == DEFAULT_NAMESPACE else table.name)
        one = singular(plural)
        label = schema.display_name(table.name)
        key = lookup_key(table)
        makers = {
            "search": (_search, [f"search_{plural}"]),
            "get": (_get, [f"get_{one}", f"get_{plural}"]),
            "create": (_create, [f"create_{one}", f"create_{plural}"]),
            "update": (_update, [f"update_{one}", f"update_{plural}"]),
            "delete": (_delete, [f"delete_{one}", f"delete_{plural}"]),
        }
        for op, (make, candidates) in makers.items():
            if op in ops and (key or op in ("search", "create")):
                out.append(make(names.take(*candidates), table, key, label))
    return out


def lookup_key(table: Table) -> tuple[str, ...]:
    """The key get/update/delete take: the primary key, else a UNIQUE key of NOT NULL columns, else ()."""
    if table.primary_key:
        return table.primary_key
    for key in table.unique:
        if key and all(not table.column(c).nullable for c in key):
            return key
    return ()


def _about(table: Table) -> str:
    return f" {table.description.rstrip('.')}." if table.description else ""


def _key_fields(table: Table, key: tuple[str, ...]) -> dict[str, Any]:
    return {
        table.column(c).name: (
            python_type(table.column(c)),
            Field(description=describe_column(table, table.column(c))),
        )
        for c in key
    }


def _model(tool_name: str, fields: dict[str, Any]) -> type[BaseModel]:
    title = "".join(p.capitalize() for p in tool_name.split("_")) + "Arguments"
    return create_model(title, __config__=STRICT, **fields)


def _key_of(table: Table, key: tuple[str, ...], arguments: BaseModel) -> dict[str, Any]:
    return {table.column(c).name: getattr(arguments, table.column(c).name) for c in key}


def _missing(label: str, key: dict[str, Any]) -> ToolError:
    return ToolError(f"no {label} row with " + ", ".join(f"{c} {show(v)}" for c, v in key.items()) + ".")


# --- search -------------------------------------------------------------------------------------------


def _search(tool_name: str, table: Table, key: tuple[str, ...], label: str) -> Tool:
    columns = table.column_names
    column_names = Literal[tuple(columns)]
    filter_model = create_model(
        f"{tool_name.title().replace('_', '')}Filter",
        __config__=STRICT,
        column=(column_names, Field(description="The column to filter on.")),
        op=(
            Literal[OPERATORS],
            Field(
                "eq",
                description="eq, ne (NULL counts as different), lt, le, gt, ge, "
                "contains (case-insensitive text), in (value is a list), is_null "
                "(value true or false).",
            ),
        ),
        value=(Any, Field(None, description="The value to compare with, of the column's type.")),
    )
    listing = "; ".join(
        f"{c.name} ({type_words(c)}{': ' + c.description if c.description else ''})" for c in table.columns
    )
    model = _model(
        tool_name,
        {
            "filters": (
                list[filter_model],
                Field(
                    default_factory=list,
                    max_length=20,
                    description=f"Conditions, all of which must hold. Columns: {listing}.",
                ),
            ),
            "sort_by": (
                column_names | None,
                Field(None, description="The column to sort by (default: the key)."),
            ),
            "descending": (bool, Field(False, description="Sort from the largest value down.")),
            "limit": (
                Annotated[int, Field(ge=1, le=MAX_LIMIT)],
                Field(20, description=f"Rows to return, 1 to {MAX_LIMIT}."),
            ),
            "offset": (
                Annotated[int, Field(ge=0, le=INT64[1])],
                Field(0, description="Rows to skip, for the next page."),
            ),
        },
    )
    adapters: dict[str, TypeAdapter[Any]] = {}
    order_key = list(key or columns)

    def run(env: Env, args: Any) -> dict[str, Any]:
        conditions, params = [], []
        for i, item in enumerate(args.filters):
            sql, values = _condition(table.column(item.column), item.op, item.value, i, adapters)
            conditions.append(sql)
            params += values
        where = " AND ".join(conditions) or "TRUE"
        order = (
            [f"{quote_ident(args.sort_by)} {'DESC' if args.descending else 'ASC'} NULLS LAST"]
            if args.sort_by
            else []
        )
        order += [quote_ident(c) for c in order_key if c != args.sort_by]
        return env.page(
            f"SELECT * FROM {table_ref(table.name)} WHERE {where}",
            params,
            order_by=", ".join(order),
            limit=args.limit,
            offset=args.offset,
        )

    description = (
        f"Search the {label} table.{_about(table)} Filter on any column, sort, and page "
        "with limit and offset; returns the matching rows and their total count."
    )
    return Tool.from_model(tool_name, model, run, description=description, reads=(table.name,))


def _condition(
    column: Column, op: str, value: Any, i: int, adapters: dict[str, TypeAdapter[Any]]
) -> tuple[str, list[Any]]:
    col = quote_ident(column.name)
    where = f"argument 'filters[{i}].value'"
    if op == "is_null":
        if not isinstance(value, bool):
            raise ArgumentError(f"{where} must be true or false with op is_null, got {show(value)}.")
        return f"{col} IS {'' if value else 'NOT '}NULL", []
    if op == "contains":
        if not isinstance(value, str) or not value:
            raise ArgumentError(f"{where} must be non-empty text with op contains, got {show(value)}.")
        return f"contains(lower(CAST({col} AS VARCHAR)), lower(?))", [value]
    if op == "in":
        if not isinstance(value, list) or not value:
            raise ArgumentError(f"{where} must be a non-empty list with op in, got {show(value)}.")
        values = [_typed(column, v, f"{where}[{j}]", adapters) for j, v in enumerate(value[:1000])]
        return f"{col} IN ({', '.join('?' * len(values))})", values
    typed = _typed(column, value, where, adapters)
    if typed is None:
        if op in ("eq", "ne"):
            return f"{col} IS {'NOT ' if op == 'ne' else ''}NULL", []
        raise ArgumentError(f"{where} must not be null with op {op}; use op is_null to find empty values.")
    sql = {"eq": "=", "ne": "IS DISTINCT FROM", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}[op]
    return f"{col} {sql} ?", [typed]


def _typed(column: Column, value: Any, where: str, adapters: dict[str, TypeAdapter[Any]]) -> Any:
    adapter = adapters.get(column.name)
    if adapter is None:
        # a filter may look for any text: a VARCHAR(n) limit bounds what is stored, not what is searched
        kind = str if column.length and not column.allowed_values else python_type(column)
        adapter = adapters[column.name] = TypeAdapter(kind | None)
    try:
        return adapter.validate_json(dumps(value), strict=True)
    except ValidationError:
        raise ArgumentError(
            f"{where} must be {type_words(column)} for column {column.name}, got {show(value)}."
        ) from None


# --- get, create, update, delete ----------------------------------------------------------------------


def _get(tool_name: str, table: Table, key: tuple[str, ...], label: str) -> Tool:
    model = _model(tool_name, _key_fields(table, key))

    def run(env: Env, args: Any) -> dict[str, Any]:
        wanted = _key_of(table, key, args)
        row = env.get(table.name, wanted)
        if row is None:
            raise _missing(label, wanted)
        return row

    description = f"Get one row of {label} by {', '.join(key)}.{_about(table)}"
    return Tool.from_model(tool_name, model, run, description=description, reads=(table.name,))


def _create(tool_name: str, table: Table, key: tuple[str, ...], label: str) -> Tool:
    allocated = SchemaIndex(Schema(tables=[table])).allocated_key(table)
    fields: dict[str, Any] = {}
    for column in table.columns:
        if column.identity or column.name == allocated:
            continue
        annotation = python_type(column)
        required = not column.nullable and column.default is None
        text = describe_column(table, column) + (f" Default: {column.default}." if column.default else "")
        fields[column.name] = (
            annotation | None if column.nullable else annotation,
            Field(... if required else None, description=text),
        )
    model = _model(tool_name, fields)

    def run(env: Env, args: Any) -> dict[str, Any]:
        values = {name: getattr(args, name) for name in fields if name in args.model_fields_set}
        return env.insert(table.name, values)

    ids = " Its id is assigned." if allocated or any(c.identity for c in table.columns) else ""
    description = (
        f"Create a row of {label}.{_about(table)}{ids} Leave out optional columns to take "
        "their defaults; returns the row as stored."
    )
    return Tool.from_model(
        tool_name,
        model,
        run,
        description=description,
        kind="write",
        writes=(table.name,),
        reads=(table.name,),
        idempotent=False,
        destructive=False,
    )


def _update(tool_name: str, table: Table, key: tuple[str, ...], label: str) -> Tool:
    keys = {c.lower() for c in key}
    fields = _key_fields(table, key)
    settable = [c for c in table.columns if c.name.lower() not in keys and not c.identity]
    for column in settable:
        annotation = python_type(column)
        fields[column.name] = (
            annotation | None,
            Field(
                None,
                description="New value. "
                + describe_column(table, column)
                + ("" if column.nullable else " Cannot be null."),
            ),
        )
    model = _model(tool_name, fields)

    def run(env: Env, args: Any) -> dict[str, Any]:
        wanted = _key_of(table, key, args)
        changes = {c.name: getattr(args, c.name) for c in settable if c.name in args.model_fields_set}
        if not changes:
            raise ArgumentError(
                f"{tool_name}: give at least one column to change: {', '.join(c.name for c in settable)}."
            )
        for name, value in changes.items():
            if value is None and not table.column(name).nullable:
                raise ArgumentError(f"{tool_name}: argument '{name}' cannot be null (NOT NULL).")
        if env.update(table.name, wanted, changes) == 0:
            raise _missing(label, wanted)
        return env.get(table.name, wanted) or {}

    description = (
        f"Change one row of {label}, found by {', '.join(key)}.{_about(table)} Only the "
        "columns given change; returns the row as stored."
    )
    return Tool.from_model(
        tool_name,
        model,
        run,
        description=description,
        kind="write",
        reads=(table.name,),
        writes=(table.name,),
        idempotent=True,
        destructive=True,
    )


def _delete(tool_name: str, table: Table, key: tuple[str, ...], label: str) -> Tool:
    model = _model(tool_name, _key_fields(table, key))

    def run(env: Env, args: Any) -> dict[str, Any]:
        wanted = _key_of(table, key, args)
        if env.delete(table.name, wanted) == 0:
            raise _missing(label, wanted)
        also = {t: c for t, c in env.changes.to_dict().items() if t != table.name or set(c) != {"deleted"}}
        return {"deleted": wanted, "also_changed": also}

    description = (
        f"Delete one row of {label}, found by {', '.join(key)}.{_about(table)} Rows that "
        "reference it are deleted, cleared or block the delete, as the schema's foreign keys say."
    )
    return Tool.from_model(
        tool_name,
        model,
        run,
        description=description,
        kind="write",
        reads=(),
        writes=(table.name,),
        idempotent=True,
        destructive=True,
    )
