"""Issue 18 item 5: a schema file's INSERT ... VALUES rows are inserted as given, first, and kept; other
rows are generated only where the planned size asks for more; --ignore-seed-inserts turns it off."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from stateforge.build import build_domain
from stateforge.cli import main
from stateforge.errors import BuildError

DDL = """\
CREATE TABLE roles (
  id INTEGER PRIMARY KEY,
  name VARCHAR(20) NOT NULL UNIQUE,
  rank SMALLINT NOT NULL CHECK (rank BETWEEN 1 AND 9)
);
INSERT INTO roles (id, name, rank) VALUES (1, 'admin', 9), (2, 'member', 1);
INSERT INTO roles VALUES (3, 'guest', 2);
CREATE TABLE kinds (id SERIAL PRIMARY KEY, label VARCHAR(30) NOT NULL UNIQUE);
INSERT INTO kinds (label) VALUES ('book'), (lower('FILM')), ('song');  -- not plain literals: as SQL
CREATE TABLE users (
  id SERIAL PRIMARY KEY,
  role_id INTEGER NOT NULL REFERENCES roles (id),
  kind_id INTEGER REFERENCES kinds (id),
  email VARCHAR(80) NOT NULL UNIQUE
);
INSERT INTO users (role_id, kind_id, email) VALUES (1, 2, 'root@example.org');
"""
ROLES = [(1, "admin", 9), (2, "member", 1), (3, "guest", 2)]
KINDS = [(1, "book"), (2, "film"), (3, "song")]


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    root = tmp_path_factory.mktemp("seeds")
    ddl = root / "shop.sql"
    ddl.write_text(DDL)
    report = build_domain(str(ddl), rows=12, seed=3, out=root / "out")
    return root / "out" / "shop.duckdb", report


def test_seed_rows_are_kept_exactly_and_first(seeded: tuple[Path, dict]):
    db, report = seeded
    assert report["totals"]["violations"] == 0
    with duckdb.connect(str(db), read_only=True) as con:
        roles = con.sql("SELECT id, name, rank FROM roles ORDER BY id").fetchall()
        kinds = con.sql("SELECT id, label FROM kinds ORDER BY id").fetchall()
        root = con.sql("SELECT id, role_id, kind_id, email FROM users "
                       "WHERE email = 'root@example.org'").fetchall()
    assert roles[:3] == ROLES and kinds[:3] == KINDS and root == [(1, 1, 2, "root@example.org")]
    # Generated rows come only past the seeds, up to the planned size, and repeat none of them.
    tables = {t["table"]: t for t in report["tables"]}
    assert tables["roles"]["seeded"] == 3
    assert tables["roles"]["rows"] == tables["roles"]["planned"] == len(roles)
    assert all(name not in ("admin", "member", "guest") for _, name, _ in roles[3:])
    assert tables["kinds"]["seeded"] == 3 and len(kinds) == tables["kinds"]["planned"]
    assert report["seeds"] == {"roles": {"rows": 3, "kept": 3}, "kinds": {"rows": 3, "kept": 3},
                               "users": {"rows": 1, "kept": 1}}


def test_a_seed_row_a_rule_of_the_build_changes_is_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    """A seed row that breaks the inferred time order (updated before created) is repaired like any row,
    and the summary says which table's seeds are no longer as given."""
    ddl = tmp_path / "tree.sql"
    ddl.write_text(
        "CREATE TABLE categories (id int PRIMARY KEY, parent_id int REFERENCES categories (id),\n"
        "  name varchar(20) NOT NULL, created_at timestamp NOT NULL, updated_at timestamp NOT NULL);\n"
        "INSERT INTO categories VALUES (1, NULL, 'root', '2020-01-01 00:00:00', '2019-01-01 00:00:00'),\n"
        "  (2, 1, 'child', '2020-01-02', '2020-01-03');\n"
    )
    with pytest.raises(SystemExit) as exit_:
        main(["build-domain", str(ddl), "--rows", "10", "--out", str(tmp_path / "out")])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert ("seed rows changed: categories: 1 of its 2 seed rows are as the DDL's INSERTs give them; the "
            "second pass or the domain's rules changed the others") in out
    with duckdb.connect(str(tmp_path / "out" / "tree.duckdb"), read_only=True) as con:
        child = con.sql("SELECT id, parent_id, name FROM categories WHERE id = 2").fetchall()
    assert child == [(2, 1, "child")]


