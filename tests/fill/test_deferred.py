"""The second pass: deferred keys drawn (with the hinted popularity) or computed from expr / values /
constant hints, with values that point nowhere set NULL and loops of a self-reference cut."""

from __future__ import annotations

import duckdb
import pytest

from stateforge.domain import DomainConfig
from stateforge.errors import DomainError
from stateforge.fill import check_config
from stateforge.fill.deferred import fill_deferred
from stateforge.graph import plan_fill
from stateforge.schema.model import Check, Column, ForeignKey, Schema, Table
from stateforge.store import create_tables

UNITS = 200
PEOPLE = 50
PARENT = "units(parent_id) -> units(id)"
HEAD = "units(head_id) -> people(id)"


def org_schema() -> Schema:
    """units.parent_id is a self-reference; units.head_id <-> people.unit_id is a cycle (head nullable)."""
    return Schema([
        Table("units", [Column("id", "INTEGER", nullable=False), Column("parent_id", "INTEGER"),
                        Column("head_id", "INTEGER"), Column("name", "VARCHAR(20)", length=20)],
              primary_key=("id",),
              foreign_keys=[ForeignKey(("parent_id",), "units", ("id",), on_delete="SET NULL"),
                            ForeignKey(("head_id",), "people", ("id",), on_delete="SET NULL")],
              checks=[Check("parent_id IS NULL OR parent_id <> id", ("parent_id", "id"))]),
        Table("people", [Column("id", "INTEGER", nullable=False),
                         Column("unit_id", "INTEGER", nullable=False)],
              primary_key=("id",), foreign_keys=[ForeignKey(("unit_id",), "units", ("id",))]),
    ])


@pytest.fixture
def org() -> tuple[duckdb.DuckDBPyConnection, Schema]:
    """Rows written by a first pass: the deferred keys NULL."""
    schema = org_schema()
    con = duckdb.connect()
    create_tables(con, schema, plan_fill(schema))
    con.execute(f"INSERT INTO units SELECT i, NULL, NULL, 'unit ' || i FROM range(1, {UNITS + 1}) r(i)")
    con.execute(f"INSERT INTO people SELECT i, 1 + i % {UNITS} FROM range(1, {PEOPLE + 1}) r(i)")
    return con, schema


def run(org, columns: dict[str, dict], seed: int = 3) -> dict[str, int]:
    con, schema = org
    config = DomainConfig.model_validate({"name": "org", "columns": columns})
    check_config(config, schema)
    return fill_deferred(con, schema, plan_fill(schema), config, seed=seed)


def parents(con: duckdb.DuckDBPyConnection) -> dict[int, int | None]:
    return dict(con.execute("SELECT id, parent_id FROM units ORDER BY id").fetchall())


def acyclic(con: duckdb.DuckDBPyConnection) -> bool:
    [(loops,)] = con.execute(f"""
        WITH RECURSIVE walk(start, node, depth) AS (
            SELECT id, parent_id, 1 FROM units WHERE parent_id IS NOT NULL
            UNION ALL SELECT w.start, u.parent_id, w.depth + 1 FROM walk w JOIN units u ON u.id = w.node
            WHERE u.parent_id IS NOT NULL AND w.node <> w.start AND w.depth <= {UNITS})
        SELECT count(*) FROM walk WHERE node = start""").fetchall()
    return loops == 0


TREE = "CASE WHEN id = 1 THEN NULL ELSE (id - 2) // 4 + 1 END"


