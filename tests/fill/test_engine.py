"""The fill engine end to end on a small hand-built schema, built through the build's stages
(`stateforge.build.run_build`, as the CLI and the flow run them) into a real DuckDB file.

The game schema has every shape the engine must handle: a text primary key, a self-reference
(users.referrer_id), a cycle broken at a nullable key (users.best_team_id <-> teams.owner_id), a cycle of
NOT NULL keys (departments.head_id <-> staff.department_id), a link table with a composite primary key
(memberships), a composite foreign key into it (match_players), per_parent fan-out, UNIQUE columns, and
CHECKs over one column and between columns.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import pyarrow as pa
import pytest

from stateforge.build import STAGES, BuildRun, build_domain, run_build
from stateforge.domain import DomainConfig, DomainPack
from stateforge.errors import BuildError
from stateforge.fill.engine import fill_table
from stateforge.fill.report import TableReport
from stateforge.fill.sizing import plan_rows
from stateforge.graph import FillPlan, plan_fill
from stateforge.schema.model import Check, Column, ForeignKey, Schema, Table
from stateforge.store import create_tables, table_hashes
from stateforge.validation.audit import audit


def game_schema() -> Schema:
    """A fresh copy of the game schema."""
    regions = Table(
        "regions",
        [Column("code", "VARCHAR(8)", nullable=False, length=8),
         Column("name", "VARCHAR(40)", nullable=False, length=40)],
        primary_key=("code",),
    )
    users = Table(
        "users",
        [
            Column("id", "BIGINT", nullable=False),
            Column("email", "VARCHAR(60)", nullable=False, length=60),
            Column("region", "VARCHAR(8)", nullable=False, length=8),
            Column("referrer_id", "BIGINT"),
            Column("best_team_id", "INTEGER"),
            Column("age", "INTEGER"),
        ],
        primary_key=("id",),
        unique=[("email",)],
        foreign_keys=[
            ForeignKey(("region",), "regions", ("code",)),
            ForeignKey(("referrer_id",), "users", ("id",), on_delete="SET NULL"),
            ForeignKey(("best_team_id",), "teams", ("id",)),
        ],
        checks=[Check("age BETWEEN 13 AND 120", ("age",))],
    )
    teams = Table(
        "teams",
        [
            Column("id", "INTEGER", nullable=False),
            Column("owner_id", "BIGINT", nullable=False),
            Column("name", "VARCHAR(30)", nullable=False, length=30),
            Column("created", "DATE"),
            Column("updated", "DATE"),
        ],
        primary_key=("id",),
        unique=[("name",)],
        foreign_keys=[ForeignKey(("owner_id",), "users", ("id",), on_delete="CASCADE")],
        checks=[Check("updated >= created", ("updated", "created"))],
    )
    memberships = Table(
        "memberships",
        [
            Column("team_id", "INTEGER", nullable=False),
            Column("user_id", "BIGINT", nullable=False),
            Column("role", "VARCHAR", nullable=False, allowed_values=["owner", "member", "coach"]),
        ],
        primary_key=("team_id", "user_id"),
        foreign_keys=[
            ForeignKey(("team_id",), "teams", ("id",), on_delete="CASCADE"),
            ForeignKey(("user_id",), "users", ("id",), on_delete="CASCADE"),
        ],
    )
    matches = Table(
        "matches",
        [
            Column("id", "BIGINT", nullable=False),
            Column("team_id", "INTEGER", nullable=False),
            Column("score", "INTEGER", nullable=False),
            Column("max_score", "INTEGER", nullable=False),
            Column("prize", "DECIMAL(6,2)", precision=6, scale=2),
        ],
        primary_key=("id",),
        foreign_keys=[ForeignKey(("team_id",), "teams", ("id",), on_delete="CASCADE")],
        # the generator cannot make `score % 10 <> 7` true by construction: the engine's repairs must
        checks=[Check("score <= max_score", ("score", "max_score")), Check("prize >= 0", ("prize",)),
                Check("score % 10 <> 7", ("score",))],
    )
    players = Table(
        "match_players",
        [
            Column("match_id", "BIGINT", nullable=False),
            Column("team_id", "INTEGER", nullable=False),
            Column("user_id", "BIGINT", nullable=False),
            Column("kills", "SMALLINT"),
        ],
        primary_key=("match_id", "team_id", "user_id"),
        foreign_keys=[
            ForeignKey(("match_id",), "matches", ("id",), on_delete="CASCADE"),
            ForeignKey(("team_id", "user_id"), "memberships", ("team_id", "user_id"), on_delete="CASCADE"),
        ],
    )
    departments = Table(
        "departments",
        [Column("id", "INTEGER", nullable=False), Column("head_id", "INTEGER", nullable=False),
         Column("title", "VARCHAR(40)", nullable=False, length=40)],
        primary_key=("id",),
        foreign_keys=[ForeignKey(("head_id",), "staff", ("id",))],
    )
    staff = Table(
        "staff",
        [Column("id", "INTEGER", nullable=False), Column("department_id", "INTEGER", nullable=False),
         Column("manager_id", "INTEGER"), Column("salary", "DECIMAL(8,2)", precision=8, scale=2)],
        primary_key=("id",),
        foreign_keys=[
            ForeignKey(("department_id",), "departments", ("id",)),
            ForeignKey(("manager_id",), "staff", ("id",)),
        ],
        checks=[Check("salary > 0", ("salary",))],
    )
    return Schema([regions, users, teams, memberships, matches, players, departments, staff])


def game_config(**overrides: object) -> DomainConfig:
    """The game domain's config: per_parent fan-out and a few hints."""
    data: dict[str, object] = {
        "name": "game",
        "seed": 11,
        "batch_size": 50,
        "tables": {
            "regions": {"rows": 6},
            "users": {"rows": 200},
            "teams": {"rows": 40},
            "memberships": {"rows": 300},
            "matches": {"per_parent": {"fk": "team_id", "min": 1, "max": 5}, "rows": 120},
            "match_players": {"rows": 400},
            "departments": {"rows": 8},
            "staff": {"rows": 60},
        },
        "columns": {"users.age": {"strategy": "int", "min": 13, "max": 90},
                    "matches.score": {"strategy": "int", "min": 0, "max": 60},
                    "matches.max_score": {"strategy": "int", "min": 60, "max": 100}},
    }
    data.update(overrides)
    return DomainConfig.model_validate(data)


