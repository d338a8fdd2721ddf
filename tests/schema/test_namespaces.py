"""Namespaces: a table keeps its schema (bare identity in the default namespace, `schema.table` elsewhere),
references resolve across schemas and through SET search_path, USE, ALTER SESSION and T-SQL's dbo, and
every SQL reference quotes namespace and name apart."""

from __future__ import annotations

import duckdb
import pytest

from stateforge.errors import SchemaError
from stateforge.graph import plan_fill
from stateforge.schema import parse_ddl
from stateforge.schema.model import Schema, Table, qualified, split_name
from stateforge.store import create_tables
from stateforge.store.sql import table_ref


def refs(schema: Schema) -> dict[str, list[str]]:
    return {t.name: [fk.ref_table for fk in t.foreign_keys] for t in schema.tables}


def test_two_tables_of_one_name_in_two_schemas_are_two_tables() -> None:
    schema = parse_ddl(
        "CREATE SCHEMA sales;\n"
        "CREATE TABLE public.orders (id int PRIMARY KEY);\n"
        "CREATE TABLE sales.orders (id int PRIMARY KEY, web_id int REFERENCES public.orders (id));\n"
        "CREATE TABLE sales.lines (order_id int REFERENCES sales.orders (id));\n",
        "postgres",
    )
    assert schema.table_names == ["orders", "sales.orders", "sales.lines"]
    assert refs(schema) == {"orders": [], "sales.orders": ["orders"], "sales.lines": ["sales.orders"]}
    assert [(t.namespace, t.local_name) for t in schema.tables] == [
        ("main", "orders"), ("sales", "orders"), ("sales", "lines")
    ]
    assert schema.namespaces == ["sales"]
    assert schema.display_name("orders") == "main.orders", "ambiguous: shown qualified"
    assert schema.display_name("sales.lines") == "sales.lines"


def test_the_same_name_twice_in_one_schema_is_still_an_error() -> None:
    with pytest.raises(SchemaError) as caught:
        parse_ddl("CREATE TABLE s.t (id int);\nCREATE TABLE S.T (id int);\n", "postgres", source="x.sql")
    assert caught.value.line == 2 and "s.T is defined twice (first at line 1)" in str(caught.value)


def test_bare_names_follow_the_search_path_where_they_are_written() -> None:
    schema = parse_ddl(
        "CREATE TABLE customers (id int PRIMARY KEY);\n"  # no search path yet: public
        "SET search_path TO sales, public;\n"
        "CREATE TABLE orders (id int PRIMARY KEY, customer_id int REFERENCES customers);\n"
        "CREATE TABLE customers (id int PRIMARY KEY);\n"  # sales.customers: a second table
        "CREATE TABLE notes (order_id int REFERENCES orders, customer_id int REFERENCES customers);\n"
        "SET search_path = \"$user\", public;\n"
        "ALTER TABLE sales.notes ADD COLUMN author_id int REFERENCES customers (id);\n"
        "COMMENT ON TABLE sales.customers IS 'the sales team''s own';\n"
        "CREATE UNIQUE INDEX ON customers (id);\n",
        "postgres",
    )
    assert schema.table_names == ["customers", "sales.orders", "sales.customers", "sales.notes"]
    # Foreign keys resolve at the end, each along the path of its own statement: `customers` in the CREATE
    # TABLE orders was written under (sales, public) and sales.customers exists by then.
    assert refs(schema)["sales.orders"] == ["sales.customers"]
    assert refs(schema)["sales.notes"] == ["sales.orders", "sales.customers", "customers"]
    assert schema.table("sales.customers").description == "the sales team's own"


def test_pg_dump_empties_the_search_path_and_bare_names_mean_public() -> None:
    schema = parse_ddl(
        "SELECT pg_catalog.set_config('search_path', '', false);\n"
        "CREATE TABLE public.a (id int PRIMARY KEY);\n"
        "CREATE TABLE b (a_id int REFERENCES a);\n",
        "postgres",
    )
    assert refs(schema) == {"a": [], "b": ["a"]}


def test_mysql_use_picks_the_database_and_the_first_is_the_default() -> None:
    schema = parse_ddl(
        "USE `shop`;\nCREATE TABLE t (id int PRIMARY KEY);\n"
        "USE crm;\n"
        "CREATE TABLE c (id int PRIMARY KEY, t_id int, FOREIGN KEY (t_id) REFERENCES shop.t (id));\n"
        "CREATE TABLE `crm`.`d` (c_id int, FOREIGN KEY (c_id) REFERENCES c (id));\n",
        "mysql",
    )
    assert refs(schema) == {"t": [], "crm.c": ["t"], "crm.d": ["crm.c"]}


