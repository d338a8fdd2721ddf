"""One focused test per DDL construct: keys, references, comments, user types, names."""

from __future__ import annotations

import duckdb
import pytest

from stateforge.schema import Schema, parse_ddl

PARENT = "CREATE TABLE p (id INT PRIMARY KEY, code VARCHAR(5) UNIQUE, a INT, b INT, UNIQUE (a, b));\n"


def parse(text: str, dialect: str = "postgres") -> Schema:
    return parse_ddl(text, dialect, source="t.sql")


@pytest.mark.parametrize(
    ("dialect", "ddl", "key"),
    [
        ("postgres", "CREATE TABLE t (id int PRIMARY KEY, x int)", ("id",)),
        ("mysql", "CREATE TABLE t (id int, x int, PRIMARY KEY (id, x))", ("id", "x")),
        ("oracle", "CREATE TABLE t (id NUMBER, x NUMBER, CONSTRAINT t_pk PRIMARY KEY (x, id))", ("x", "id")),
        (
            "postgres",
            "CREATE TABLE t (id int, x int); ALTER TABLE ONLY t ADD CONSTRAINT t_pkey PRIMARY KEY (id)",
            ("id",),
        ),
        (
            "mysql",
            "CREATE TABLE t (id int, x int); ALTER TABLE t ADD PRIMARY KEY (id, x), ADD KEY k (x)",
            ("id", "x"),
        ),
        (
            "oracle",
            "CREATE TABLE t (id NUMBER, x NUMBER);\nALTER TABLE t ADD (CONSTRAINT t_pk PRIMARY KEY (id))",
            ("id",),
        ),
    ],
)
def test_primary_key_inline_composite_and_altered(dialect: str, ddl: str, key: tuple[str, ...]) -> None:
    table = parse(ddl, dialect).table("t")
    assert table.primary_key == key
    assert all(not table.column(c).nullable for c in key), "a primary key column is NOT NULL"


@pytest.mark.parametrize(
    ("dialect", "ddl", "unique"),
    [
        ("postgres", "CREATE TABLE t (a int UNIQUE, b int)", [("a",)]),
        ("postgres", "CREATE TABLE t (a int, b int, CONSTRAINT u UNIQUE (a, b))", [("a", "b")]),
        ("mysql", "CREATE TABLE t (a int, b int, UNIQUE KEY `u` (`b`, `a`))", [("b", "a")]),
        (
            "mysql",
            "CREATE TABLE t (a int, b text, UNIQUE KEY `u` (`b`(10)), KEY `k` (`a`, `b`(3)))",
            [("b",)],
        ),
        ("mysql", "CREATE TABLE t (a int, b text);\nCREATE UNIQUE INDEX u ON t (a, b(5));", [("a", "b")]),
        (
            "postgres",
            "CREATE TABLE t (a int, b int); CREATE UNIQUE INDEX u ON public.t USING btree (b)",
            [("b",)],
        ),
        ("sqlite", "CREATE TABLE t (a int, b int); CREATE UNIQUE INDEX [u] ON [t] ([a], [b]);", [("a", "b")]),
        ("postgres", "CREATE TABLE t (a int, b int); ALTER TABLE t ADD CONSTRAINT u UNIQUE (a)", [("a",)]),
        (
            "postgres",
            "CREATE TABLE t (a int PRIMARY KEY UNIQUE, b int UNIQUE); CREATE UNIQUE INDEX ON t (b)",
            [("b",)],
        ),
    ],
)
def test_unique_constraints_from_everywhere(dialect: str, ddl: str, unique: list[tuple[str, ...]]) -> None:
    assert parse(ddl, dialect).table("t").unique == unique


def test_partial_and_expression_unique_indexes_are_noted() -> None:
    schema = parse(
        "CREATE TABLE t (a int, b text);\n"
        "CREATE UNIQUE INDEX t_a ON t (a) WHERE (a > 0);\n"
        "CREATE UNIQUE INDEX t_b ON t (lower(b));\n"
    )
    assert schema.table("t").unique == [("a",)]
    assert schema.skipped["index"] == 1
    assert any("partial unique index" in n for n in map(str, schema.notes))
    assert any("expression" in n for n in map(str, schema.notes))


