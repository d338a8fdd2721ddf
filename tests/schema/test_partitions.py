"""Partitioned tables are one table: PARTITION OF and ATTACH PARTITION fold into the parent, statements on
partitions are skipped, PARTITION BY clauses of PostgreSQL, MySQL and Oracle are read and noted."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from stateforge.build import build_domain
from stateforge.schema import Schema, parse_ddl

PARENT = (
    "CREATE TABLE measurements (\n  id bigint NOT NULL,\n  taken_on date NOT NULL,\n  value numeric(8,2),\n"
    "  PRIMARY KEY (id, taken_on)\n) PARTITION BY RANGE (taken_on);\n"
)  # lines 1-6


def parse(text: str, dialect: str = "postgres") -> Schema:
    return parse_ddl(text, dialect, source="t.sql")


def notes(schema: Schema) -> list[str]:
    return [str(n) for n in schema.notes]


def test_partition_of_and_attach_partition_fold_into_the_parent() -> None:
    schema = parse(
        PARENT
        + "CREATE TABLE m_2023 PARTITION OF measurements FOR VALUES FROM ('2023-01-01') TO ('2024-01-01');\n"
        "CREATE TABLE public.m_2024 (id bigint NOT NULL, taken_on date NOT NULL, value numeric(8,2));\n"
        "ALTER TABLE ONLY public.measurements ATTACH PARTITION public.m_2024 "
        "FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');\n"
        "CREATE TABLE m_default PARTITION OF measurements DEFAULT PARTITION BY LIST (value);\n"
        "CREATE TABLE m_default_a PARTITION OF m_default FOR VALUES IN (1);\n"
        "ALTER TABLE ONLY public.m_2024 ADD CONSTRAINT m_2024_pkey PRIMARY KEY (id, taken_on);\n"
        "CREATE INDEX m_2024_value ON public.m_2024 (value);\n"
        "CREATE TABLE readings (id bigint, taken_on date, FOREIGN KEY (id, taken_on) REFERENCES m_2023);\n"
    )
    assert schema.table_names == ["measurements", "readings"]
    parent = schema.table("measurements")
    assert parent.partitions == ["m_2023", "m_2024", "m_default", "m_default_a"]
    assert schema.table("readings").foreign_keys[0].ref_table == "measurements"
    assert schema.skipped == {"partition": 5, "index": 1}
    assert notes(schema) == [
        "t.sql:1: table measurements: PARTITION BY RANGE (taken_on) read and ignored: partitions are "
        "one table",
        "t.sql:1: table measurements: partitions folded into this table: m_2023, m_2024, m_default, "
        "m_default_a (one table: keys hold across partitions, rows may fall in any of them)",
    ]


def test_mysql_and_oracle_partition_clauses_are_read_and_noted() -> None:
    mysql = parse(
        "CREATE TABLE t (id int, d date, PRIMARY KEY (id, d)) ENGINE=InnoDB\n"
        "/*!50100 PARTITION BY RANGE (YEAR(d))\n(PARTITION p0 VALUES LESS THAN (2020) ENGINE = InnoDB,\n"
        " PARTITION p1 VALUES LESS THAN MAXVALUE ENGINE = InnoDB) */;",
        "mysql",
    )
    oracle = parse(
        "CREATE TABLE t (id NUMBER, d DATE)\nPARTITION BY RANGE (d) INTERVAL (NUMTOYMINTERVAL(1, 'MONTH'))\n"
        "(PARTITION p0 VALUES LESS THAN (TO_DATE('2020-01-01', 'YYYY-MM-DD')));",
        "oracle",
    )
    for schema in (mysql, oracle):
        assert schema.table_names == ["t"]
        (note,) = notes(schema)
        assert note.startswith("t.sql:1: table t: PARTITION BY RANGE (") and note.endswith("one table")


def test_a_partitioned_table_builds_as_one_table_with_keys_unique_across_partitions(tmp_path: Path) -> None:
    ddl = tmp_path / "metrics.sql"
    ddl.write_text(
        PARENT
        + "CREATE TABLE m_a PARTITION OF measurements FOR VALUES FROM ('2020-01-01') TO ('2024-01-01');\n"
        "CREATE TABLE m_b PARTITION OF measurements FOR VALUES FROM ('2024-01-01') TO (MAXVALUE);\n"
    )
    report = build_domain(str(ddl), rows=20, out=tmp_path / "out")
    assert report["totals"]["violations"] == 0 and [t["table"] for t in report["tables"]] == ["measurements"]
    assert any("partitions folded" in n for n in report["notes"])
    with duckdb.connect(str(tmp_path / "out" / "metrics.duckdb"), read_only=True) as con:
        tables = {r[0] for r in con.sql("SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main'")
                  .fetchall()}  # fmt: skip
    assert tables == {"measurements"}


PARTITIONED = Path(__file__).parent.parent / "fixtures" / "ddl" / "partitions"


@pytest.mark.parametrize(("name", "dialect", "lines"), [
    ("mysql_partitions", "mysql", {"orders": 6, "events": 18, "logs": 29, "keyed": 35, "sub": 39}),
    ("oracle_partitions", "oracle",
     {"sales": 2, "regions_data": 18, "hashed": 27, "comp": 32, "reflist": 41}),
])
def test_every_kind_of_mysql_and_oracle_partition_clause_is_read_noted_and_builds(
    name: str, dialect: str, lines: dict[str, int], tmp_path: Path
) -> None:
    """RANGE (with MAXVALUE, INTERVAL), LIST (COLUMNS, DEFAULT), HASH and KEY (PARTITIONS n, STORE IN),
    SUBPARTITION BY (and TEMPLATE), REFERENCE; the foreign keys of partitioned tables are kept."""
    ddl = PARTITIONED / f"{name}.sql"
    schema = parse_ddl(ddl.read_text(), dialect, source=ddl.name)
    noted = {n.table: n.line for n in schema.notes if "PARTITION BY" in n.message}
    assert noted == lines
    assert all(n.message.endswith("read and ignored: partitions are one table") for n in schema.notes)
    assert {fk.ref_table for t in schema.tables for fk in t.foreign_keys} >= {"customers"}
    report = build_domain(str(ddl), dialect=dialect, rows=10, out=tmp_path)
    assert report["totals"]["violations"] == 0 and len(report["tables"]) == 6