def test_a_table_planned_smaller_than_its_seeds_holds_only_its_seeds(tmp_path: Path):
    ddl = tmp_path / "tiny.sql"
    rows = ", ".join(f"({i}, 'kind {i}')" for i in range(1, 41))
    ddl.write_text(f"CREATE TABLE kinds (id int PRIMARY KEY, label varchar(20) NOT NULL);\n"
                   f"INSERT INTO kinds VALUES {rows};\n")
    report = build_domain(str(ddl), rows=10, out=tmp_path / "out")
    [table] = report["tables"]
    assert table["rows"] == table["seeded"] == 40 and table["shortfall"] == 0
    with duckdb.connect(str(tmp_path / "out" / "tiny.duckdb"), read_only=True) as con:
        assert con.sql("SELECT id, label FROM kinds ORDER BY id").fetchall() == [
            (i, f"kind {i}") for i in range(1, 41)]


def test_ignore_seed_inserts_leaves_them_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    ddl = tmp_path / "shop.sql"
    ddl.write_text(DDL)
    with pytest.raises(SystemExit) as exit_:
        main(["build-domain", str(ddl), "--rows", "12", "--seed", "3", "--out", str(tmp_path / "out"),
              "--ignore-seed-inserts"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert "seed rows" not in out
    with duckdb.connect(str(tmp_path / "out" / "shop.duckdb"), read_only=True) as con:
        found = con.execute("SELECT count(*) FROM roles "
                            "WHERE name IN ('admin', 'member', 'guest')").fetchone()
    assert found == (0,)


def test_a_seed_row_without_its_parent_is_an_error_naming_the_insert(tmp_path: Path):
    ddl = tmp_path / "orphan.sql"
    ddl.write_text(
        "CREATE TABLE teams (id int PRIMARY KEY, name varchar(20) NOT NULL);\n"
        "INSERT INTO teams VALUES (1, 'Lyon');\n"
        "CREATE TABLE players (id int PRIMARY KEY, team_id int NOT NULL REFERENCES teams (id));\n"
        "INSERT INTO players VALUES (1, 1), (2, 999);\n"
    )
    with pytest.raises(BuildError) as caught:
        build_domain(str(ddl), rows=5, out=tmp_path / "out")
    message = str(caught.value)
    assert f"{ddl}:4" in message and "team_id = 999" in message and "--ignore-seed-inserts" in message


def test_seed_rows_keep_the_keys_that_close_a_cycle(tmp_path: Path):
    """departments.head_id closes a cycle: the second pass draws it for every row, then gives the seed
    rows their own values back."""
    ddl = tmp_path / "cycle.sql"
    ddl.write_text(
        "CREATE TABLE departments (id int PRIMARY KEY, name varchar(20) NOT NULL, head_id int);\n"
        "CREATE TABLE employees (id int PRIMARY KEY, name varchar(20) NOT NULL,\n"
        "  dept_id int NOT NULL REFERENCES departments (id));\n"
        "ALTER TABLE departments ADD FOREIGN KEY (head_id) REFERENCES employees (id);\n"
        "INSERT INTO departments VALUES (1, 'Sales', 1), (2, 'Ops', NULL);\n"
        "INSERT INTO employees VALUES (1, 'Ann', 1), (2, 'Bob', 2);\n"
    )
    report = build_domain(str(ddl), rows=10, out=tmp_path / "out")
    assert report["totals"]["violations"] == 0
    assert report["seeds"] == {"departments": {"rows": 2, "kept": 2}, "employees": {"rows": 2, "kept": 2}}
    with duckdb.connect(str(tmp_path / "out" / "cycle.duckdb"), read_only=True) as con:
        assert con.sql("SELECT * FROM departments WHERE id <= 2 ORDER BY id").fetchall() == [
            (1, "Sales", 1), (2, "Ops", None)]
        drawn = con.execute("SELECT count(head_id) FROM departments WHERE id > 2").fetchone()
    assert drawn[0] > 0  # the generated rows still get theirs from the second pass
