"""Time runs forward along foreign keys: the orderings a DDL implies, inferred from column names and types.

    orderings = infer_time_order(schema, config)      # what the DDL implies, with notes
    rules = time_rules(schema, config)                 # the same as domain rules (kind `time`)

A table's *event column* is its creation time (created_at, created, creation_date, date_created,
inserted_at, joined / registered / signup, added_at, ...) or else the first other event time of the row
(played_at, paid_at, sent_at, starts_on, ...). Along every foreign key whose parent has an event column,
a child's event is not before its parent's (`after_parent`); when the parent has a start/end pair
(started_at / ended_at, starts_on / ends_on, start_at / end_at, valid_from / valid_to), the child's
event lies inside it (`window`). Inside a row, `updated_at` / `modified_at` is not before the creation
time and an end is not before its start (`pair`). domain.yaml `time_order:` corrects the inference
(`created`: a table's event column, or none; `ignore`: orderings to drop; `windows: false`).

Repairs are single UPDATEs over the whole table: a row that breaks its order has every time column from
its event on mapped through one increasing affine map into the allowed range (its parents' latest event
to the window's end, or the clock), so the orderings inside the row (its CHECKs, its pairs) still hold;
columns before the event (a birth date) are left alone. A pair is repaired by mirroring the later column
past the earlier one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from stateforge.domain.config import DomainConfig, Rule
from stateforge.schema.model import Column, Note, Schema, Table
from stateforge.store.sql import quote_ident as _q
from stateforge.store.sql import quote_literal, table_ref

_TIME_TYPES = re.compile(r"^(TIMESTAMP|DATETIME|DATE)\b", re.IGNORECASE)
_DATE_TYPE = re.compile(r"^DATE$", re.IGNORECASE)
_CREATED = re.compile(
    r"^(created(_at|_on|_date|_time)?|creation_(date|time)|date_created|inserted_at|insert(ed)?_(date|time)"
    r"|joined(_at|_on)?|registered(_at|_on)?|signup(_at|_date)?|signed_up_at|added(_at|_on)?)$",
    re.IGNORECASE,
)
_NOT_EVENT = re.compile(
    r"(updated|modified|last_|end|until|expire|deleted|read_at|responded|claimed|refunded|edited|seen"
    r"|banned|retention|birth|dob|released|release_date|opened|hired|left_|serviced|installed|published)",
    re.IGNORECASE,
)
_EVENT = re.compile(r"(_at|_on|_time|_date|^since)$", re.IGNORECASE)
_UPDATED = re.compile(r"^(updated|modified|last_modified|changed)(_at|_on|_date|_time)?$", re.IGNORECASE)
_PAIRS = (("started", "ended"), ("starts", "ends"), ("start", "end"), ("begin", "end"),
          ("valid_from", "valid_to"), ("from", "to"), ("period_start", "period_end"))


@dataclass(frozen=True)
class Ordering:
    """One inferred (or declared) time ordering."""

    kind: str
    """`after_parent`, `window` or `pair`."""
    table: str
    column: str
    """The later column (the child's event; the pair's later column)."""
    ref_table: str | None = None
    ref_column: str | None = None
    """The earlier column (the parent's event / window start; the pair's earlier column)."""
    ref_end: str | None = None
    """`window`: the parent's end column (may be NULL for an open period)."""
    fk: tuple[str, ...] = ()
    ref_key: tuple[str, ...] = ()

    def describe(self) -> str:
        if self.kind == "pair":
            return f"{self.table}.{self.column} is not before {self.table}.{self.ref_column}"
        via = f" (along {self.table}({', '.join(self.fk)}))"
        if self.kind == "window":
            return (f"{self.table}.{self.column} lies within {self.ref_table}.{self.ref_column} .. "
                    f"{self.ref_table}.{self.ref_end}{via}")
        return f"{self.table}.{self.column} is not before {self.ref_table}.{self.ref_column}{via}"

    def override(self) -> str:
        key = f"{self.table}.{self.column}" if self.kind == "pair" else f"{self.table}.{self.fk[0]}"
        return f"drop it with domain.yaml time_order: {{ignore: [{key}]}}"


def is_time(column: Column) -> bool:
    """Whether the column holds a date or a time (TIMESTAMP, DATETIME, DATE)."""
    return bool(_TIME_TYPES.match(column.type.strip()))


