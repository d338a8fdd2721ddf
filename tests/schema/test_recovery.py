"""Statements that used to stop a run: recoverable ones become notes at file:line, CREATE SCHEMA elements
are read, type modifiers and constraint states are understood, and an internal error names its place."""

from __future__ import annotations

import pytest

from stateforge.errors import InternalError, SchemaError
from stateforge.schema import Schema, parse_ddl

PARENT = "CREATE TABLE p (id int PRIMARY KEY, code int);\n"  # line 1


def parse(text: str, dialect: str = "postgres") -> Schema:
    return parse_ddl(text, dialect, source="t.sql")


def notes(schema: Schema) -> list[str]:
    return [str(n) for n in schema.notes]


# --- item 1: one unreadable statement no longer ends the run ---------------------------------------


def test_a_vendor_option_of_a_constraint_is_left_out_with_a_note_at_its_line() -> None:
    schema = parse(
        PARENT + "CREATE TABLE c (\n  id int PRIMARY KEY,\n  p int,\n"
        "  CONSTRAINT c_p UNIQUE (p) NULLS NOT DISTINCT WITH (fillfactor=70)\n);\n"
    )
    assert schema.table("c").unique == [("p",)]
    (note,) = notes(schema)
    assert note.startswith(
        "t.sql:5: table c: CREATE TABLE: left out what sqlglot cannot read: "
        "'NULLS NOT DISTINCT WITH (fillfactor=70)' (Expecting ) near 'NULLS')"
    )


def test_sqlite_conflict_clauses_are_read() -> None:
    table = parse(
        "CREATE TABLE c (id INTEGER PRIMARY KEY ON CONFLICT REPLACE, p int UNIQUE ON CONFLICT IGNORE)",
        "sqlite",
    ).table("c")
    assert (table.primary_key, table.unique) == (("id",), [("p",)])


@pytest.mark.parametrize(
    ("ddl", "lost"),
    [
        ("ALTER TABLE p ADD CONSTRAINT u UNIQUE (code) @@@ x;", "the keys or columns it adds are lost"),
        ("CREATE UNIQUE INDEX u ON p USING @@@ (code);", "the UNIQUE constraint it makes is lost"),
        ("COMMENT ON TABLE p IS @@@;", "the description is lost"),
    ],
)
def test_an_unreadable_statement_that_only_adds_is_a_note(ddl: str, lost: str) -> None:
    schema = parse(PARENT + "\n" + ddl)
    assert schema.table_names == ["p"]
    assert any(n.startswith("t.sql:3: ") and lost in n for n in notes(schema)), notes(schema)


def test_a_create_table_that_cannot_be_read_at_all_is_an_error_naming_file_line_and_table() -> None:
    with pytest.raises(SchemaError) as caught:
        parse(PARENT + "CREATE TABLE c (\n  a int,\n  = b int\n);")
    assert (caught.value.file, caught.value.line, caught.value.table) == ("t.sql", 4, "c")
    assert "cannot parse CREATE TABLE" in str(caught.value)


def test_notes_carry_their_file_and_line() -> None:
    schema = parse("\n\nCREATE TABLE t (a inet, b int);")
    (note,) = schema.notes
    assert (note.file, note.line, note.table, note.column) == ("t.sql", 3, "t", "a")
    assert str(note) == "t.sql:3: table t, column a: type INET has no DuckDB equivalent; read as VARCHAR"


# --- item 3: CREATE SCHEMA with elements ------------------------------------------------------------


def test_create_schema_elements_are_tables_with_their_own_lines() -> None:
    schema = parse(
        "CREATE SCHEMA shop AUTHORIZATION app\n"
        "  CREATE TABLE customers (id int PRIMARY KEY)\n"
        "  CREATE VIEW v AS SELECT id FROM customers\n"
        "  CREATE TABLE orders (id int PRIMARY KEY, customer_id int REFERENCES customers)\n"
        "  GRANT SELECT ON orders TO reader;\n"
        "CREATE TABLE later (o int REFERENCES shop.orders);\n"
    )
    # The elements are created in the schema (issue 19 item 5), their bare names found there.
    assert schema.table_names == ["shop.customers", "shop.orders", "later"]
    assert [t.line for t in schema.tables] == [2, 4, 6]
    assert schema.table("shop.orders").foreign_keys[0].ref_table == "shop.customers"
    assert schema.skipped == {"schema": 1, "view": 1, "grant": 1}