@pytest.mark.parametrize(
    ("dialect", "ddl", "columns", "ref_columns"),
    [
        ("postgres", "CREATE TABLE t (x int REFERENCES p (id))", ("x",), ("id",)),
        ("postgres", "CREATE TABLE t (x int REFERENCES p)", ("x",), ("id",)),
        ("sqlite", "CREATE TABLE t (x INTEGER REFERENCES p)", ("x",), ("id",)),
        ("mysql", "CREATE TABLE t (x int, FOREIGN KEY (x) REFERENCES p (id))", ("x",), ("id",)),
        (
            "postgres",
            "CREATE TABLE t (x int, y int, FOREIGN KEY (x, y) REFERENCES p (a, b))",
            ("x", "y"),
            ("a", "b"),
        ),
        (
            "postgres",
            "CREATE TABLE t (x varchar(5)); ALTER TABLE t ADD FOREIGN KEY (x) REFERENCES p(code)",
            ("x",),
            ("code",),
        ),
        (
            "oracle",
            "CREATE TABLE t (x NUMBER);\nALTER TABLE t ADD (CONSTRAINT f FOREIGN KEY (x) REFERENCES p)",
            ("x",),
            ("id",),
        ),
    ],
)
def test_foreign_keys(dialect: str, ddl: str, columns: tuple[str, ...], ref_columns: tuple[str, ...]) -> None:
    (fk,) = parse(PARENT + ddl, dialect).table("t").foreign_keys
    assert (fk.columns, fk.ref_table, fk.ref_columns) == (columns, "p", ref_columns)


def test_a_foreign_key_may_reference_a_table_defined_later() -> None:
    schema = parse("CREATE TABLE c (p_id int REFERENCES later);\nCREATE TABLE later (id int PRIMARY KEY);")
    assert schema.table("c").foreign_keys[0].ref_columns == ("id",)


@pytest.mark.parametrize(
    ("clause", "on_delete", "on_update"),
    [
        ("", "NO ACTION", "NO ACTION"),
        ("ON DELETE CASCADE", "CASCADE", "NO ACTION"),
        ("ON DELETE SET NULL ON UPDATE CASCADE", "SET NULL", "CASCADE"),
        ("ON UPDATE RESTRICT ON DELETE SET DEFAULT", "SET DEFAULT", "RESTRICT"),
        ("ON DELETE no   action DEFERRABLE INITIALLY DEFERRED", "NO ACTION", "NO ACTION"),
    ],
)
def test_referential_actions_are_normalized(clause: str, on_delete: str, on_update: str) -> None:
    for ddl in (
        f"CREATE TABLE t (x int REFERENCES p (id) {clause})",
        f"CREATE TABLE t (x int, FOREIGN KEY (x) REFERENCES p (id) {clause})",
    ):
        (fk,) = parse(PARENT + ddl).table("t").foreign_keys
        assert (fk.on_delete, fk.on_update) == (on_delete, on_update)


@pytest.mark.parametrize(
    ("dialect", "ddl"),
    [
        (
            "postgres",
            "CREATE TABLE t (a int);\nCOMMENT ON TABLE public.t IS 'the t';\n"
            "COMMENT ON COLUMN t.a IS 'an a';",
        ),
        (
            "oracle",
            'CREATE TABLE "T" ("A" NUMBER);\nCOMMENT ON TABLE t IS \'the t\';\n'
            'COMMENT ON COLUMN "T"."A" IS \'an a\';',
        ),
        ("mysql", "CREATE TABLE `t` (`a` int COMMENT 'an a') ENGINE=InnoDB COMMENT='the t';"),
        ("mysql", "CREATE TABLE t (a int COMMENT 'an a') COMMENT 'the t';"),
    ],
)
def test_comments_become_descriptions(dialect: str, ddl: str) -> None:
    schema = parse(ddl, dialect)
    table = schema.table("t")
    assert (table.description, table.column("a").description) == ("the t", "an a")
    assert "comment" not in schema.skipped


def test_comment_on_other_objects_is_skipped() -> None:
    schema = parse("CREATE TABLE t (a int);\nCOMMENT ON FUNCTION f() IS 'x';\nCOMMENT ON VIEW v IS 'y';")
    assert schema.skipped["comment"] == 2