def test_an_expr_gives_a_self_reference_its_shape(org):
    filled = run(org, {"units.parent_id": {"expr": TREE}})
    assert parents(org[0]) == {i: None if i == 1 else (i - 2) // 4 + 1 for i in range(1, UNITS + 1)}
    assert filled[PARENT] == UNITS - 1
    assert filled[f"{PARENT}: no parent, set NULL"] == filled[f"{PARENT}: cycles cut"] == 0
    assert filled[HEAD] > 0 and f"{HEAD}: cycles cut" not in filled  # drawn as before


def test_values_that_point_nowhere_are_set_null_and_counted(org):
    filled = run(org, {"units.parent_id": {"expr": "CASE WHEN id % 2 = 0 THEN id + 1000 ELSE id - 1 END"}})
    got = parents(org[0])
    assert all(got[i] is None for i in range(2, UNITS + 1, 2))  # 1002, 1004, ... do not exist
    assert got[1] is None and got[3] == 2  # unit 0 does not exist either
    assert filled[f"{PARENT}: no parent, set NULL"] == UNITS // 2 + 1
    assert filled[PARENT] == UNITS // 2 - 1


def test_loops_are_cut_at_their_lowest_row(org):
    # 1 -> 2 -> ... -> 10 -> 1, 11 -> ... -> 20 -> 11, ...: twenty loops of ten
    loop = "CASE WHEN id % 10 = 0 THEN id - 9 ELSE id + 1 END"
    filled = run(org, {"units.parent_id": {"expr": loop}})
    con = org[0]
    got = parents(con)
    assert filled[f"{PARENT}: cycles cut"] == UNITS // 10
    assert [i for i, p in got.items() if p is None] == list(range(1, UNITS, 10))
    assert acyclic(con)


def test_a_constant_self_reference_becomes_a_star(org):
    filled = run(org, {"units.parent_id": {"constant": 1}})
    got = parents(org[0])
    assert got[1] is None and set(list(got.values())[1:]) == {1}  # unit 1 pointed at itself: cut
    assert filled[f"{PARENT}: cycles cut"] == 1


def test_values_on_a_deferred_key_are_drawn_and_checked(org):
    hint = {"values": [1, 2, 999], "weights": [0.5, 0.3, 0.2], "null_rate": 0.1}
    filled = run(org, {"units.head_id": hint})
    heads = [h for (h,) in org[0].execute("SELECT head_id FROM units").fetchall()]
    assert set(heads) <= {1, 2, None}
    dangling = filled[f"{HEAD}: no parent, set NULL"]
    assert 20 < dangling < 60 and filled[HEAD] + dangling < UNITS  # 999 is nobody; some NULL by null_rate


def test_a_drawn_deferred_key_follows_the_hinted_skew(org):
    def share_of_top_head(columns: dict) -> float:
        run(org, columns)
        counts = [n for (n,) in org[0].execute(
            "SELECT count(*) FROM units WHERE head_id IS NOT NULL GROUP BY head_id").fetchall()]
        return max(counts) / sum(counts)

    uniform = share_of_top_head({"units.head_id": {"distribution": "uniform"}})
    assert uniform < 0.1 and share_of_top_head({}) > 2 * uniform  # 50 people: the default law is skewed


def test_the_second_pass_is_idempotent_and_deterministic(org):
    columns = {"units.parent_id": {"expr": "CASE WHEN id % 10 = 0 THEN id - 9 ELSE id + 1 END"},
               "units.head_id": {"values": [1, 2, 3, 404]}}
    first = run(org, columns)
    before = org[0].execute("SELECT * FROM units ORDER BY id").fetchall()
    assert run(org, columns) == first
    assert org[0].execute("SELECT * FROM units ORDER BY id").fetchall() == before
    other = run(org, columns, seed=4)
    assert other[PARENT] == first[PARENT]  # the expr does not depend on the seed; the values draw does
    assert other[f"{PARENT}: cycles cut"] == first[f"{PARENT}: cycles cut"] == UNITS // 10


def test_an_expr_duckdb_rejects_is_a_domain_error(org):
    with pytest.raises(DomainError, match=r"columns\.units\.parent_id\.expr: DuckDB could not compute it"):
        run(org, {"units.parent_id": {"expr": "no_such_column + 1"}})


def test_listed_values_of_the_wrong_type_are_a_domain_error(org):
    with pytest.raises(DomainError, match=r"columns\.units\.head_id: the listed values are not of the"):
        run(org, {"units.head_id": {"values": ["alice", "bob"]}})


VERSIONS = 200
ITEMS = 5
PREVIOUS = "versions(previous_id) -> versions(id)"


@pytest.fixture
def versions() -> tuple[duckdb.DuckDBPyConnection, Schema]:
    """versions.previous_id is a self-reference inside UNIQUE (item_id, previous_id): two versions of one
    item may not follow the same version. The first pass wrote the rows, previous_id NULL."""
    schema = Schema([
        Table("versions", [Column("id", "INTEGER", nullable=False),
                           Column("item_id", "INTEGER", nullable=False), Column("previous_id", "INTEGER")],
              primary_key=("id",), unique=[("item_id", "previous_id")],
              foreign_keys=[ForeignKey(("previous_id",), "versions", ("id",))]),
    ])
    con = duckdb.connect()
    create_tables(con, schema, plan_fill(schema))
    con.execute(f"INSERT INTO versions SELECT i, 1 + i % {ITEMS}, NULL FROM range(1, {VERSIONS + 1}) r(i)")
    return con, schema


def clashes(con: duckdb.DuckDBPyConnection) -> int:
    return con.execute("SELECT count(*) - count(DISTINCT (item_id, previous_id)) FROM versions "
                       "WHERE previous_id IS NOT NULL").fetchall()[0][0]


def test_a_drawn_self_reference_keeps_the_unique_key_it_belongs_to(versions):
    filled = run(versions, {})
    con = versions[0]
    assert clashes(con) == 0
    assert filled[PREVIOUS] > VERSIONS * 0.8, "clashing draws are redrawn, not dropped"
    assert filled[PREVIOUS] == con.execute("SELECT count(previous_id) FROM versions").fetchall()[0][0]
    # Run again (a resumed build): the columns are reset first, the result is the same.
    before = con.execute("SELECT * FROM versions ORDER BY id").fetchall()
    assert run(versions, {}) == filled
    assert con.execute("SELECT * FROM versions ORDER BY id").fetchall() == before


def test_a_computed_self_reference_sets_the_clashing_rows_null_and_counts_them(versions):
    filled = run(versions, {"versions.previous_id": {"expr": "1"}})  # every version follows version 1
    con = versions[0]
    assert clashes(con) == 0
    # Version 1 pointing at itself is a loop, cut; of the others, one version per item may follow it.
    assert filled[f"{PREVIOUS}: cycles cut"] == 1
    assert filled[PREVIOUS] == ITEMS
    assert filled[f"{PREVIOUS}: UNIQUE kept, set NULL"] == VERSIONS - 1 - ITEMS
    assert con.execute("SELECT count(DISTINCT item_id) FROM versions WHERE previous_id = 1").fetchall() == [
        (ITEMS,)
    ]


def test_keys_no_check_or_unique_key_reads_are_updated_in_place_with_the_same_result(org, monkeypatch):
    """units.head_id (read by no CHECK or key) is set by an UPDATE of its rows, parent_id (read by a
    CHECK beside the primary key) by a rewrite; forcing the rewrite everywhere gives the same rows."""
    import stateforge.fill.deferred as deferred

    con, schema = org
    units = schema.table("units")
    assert deferred.in_place(units, ["head_id"]) and not deferred.in_place(units, ["parent_id"])
    assert not deferred.in_place(units, ["id"])  # a key column
    first = run(org, {})
    rows = con.execute("SELECT * FROM units ORDER BY id").fetchall()
    assert sum(head is not None for *_, head, _ in rows) == first[HEAD] > 0
    again = duckdb.connect()
    create_tables(again, schema, plan_fill(schema))
    again.execute(f"INSERT INTO units SELECT i, NULL, NULL, 'unit ' || i FROM range(1, {UNITS + 1}) r(i)")
    again.execute(f"INSERT INTO people SELECT i, 1 + i % {UNITS} FROM range(1, {PEOPLE + 1}) r(i)")
    monkeypatch.setattr(deferred, "in_place", lambda table, columns: False)
    assert run((again, schema), {}) == first
    assert again.execute("SELECT * FROM units ORDER BY id").fetchall() == rows


def test_a_rewrite_pairs_the_new_values_with_their_rows_past_row_groups_and_deleted_rows():
    """The rewrite lines the new values up with the stored rows and pairs them by position: over several
    row groups, rows stored out of key order and rowids left by deleted rows, every row must get its own
    value (the in-place UPDATE, which matches by key, is the reference)."""
    import numpy as np
    import pyarrow as pa

    from stateforge.fill.deferred import _update

    n = 300_000  # past two of DuckDB's 122,880-row groups, so the scan is split among threads
    table = Table("items", [Column("id", "BIGINT", nullable=False), Column("ref", "BIGINT"),
                            Column("note", "VARCHAR")], primary_key=("id",))
    schema = Schema([table])
    ids = np.random.default_rng(5).permutation(n) + 1
    built = []
    for _ in range(2):
        con = duckdb.connect()
        create_tables(con, schema, plan_fill(schema))
        con.register("src", pa.table({"id": ids, "ref": pa.nulls(n, pa.int64()), "note": ids.astype(str)}))
        con.execute("INSERT INTO items SELECT * FROM src")
        con.execute("DELETE FROM items WHERE id % 1000 = 7")  # holes in the rowids
        built.append(con)
    rows = built[0].sql('SELECT id AS "__sf_id_id" FROM items ORDER BY id').to_arrow_table()
    key = rows.column(0).to_numpy()
    chosen = key % 3 != 0
    values = {"ref": pa.array((key * 7919) % 100_003)}
    for con, rewrite in zip(built, (False, True), strict=True):
        _update(con, table, ["id"], rows, chosen, values, rewrite=rewrite)
    stored = [con.execute("SELECT id, ref, note FROM items ORDER BY rowid").fetchall() for con in built]
    assert stored[1] == stored[0]
    assert sum(ref is not None for _, ref, _ in stored[1]) == int(chosen.sum())
