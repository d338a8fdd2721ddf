"""SQL Server's rules and old-style alias types: `CREATE RULE`, `sp_bindrule`, `sp_addtype`.

    CREATE RULE list_rule AS @list IN ('1389', '0736', '0877')
    EXEC sp_addtype id, 'varchar(11)', 'NOT NULL'
    EXEC sp_bindrule 'list_rule', 'id'                  -- every column of the alias type id
    EXEC sp_bindrule list_rule, 'publishers.pub_id'     -- one column

A rule is a CHECK over one variable: it is read as a CHECK over VALUE (as a domain's is) and, once bound,
becomes a CHECK of each bound column (an IN list gives the column its allowed values, as a CHECK does).
A rule bound to an alias type holds for the columns of that type written before the binding and after
it. A binding that names no rule, type or column is a note at its line, never an error.
"""

from __future__ import annotations

import re

from stateforge.errors import SchemaError
from stateforge.schema.columns import apply_column_constraints
from stateforge.schema.context import Context
from stateforge.schema.exprs import replace_value
from stateforge.schema.namespaces import ref_of_text
from stateforge.schema.split import Statement
from stateforge.schema.syntax import parse

_RULE = re.compile(r"CREATE\s+RULE\s+(?P<name>\S+)\s+AS\s+(?P<body>.+)$", re.IGNORECASE | re.DOTALL)
_VARIABLE = re.compile(r"@\w+")
_ARGUMENTS = re.compile(r"(?:@\w+\s*=\s*)?(?:N?'(?P<quoted>(?:[^']|'')*)'|(?P<bare>[\w.\[\]\"]+))")
_PROCEDURE = re.compile(r"(?:EXEC(?:UTE)?\s+)?(?:\[?\w+\]?\.)*\[?(?P<name>sp_\w+)\]?\s*(?P<args>.*)$",
                        re.IGNORECASE | re.DOTALL)  # fmt: skip


def create_rule(ctx: Context, stmt: Statement) -> str | None:
    """`CREATE RULE name AS <condition over @var>` (T-SQL): kept until `sp_bindrule` binds it.

    PostgreSQL's rewrite rules (`CREATE RULE r AS ON INSERT TO t DO ...`) change no stored state: skipped.
    """
    match = _RULE.match(stmt.text.strip().rstrip(";"))
    if match is None or re.match(r"ON\s", match["body"], re.IGNORECASE):
        return "rule"
    name = ref_of_text(match["name"]).name
    body = _VARIABLE.sub("VALUE", match["body"].strip())
    text = f"CREATE TABLE __rule (VALUE VARCHAR(8000) CHECK ({body}))"
    try:
        create = parse(stmt, ctx.dialect, source=ctx.source, what="CREATE RULE", text=text).expr
    except SchemaError as err:
        ctx.note(f"CREATE RULE {name} not read, so the CHECK it stands for is lost ({err.message})")
        return "rule"
    constraints = create.this.expressions[0].args.get("constraints") or []
    ctx.rules[name.lower()] = (constraints[0], stmt.line)
    return None


def procedure_call(ctx: Context, stmt: Statement) -> str | None:
    """`EXEC sp_bindrule` / `sp_addtype`: a binding or an alias type; other calls are skipped ("call")."""
    from stateforge.schema.objects import alias_type, extended_property

    match = _PROCEDURE.match(stmt.text.strip().rstrip(";"))
    procedure = match["name"].lower() if match else ""
    if procedure == "sp_addextendedproperty":
        return extended_property(ctx, stmt)
    if procedure not in ("sp_bindrule", "sp_addtype"):
        return "call"
    args = [m["quoted"].replace("''", "'") if m["quoted"] is not None else m["bare"]
            for m in _ARGUMENTS.finditer(match["args"]) if m["quoted"] is not None or m["bare"]]
    if procedure == "sp_addtype":
        if len(args) < 2:
            return "call"
        nulls = f" {args[2]}" if len(args) > 2 and args[2].upper() in ("NULL", "NOT NULL") else ""
        return alias_type(ctx, stmt, args[0], args[1] + nulls, "sp_addtype")
    return bind_rule(ctx, args)


def bind_rule(ctx: Context, args: list[str]) -> str | None:
    """`sp_bindrule rule, target`: the rule becomes a CHECK of the target column, or of every column of
    the target alias type."""
    if len(args) < 2:
        ctx.note("sp_bindrule without a rule and a target: skipped")
        return "call"
    rule_name, target = ref_of_text(args[0]).name, args[1]
    found = ctx.rules.get(rule_name.lower())
    if found is None:
        ctx.note(f"sp_bindrule names the rule {rule_name}, which no CREATE RULE above defines: skipped")
        return "call"
    rule, _line = found
    parts = [p for p in re.split(r"\.(?![^\[]*\])", target) if p]
    type_name = ref_of_text(target).name.lower()
    if len(parts) == 1 and type_name in ctx.user_types:
        ctx.user_types[type_name].checks.append(rule)
        for table, column in ctx.typed_columns.get(type_name, []):
            apply_column_constraints(ctx, table, column, [replace_value(rule, column.name)])
        return None
    if len(parts) < 2:
        ctx.note(f"sp_bindrule binds {rule_name} to {target}, which is neither an alias type nor a "
                 "table.column: skipped")
        return "call"
    table_ref = ref_of_text(".".join(parts[:-1]))
    table = ctx.find_table(ctx.resolve(table_ref), "sp_bindrule")
    column = table.column(ctx.find_columns(table, [ref_of_text(parts[-1]).name], "sp_bindrule")[0])
    apply_column_constraints(ctx, table, column, [replace_value(rule, column.name)])
    return None

