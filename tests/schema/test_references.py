"""Foreign keys to tables outside the file (an error by default, dropped with a note on request), and
foreign keys whose two ends have different types (a note in `stateforge schema`)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from stateforge.errors import SchemaError
from stateforge.schema import parse_ddl

STATEFORGE = str(Path(sys.executable).with_name("stateforge"))
DDL = (
    "CREATE TABLE orders (\n  id int PRIMARY KEY,\n  customer_id int REFERENCES crm.customers (id),\n"
    "  region text\n);\nALTER TABLE orders ADD CONSTRAINT orders_region FOREIGN KEY (region) "
    "REFERENCES geo.regions (code);\n"
)


def test_a_reference_outside_the_file_is_an_error_that_names_the_option() -> None:
    with pytest.raises(SchemaError) as caught:
        parse_ddl(DDL, "postgres", source="t.sql")
    assert (caught.value.line, caught.value.table, caught.value.column) == (3, "orders", "customer_id")
    assert "--drop-missing-references" in str(caught.value)


def test_drop_missing_references_drops_each_key_with_a_note() -> None:
    schema = parse_ddl(DDL, "postgres", source="t.sql", drop_missing_references=True)
    assert schema.table("orders").foreign_keys == []
    assert [str(n) for n in schema.notes] == [
        "t.sql:3: table orders, column customer_id: FOREIGN KEY (customer_id) dropped: it references "
        "crm.customers, which the DDL does not define (--drop-missing-references)",
        "t.sql:6: table orders, column region: FOREIGN KEY (region) dropped: it references geo.regions, "
        "which the DDL does not define (--drop-missing-references)",
    ]


@pytest.mark.parametrize("command", ["schema", "init-db", "build-domain"])
def test_the_cli_option_on_schema_init_db_and_build_domain(tmp_path: Path, command: str) -> None:
    ddl = tmp_path / "orders.sql"
    ddl.write_text(DDL)
    extra = {"schema": [], "init-db": [str(tmp_path / "o.duckdb")], "build-domain": ["--rows", "5",
             "--out", str(tmp_path / "out")]}[command]  # fmt: skip
    base = [STATEFORGE, command, str(ddl), *extra]
    refused = subprocess.run(base, capture_output=True, text=True, timeout=300)
    assert refused.returncode == 2 and "--drop-missing-references" in refused.stderr
    done = subprocess.run([*base, "--drop-missing-references"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    if command != "init-db":
        assert "FOREIGN KEY (region) dropped" in done.stdout


@pytest.mark.parametrize(
    ("dialect", "child", "key", "warned"),
    [
        ("postgres", "numeric(12)", "numeric", True),
        ("oracle", "NUMBER(1)", "NUMBER", True),
        ("sqlite", "INTEGER", "VARCHAR(10)", True),
        ("postgres", "varchar(5)", "varchar(10)", True),
        ("postgres", "integer", "bigint", False),
        ("postgres", "numeric(12,2)", "numeric(10,2)", False),
        ("postgres", "varchar(20)", "varchar(10)", False),
    ],
)
def test_a_foreign_key_whose_ends_differ_in_type_is_noted(
    dialect: str, child: str, key: str, warned: bool
) -> None:
    schema = parse_ddl(
        f"CREATE TABLE p (id {key} PRIMARY KEY);\nCREATE TABLE c (p_id {child} REFERENCES p (id));", dialect,
        source="t.sql",
    )
    found = [str(n) for n in schema.notes if "references" in n.message]
    assert bool(found) == warned, found
    if warned:
        assert found[0].startswith("t.sql:2: table c, column p_id: FOREIGN KEY (p_id) -> p(id): ")
