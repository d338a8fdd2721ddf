"""TableGenerator: determinism, keys, uniqueness across batches, NULLs, ordering, sequences, expressions.

The last test loads two batches into a real DuckDB table declared with the same constraints.
"""

from __future__ import annotations

from datetime import datetime

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import pytest

from stateforge.domain.config import DomainConfig
from stateforge.errors import DomainError, SchemaError
from stateforge.fill.generator import (
    TableGenerator,
    apply_expressions,
    apply_sequences,
    expression_columns,
    sequence_columns,
)
from stateforge.schema.model import Check, Column, ForeignKey, Table


def users() -> Table:
    return Table(
        "users",
        [
            Column("id", "BIGINT", nullable=False),
            Column("first_name", "VARCHAR(40)", nullable=False),
            Column("last_name", "VARCHAR(40)", nullable=False),
            Column("email", "VARCHAR(60)", nullable=False),
            Column("username", "VARCHAR(16)"),
            Column("level", "TINYINT"),
            Column("balance", "DECIMAL(6,2)"),
            Column("code", "VARCHAR(8)"),
            Column("team_id", "INTEGER"),
            Column("signed_up_at", "TIMESTAMP", nullable=False),
            Column("verified_at", "TIMESTAMP"),
            Column("last_seen_at", "TIMESTAMP"),
            Column("is_admin", "BOOLEAN", nullable=False),
        ],
        primary_key=("id",),
        unique=[("email",), ("username",), ("code",)],
        foreign_keys=[ForeignKey(("team_id",), "teams", ("id",))],
        checks=[
            Check("level BETWEEN 1 AND 60"),
            Check("verified_at > signed_up_at"),
            Check("last_seen_at IS NULL OR last_seen_at >= verified_at"),
        ],
    )


CONFIG = DomainConfig(
    name="x",
    columns={
        "users.verified_at": {"null_rate": 0.5},
        "users.code": {"strategy": "code", "pattern": "U-#####"},
    },
)


def gen(table: Table | None = None, config: DomainConfig = CONFIG, seed: int = 7, **kw) -> TableGenerator:
    return TableGenerator(table or users(), config, seed=seed, exclude=kw.get("exclude", ["team_id"]))


def test_output_columns_in_table_order_without_excluded() -> None:
    batch = gen().generate(10, 0)
    assert batch.column_names == [c.name for c in users().columns if c.name != "team_id"]
    assert batch.schema.field("id").type == pa.int64()
    assert batch.schema.field("level").type == pa.int8()
    assert batch.schema.field("balance").type == pa.decimal128(6, 2)
    assert batch.schema.field("signed_up_at").type == pa.timestamp("us")


def test_deterministic_by_seed_and_start() -> None:
    a, b = gen().generate(500, 1000), gen().generate(500, 1000)
    assert a.equals(b)
    assert not a.equals(gen(seed=8).generate(500, 1000))
    assert a.column("first_name") != gen().generate(500, 0).column("first_name")


def test_keys_are_the_global_row_numbers() -> None:
    assert gen().generate(5, 100).column("id").to_pylist() == [101, 102, 103, 104, 105]


@pytest.mark.parametrize("column", ["id", "email", "username", "code"])
def test_unique_columns_stay_unique_across_batches(column: str) -> None:
    g = gen()
    values = pa.chunked_array([g.generate(3000, 0).column(column), g.generate(3000, 3000).column(column)])
    present = pc.drop_null(values)
    assert len(pc.unique(present)) == len(present)


def test_unique_values_fit_their_length() -> None:
    batch = gen().generate(2000, 98_000)
    assert pc.max(pc.utf8_length(batch.column("username"))).as_py() <= 16
    assert pc.max(pc.utf8_length(batch.column("email"))).as_py() <= 60


def test_not_null_never_null_and_null_rates_roughly_honoured() -> None:
    batch = gen().generate(10_000, 0)
    for name in ("id", "first_name", "email", "signed_up_at", "is_admin"):
        assert batch.column(name).null_count == 0
    assert 0.07 < batch.column("level").null_count / 10_000 < 0.13  # the domain's null_rate, 0.1
    assert 0.45 < batch.column("verified_at").null_count / 10_000 < 0.55  # the hint's


def test_bounds_from_types_and_checks() -> None:
    batch = gen().generate(5000, 0)
    assert pc.min(batch.column("level")).as_py() >= 1 and pc.max(batch.column("level")).as_py() <= 60
    assert pc.max(pc.abs(batch.column("balance"))).as_py() <= 9999.99
    stamps = batch.column("signed_up_at")
    assert pc.min(stamps).as_py() >= datetime(2023, 1, 1)
    assert pc.max(stamps).as_py() < datetime(2026, 7, 1)


def test_after_chains_hold_even_through_nulls() -> None:
    rows = gen().generate(3000, 0).to_pylist()
    for row in rows:
        if row["verified_at"] is not None:
            assert row["verified_at"] > row["signed_up_at"]
        if row["last_seen_at"] is not None and row["verified_at"] is not None:
            assert row["last_seen_at"] >= row["verified_at"]
        if row["last_seen_at"] is not None:
            assert row["last_seen_at"] > row["signed_up_at"]


