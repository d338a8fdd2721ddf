"""What the generic recipes know about any schema: each table's generic tools, key, readable column,
words, and the columns a request may change or filter on.

    facts = table_facts(ctx)                    # every table with generic tools, computed once per run
    t = facts["albums"]
    t.tools["update"], t.key, t.name, t.one, t.many     # 'update_album', ('id',), 'title', 'album', 'albums'
    rows = find_all(ctx, t, [{"column": "artist_id", "op": "eq", "value": 12}])   # paged searches

The generic toolkit names tools after tables (`search_albums`, `update_album`, ...); a table's tools are
found by their kind, their declared table and the verb their name starts with, so a pack that mixes
generic tools into its own toolkit works too.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from stateforge.diff.labels import human_column
from stateforge.schema.model import Column, Table
from stateforge.schema.types import INTEGER_TYPES
from stateforge.store.sql import quote_ident, table_ref
from stateforge.tasks.context import RecipeContext
from stateforge.tasks.generic.names import SENTENCE_WORDS, field_words, nouns
from stateforge.tasks.recipes import Skip
from stateforge.tasks.wording import value_text
from stateforge.tools.generic import MAX_LIMIT, lookup_key
from stateforge.tools.naming import snake
from stateforge.values import json_value

TEXT = ("VARCHAR", "CHAR", "TEXT", "STRING", "BPCHAR", "NVARCHAR")
NUMBERS = ("DECIMAL", "NUMERIC", "DOUBLE", "REAL", "FLOAT", "FLOAT4", "FLOAT8")
_CACHE: dict[tuple[int, int], dict[str, TableFacts]] = {}


@dataclass
class TableFacts:
    """One table as the generic recipes see it."""

    table: Table
    tools: dict[str, str]
    """Operation (search, get, create, update, delete) -> the tool's name."""
    key: tuple[str, ...]
    """The columns get/update/delete take."""
    name: str | None
    """The text column people name a row by (unique enough to pick rows out), or None."""
    one: str
    many: str
    fk_columns: set[str] = field(default_factory=set)
    few: list[str] | None = None
    """Columns with 2 to 12 distinct values (filled by `generic.filters.few_valued`)."""

    _words: dict[str, str] = field(default_factory=dict, repr=False, compare=False)

    def words(self, column: str) -> str:
        """A column of this table as words (`names.field_words`): `s_order_cnt` -> `order count`; each
        column's worked out once (the name lookups ask for every text column of every table, many times)."""
        if column not in self._words:
            self._words[column] = field_words(self.table, column)
        return self._words[column]

    @property
    def ref(self) -> str:
        return table_ref(self.table.name)

    def column(self, name: str) -> Column:
        return self.table.column(name)

    def settable(self) -> list[Column]:
        """Columns an update may set: not the key, a foreign key, an identity or generated column."""
        skip = {c.lower() for c in self.key} | {c.lower() for c in self.table.primary_key} | self.fk_columns
        return [
            c
            for c in self.table.columns
            if c.name.lower() not in skip and not c.identity and c.generated is None
        ]


def kind(column: Column) -> str:
    """text, integer, number, temporal, bool, uuid, list or other (interval, JSON, blobs, ...)."""
    base = column.base_type
    if base.endswith("[]"):
        return "list"
    if base in INTEGER_TYPES:
        return "integer"
    if base in NUMBERS:
        return "number"
    if base.startswith(TEXT):
        return "text"
    if base in ("DATE", "TIMESTAMP", "TIMESTAMPTZ", "TIMESTAMP WITH TIME ZONE", "DATETIME"):
        return "temporal"
    if base in ("BOOLEAN", "BOOL"):
        return "bool"
    if base == "UUID":
        return "uuid"
    return "other"


CLOCK = ("now", "current_", "today", "uuid", "random", "nextval", "gen_random")


def varying_default(column: Column) -> bool:
    """Whether a column's default changes from call to call (the clock, a random or sequence value)."""
    return column.default is not None and any(word in column.default.lower() for word in CLOCK)


def article(word: str) -> str:
    """`an album`, `a track`."""
    return f"{'an' if word[:1].lower() in 'aeiou' else 'a'} {word}"


def words(name: str) -> str:
    """A column or table name as words: `release_date` -> `release date`."""
    return snake(name).replace("_", " ")


