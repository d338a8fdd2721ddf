"""The domain packs under stateforge/packs/: their domain.yaml follows docs/domain-packs.md, their DDL runs
in DuckDB,
and the rows their hints describe satisfy the DDL's constraints. The business rules are in test_rules.py."""

from __future__ import annotations

import networkx as nx
import pytest

from tests.packs.packs import (
    DISTRIBUTIONS,
    FK_HINT_KEYS,
    HINT_KEYS,
    PACKS,
    PER_PARENT_KEYS,
    RULE_KEYS,
    STRATEGIES,
    TABLE_KEYS,
    TOP_KEYS,
    allowed_values,
    columns,
    connect,
    ddl,
    domain,
    expanded,
    fixed_tables,
    foreign_keys,
    rows_at_scale_one,
    single_column_checks,
    strip_foreign_keys,
    synthesize,
    unique_keys,
)

pytestmark = pytest.mark.parametrize("pack", PACKS)


def test_top_level_keys(pack):
    spec = domain(pack)
    assert set(spec) <= TOP_KEYS
    assert spec["name"] == pack
    assert spec["dialect"] == "duckdb"
    assert len(spec["description"]) > 200, "the description feeds prompts: one real paragraph"
    assert spec["time_window"]["start"] < spec["time_window"]["end"]
    assert 0 <= spec["null_rate"] <= 1


def test_schema_runs_in_duckdb(pack):
    con = connect(pack)
    tables = columns(con)
    assert len(tables) >= 16
    described = {
        t for (t,) in con.sql("SELECT table_name FROM duckdb_tables() WHERE comment IS NOT NULL").fetchall()
    }
    assert set(tables) == described, f"tables without COMMENT ON TABLE: {sorted(set(tables) - described)}"


def test_tables_section(pack):
    tables = columns(connect(pack))
    spec = domain(pack)["tables"]
    assert set(spec) == set(tables), "every table gets its size in domain.yaml, and only tables of the DDL"
    fk_columns = {(fk.table, c) for fk in foreign_keys(pack) for c in fk.columns}
    for table, entry in spec.items():
        assert set(entry) <= TABLE_KEYS, table
        pp = entry.get("per_parent")
        if pp:
            assert set(pp) <= PER_PARENT_KEYS, table
            assert (table, pp["fk"]) in fk_columns, (
                f"{table}: per_parent.fk must be a column of a foreign key"
            )
            if "exactly" in pp:
                assert "rows" not in entry and "min" not in pp and "max" not in pp, table
            elif "quantiles" in pp:  # a declared heavy tail: its sum is the size
                assert "rows" not in entry and 0 <= pp.get("min", 0) <= pp["max"], table
            else:
                assert 0 <= pp["min"] <= pp["max"] and entry["rows"] > 0, table
        else:
            assert entry["rows"] >= 1, table
        if "scale" in entry:
            assert entry["scale"] is False and entry["rows"] >= 1, f"{table}: scale: false keeps rows"
            assert "exactly" not in (pp or {}), table


def test_column_hints(pack):
    con = connect(pack)
    tables = columns(con)
    for key, hint in domain(pack).get("columns", {}).items():
        table, col = key.split(".")
        assert col in tables.get(table, {}), f"hint for unknown column {key}"
        assert set(hint) <= HINT_KEYS, f"{key}: unknown keys {set(hint) - HINT_KEYS}"
        assert hint.get("strategy", "values") in STRATEGIES, key
        assert hint.get("distribution", "uniform") in DISTRIBUTIONS, key
        if "weights" in hint:
            assert len(hint["weights"]) == len(hint["values"]), key
        if "after" in hint:
            assert hint["after"] in tables[table], key
        for within in hint.get("within", []):
            assert within in tables[table], key
        if hint.get("strategy") == "sequence":
            assert hint.get("within"), key
        if "null_rate" in hint:
            assert tables[table][col].nullable, f"{key}: null_rate on a NOT NULL column"
        hint = expanded(hint)
        if "expr" in hint:
            # Binds (every column it names exists) and casts to the column's type.
            con.sql(
                f"SELECT CAST(({hint['expr']}) AS {tables[table][col].type}) FROM {table} LIMIT 0"
            ).fetchall()