def test_enum_type_gives_varchar_and_allowed_values() -> None:
    for dialect in ("postgres", "duckdb"):
        schema = parse(
            "CREATE TYPE public.mood AS ENUM ('sad', 'ok');\nCREATE TABLE t (m public.mood, n mood[])",
            dialect,
        )
        column = schema.table("t").column("m")
        assert (column.type, column.allowed_values) == ("VARCHAR", ["sad", "ok"])
        assert "type" not in schema.skipped


@pytest.mark.parametrize(
    ("domain", "type_", "nullable", "allowed", "check"),
    [
        (
            "CREATE DOMAIN email AS VARCHAR(200) CHECK (VALUE LIKE '%@%')",
            "VARCHAR(200)",
            True,
            None,
            "\"e\" LIKE '%@%'",
        ),
        (
            "CREATE DOMAIN public.d AS text CHECK (VALUE IN ('a','b'))",
            "VARCHAR",
            True,
            ["a", "b"],
            "\"e\" IN ('a', 'b')",
        ),
        (
            "CREATE DOMAIN year AS integer CONSTRAINT year_check CHECK (VALUE >= 1901)",
            "INTEGER",
            True,
            None,
            '"e" >= 1901',
        ),
        (
            "CREATE DOMAIN d int NOT NULL DEFAULT 3 CONSTRAINT d_pos CHECK (VALUE > 0)",
            "INTEGER",
            False,
            None,
            '"e" > 0',
        ),
    ],
)
def test_domains_resolve_to_base_type_and_constraints(
    domain: str, type_: str, nullable: bool, allowed: list | None, check: str
) -> None:
    name = domain.split()[2]
    schema = parse(f"{domain};\nCREATE TABLE t (e {name});")
    table = schema.table("t")
    column = table.column("e")
    assert (column.type, column.nullable, column.allowed_values) == (type_, nullable, allowed)
    assert [c.sql for c in table.checks] == [check]
    assert table.checks[0].columns == ("e",)


@pytest.mark.parametrize(
    ("dialect", "ddl", "allowed"),
    [
        ("mysql", "CREATE TABLE t (c ENUM('a','b') NOT NULL)", ["a", "b"]),
        ("mysql", "CREATE TABLE t (c SET('x','y','z'))", ["x", "y", "z"]),
        ("sqlite", "CREATE TABLE t (c TEXT CHECK (c IN ('on', 'off')))", ["on", "off"]),
        ("postgres", "CREATE TABLE t (c int, CONSTRAINT k CHECK (c IN (1, 2, -3)))", [1, 2, -3]),
        (
            "postgres",
            "CREATE TABLE t (c text, CHECK (((c)::text = ANY (ARRAY['p'::text, 'q'::text]))))",
            ["p", "q"],
        ),
    ],
)
def test_allowed_values_from_enum_set_and_check_in(dialect: str, ddl: str, allowed: list) -> None:
    assert parse(ddl, dialect).table("t").column("c").allowed_values == allowed


def test_set_columns_are_noted() -> None:
    schema = parse("CREATE TABLE t (c SET('x','y'))", "mysql")
    assert any("comma-separated subset" in n for n in map(str, schema.notes))


@pytest.mark.parametrize(
    ("ddl", "sql", "columns"),
    [
        ("CREATE TABLE t (a int, b int, CHECK (a BETWEEN 1 AND 9))", "a BETWEEN 1 AND 9", ("a",)),
        ("CREATE TABLE t (a int CHECK (a < b), b int)", "a < b", ("a", "b")),
        ("CREATE TABLE t (a numeric, b int, CHECK ((a >= (0)::numeric)))", "a >= 0", ("a",)),
        ("CREATE TABLE t (a text, b int, CHECK (a ~ '^[a-z]+$'))", "REGEXP_MATCHES(a, '^[a-z]+$')", ("a",)),
    ],
)
def test_checks_are_duckdb_sql_with_their_columns(ddl: str, sql: str, columns: tuple[str, ...]) -> None:
    (check,) = parse(ddl).table("t").checks
    assert (check.sql, check.columns) == (sql, columns)


def test_names_keep_their_spelling_and_lookups_ignore_case() -> None:
    schema = parse(
        'CREATE TABLE "OrderItems" ("LineNo" int PRIMARY KEY, qty int);\n'
        'CREATE TABLE x (o int REFERENCES orderitems ("lineno"));'
    )
    table = schema.table("orderitems")
    assert table.name == "OrderItems" and table.column("LINENO").name == "LineNo"
    fk = schema.table("X").foreign_keys[0]
    assert (fk.ref_table, fk.ref_columns) == ("OrderItems", ("LineNo",)), (
        "references use the defined spelling"
    )