def shown_value(ctx: RecipeContext, value: Any) -> str:
    """A new value as a request says it: yes / no for a boolean, 'quoted' text, anything else in the run's
    style (`value_text`)."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return f"'{value}'" if isinstance(value, str) else value_text(value, ctx.style)


def derive_yes_no(ctx: RecipeContext, column: Column, value: Any, shown: str) -> None:
    """For a boolean `value` said as `shown` (yes / no), record that the words mean true / false."""
    if isinstance(value, bool):
        ctx.derived(value, f"'{words(column.name)} {shown}' means {str(value).lower()}")


GENERIC_DESCRIPTIONS = {
    "search": "Search the {table} table.",
    "get": "Get one row of {table} by ",
    "create": "Create a row of {table}.",
    "update": "Change one row of {table}, found by ",
    "delete": "Delete one row of {table}, found by ",
}
"""How the generic toolkit's descriptions begin (`stateforge.tools.generic`): a tool of another shape with a
generic-looking name (a pack's own `get_song`) is not taken for a generic one."""


def _tools(ctx: RecipeContext, table: Table) -> dict[str, str]:
    found: dict[str, str] = {}
    for item in ctx.toolkit:
        verb = item.name.split("_", 1)[0]
        if verb in found or verb not in GENERIC_DESCRIPTIONS:
            continue
        if item.description.startswith(GENERIC_DESCRIPTIONS[verb].format(table=table.name)):
            found[verb] = item.name
    return found


NAME_HINTS = ("name", "title", "label", "username", "email", "code", "number", "sku", "slug", "handle")
"""Words in a column's name that say people name rows by it, in order of preference."""


def _name_column(ctx: RecipeContext, table: Table, skip: set[str]) -> str | None:
    """The text column people name a row by: the most human one (`human_column`, then a column whose name
    says name, title, label, email, code or number), held by 80% distinct values in every row, and never
    one whose values read as sentences (five words or more, or a final full stop)."""
    human = human_column(table)
    candidates = [human] if isinstance(human, str) else []
    texts = [
        c.name
        for c in table.columns
        if kind(c) == "text"
        and c.name not in candidates
        and c.name.lower() not in skip
        and not c.allowed_values
    ]

    def rank(name: str) -> int:
        tokens = snake(name).split("_")
        return next((i for i, hint in enumerate(NAME_HINTS) if hint in tokens or hint == tokens[-1]), 99)

    candidates += sorted(texts, key=lambda n: (rank(n), texts.index(n)))
    for name in candidates:
        q = quote_ident(name)
        row = ctx.sql(
            f"SELECT count(*) AS n, count(DISTINCT {q}) AS d, count({q}) AS v, "
            f"max(length({q}) - length(replace({q}, ' ', '')) + 1) AS most_words, "
            f"count(*) FILTER (WHERE regexp_matches({q}, '[.!?]$') AND contains({q}, ' ')) AS stops "
            f"FROM {table_ref(table.name)}"
        )
        n, distinct, values = row[0]["n"], row[0]["d"], row[0]["v"]
        sentences = (row[0]["most_words"] or 0) >= SENTENCE_WORDS or row[0]["stops"]
        if n and values == n and distinct >= 0.8 * n and not sentences:
            return name
    return None


def table_facts(ctx: RecipeContext) -> dict[str, TableFacts]:
    """Every table that has generic tools, by lower-case name (computed once per workspace and toolkit)."""
    key = (id(ctx.workspace), id(ctx.toolkit))
    if key not in _CACHE:
        out = {}
        for table in ctx.schema.tables:
            tools = _tools(ctx, table)
            if not tools:
                continue
            fk_columns = {c.lower() for fk in table.foreign_keys for c in fk.columns}
            lookup = lookup_key(table)
            skip = {c.lower() for c in lookup} | fk_columns
            one, many = nouns(ctx.schema)[table.name.lower()]
            out[table.name.lower()] = TableFacts(
                table=table,
                tools=tools,
                key=lookup,
                name=_name_column(ctx, table, skip),
                one=one,
                many=many,
                fk_columns=fk_columns,
            )
        _CACHE.clear()
        _CACHE[key] = out
    return _CACHE[key]


def tables_with(ctx: RecipeContext, *ops: str, named: bool = False) -> list[TableFacts]:
    """Tables whose generic tools include every op in `ops` (and a readable column when `named`)."""
    return [
        t
        for t in table_facts(ctx).values()
        if all(op in t.tools for op in ops) and (t.name is not None or not named)
    ]


def pick_table(ctx: RecipeContext, *ops: str, named: bool = False) -> TableFacts:
    """One such table, chosen with the rng (`Skip` when there is none)."""
    found = tables_with(ctx, *ops, named=named)
    if not found:
        raise Skip(f"no table with {'/'.join(ops)} tools" + (" and a name column" if named else ""))
    return ctx.choice(found)


def key_args(t: TableFacts, row: dict[str, Any]) -> dict[str, Any]:
    """The key arguments of get/update/delete for `row` (canonical JSON values)."""
    return {t.column(c).name: json_value(row[t.column(c).name]) for c in t.key}


def uniquely_named(t: TableFacts, alias: str = "r") -> str:
    """SQL condition (over `alias`) that the row's name is held by no other row of `t`."""
    assert t.name is not None
    q = quote_ident(t.name)
    return f"{alias}.{q} IN (SELECT {q} FROM {t.ref} GROUP BY {q} HAVING count(*) = 1)"


def unique_named(
    ctx: RecipeContext,
    t: TableFacts,
    where: str = "TRUE",
    params: list[Any] | None = None,
    *,
    what: str | None = None,
) -> dict[str, Any]:
    """A row of `t` (matching `where`, which may name the table's alias `r`) whose name is unique in the
    table, chosen with the rng."""
    assert t.name is not None
    sql = f"SELECT * FROM {t.ref} r WHERE {where} AND {uniquely_named(t)}"
    return ctx.pick(sql, params, what=what or f"{t.one} with a unique {t.words(t.name)}")


def confusable(ctx: RecipeContext, t: TableFacts) -> list[tuple[TableFacts, list[str]]]:
    """Every table a solver could look in for "the <one> 'name'", with the text columns it would search:
    `t` by its name column, and each other table that is called by the same last word (`order`, `sales
    order`) or has a column of the same words as `t`'s name column, by its name column and that column."""
    assert t.name is not None
    kind_word = t.one.split()[-1]
    named_by = t.words(t.name)
    out = [(t, [t.name])]
    for other in table_facts(ctx).values():
        if other is t or "search" not in other.tools:
            continue
        same = [c.name for c in other.table.columns if kind(c) == "text" and other.words(c.name) == named_by]
        if other.one.split()[-1] == kind_word and other.name and other.name not in same:
            same.append(other.name)
        if same:
            out.append((other, same))
    return out


def name_count_sql(ctx: RecipeContext, t: TableFacts) -> tuple[str, int]:
    """SQL counting the rows named `?` in every table of `confusable(t)`, and how many `?` it takes."""
    parts = [
        f"(SELECT count(*) FROM {other.ref} WHERE {' OR '.join(f'{quote_ident(c)} = ?' for c in columns)})"
        for other, columns in confusable(ctx, t)
    ]
    return "SELECT " + " + ".join(parts), sum(len(c) for _, c in confusable(ctx, t))


def refer_by_name(ctx: RecipeContext, t: TableFacts, row: dict[str, Any]) -> None:
    """Record `row` as referred to by its name: the task says "the <one> 'name'", and no other row of any
    table a solver could confuse it with (`confusable`) holds that name (one SQL count on the base)."""
    assert t.name is not None
    sql, n = name_count_sql(ctx, t)
    ctx.refer(f"{t.one} {row[t.name]!r}", sql, [row[t.name]] * n)


def named_row(
    ctx: RecipeContext,
    t: TableFacts,
    where: str = "TRUE",
    params: list[Any] | None = None,
    *,
    what: str | None = None,
) -> dict[str, Any]:
    """`unique_named`, recorded as a reference by its name (`refer_by_name`)."""
    row = unique_named(ctx, t, where, params, what=what)
    refer_by_name(ctx, t, row)
    return row


def find_by_name(ctx: RecipeContext, t: TableFacts, name: Any) -> dict[str, Any]:
    """Search `t` for the row named `name` (a recorded read, as the solver would do); its row."""
    assert t.name is not None
    found = ctx.read(
        t.tools["search"],
        {"filters": [{"column": t.name, "op": "eq", "value": json_value(name)}]},
        step=f"Find the {t.one} {json_value(name)!r}",
    )
    if found["total"] != 1:
        raise Skip("name not unique", f"{t.one} {name!r}: {found['total']} rows")
    return found["rows"][0]


def find_all(
    ctx: RecipeContext, t: TableFacts, filters: list[dict[str, Any]], *, what: str | None = None
) -> list[dict[str, Any]]:
    """Every row of `t` matching `filters`, page by page (100 a page), each page a recorded read."""
    rows: list[dict[str, Any]] = []
    offset = 0
    while True:
        args = {"filters": filters, "limit": MAX_LIMIT, "offset": offset}
        step = None if offset or not what else f"Find every {what}"
        page = ctx.read(t.tools["search"], args, step=step)
        rows += page["rows"]
        offset += MAX_LIMIT
        if offset >= page["total"]:
            return rows


def new_text(ctx: RecipeContext, t: TableFacts, column: str, like: str) -> str:
    """A value for a text column that no row has yet, made from `like` (within the column's length)."""
    col = t.column(column)
    for suffix in ctx.rng.sample(SUFFIXES, len(SUFFIXES)):
        room = (col.length or 200) - len(suffix) - 1
        value = f"{like[:room].rstrip()} {suffix}" if room > 0 else suffix[: col.length]
        taken = ctx.scalar(f"SELECT count(*) FROM {t.ref} WHERE {quote_ident(col.name)} = ?", [value])
        if not taken:
            return value
    raise Skip("no fresh value", f"every variant of {like!r} is taken in {t.table.name}.{column}")


def new_uuid(ctx: RecipeContext) -> str:
    """A random UUID drawn with the seeded rng."""
    return str(uuid.UUID(int=ctx.rng.getrandbits(128), version=4))


SUFFIXES = ("II", "Deluxe", "Revisited", "Plus", "Reloaded", "Next", "Prime", "Redux", "Special", "New")