_is_time = is_time


def event_column(table: Table, config: DomainConfig) -> str | None:
    """The table's creation (or first event) time column, as declared in `time_order.created` or inferred."""
    declared = {k.lower(): v for k, v in config.time_order.created.items()}
    if table.name.lower() in declared:
        return declared[table.name.lower()]
    times = [c for c in table.columns if _is_time(c)]
    for c in times:
        if _CREATED.match(c.name):
            return c.name
    for c in times:
        if _EVENT.search(c.name) and not _NOT_EVENT.search(c.name):
            return c.name
    return None


def _window(table: Table) -> tuple[str, str] | None:
    """The table's start/end pair, if its names say so."""
    names = {c.name.lower(): c.name for c in table.columns if _is_time(c)}
    for start, end in _PAIRS:
        for suffix in ("_at", "_on", "_date", "_time", ""):
            a, b = names.get(f"{start}{suffix}"), names.get(f"{end}{suffix}")
            if a and b:
                return a, b
    return None


def infer_time_order(schema: Schema, config: DomainConfig) -> list[Ordering]:
    """Every time ordering the DDL implies, minus what `time_order.ignore` drops."""
    ignore = {i.lower() for i in config.time_order.ignore}
    out: list[Ordering] = []
    for table in schema.tables:
        if table.name.lower() in ignore:
            continue
        own = event_column(table, config)
        window = _window(table)
        if own is not None:
            for c in table.columns:
                if c.name != own and _is_time(c) and _UPDATED.match(c.name):
                    out.append(Ordering("pair", table.name, c.name, table.name, own))
        if window is not None and window[0] != window[1]:
            out.append(Ordering("pair", table.name, window[1], table.name, window[0]))
        if own is None:
            continue
        for fk in table.foreign_keys:
            if f"{table.name}.{fk.columns[0]}".lower() in ignore or not schema.has_table(fk.ref_table):
                continue
            parent = schema.table(fk.ref_table)
            if parent.name.lower() in ignore:
                continue
            p_window = _window(parent) if config.time_order.windows else None
            p_event = event_column(parent, config)
            if p_window is not None and (p_event is None or p_event == p_window[0]):
                out.append(Ordering("window", table.name, own, parent.name, p_window[0], p_window[1],
                                    fk.columns, fk.ref_columns))
            elif p_event is not None:
                out.append(Ordering("after_parent", table.name, own, parent.name, p_event, None,
                                    fk.columns, fk.ref_columns))
    return [o for o in out if f"{o.table}.{o.column}".lower() not in ignore or o.kind != "pair"]


def time_notes(schema: Schema, config: DomainConfig) -> list[Note]:
    """One note per inferred ordering, with how to override it (`stateforge schema` prints them)."""
    return [Note(f"time order: {o.describe()}; {o.override()}", table=o.table, column=o.column)
            for o in infer_time_order(schema, config)]


def _micros(expr: str) -> str:
    return f"epoch_us(CAST({expr} AS TIMESTAMP))"


def _join_on(o: Ordering, alias: str) -> str:
    return " AND ".join(f"{alias}.{_q(p)} = c.{_q(k)}" for k, p in zip(o.fk, o.ref_key, strict=True))


def _bounds(orderings: list[Ordering]) -> tuple[str, str, str]:
    """FROM joins, the lower bound (greatest of the parents' events) and the upper bound (least of the
    windows' ends) of a child's event, as SQL over alias `c`."""
    joins, lows, highs = [], [], []
    for i, o in enumerate(orderings):
        alias = f"p{i}"
        joins.append(f"LEFT JOIN {table_ref(o.ref_table)} AS {alias} ON {_join_on(o, alias)}")
        lows.append(f"CAST({alias}.{_q(o.ref_column)} AS TIMESTAMP)")
        if o.kind == "window":
            end = f"{alias}.{_q(o.ref_end)}"
            # a DATE end means the whole day
            highs.append(f"CAST({end} AS TIMESTAMP) + CASE WHEN typeof({end}) = 'DATE' "
                         "THEN INTERVAL 86399 SECOND ELSE INTERVAL 0 SECOND END")
    low = lows[0] if len(lows) == 1 else f"greatest({', '.join(lows)})"
    high = "NULL" if not highs else (highs[0] if len(highs) == 1 else f"least({', '.join(highs)})")
    return " ".join(joins), low, high