# --- item 5: type modifiers and constraint states --------------------------------------------------


def test_mysql_unsigned_non_integers_are_signed_types_that_cannot_go_below_zero() -> None:
    table = parse(
        "CREATE TABLE t (a REAL UNSIGNED, b FLOAT(7,2) UNSIGNED NOT NULL, c DOUBLE UNSIGNED, "
        "d DECIMAL(5,2) UNSIGNED, e INT UNSIGNED)",
        "mysql",
    ).table("t")
    assert [c.type for c in table.columns] == ["DOUBLE", "DOUBLE", "DOUBLE", "DECIMAL(5,2)", "UINTEGER"]
    assert [c.sql for c in table.checks] == ['"a" >= 0', '"b" >= 0', '"c" >= 0', '"d" >= 0']


@pytest.mark.parametrize(
    ("clause", "on_delete"),
    [
        ("ON DELETE CASCADE ENABLE NOVALIDATE", "CASCADE"),
        ("ON DELETE SET NULL DISABLE", "SET NULL"),
        ("RELY DISABLE NOVALIDATE", "NO ACTION"),
        ("DEFERRABLE INITIALLY DEFERRED", "NO ACTION"),
        ("NOT DEFERRABLE INITIALLY IMMEDIATE ENABLE VALIDATE", "NO ACTION"),
        ("ON DELETE CASCADE USING INDEX TABLESPACE users ENABLE", "CASCADE"),
        ("ON DELETE CASCADE EXCEPTIONS INTO bad_rows", "CASCADE"),
    ],
)
def test_oracle_constraint_states_inside_alter_add(clause: str, on_delete: str) -> None:
    schema = parse(
        "CREATE TABLE p (id NUMBER PRIMARY KEY);\nCREATE TABLE c (id NUMBER, p NUMBER);\n"
        f"ALTER TABLE c ADD ( CONSTRAINT c_fk FOREIGN KEY (p) REFERENCES p (id) {clause},\n"
        "  CONSTRAINT c_pk PRIMARY KEY (id) RELY ENABLE NOVALIDATE );\n",
        "oracle",
    )
    table = schema.table("c")
    assert [(fk.name, fk.on_delete) for fk in table.foreign_keys] == [("c_fk", on_delete)]
    assert table.primary_key == ("id",)
    assert notes(schema) == []


# --- item 14: an internal error names where it happened ---------------------------------------------


def test_an_internal_error_while_parsing_names_file_line_table_column_and_stage(monkeypatch) -> None:
    import stateforge.schema.columns as columns

    def broken(dt, dialect):  # stands for a bug in the type mapping
        raise AttributeError("'NoneType' object has no attribute 'name'")

    monkeypatch.setattr(columns, "map_type", broken)
    with pytest.raises(InternalError) as caught:
        parse(PARENT.replace("int", "uuid") + "\nCREATE TABLE orders (\n  id int\n);")
    error = caught.value
    assert (error.file, error.line, error.table, error.column) == ("t.sql", 1, "p", "id")
    assert isinstance(error.__cause__, AttributeError)
    assert "internal error while reading a table statement (AttributeError" in str(error)
    assert "bug in Stateforge" in str(error)


def test_brackets_outside_tsql_are_an_error_that_names_the_dialect_to_pass() -> None:
    with pytest.raises(SchemaError) as caught:
        parse("\nCREATE TABLE [dbo].[T] ([id] INT);")
    assert (caught.value.line, caught.value.table) == (2, "T")
    assert "pass --dialect tsql" in str(caught.value)
