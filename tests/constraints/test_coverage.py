"""Every consumer of the constraint description handles every kind of constraint, and does what it says.

The table is driven by `KINDS`: each consumer's `Coverage` names every kind (a kind added to the
description fails here, and at import, until each consumer says how it handles it), and for every kind a
consumer claims to enforce, a row that breaks it is caught by one of the rules the consumer names.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from functools import partial
from typing import Any

import duckdb
import jsonschema
import pyarrow as pa
import pytest

from stateforge.constraints import KINDS, Coverage
from stateforge.graph import plan_fill
from stateforge.llm.rows import MODEL_COVERAGE, SCHEMA_COVERAGE, RowShape
from stateforge.schema.model import Check, Column, ForeignKey, Schema, Table
from stateforge.store.create import COVERAGE as DDL_COVERAGE
from stateforge.store.create import create_tables
from stateforge.validation.audit import audit
from stateforge.validation.batch import COVERAGE as BATCH_COVERAGE
from stateforge.validation.batch import validate_batch
from stateforge.validation.batch_pandera import COVERAGE as PANDERA_COVERAGE
from stateforge.validation.batch_pandera import pandera_rules
from stateforge.validation.checks import COVERAGE as AUDIT_COVERAGE
from stateforge.validation.rules import COVERAGE as CLEANUP_COVERAGE
from stateforge.validation.rules import clean_orphans

THINGS = Table(
    "things",
    [
        Column("id", "BIGINT", nullable=False),
        Column("small", "SMALLINT"),
        Column("price", "DECIMAL(5,2)", precision=5, scale=2),
        Column("code", "VARCHAR(4)", nullable=False, length=4),
        Column("status", "VARCHAR", allowed_values=["new", "paid"]),
        Column("tag", "VARCHAR"),
        Column("parent_id", "INTEGER"),
        Column("qty", "INTEGER"),
        Column("note", "VARCHAR", default="'-'"),
    ],
    primary_key=("id",),
    unique=[("tag",)],
    foreign_keys=[ForeignKey(("parent_id",), "parents", ("id",))],
    checks=[Check("qty BETWEEN 1 AND 9", ("qty",))],
)
SCHEMA = Schema([Table("parents", [Column("id", "INTEGER", nullable=False)], primary_key=("id",)), THINGS])
GOOD = {"id": 1, "small": 5, "price": Decimal("1.50"), "code": "ab", "status": "new", "tag": "t1",
        "parent_id": 1, "qty": 3, "note": "n"}
"""A row that breaks nothing; a stored copy (id 1) has `tag` t1 too."""

CONSUMERS: dict[str, Coverage] = {
    "batch": BATCH_COVERAGE,
    "pandera": PANDERA_COVERAGE,
    "audit": AUDIT_COVERAGE,
    "cleanup": CLEANUP_COVERAGE,
    "ddl": DDL_COVERAGE,
    "reply_schema": SCHEMA_COVERAGE,
    "row_model": MODEL_COVERAGE,
}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("consumer", list(CONSUMERS))
def test_every_consumer_says_how_it_handles_every_kind(consumer: str, kind: str) -> None:
    coverage = CONSUMERS[consumer]
    assert (kind in coverage.enforces) != (kind in coverage.leaves), f"{consumer} must name {kind} once"
    assert coverage.enforces.get(kind) or coverage.leaves[kind].strip()


def _database(constraints: bool) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    create_tables(con, SCHEMA, plan_fill(SCHEMA), constraints=constraints)
    con.execute("INSERT INTO parents VALUES (1)")
    con.execute("INSERT INTO things VALUES (1, 5, 1.50, 'ab', 'new', 't1', 1, 3, 'n')")
    return con


# --- the batch checks: a batch of two rows, the second breaking the kind -----------------------------

_BATCH_TYPES = {"id": pa.int64(), "small": pa.int16(), "price": pa.decimal128(5, 2), "code": pa.string(),
                "status": pa.string(), "tag": pa.string(), "parent_id": pa.int32(), "qty": pa.int32(),
                "note": pa.string()}


def _batch(**bad: Any) -> pa.Table:
    """Rows 2 and 3 (new keys and tags), the second with the `bad` values; `_DROP` leaves a column out."""
    first, second = GOOD | {"id": 2, "tag": "t2"}, GOOD | {"id": 3, "tag": "t3"} | bad
    columns = {}
    for name, typ in _BATCH_TYPES.items():
        values = [first[name], second[name]]
        if second[name] is _DROP:
            continue
        if name == "small" and name in bad:  # the wrong Arrow type: text
            columns[name] = pa.array([str(v) for v in values])
        elif name == "price" and name in bad:  # a DECIMAL(5,2) holding more: Arrow casts it unchecked
            columns[name] = pa.array(values, pa.decimal128(7, 2)).cast(typ, safe=False)
        else:
            columns[name] = pa.array(values, typ)
    return pa.table(columns)


_DROP = object()


def _batch_rules(**bad: Any) -> set[str]:
    return {f.rule for f in validate_batch(_database(constraints=True), THINGS, _batch(**bad))}


ROW_VIOLATIONS: dict[str, dict[str, Any]] = {
    "type": {"small": "five"},
    "range": {"price": Decimal("1000.00")},
    "max_length": {"code": "toolong"},
    "not_null": {"code": None},
    "allowed_values": {"status": "lost"},
    "unique": {"tag": "t1"},  # the stored row's
    "foreign_key": {"parent_id": 99},
    "check": {"qty": 0},
    "default": {"code": _DROP},  # a column without default left out
}
"""A row that breaks one kind (the batch checks get it in a batch, the audit as a stored row)."""


def _cases(consumer: Callable[..., set[str]], *kinds: str) -> dict[str, Callable[[], set[str]]]:
    return {kind: partial(consumer, **ROW_VIOLATIONS[kind]) for kind in kinds}


BATCH_CASES = _cases(_batch_rules, *ROW_VIOLATIONS)


# --- the pandera export: the same batch, its rules read back from pandera's failure cases ---------------


def _pandera_rules(**bad: Any) -> set[str]:
    return {rule for rule, _ in pandera_rules(THINGS, _batch(**bad))}


PANDERA_CASES = _cases(_pandera_rules, "type", "range", "max_length", "not_null", "allowed_values", "default")
PANDERA_CASES["unique"] = partial(_pandera_rules, id=2)  # within the batch: it cannot see stored rows


# --- the audit: a stored row (no constraints declared) breaking the kind ------------------------------


def _audit_checks(**bad: Any) -> set[str]:
    con = _database(constraints=False)
    row = GOOD | {"id": 2, "tag": "t2"} | bad
    con.execute(f"INSERT INTO things VALUES ({', '.join('?' for _ in row)})", list(row.values()))
    return {v.check for v in audit(con, SCHEMA).violations}


AUDIT_CASES = _cases(_audit_checks, "max_length", "not_null", "allowed_values", "unique", "foreign_key",
                     "check")


# --- the orphan cleanup: a child whose parent is gone -------------------------------------------------


def _cleanup_actions() -> set[str]:
    con = _database(constraints=False)
    con.execute("INSERT INTO things VALUES (2, 5, 1.50, 'cd', 'new', 't2', 99, 3, 'n')")
    done = clean_orphans(con, SCHEMA)
    assert con.execute("SELECT parent_id FROM things WHERE id = 2").fetchall() == [(None,)]
    return {label.split()[0] for label in done}


CLEANUP_CASES: dict[str, Callable[[], set[str]]] = {"foreign_key": _cleanup_actions}


# --- the DDL: DuckDB refuses (or completes) a row that breaks the kind --------------------------------


def _ddl_refuses(sql: str) -> set[str]:
    con = _database(constraints=True)
    try:
        con.execute(sql)
    except duckdb.ConstraintException as exc:
        text = str(exc).lower()
        if "not null" in text:
            return {"NOT NULL"}
        return {"PRIMARY KEY", "UNIQUE"} if "key" in text else {"CHECK", "CHECK (col IN (...))"}
    except duckdb.ConversionException:
        return {"the column type", "the column type (DuckDB refuses a value the type cannot hold)"}
    return set()


def _ddl_default() -> set[str]:
    con = _database(constraints=True)
    con.execute("INSERT INTO things (id, code, tag) VALUES (2, 'cd', 't2')")
    filled = con.execute("SELECT note FROM things WHERE id = 2").fetchall() == [("-",)]
    return {"DEFAULT"} if filled else set()


_ROW = "INSERT INTO things VALUES (2, {small}, {price}, {code}, {status}, 't{tag}', 1, {qty}, 'n')"
_OK = {"small": "5", "price": "1.50", "code": "'cd'", "status": "'new'", "tag": "2", "qty": "3"}

DDL_CASES: dict[str, Callable[[], set[str]]] = {
    "type": lambda: _ddl_refuses(_ROW.format(**_OK | {"small": "'five'"})),
    "range": lambda: _ddl_refuses(_ROW.format(**_OK | {"price": "1000.00"})),
    "not_null": lambda: _ddl_refuses(_ROW.format(**_OK | {"code": "NULL"})),
    "allowed_values": lambda: _ddl_refuses(_ROW.format(**_OK | {"status": "'lost'"})),
    "unique": lambda: _ddl_refuses(_ROW.format(**_OK | {"tag": "1"})),
    "check": lambda: _ddl_refuses(_ROW.format(**_OK | {"qty": "0"})),
    "default": _ddl_default,
}


# --- the LLM's reply schema and row model: a written row breaking the kind ----------------------------

SHAPE = RowShape.build(THINGS, ["id"], ["small", "price", "code", "status", "qty"])
_WRITTEN = {"small": 5, "price": 1.5, "code": "ab", "status": "new", "qty": 3}


def _schema_keywords(**bad: Any) -> set[str]:
    validator = jsonschema.Draft202012Validator(SHAPE.reply_schema(["id=2"]))
    errors = list(validator.iter_errors({"rows": {"id=2": _WRITTEN | bad}}))
    found = {str(e.validator) for e in errors}
    if any(e.validator == "type" and e.instance is None for e in errors):
        found.add("type without null")
    return found


def _model_kinds(**bad: Any) -> set[str]:
    _, kinds = SHAPE.read_reply({"rows": {"id=2": _WRITTEN | bad}}, ["id=2"])
    names = {"wrong_type": "the field's type", "not_null": "a type without None", "length": "max_length",
             "allowed_values": "Literal", "range": "ge"}
    return {names[k] for k in kinds if k in names} | ({"le"} if "range" in kinds else set())


LLM_VIOLATIONS: dict[str, dict[str, Any]] = {
    "type": {"small": "five"},
    "range": {"small": 70_000},  # SMALLINT: the JSON schema carries the integer bounds
    "max_length": {"code": "toolong"},
    "not_null": {"code": None},
    "allowed_values": {"status": "lost"},
    "check": {"qty": 0},
}
SCHEMA_CASES = {kind: (lambda bad=bad: _schema_keywords(**bad)) for kind, bad in LLM_VIOLATIONS.items()}
MODEL_CASES = {kind: (lambda bad=bad: _model_kinds(**bad)) for kind, bad in LLM_VIOLATIONS.items()}

CASES: dict[str, dict[str, Callable[[], set[str]]]] = {
    "batch": BATCH_CASES,
    "pandera": PANDERA_CASES,
    "audit": AUDIT_CASES,
    "cleanup": CLEANUP_CASES,
    "ddl": DDL_CASES,
    "reply_schema": SCHEMA_CASES,
    "row_model": MODEL_CASES,
}


def test_the_good_row_breaks_nothing() -> None:
    assert _batch_rules() == set() and _audit_checks() == set() and _schema_keywords() == set()
    assert _pandera_rules() == set()
    assert _model_kinds() == set() and _ddl_refuses(_ROW.format(**_OK)) == set()


@pytest.mark.parametrize("consumer", list(CONSUMERS))
def test_every_kind_a_consumer_enforces_has_a_violation_case(consumer: str) -> None:
    assert set(CASES[consumer]) == set(CONSUMERS[consumer].enforces)


@pytest.mark.parametrize(
    ("consumer", "kind"), [(c, k) for c, cov in CONSUMERS.items() for k in KINDS if k in cov.enforces]
)
def test_a_violation_is_caught_by_a_rule_the_consumer_names(consumer: str, kind: str) -> None:
    caught = CASES[consumer][kind]()
    named = set(CONSUMERS[consumer].enforces[kind])
    assert caught & named, f"{consumer} missed a {kind} violation: {sorted(caught)}, not {sorted(named)}"


def test_the_reply_schema_carries_the_type_range_of_integers() -> None:
    row = SHAPE.reply_schema(["id=2"])["$defs"]["row"]["properties"]
    assert row["small"] == {"type": ["integer", "null"], "minimum": -32768, "maximum": 32767}
    assert row["qty"] == {"type": ["integer", "null"], "minimum": 1, "maximum": 9}  # the CHECK is tighter
    assert row["price"] == {"type": ["number", "null"], "minimum": -999.99, "maximum": 999.99}