def test_foreign_key_hints_shape_the_draw(pack):
    """A hint on a foreign-key column says how the key is drawn (distribution, skew, null_rate) or computes it
    (expr); `distribution` is uniform or zipf there, and popularity is not given to self-references."""
    fk_columns = {(fk.table, c): fk for fk in foreign_keys(pack) for c in fk.columns}
    for key, hint in domain(pack).get("columns", {}).items():
        table, col = key.split(".")
        fk = fk_columns.get((table, col))
        if fk is None:
            assert "skew" not in hint, f"{key}: skew is for foreign keys"
            continue
        assert set(hint) <= FK_HINT_KEYS, f"{key}: a foreign-key column takes {sorted(FK_HINT_KEYS)}"
        assert hint.get("distribution", "uniform") in ("uniform", "zipf"), key
        if "distribution" in hint or "skew" in hint:
            assert fk.ref_table != table and "expr" not in hint, key
        assert 0 <= hint.get("skew", 0) <= 5, key


def test_listed_values_satisfy_the_column(pack):
    """Every `values`/`constant` entry casts to the column's type, fits VARCHAR(n) and passes its CHECKs."""
    con = connect(pack)
    tables = columns(con)
    checks = single_column_checks(con)
    for key, hint in domain(pack).get("columns", {}).items():
        table, col = key.split(".")
        listed = hint.get("values", []) + ([hint["constant"]] if "constant" in hint else [])
        dtype = tables[table][col].type
        for value in listed:
            cast = con.execute(f"SELECT TRY_CAST(? AS {dtype})", [str(value)]).fetchone()[0]
            assert cast is not None, f"{key}: {value!r} is not a {dtype}"
            if dtype.startswith("VARCHAR("):
                assert len(str(value)) <= int(dtype[8:-1]), f"{key}: {value!r} is longer than {dtype}"
            for expr in checks.get((table, col), []):
                ok = con.execute(
                    f"SELECT {expr} FROM (SELECT CAST(? AS {dtype}) AS {col})", [str(value)]
                ).fetchone()
                assert ok[0] is not False, f"{key}: {value!r} breaks CHECK {expr}"


def test_unique_columns_have_enough_listed_values(pack):
    con = connect(pack)
    hints = domain(pack).get("columns", {})
    sizes = rows_at_scale_one(pack)
    for table, keys in unique_keys(con).items():
        for key in keys:
            if len(key) == 1 and "values" in hints.get(f"{table}.{key[0]}", {}):
                listed = set(hints[f"{table}.{key[0]}"]["values"])
                assert sizes[table] <= len(listed), f"{table}.{key[0]} is UNIQUE: at most {len(listed)} rows"
                assert table in fixed_tables(pack), f"{table}: a larger --scale runs out of names"


def test_rows_at_scale_one(pack):
    total = sum(rows_at_scale_one(pack).values())
    assert 50_000 <= total <= 300_000, total


def test_foreign_keys_resolve(pack):
    """Every foreign key names existing columns of the same types and references a PRIMARY KEY or UNIQUE."""
    con = connect(pack)
    tables = columns(con)
    keys = unique_keys(con)
    for fk in foreign_keys(pack):
        assert fk.ref_table in tables, fk
        assert len(fk.columns) == len(fk.ref_columns), fk
        assert fk.ref_columns in keys.get(fk.ref_table, []), f"{fk}: target is not a key"
        for c, rc in zip(fk.columns, fk.ref_columns, strict=True):
            assert tables[fk.table][c].type == tables[fk.ref_table][rc].type, (
                f"{fk}: {c} and {rc} differ in type"
            )


def test_keys_and_cycles(pack):
    """Each pack has composite keys, a composite foreign key, and a self-reference or cycle broken by a
    nullable foreign key."""
    con = connect(pack)
    tables = columns(con)
    fks = foreign_keys(pack)
    assert any(len(fk.columns) > 1 for fk in fks), "no composite foreign key"
    assert any(len(k) > 1 for ks in unique_keys(con).values() for k in ks), "no composite key"
    graph = nx.MultiDiGraph()
    for fk in fks:
        graph.add_edge(fk.ref_table, fk.table, fk=fk)
    cycles = list(nx.simple_cycles(graph))
    assert cycles, "no self-reference or foreign-key cycle"
    for cycle in cycles:
        edges = [(a, b) for a, b in zip(cycle, cycle[1:] + cycle[:1], strict=True)]
        nullable = [
            data["fk"]
            for a, b in edges
            for data in graph.get_edge_data(a, b).values()
            if all(tables[data["fk"].table][c].nullable for c in data["fk"].columns)
        ]
        assert nullable, f"cycle {cycle} has no nullable foreign key to break it"