def test_oracle_current_schema_and_an_installer_run_as_its_owner() -> None:
    session = parse_ddl(
        "ALTER SESSION SET CURRENT_SCHEMA = hr;\nCREATE TABLE a (id NUMBER PRIMARY KEY);\n"
        "CREATE TABLE oe.b (a_id NUMBER REFERENCES hr.a);\n",
        "oracle",
    )
    assert refs(session) == {"a": [], "oe.b": ["a"]}
    owner = parse_ddl(  # no session: the schema that qualifies the tables is the one the installer runs as
        'CREATE TABLE dept (id NUMBER PRIMARY KEY);\nCREATE TABLE "HR"."EMP" (id NUMBER PRIMARY KEY, '
        "dept_id NUMBER REFERENCES dept);\nALTER TABLE hr.dept ADD (boss NUMBER REFERENCES emp);\n",
        "oracle",
    )
    assert refs(owner) == {"dept": ["EMP"], "EMP": ["dept"]}


def test_tsql_dbo_is_the_default_and_other_schemas_are_kept() -> None:
    schema = parse_ddl(
        "CREATE TABLE [dbo].[Customer] ([Id] INT PRIMARY KEY)\nGO\n"
        "CREATE TABLE [Sales].[Customer] ([Id] INT PRIMARY KEY, [WebId] INT)\nGO\n"
        "ALTER TABLE [Sales].[Customer] WITH CHECK ADD CONSTRAINT [FK_Web] FOREIGN KEY ([WebId]) "
        "REFERENCES [Customer] ([Id])\nGO\n"
        "CREATE TABLE [Shop].[dbo].[Order] ([CustomerId] INT REFERENCES [Sales].[Customer] ([Id]))\nGO\n",
        "tsql",
    )
    assert refs(schema) == {"Customer": [], "Sales.Customer": ["Customer"], "Order": ["Sales.Customer"]}


def test_sqlite_main_and_temp_are_the_default_and_duckdb_reads_use_and_search_path() -> None:
    sqlite = parse_ddl("CREATE TEMP TABLE temp.a (id INTEGER PRIMARY KEY);\nCREATE TABLE aux.b (a INTEGER "
                       "REFERENCES a);\n", "sqlite")
    assert refs(sqlite) == {"a": [], "aux.b": ["a"]}
    duck = parse_ddl("CREATE SCHEMA s;\nUSE s;\nCREATE TABLE a (id INTEGER PRIMARY KEY);\n"
                     "SET search_path = 's,main';\nCREATE TABLE main.b (a_id INTEGER REFERENCES a (id));\n",
                     "duckdb")
    assert refs(duck) == {"s.a": [], "b": ["s.a"]}


@pytest.mark.parametrize("schema_name", ["stateforge", "information_schema", "pg_catalog"])
def test_a_reserved_schema_name_is_an_error_that_says_to_rename_it(schema_name: str) -> None:
    with pytest.raises(SchemaError) as caught:
        parse_ddl(f"CREATE TABLE ok (id int);\nCREATE TABLE {schema_name}.t (id int);\n", "postgres",
                  source="x.sql")
    assert caught.value.line == 2 and schema_name in str(caught.value) and "Rename" in str(caught.value)


def test_identities_split_back_and_references_quote_both_parts() -> None:
    for namespace, local in [("main", "orders"), ("sales", "orders"), ("main", "audit.log"),
                             ("Sales", 'we"ird.name')]:
        assert split_name(qualified(namespace, local)) == (namespace, local)
    assert qualified("main", "audit.log") == "main.audit.log"
    assert table_ref("orders") == 'main."orders"'
    assert table_ref("sales.orders") == '"sales"."orders"'
    assert table_ref(Table(name='Sales.we"ird.name')) == '"Sales"."we""ird.name"'


def test_the_store_creates_each_namespace_and_reaches_each_table() -> None:
    schema = parse_ddl(
        'CREATE TABLE public."a.b" (id serial PRIMARY KEY);\n'
        'CREATE TABLE "My Schema".orders (id serial PRIMARY KEY, ab int REFERENCES public."a.b" (id));\n',
        "postgres",
    )
    assert schema.table_names == ["main.a.b", "My Schema.orders"]
    con = duckdb.connect()
    create_tables(con, schema, plan_fill(schema))
    for table in schema.tables:
        con.execute(f"INSERT INTO {table_ref(table)} DEFAULT VALUES")
        assert con.execute(f"SELECT id FROM {table_ref(table)}").fetchall() == [(1,)]
    found = con.sql("SELECT schema_name, table_name FROM duckdb_tables() WHERE schema_name <> 'stateforge' "
                    "ORDER BY ALL").fetchall()
    assert found == [("My Schema", "orders"), ("main", "a.b")]
