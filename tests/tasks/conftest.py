"""Fixtures: small built databases (two parser fixtures, the shop, a pack with a policy), once per process."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from stateforge.build import build_domain
from stateforge.tools import Toolkit
from tests.conftest import FIXTURES
from tests.episode.fixture import build_shop, full_toolkit, shop_schema

_LOCK = threading.Lock()
_BUILT: dict[str, Path] = {}

POLICY_PACK = {
    "schema.sql": """
CREATE TABLE teams (
    team_id INTEGER PRIMARY KEY,
    name    VARCHAR(40) NOT NULL UNIQUE,
    city    VARCHAR(40) NOT NULL
);
CREATE TABLE players (
    player_id INTEGER PRIMARY KEY,
    team_id   INTEGER NOT NULL REFERENCES teams (team_id) ON DELETE CASCADE,
    name      VARCHAR(60) NOT NULL UNIQUE,
    number    SMALLINT NOT NULL CHECK (number BETWEEN 1 AND 99),
    note      VARCHAR(200)
);
""",
    "domain.yaml": """
name: league
seed: 3
tables:
  teams: {rows: 6}
  players: {rows: 40}
columns:
  teams.city: {values: [Lyon, Porto, Turin, Gent]}
policies:
  - name: no_player_called_blocked
    description: Nobody may be called Blocked.
    check: SELECT player_id FROM players WHERE name = 'Blocked'
  - name: numbers_are_kept
    description: A player keeps their shirt number for the season.
    kind: action
grading:
  players.note: normalized
""",
}


def built(name: str, make) -> Path:
    """A database built once per process."""
    with _LOCK:
        if name not in _BUILT:
            _BUILT[name] = make()
        return _BUILT[name]


@pytest.fixture(scope="session")
def fixtures_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.getbasetemp() / "task-fixtures"


def _ddl_db(root: Path, stem: str) -> Path:
    build_domain(str(FIXTURES / "ddl" / f"{stem}.sql"), rows=40, seed=5, out=root / stem)
    return root / stem / f"{stem}.duckdb"


@pytest.fixture(scope="session")
def pg_db(fixtures_root: Path) -> Path:
    """tests/fixtures/ddl/postgres_dump.sql built with --rows 40."""
    return built("postgres_dump", lambda: _ddl_db(fixtures_root, "postgres_dump"))


@pytest.fixture(scope="session")
def duck_db(fixtures_root: Path) -> Path:
    """tests/fixtures/ddl/duckdb_schema.sql built with --rows 40."""
    return built("duckdb_schema", lambda: _ddl_db(fixtures_root, "duckdb_schema"))


@pytest.fixture(scope="session")
def ns_db(fixtures_root: Path) -> Path:
    """tests/fixtures/ddl/pg_partitioned.sql (every table in the `shop` namespace) built with --rows 40."""
    return built("pg_partitioned", lambda: _ddl_db(fixtures_root, "pg_partitioned"))


@pytest.fixture(scope="session")
def shop_db(fixtures_root: Path) -> Path:
    return build_shop(fixtures_root)


@pytest.fixture(scope="session")
def shop_kit() -> Toolkit:
    return full_toolkit(shop_schema())


@pytest.fixture(scope="session")
def league_db(fixtures_root: Path) -> Path:
    """A two-table pack with a policy check and a grading default."""

    def make() -> Path:
        pack = fixtures_root / "league"
        pack.mkdir(parents=True, exist_ok=True)
        for name, text in POLICY_PACK.items():
            (pack / name).write_text(text)
        build_domain(str(pack), out=fixtures_root / "league-db")
        return fixtures_root / "league-db" / "league.duckdb"

    return built("league", make)


@pytest.fixture(scope="session")
def bare_db(fixtures_root: Path) -> Path:
    """One table, no key, nothing to name rows by: every generic recipe finds nothing to do."""

    def make() -> Path:
        ddl = fixtures_root / "bare.sql"
        ddl.parent.mkdir(parents=True, exist_ok=True)
        ddl.write_text("CREATE TABLE readings (taken_at TIMESTAMP, value DOUBLE);\n")
        build_domain(str(ddl), rows=20, out=fixtures_root / "bare")
        return fixtures_root / "bare" / "bare.duckdb"

    return built("bare", make)