def test_check_lists_match_declared_values(pack):
    """A `values` hint on a column with a CHECK (... IN (...)) list never offers a value outside the list."""
    for key, hint in domain(pack).get("columns", {}).items():
        table, col = key.split(".")
        allowed = allowed_values(pack, table, col)
        if allowed and "values" in hint:
            assert {str(v) for v in hint["values"]} <= set(allowed), key


@pytest.mark.parametrize("wide", [False, True], ids=["declared-types", "wide-types"])
def test_hinted_rows_satisfy_constraints(pack, wide):
    """Rows made the way the hints describe (exprs last) pass every PK, UNIQUE, NOT NULL and CHECK, whether
    the exprs read the declared column types or wide ones (int64, float64, str)."""
    con = connect(pack)
    sizes = rows_at_scale_one(pack)
    for table in columns(con):
        synthesize(con, pack, table, min(sizes[table], 60), wide=wide)


def test_lookup_tables_survive_a_larger_scale(pack):
    """Small tables whose names come from an expr list stay unique when a larger scale adds rows."""
    con = connect(pack)
    hints = domain(pack).get("columns", {})
    sizes = rows_at_scale_one(pack)
    for table, keys in unique_keys(con).items():
        listed = any(len(k) == 1 and "values" in hints.get(f"{table}.{k[0]}", {}) for k in keys)
        if sizes[table] <= 100 and not listed and table not in fixed_tables(pack):
            synthesize(con, pack, table, 3 * sizes[table])


def test_rule_checks_hold_on_an_empty_database(pack):
    con = connect(pack)
    rules = domain(pack)["rules"]
    assert len({r["name"] for r in rules}) == len(rules)
    for rule in rules:
        assert set(rule) <= RULE_KEYS and {"name", "description", "check", "repair"} <= set(rule), rule[
            "name"
        ]
        assert isinstance(rule["repair"], list) and rule["repair"], rule["name"]
        assert con.sql(rule["check"]).fetchall() == [], rule["name"]
        for statement in rule["repair"]:
            con.execute(statement)


def test_foreign_keys_are_stripped_for_duckdb(pack):
    """The FK stripping these tests rely on removes every REFERENCES clause and keeps every CREATE TABLE."""
    stripped = strip_foreign_keys(ddl(pack))
    assert "REFERENCES" not in stripped.upper()
    assert stripped.count("CREATE TABLE") == ddl(pack).count("CREATE TABLE")
    assert {fk.table for fk in foreign_keys(pack)} <= set(columns(connect(pack)))


def test_ddl_parses_with_sqlglot(pack):
    """sqlglot (the parser's base) reads every CREATE TABLE with its columns' types and the table comments."""
    import logging

    import sqlglot
    from sqlglot import exp

    logger = logging.getLogger("sqlglot")
    level = logger.level
    logger.setLevel(logging.ERROR)  # CREATE TYPE ... AS ENUM falls back to a Command, with a warning
    try:
        statements = sqlglot.parse(ddl(pack), read="duckdb")
    finally:
        logger.setLevel(level)
    creates = [s for s in statements if isinstance(s, exp.Create) and s.args.get("kind") == "TABLE"]
    tables = columns(connect(pack))
    assert {c.this.this.name for c in creates} == set(tables)
    for create in creates:
        parsed = {cd.name: cd.args.get("kind") for cd in create.find_all(exp.ColumnDef)}
        assert set(parsed) == set(tables[create.this.this.name]), create.this.this.name
        assert all(kind is not None for kind in parsed.values()), create.this.this.name
    comments = {
        s.this.name for s in statements if isinstance(s, exp.Comment) and s.args.get("kind") == "TABLE"
    }
    assert comments == set(tables)