@pytest.mark.parametrize(
    ("dialect", "ddl"),
    [
        (
            "postgres",
            "CREATE TABLE public.users (id int PRIMARY KEY);\n"
            "CREATE TABLE o (u int REFERENCES public.users)",
        ),
        (
            "mysql",
            "CREATE TABLE `db`.`users` (`id` int PRIMARY KEY);\n"
            "CREATE TABLE o (u int REFERENCES `db`.`users` (id))",
        ),
        (
            "oracle",
            'CREATE TABLE "HR"."users" ("id" NUMBER PRIMARY KEY);\n'
            'CREATE TABLE o (u NUMBER REFERENCES hr."users")',
        ),
        (
            "sqlite",
            "CREATE TABLE main.[users] (id INTEGER PRIMARY KEY);\n"
            "CREATE TABLE o (u INTEGER REFERENCES users)",
        ),
    ],
)
def test_names_in_the_default_namespace_become_bare_names(dialect: str, ddl: str) -> None:
    """public (PostgreSQL), the database or schema a MySQL / Oracle file creates its tables in, main
    (SQLite): the default namespace, DuckDB's main, where tables keep their bare names."""
    schema = parse(ddl, dialect)
    assert schema.table_names == ["users", "o"]
    assert schema.table("o").foreign_keys[0].ref_table == "users"


@pytest.mark.parametrize(
    ("dialect", "ddl", "column"),
    [
        ("postgres", "CREATE TABLE t (id serial PRIMARY KEY)", "id"),
        ("postgres", "CREATE TABLE t (id bigint GENERATED ALWAYS AS IDENTITY)", "id"),
        (
            "postgres",
            "CREATE TABLE t (id int NOT NULL);\n"
            "ALTER TABLE ONLY t ALTER COLUMN id SET DEFAULT nextval('t_id_seq'::regclass);",
            "id",
        ),
        (
            "postgres",
            "CREATE TABLE t (id int NOT NULL);\n"
            "ALTER TABLE t ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (SEQUENCE NAME s);",
            "id",
        ),
        ("mysql", "CREATE TABLE t (id int NOT NULL AUTO_INCREMENT PRIMARY KEY)", "id"),
        (
            "mysql",
            "CREATE TABLE t (id int NOT NULL);\nALTER TABLE t MODIFY id int NOT NULL AUTO_INCREMENT;",
            "id",
        ),
        ("sqlite", "CREATE TABLE t (id INTEGER PRIMARY KEY AUTOINCREMENT)", "id"),
        ("sqlite", "CREATE TABLE t (id INTEGER PRIMARY KEY, x TEXT)", "id"),
        ("duckdb", "CREATE SEQUENCE s;\nCREATE TABLE t (id INTEGER DEFAULT nextval('s') PRIMARY KEY)", "id"),
    ],
)
def test_identity_columns(dialect: str, ddl: str, column: str) -> None:
    col = parse(ddl, dialect).table("t").column(column)
    assert col.identity and col.default is None


def test_sqlite_without_rowid_has_no_implicit_identity() -> None:
    assert (
        not parse("CREATE TABLE t (id INTEGER PRIMARY KEY) WITHOUT ROWID", "sqlite")
        .table("t")
        .column("id")
        .identity
    )