def fittable(orderings: list[Ordering], table: Table) -> list[Ordering]:
    """The orderings of `table` along foreign keys to other tables (a self-reference's parent may not be
    stored yet)."""
    return [o for o in orderings if o.kind != "pair" and o.table == table.name
            and (o.ref_table or "").lower() != table.name.lower()]


def keyed_times(table: Table) -> set[str]:
    """The time columns of `table` that a PRIMARY KEY or UNIQUE constraint holds (lower case): moving one
    may make two rows' keys equal."""
    times = {c.name.lower() for c in table.columns if _is_time(c)}
    return {c.lower() for key in table.unique_keys for c in key} & times


def fit_sql(config: DomainConfig, table: Table, orderings: list[Ordering], source: str, rid: str
            ) -> tuple[str, str, str, str]:
    """The set-based fit of rows of `source` (alias `c`, `rid` a distinct row id) into their time order:
    (the subquery giving `rid, x0, k, nx0` of every row that breaks the order and can be fitted, the
    joins, the predicate of a broken row, the predicate of a row that can never fit).

    A fitted row has every time column from its event on mapped by `x -> nx0 + (x - x0) * k`."""
    event = orderings[0].column
    joins, low, high = _bounds(orderings)
    if _DATE_TYPE.match(table.column(event).type.strip()):
        # a DATE event keeps the day: a parent's time on that day is not after it (a due date, a paid day)
        low = f"CAST(CAST({low} AS DATE) AS TIMESTAMP)"
    clock = f"TIMESTAMP {quote_literal(config.time_window.clock.isoformat(sep=' '))}"
    ev = f"CAST(c.{_q(event)} AS TIMESTAMP)"
    bad = f"({ev} < {low} OR ({high}) IS NOT NULL AND {ev} > {high})"
    times = [c.name for c in table.columns if _is_time(c)]
    xmax = "greatest(" + ", ".join(
        f"CASE WHEN c.{_q(t)} >= c.{_q(event)} THEN {_micros('c.' + _q(t))} END" for t in times) + ")"
    hi = f"{_micros(f'coalesce({high}, greatest({clock}, {low}))')}"
    lo = _micros(low)
    u = f"(hash({rid}, {quote_literal(table.name)}) % 1000003) / 1000003.0"
    span = f"({xmax} - {_micros(ev)})"
    k = f"least(1.0, ({hi} - {lo}) / nullif({span}, 0))"
    inner = (f"SELECT {rid} AS rid, {_micros(ev)} AS x0, {lo} AS lo, {hi} AS hi, "
             f"coalesce({k}, 1.0) AS k, coalesce({span}, 0) AS span, {u} AS u "
             f"FROM {source} AS c {joins} WHERE {bad} AND {lo} <= {hi}")
    # the row moves by whole days when the range allows (times of day, weekdays stay plausible)
    day = 86_400_000_000
    room = "(hi - lo - span * k)"
    target = f"(lo + greatest(0, {room}) * u)"
    days = f"(x0 + round(({target} - x0) / {day}) * {day})"
    whole = (f"CASE WHEN {days} < lo THEN {days} + {day} WHEN {days} + span * k > hi THEN {days} - {day} "
             f"ELSE {days} END")
    sub = (f"SELECT rid, x0, k, CASE WHEN {room} >= {2 * day} THEN {whole} ELSE {target} END AS nx0 "
           f"FROM ({inner}) AS r")
    never = f"{lo} > {_micros(f'coalesce({high}, {low})')}"
    return sub, joins, bad, never


def mapped(column: str, typ: str, alias: str = "m") -> str:
    """The fitted value of `column` (SQL over the row and the fit's row `alias`), or the column as it is
    when it lies before the event or is NULL."""
    x = _micros(column)
    value = f"make_timestamp(CAST(round({alias}.nx0 + ({x} - {alias}.x0) * {alias}.k) AS BIGINT))"
    return (f"CASE WHEN {column} IS NOT NULL AND {x} >= {alias}.x0 THEN CAST({value} AS {typ}) "
            f"ELSE {column} END")