def game() -> tuple[Schema, FillPlan, DomainConfig]:
    schema = game_schema()
    return schema, plan_fill(schema), game_config()


# --- helpers ----------------------------------------------------------------------------------------


def new_db(path: Path, schema: Schema, plan: FillPlan) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect(str(path))
    create_tables(con, schema, plan)
    return con


def build(schema: Schema, config: DomainConfig, out: Path, **options: object) -> dict:
    """Build the in-memory pack into `out` with every stage; the build report."""
    return build_domain(DomainPack.of(schema, config), out=out, **options)


def hashes(out: Path, schema: Schema) -> dict[str, str]:
    with duckdb.connect(str(out / "game.duckdb"), read_only=True) as con:
        return table_hashes(con, schema)


@pytest.fixture(scope="module")
def filled(tmp_path_factory: pytest.TempPathFactory):
    """The game domain built once: (connection, schema, plan, config, sizes, report, tables, batches)."""
    schema, plan, config = game()
    rows = plan_rows(schema, plan, config)
    out = tmp_path_factory.mktemp("fill")
    seen: list[str] = []
    batches: list[tuple[str, int, int]] = []
    report = build(schema, config, out, seed=5, on_table_start=lambda t, n: seen.append(t),
                   on_batch=lambda *a: batches.append(a))
    con = duckdb.connect(str(out / "game.duckdb"), read_only=True)
    yield con, schema, plan, config, rows, report, seen, batches
    con.close()


# --- end to end -------------------------------------------------------------------------------------


def test_fill_passes_the_audit_with_the_planned_row_counts(filled):
    con, schema, plan, config, rows, report, seen, _ = filled
    checked = audit(con, schema)
    assert checked.clean, checked.summary()
    assert checked.tables == {t: report_rows(report, t) for t in checked.tables}
    assert {t["table"]: t["rows"] for t in report["tables"]} == rows
    assert seen == plan.order == [t["table"] for t in report["tables"]]
    assert report["totals"]["violations"] == 0 and report["resumed_tables"] == []


