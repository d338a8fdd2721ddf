"""Issue 18 item 5 (parser side): the DDL's INSERT ... VALUES rows become seeds of their tables."""

from __future__ import annotations

from stateforge.schema import parse_ddl

LOOKUPS = """\
CREATE TABLE roles (id int PRIMARY KEY, name varchar(20) NOT NULL);
INSERT INTO roles (id, name) VALUES (1, 'admin'), (2, 'member');
INSERT INTO roles VALUES (3, 'guest');
INSERT INTO roles (name, id) VALUES ('owner', 4);
CREATE TABLE kinds (id serial PRIMARY KEY, label varchar(30) NOT NULL, born date);
INSERT INTO kinds (label) VALUES ('book');
INSERT INTO kinds (label) VALUES ('film');
INSERT INTO kinds (label, born) SELECT 'song', NULL;
INSERT INTO nowhere VALUES (1);
"""


def test_insert_values_become_seeds_merged_in_file_order_with_a_note_per_table():
    schema = parse_ddl(LOOKUPS, "postgres", source="s.sql")
    roles, kinds = schema.table("roles"), schema.table("kinds")
    assert [(s.columns, s.rows, s.line) for s in roles.seeds] == [
        (("id", "name"), 3, 2),  # the INSERT without a column list lists every column
        (("name", "id"), 1, 4),
    ]
    assert roles.seeds[0].values == "VALUES (1, 'admin'), (2, 'member'), (3, 'guest')"
    assert [(s.columns, s.rows) for s in kinds.seeds] == [(("label",), 2)]
    notes = [str(n) for n in schema.notes]
    assert "s.sql:2: table roles: 4 seed rows from the DDL's INSERT ... VALUES: inserted as given and kept " \
           "(rows are generated only past them); --ignore-seed-inserts leaves them out" in notes
    assert any(n.startswith("s.sql:6: table kinds: 2 seed rows") for n in notes), notes
    assert any(n.startswith("s.sql:8: table kinds: INSERT ... SELECT is not a seed row") for n in notes)
    assert any(n.startswith("s.sql:9: INSERT into nowhere, which the DDL does not define") for n in notes)
    assert schema.skipped["insert"] == 2


def test_ignore_seed_inserts_counts_them_as_skipped():
    schema = parse_ddl(LOOKUPS, "postgres", source="s.sql", ignore_seed_inserts=True)
    assert not schema.table("roles").seeds and not schema.table("kinds").seeds
    assert schema.skipped["insert"] == 7
    assert not [n for n in schema.notes if "seed" in n.message]


def test_mysql_escapes_and_values_duckdb_cannot_read():
    ddl = (
        "CREATE TABLE `t` (`id` int NOT NULL, `s` varchar(40), `d` date, PRIMARY KEY (`id`));\n"
        "INSERT INTO `t` VALUES (1,'It\\'s; here','2024-01-02');\n"
        "INSERT INTO `t` VALUES (2,'zero date','0000-00-00');\n"
    )
    schema = parse_ddl(ddl, "mysql", source="m.sql")
    [seed] = schema.table("t").seeds
    assert seed.values == "VALUES (1, 'It''s; here', '2024-01-02')" and seed.line == 2
    notes = [str(n) for n in schema.notes]
    left_out = "m.sql:3: table t: INSERT's 1 rows left out: DuckDB cannot read them"
    assert any(n.startswith(left_out) for n in notes), notes


def test_seeds_survive_the_model_round_trip():
    from stateforge.schema.model import Schema

    schema = parse_ddl(LOOKUPS, "postgres", source="s.sql")
    again = Schema.from_dict(schema.to_dict())
    assert again.table("roles").seeds == schema.table("roles").seeds


def test_a_set_value_of_several_members_is_kept_and_a_value_outside_an_enum_is_left_out():
    ddl = (
        "CREATE TABLE `p` (`id` int NOT NULL, `flags` set('a','b','c'), `kind` enum('x','y') NOT NULL,\n"
        "  PRIMARY KEY (`id`));\n"
        "INSERT INTO `p` VALUES (1,'a,b','x'),(2,'c','y'),(3,NULL,'z'),(4,'a','x');\n"
    )
    schema = parse_ddl(ddl, "mysql", source="e.sql")
    table = schema.table("p")
    assert table.column("flags").allowed_values == ["a", "b", "c", "a,b"]
    [seed] = table.seeds
    assert seed.rows == 3 and seed.values == "VALUES (1, 'a,b', 'x'), (2, 'c', 'y'), (4, 'a', 'x')"
    notes = [str(n) for n in schema.notes]
    assert "e.sql:3: table p, column kind: 1 seed rows of this INSERT left out: kind = 'z' is not among " \
           "the column's allowed values" in notes


def test_values_that_are_not_plain_literals_are_read_by_sqlglot():
    ddl = ("CREATE TABLE t (id int PRIMARY KEY, d date, n numeric(6,2), s text);\n"
           "INSERT INTO t VALUES (1, '2024-01-02'::date, -1.5, upper('ab')), (2, NULL, 3, 'x');\n"
           "INSERT INTO t VALUES (3, NULL, -2, E'it''s');\n")
    [seed] = parse_ddl(ddl, "postgres", source="p.sql").table("t").seeds
    assert seed.rows == 3 and seed.literals is None  # one INSERT needs sqlglot: the merged seed uses SQL
    assert seed.values == ("VALUES (1, CAST('2024-01-02' AS DATE), -1.5, UPPER('ab')), (2, NULL, 3, 'x'), "
                           "(3, NULL, -2, 'it''s')")


def test_an_insert_naming_a_column_the_table_lacks_is_a_note():
    schema = parse_ddl("CREATE TABLE t (id int PRIMARY KEY);\nINSERT INTO t (id, nope) VALUES (1, 2);\n",
                       "postgres", source="n.sql")
    assert not schema.table("t").seeds
    [note] = schema.notes
    assert str(note).startswith('n.sql:2: table t: INSERT\'s rows left out: INSERT names column "nope"')