def _table_rule(schema: Schema, config: DomainConfig, table: Table, orderings: list[Ordering]) -> Rule:
    event = orderings[0].column
    t = table_ref(table.name)
    sub, joins, bad, never = fit_sql(config, table, orderings, t, "c.rowid")
    _, low, high = _bounds(orderings)
    check = (f"SELECT c.rowid AS row_id, c.{_q(event)}, {low} AS not_before, {high} AS not_after "
             f"FROM {t} AS c {joins} WHERE {bad}")
    times = [c.name for c in table.columns if _is_time(c)]
    keyed = keyed_times(table)
    if keyed:
        # a row whose fitted key would equal another row's key stays as it is (and goes, below)
        key_cols = [key for key in table.unique_keys if {c.lower() for c in key} & keyed]
        parts = []
        for n, key in enumerate(key_cols):
            new = ", ".join(mapped(f"c.{_q(c)}", table.column(c).type, "f") if c.lower() in keyed
                            else f"c.{_q(c)}" for c in key)
            parts.append(f"count(*) OVER (PARTITION BY {new}) > 1 AS clash{n}")
        clash = " OR ".join(f"clash{n}" for n in range(len(key_cols)))
        sub = (f"SELECT rid, x0, k, nx0 FROM (SELECT f.*, {', '.join(parts)} FROM {t} AS c "
               f"LEFT JOIN ({sub}) AS f ON f.rid = c.rowid) AS w WHERE rid IS NOT NULL AND NOT ({clash})")
    sets = [f"{_q(x)} = {mapped(f'{t}.{_q(x)}', table.column(x).type)}" for x in times]
    update = f"UPDATE {t} SET {', '.join(sets)} FROM ({sub}) AS m WHERE {t}.rowid = m.rid"
    # a row that cannot fit (its parents' events lie past the window's end), or whose fitted key would
    # repeat another's, goes, with its children
    gone = f"{bad}" if keyed else f"{bad} AND {never}"
    delete = f"DELETE FROM {t} WHERE rowid IN (SELECT c.rowid FROM {t} AS c {joins} WHERE {gone})"
    what = "; ".join(o.describe() for o in orderings)
    return Rule(name=f"time_order_{table.name}", kind="time", description=what, check=check,
                repair=[update, delete])


def _pair_rule(table: Table, o: Ordering) -> Rule:
    later, earlier = _q(o.column), _q(o.ref_column)
    t = table_ref(table.name)
    check = f"SELECT rowid AS row_id, {earlier}, {later} FROM {t} WHERE {later} < {earlier}"
    repair = [f"UPDATE {t} SET {later} = {earlier} + ({earlier} - {later}) WHERE {later} < {earlier}"]
    keys = [key for key in table.unique_keys if o.column.lower() in {c.lower() for c in key}]
    if keys:
        # the mirrored value may repeat another row's key: such rows keep theirs and go
        clash = " OR ".join(
            "count(*) OVER (PARTITION BY " + ", ".join(
                f"CASE WHEN {later} < {earlier} THEN {earlier} + ({earlier} - {later}) ELSE {later} END"
                if c.lower() == o.column.lower() else _q(c) for c in key) + ") > 1"
            for key in keys)
        repair = [
            f"UPDATE {t} SET {later} = {earlier} + ({earlier} - {later}) WHERE {later} < {earlier} AND rowid "
            f"NOT IN (SELECT rid FROM (SELECT rowid AS rid, {clash} AS clash FROM {t}) WHERE clash)",
            f"DELETE FROM {t} WHERE {later} < {earlier}",
        ]
    return Rule(name=f"time_pair_{table.name}_{o.column}", kind="time", description=o.describe(),
                check=check, repair=repair)


def time_rules(schema: Schema, config: DomainConfig, order: list[str] | None = None) -> list[Rule]:
    """The inferred orderings as domain rules (kind `time`): per table, its pairs, then one rule for its
    event along every foreign key, tables in `order` (parents first) so one round settles a chain."""
    orderings = infer_time_order(schema, config)
    names = order or schema.table_names
    names = [n for n in names if schema.has_table(n)] + [n for n in schema.table_names if n not in names]
    rules: list[Rule] = []
    for name in names:
        table = schema.table(name)
        mine = [o for o in orderings if o.table == table.name]
        rules += [_pair_rule(table, o) for o in mine if o.kind == "pair"]
        along = [o for o in mine if o.kind != "pair"]
        if along:
            rules.append(_table_rule(schema, config, table, along))
    return rules