def report_rows(report: dict, table: str) -> int:
    return next(t["rows"] for t in report["tables"] if t["table"] == table)


def test_repairs_are_counted_and_batches_reported(filled):
    _, _, _, config, rows, report, _, batches = filled
    matches = next(t for t in report["tables"] if t["table"] == "matches")
    assert matches["repairs"].get("drop_invalid", 0) > 0  # score % 10 = 7 rows were replaced
    assert matches["batches"] == -(-rows["matches"] // config.batch_size)
    last = {table: (written, total) for table, written, total in batches}
    assert last == {t: (rows[t], rows[t]) for t in rows}
    assert report["totals"]["rows"] == sum(rows.values())


def test_second_pass_fills_deferred_keys_as_forests(filled):
    con, *_ , report, _, _ = filled
    assert set(report["deferred"]) == {"users(referrer_id) -> users(id)", "users(best_team_id) -> teams(id)",
                                    "staff(manager_id) -> staff(id)"}
    for table, key in (("users", "referrer_id"), ("staff", "manager_id")):
        first = con.execute(f"SELECT {key} FROM {table} ORDER BY id LIMIT 1").fetchall()[0]
        assert first == (None,)  # the first rows are roots
        assert con.execute(f"SELECT count(*) FROM {table} WHERE {key} >= id").fetchall()[0] == (0,)
        assert con.execute(f"SELECT count(*) FROM {table} WHERE {key} IS NOT NULL").fetchall()[0][0] > 0


def test_not_null_cycle_keys_exist_and_per_parent_holds(filled):
    con, *_ = filled
    heads = "SELECT count(*) FROM departments d ANTI JOIN staff s ON s.id = d.head_id"
    dangling = con.execute(heads).fetchall()
    assert dangling == [(0,)]
    per_team = "SELECT min(n), max(n) FROM (SELECT count(*) n FROM matches GROUP BY team_id)"
    low, high = con.execute(per_team).fetchall()[0]
    assert 1 <= low and high <= 5


def test_two_fills_are_identical(filled, tmp_path):
    con, schema, plan, config, rows, *_ = filled
    build(schema, config, tmp_path / "again", seed=5)
    assert hashes(tmp_path / "again", schema) == table_hashes(con, schema)
    build(schema, config, tmp_path / "seed6", seed=6)
    assert hashes(tmp_path / "seed6", schema)["users"] != table_hashes(con, schema)["users"]


class Interrupted(Exception):
    pass


def stop_at(table: str):
    """A runner that runs the stages in order and stops the build where the fill of `table` would start."""
    def runner(stage, label, work):
        if label == f"fill-{table}":
            raise Interrupted(label)
        work()
    return runner


def test_resume_after_an_interrupted_build_gives_the_same_database(filled, tmp_path):
    con, schema, plan, config, rows, report, *_ = filled
    out = tmp_path / "out"
    run = BuildRun(DomainPack.of(schema, config), seed=5, out=out)
    with pytest.raises(Interrupted):
        run_build(run, runner=stop_at(plan.order[3]))
    assert not (out / "game.duckdb").exists()
    with duckdb.connect(str(out / ".game.duckdb.partial")) as partial:  # rows of an unrecorded table
        fill_table(partial, schema, plan, config, plan.order[3], seed=5, rows=5)
    resumed = build(schema, config, out, seed=5, resume=True)
    assert resumed["resumed_tables"] == plan.order[:3]
    assert [t["table"] for t in resumed["tables"]] == plan.order
    assert hashes(out, schema) == table_hashes(con, schema)
    assert [s.name for s in STAGES] == ["parse-and-plan", "open-database", "fill-table",
                                        "second-pass-and-rules", "audit", "publish"]


def test_record_runs_inside_the_table_transaction(tmp_path):
    schema, plan, config = game()
    con = new_db(tmp_path / "record.duckdb", schema, plan)
    con.execute("CREATE TABLE progress (t VARCHAR, n INTEGER)")
    def record(c: duckdb.DuckDBPyConnection, r: TableReport) -> None:
        c.execute("INSERT INTO progress VALUES (?, ?)", [r.table, r.rows]).fetchall()

    report = fill_table(con, schema, plan, config, "regions", seed=1, rows=4, record=record)
    assert con.execute("SELECT * FROM progress").fetchall() == [("regions", 4)] and report.rows == 4

    def boom(c, r):
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        fill_table(con, schema, plan, config, "regions", seed=2, rows=6, record=boom)
    assert con.execute("SELECT count(*) FROM regions").fetchall()[0] == (4,)  # rolled back, nothing lost


RULES = [
    {"name": "owners_are_adults",
     "check": "SELECT t.id FROM teams t JOIN users u ON u.id = t.owner_id WHERE u.age < 60",
     "repair": ["UPDATE users SET age = 60 WHERE age < 60 AND id IN (SELECT owner_id FROM teams)"]},
    {"name": "no_odd_teams", "check": "SELECT id FROM teams WHERE id % 2 = 1",
     "repair": ["DELETE FROM teams WHERE id % 2 = 1"]},
]


def test_rules_run_after_the_fill_and_their_orphans_are_cleaned(tmp_path):
    schema, _, _ = game()
    report = build(schema, game_config(rules=RULES), tmp_path / "ruled", seed=5, scale=0.5)
    # The same build without rules is the state the rules start from (the fill never reads them): every
    # count the report gives is computed again from that data.
    build(schema, game_config(), tmp_path / "plain", seed=5, scale=0.5)
    with duckdb.connect(str(tmp_path / "plain" / "game.duckdb"), read_only=True) as before:
        def count(sql: str) -> int:
            return before.execute(f"SELECT count(*) FROM {sql}").fetchall()[0][0]

        young_owned_teams = count("teams t JOIN users u ON u.id = t.owner_id WHERE u.age < 60")
        young_owners = count("users WHERE age < 60 AND id IN (SELECT owner_id FROM teams)")
        odd_teams = count("teams WHERE id % 2 = 1")
        cascade = {
            "delete memberships(team_id)": count("memberships WHERE team_id % 2 = 1"),
            "delete matches(team_id)": count("matches WHERE team_id % 2 = 1"),
            "set_null users(best_team_id)": count("users WHERE best_team_id % 2 = 1"),
        }
        lost_players = count("match_players WHERE team_id % 2 = 1 "
                             "OR match_id IN (SELECT id FROM matches WHERE team_id % 2 = 1)")
    # The declared rules, by name (the report also lists the time order inferred from the schema's columns).
    by_name = {rule["name"]: rule for rule in report["rules"]}
    adults, odd = by_name["owners_are_adults"], by_name["no_odd_teams"]
    assert young_owned_teams > young_owners > 0  # an owner of several teams is one row to repair
    assert (adults["found"], adults["repaired"], adults["rounds"], adults["orphans"]) == (
        young_owned_teams, young_owners, 1, {})
    assert (odd["found"], odd["repaired"], odd["rounds"]) == (odd_teams, odd_teams, 1)
    players = {k: v for k, v in odd["orphans"].items() if k.startswith("delete match_players")}
    assert {k: v for k, v in odd["orphans"].items() if k not in players} == cascade
    assert sum(players.values()) == lost_players > 0
    with duckdb.connect(str(tmp_path / "ruled" / "game.duckdb"), read_only=True) as after:
        for rule in RULES:  # what the rules say now holds: their checks find nothing
            assert after.execute(rule["check"]).fetchall() == [], rule["name"]
        checked = audit(after, schema)
    assert checked.clean, checked.summary()


def test_a_check_no_row_can_pass_is_a_build_error_naming_it(tmp_path):
    columns = [Column("id", "INTEGER", nullable=False), Column("v", "INTEGER", nullable=False)]
    schema = Schema([Table("t", columns, primary_key=("id",), checks=[Check("v <> v", ("v",))])])
    with pytest.raises(BuildError, match=r"table t: the generator cannot satisfy CHECK \(v <> v\): .*a "
                       r"`values` or `expr` hint in domain.yaml \(columns.t.v\)"):
        build(schema, DomainConfig(name="bad"), tmp_path, seed=1, rows=10)
    assert not (tmp_path / "bad.duckdb").exists()


def test_an_enrich_hook_rewrites_batches_before_validation(tmp_path):
    schema, plan, config = game()
    con = new_db(tmp_path / "enrich.duckdb", schema, plan)
    seen: list[tuple[str, int, int]] = []

    def enrich(c: duckdb.DuckDBPyConnection, table: Table, batch, batch_no: int):
        seen.append((table.name, batch_no, batch.num_rows))
        names = [f"region {i} of batch {batch_no}" for i in range(batch.num_rows)]
        return batch.set_column(batch.column_names.index("name"), "name", pa.array(names))

    fill_table(con, schema, plan, config, "regions", seed=1, rows=3, enrich=enrich)
    assert seen == [("regions", 0, 3)]
    assert con.execute("SELECT name FROM regions ORDER BY name").fetchall()[0] == ("region 0 of batch 0",)


def test_batches_skip_only_the_foreign_keys_their_draw_guarantees(filled):
    """A key drawn from another table's stored rows is not looked up again per batch; a self-reference,
    a VARCHAR(n) key (a repair may truncate it), a key an `expr` hint computes and every key under an
    enrich hook still are."""
    from stateforge.fill.engine import checked_fks
    from stateforge.fill.keys import TableKeys

    con, schema, plan, config, rows, *_ = filled
    skipped = kept_kinds = 0
    for table in schema.tables:
        keys = TableKeys.build(con, schema, plan, config, table.name, seed=5, rows=50, planned=rows)
        kept = checked_fks(table, config, keys, enriched=False)
        assert checked_fks(table, config, keys, enriched=True) == keys.checked
        for fk in keys.checked:
            own = fk.ref_table.lower() == table.name.lower()
            must = own or any(table.column(c).length for c in fk.columns)
            assert (fk in kept) == must, (table.name, fk)
            skipped += not must
            kept_kinds += must
    assert skipped and kept_kinds
    keys = TableKeys.build(con, schema, plan, config, "memberships", seed=5, rows=50, planned=rows)
    fk = next(fk for fk in keys.checked if fk not in checked_fks(schema.table("memberships"), config, keys,
                                                                 enriched=False))
    hinted = game_config(columns={f"memberships.{fk.columns[0]}": {"expr": fk.columns[0]}})
    assert fk in checked_fks(schema.table("memberships"), hinted, keys, enriched=False)


def test_checks_left_to_duckdb_give_the_rows_of_a_fill_with_every_check(tmp_path):
    """Trusting DuckDB with keys, NOT NULLs and CHECKs writes what checking them first writes: batches
    that fail other checks are checked in full before repair (memberships' roles outside the allowed), and
    a table whose batch DuckDB refuses (matches: a CHECK a tenth of the generated rows break) is
    filled again with every check. Were a skipped check's failure ever inserted or repaired
    differently, the tables would differ."""
    from stateforge.validation.batch_trust import enforced_constraints

    schema, plan, config = game()
    columns = {k: v.model_dump(exclude_unset=True) for k, v in config.columns.items()}
    roles = {"memberships.role": {"values": ["owner", "member", "coach", "boss"]}}  # boss is not allowed
    config = game_config(columns=columns | roles)
    rows = plan_rows(schema, plan, config)
    reports = {}
    for trusted in (True, False):
        con = new_db(tmp_path / f"{trusted}.duckdb", schema, plan)
        reports[trusted] = [fill_table(con, schema, plan, config, t, seed=5, rows=rows,
                                       trust_declared=trusted) for t in plan.order]
        if trusted:
            enforced = enforced_constraints(con, schema.table("users"))
            assert enforced.key(("id",)) and enforced.key(("email",)) and "email" in enforced.not_null
            assert enforced.checks == {"age BETWEEN 13 AND 120"}
        reports[trusted].append(table_hashes(con, schema))
        con.close()
    refilled = [r.table for r in reports[True][:-1] if r.refilled]
    assert "matches" in refilled and not any(r.refilled for r in reports[False][:-1])
    assert reports[True][-1] == reports[False][-1]
    def plain(r: TableReport) -> dict:
        return {k: v for k, v in r.to_dict().items() if k not in ("seconds", "refilled")}

    assert [plain(r) for r in reports[True][:-1]] == [plain(r) for r in reports[False][:-1]]
    memberships = next(r for r in reports[False][:-1] if r.table == "memberships")
    assert memberships.repairs  # its batches failed a check made before the INSERT, then were repaired