@pytest.mark.parametrize(
    ("dialect", "default", "type_", "expected"),
    [
        ("postgres", "now()", "timestamptz", "CURRENT_TIMESTAMP"),
        ("mysql", "CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP", "timestamp", "CURRENT_TIMESTAMP"),
        ("mysql", "CURRENT_TIMESTAMP(3)", "datetime(3)", "CURRENT_TIMESTAMP"),
        ("oracle", "SYSDATE", "DATE", "CURRENT_TIMESTAMP"),
        ("sqlite", "(datetime('now'))", "DATETIME", "CURRENT_TIMESTAMP"),
        ("postgres", "CURRENT_DATE", "date", "CURRENT_DATE"),
        ("postgres", "'x'::character varying", "varchar(3)", "'x'"),
        ("postgres", "'{}'::jsonb", "jsonb", "'{}'"),
        ("mysql", "'0'", "int", "0"),
        ("mysql", "'1'", "tinyint(1)", "TRUE"),
        ("mysql", "b'0'", "bit(1)", "FALSE"),
        ("mysql", "NULL", "int", None),
        ("postgres", "-1", "int", "-1"),
        ("duckdb", "'it''s'", "VARCHAR", "'it''s'"),
        (
            "sqlite",
            "(strftime('%Y-%m-%d', 'now'))",
            "TEXT",
            "STRFTIME(CAST(CURRENT_TIMESTAMP AS TIMESTAMP), '%Y-%m-%d')",
        ),
        ("postgres", "('now'::text)::date", "date", "CAST((CURRENT_TIMESTAMP) AS DATE)"),
    ],
)
def test_defaults_become_duckdb_sql(dialect: str, default: str, type_: str, expected: str | None) -> None:
    column = parse(f"CREATE TABLE t (c {type_} DEFAULT {default})", dialect).table("t").column("c")
    assert column.default == expected
    if expected is not None:
        duckdb.connect().execute(f"CREATE TABLE t (c {column.type} DEFAULT {expected})")


def test_alter_table_add_and_alter_columns() -> None:
    table = parse(
        "CREATE TABLE t (a int, b int DEFAULT 1);\n"
        "ALTER TABLE t ADD COLUMN c varchar(9) NOT NULL;\n"
        "ALTER TABLE t ALTER COLUMN a SET NOT NULL, ALTER COLUMN b DROP DEFAULT;\n"
        "ALTER TABLE t ADD CONSTRAINT t_c CHECK (c <> '');\n"
    ).table("t")
    assert [(c.name, c.type, c.nullable, c.default) for c in table.columns] == [
        ("a", "INTEGER", False, None),
        ("b", "INTEGER", True, None),
        ("c", "VARCHAR(9)", False, None),
    ]
    assert [c.sql for c in table.checks] == ["c <> ''"]


def test_oracle_alter_add_with_several_constraints() -> None:
    table = parse(
        PARENT + "CREATE TABLE t (id NUMBER(6), code VARCHAR2(5 BYTE), n NUMBER(3));\n"
        "ALTER TABLE t ADD (\n  CONSTRAINT t_pk PRIMARY KEY (id),\n  CONSTRAINT t_uk UNIQUE (code),\n"
        "  CONSTRAINT t_fk FOREIGN KEY (code) REFERENCES p (code) ON DELETE CASCADE,\n"
        "  CONSTRAINT t_ck CHECK (n > 0)\n);\n",
        "oracle",
    ).table("t")
    assert table.primary_key == ("id",) and table.unique == [("code",)]
    assert [(fk.name, fk.on_delete) for fk in table.foreign_keys] == [("t_fk", "CASCADE")]
    assert [(c.name, c.sql) for c in table.checks] == [("t_ck", "n > 0")]


def test_table_line_is_the_create_statement_line() -> None:
    schema = parse("-- one\n\nCREATE TABLE a (x int);\n\n\nCREATE TABLE b (\n y int\n);")
    assert [t.line for t in schema.tables] == [3, 6]


def test_create_table_if_not_exists_twice_is_one_table() -> None:
    schema = parse("CREATE TABLE IF NOT EXISTS a (x int);\nCREATE TABLE IF NOT EXISTS a (x int);")
    assert schema.table_names == ["a"] and schema.skipped["table_if_not_exists"] == 1


def test_inherits_and_like_copy_columns() -> None:
    schema = parse(
        "CREATE TABLE base (id int NOT NULL, at date CHECK (at > '2000-01-01'));\n"
        "CREATE TABLE child (extra int) INHERITS (public.base);\n"
        "CREATE TABLE copy (LIKE base INCLUDING ALL, more text);\n"
    )
    assert schema.table("child").column_names == ["id", "at", "extra"]
    assert [c.sql for c in schema.table("child").checks] == ["\"at\" > '2000-01-01'"]
    assert schema.table("copy").column_names == ["more", "id", "at"]