def test_after_hint_with_gaps() -> None:
    table = Table(
        "subs",
        [
            Column("id", "INTEGER", nullable=False),
            Column("started_at", "TIMESTAMP"),
            Column("ended_at", "TIMESTAMP"),
        ],
        primary_key=("id",),
    )
    config = DomainConfig(
        name="x",
        null_rate=0,
        columns={
            "subs.ended_at": {
                "strategy": "timestamp",
                "after": "started_at",
                "min_gap": "30d",
                "max_gap": "60d",
            }
        },
    )
    for row in TableGenerator(table, config, seed=1).generate(1000, 0).to_pylist():
        gap = (row["ended_at"] - row["started_at"]).total_seconds() / 86400
        assert 30 <= gap <= 60


def test_after_cycle_is_an_error() -> None:
    table = Table(
        "t", [Column("a", "INTEGER"), Column("b", "INTEGER")], checks=[Check("a > b"), Check("b > a")]
    )
    with pytest.raises(DomainError, match="cycle"):
        TableGenerator(table, DomainConfig(name="x"), seed=1)


def test_after_a_foreign_key_column_is_an_error() -> None:
    config = DomainConfig(name="x", columns={"users.level": {"after": "team_id"}})
    with pytest.raises(DomainError, match="team_id"):
        gen(config=config)


def test_sequences_within_groups_continue_across_batches() -> None:
    table = Table(
        "playlist_songs",
        [
            Column("playlist_id", "BIGINT", nullable=False),
            Column("position", "INTEGER", nullable=False),
            Column("side", "VARCHAR(5)"),
        ],
    )
    config = DomainConfig(
        name="x",
        columns={
            "playlist_songs.position": {"strategy": "sequence", "within": ["playlist_id"]},
            "playlist_songs.side": {"expr": "CASE WHEN position <= 2 THEN 'blue' ELSE 'red' END"},
        },
    )
    assert sequence_columns(table, config) == ["position"]
    assert expression_columns(table, config) == ["side"]
    g = TableGenerator(table, config, seed=1, exclude=["playlist_id"])
    counters: dict = {}
    out = []
    for start, groups in ((0, [1, 2, 1]), (3, [2, 1, 3])):
        batch = g.generate(3, start)
        assert (batch.num_columns, batch.num_rows) == (0, 3)  # every column is the engine's or computed later
        batch = batch.append_column("playlist_id", pa.array(groups, pa.int64()))
        batch = apply_expressions(apply_sequences(batch, table, config, counters), table, config)
        assert batch.column_names == ["playlist_id", "position", "side"]
        out += batch.to_pylist()
    assert [(r["playlist_id"], r["position"], r["side"]) for r in out] == [
        (1, 1, "blue"),
        (2, 1, "blue"),
        (1, 2, "blue"),
        (2, 2, "blue"),
        (1, 3, "red"),
        (3, 1, "blue"),
    ]


def test_expression_types_follow_the_column() -> None:
    table = Table("t", [Column("a", "INTEGER"), Column("b", "DECIMAL(8,2)")])
    config = DomainConfig(name="x", columns={"t.b": {"expr": "a / 3"}})
    batch = apply_expressions(pa.table({"a": pa.array([1, 2], pa.int32())}), table, config)
    assert batch.schema.field("b").type == pa.decimal128(8, 2)
    assert [str(v) for v in batch.column("b").to_pylist()] == ["0.33", "0.67"]


def test_bad_expression_names_the_column() -> None:
    table = Table("t", [Column("a", "INTEGER"), Column("b", "INTEGER")])
    config = DomainConfig(name="x", columns={"t.b": {"expr": "nope + 1"}})
    with pytest.raises(SchemaError, match="table t, column b"):
        apply_expressions(pa.table({"a": [1]}), table, config)


def test_unsupported_not_null_type_asks_for_an_expr() -> None:
    table = Table("t", [Column("s", "STRUCT(a INTEGER)", nullable=False)])
    with pytest.raises(SchemaError, match="expr"):
        TableGenerator(table, DomainConfig(name="x"), seed=1).generate(3, 0)


def test_batches_load_into_duckdb_with_the_same_constraints() -> None:
    table = users()
    columns = ", ".join(f"{c.name} {c.type}{'' if c.nullable else ' NOT NULL'}" for c in table.columns)
    uniques = ", ".join(f"UNIQUE ({u[0]})" for u in table.unique)
    checks = ", ".join(f"CHECK ({c.sql})" for c in table.checks)
    con = duckdb.connect()
    con.execute(f"CREATE TABLE users ({columns}, PRIMARY KEY (id), {uniques}, {checks})")
    g = gen()
    for start in (0, 4000):
        batch = g.generate(4000, start)  # noqa: F841 - read by DuckDB's replacement scan
        con.execute("INSERT INTO users BY NAME SELECT * FROM batch")
    assert con.sql("SELECT count(*) FROM users").fetchall() == [(8000,)]