@pytest.mark.parametrize(
    ("dialect", "ddl"),
    [
        ("postgres", "CREATE TABLE t (a int, b int GENERATED ALWAYS AS (a * 2) STORED)"),
        ("mysql", "CREATE TABLE t (a int, b int GENERATED ALWAYS AS (a * 2) VIRTUAL)"),
        ("duckdb", "CREATE TABLE t (a INTEGER, b INTEGER GENERATED ALWAYS AS (a * 2) VIRTUAL)"),
        ("duckdb", "CREATE TABLE t (a INTEGER, b INTEGER AS (a * 2))"),
    ],
)
def test_computed_columns_are_generated_columns(dialect: str, ddl: str) -> None:
    schema = parse(ddl, dialect)
    column = schema.table("t").column("b")
    assert (column.generated, column.type, column.identity) == ("a * 2", "INTEGER", False)
    assert schema.notes == []


def test_oracle_export_forms() -> None:
    table = parse(
        'CREATE TABLE "HR"."T" ("ID" NUMBER(9) NOT NULL ENABLE, "X" VARCHAR2(10 CHAR),\n'
        '  CONSTRAINT "T_PK" PRIMARY KEY ("ID")\n'
        '    USING INDEX PCTFREE 10 STORAGE(INITIAL 65536) TABLESPACE "U" ENABLE\n'
        ') SEGMENT CREATION IMMEDIATE TABLESPACE "USERS" ;\n'
        'CREATE UNIQUE INDEX "HR"."T_X" ON "HR"."T" ("X") PCTFREE 10 TABLESPACE "USERS" ;\n'
        'ALTER TABLE "HR"."T" MODIFY ("X" NOT NULL ENABLE);\n',
        "oracle",
    ).table("T")
    assert (table.primary_key, table.unique, table.column("X").nullable) == (("ID",), [("X",)], False)


def test_sqlite_table_level_autoincrement_and_collated_index() -> None:
    schema = parse(
        'CREATE TABLE "x" ("id" INTEGER NOT NULL, "e" TEXT,\n'
        '  CONSTRAINT "PK_x" PRIMARY KEY("id" AUTOINCREMENT));\n'
        "CREATE UNIQUE INDEX IF NOT EXISTS ux ON x (e COLLATE NOCASE);\n",
        "sqlite",
    )
    table = schema.table("x")
    assert table.column("id").identity and table.unique == [("e",)]


def test_sqlite_internal_tables_are_skipped() -> None:
    schema = parse(
        "CREATE TABLE t (id INTEGER PRIMARY KEY AUTOINCREMENT);\nCREATE TABLE sqlite_sequence(name,seq);",
        "sqlite",
    )
    assert schema.table_names == ["t"] and schema.skipped == {"sqlite_internal": 1}


def test_alter_table_actions_not_applied_are_noted() -> None:
    schema = parse(
        "CREATE TABLE t (a int, b int);\n"
        "ALTER TABLE t DROP COLUMN b;\n"
        "ALTER TABLE t ENABLE ROW LEVEL SECURITY;\n"
        "ALTER TABLE IF EXISTS ONLY gone DROP CONSTRAINT IF EXISTS x;\n"
    )
    notes = list(map(str, schema.notes))
    assert notes == ["t.sql:2: table t: ALTER TABLE action not applied: 'DROP COLUMN b'"]
    assert schema.skipped == {"alter_table": 3}


def test_drop_table_removes_a_table_defined_above() -> None:
    # mysqldump 5.x: a placeholder table stands for a view until the view itself is created.
    schema = parse(
        "DROP TABLE IF EXISTS `t`, `v`;\n"
        "CREATE TABLE `t` (`id` int PRIMARY KEY);\n"
        "/*!50001 CREATE TABLE `v` (`id` tinyint NOT NULL) ENGINE=MyISAM */;\n"
        "/*!50001 DROP TABLE IF EXISTS `v`*/;\n"
        "/*!50001 CREATE ALGORITHM=UNDEFINED VIEW `v` AS select `t`.`id` AS `id` from `t` */;\n",
        "mysql",
    )
    assert schema.table_names == ["t"] and schema.skipped == {"drop": 2, "view": 1}


def test_mysql_spatial_reference_ids_are_ignored() -> None:
    schema = parse(
        "CREATE TABLE a (loc GEOMETRY /*!80003 SRID 0 */ NOT NULL, /*!50705 SPATIAL KEY k (loc),*/ x int)",
        "mysql",
    )
    assert [(c.name, c.type, c.nullable) for c in schema.table("a").columns] == [
        ("loc", "VARCHAR", False),
        ("x", "INTEGER", True),
    ]
