"""The grader reads only the row groups an episode changed (`stateforge/evaluate/delta.py`): its diff must be
exactly the naive full diff (every table copied out whole and diffed against the base), and its short-cut
verifiers must return the rows their whole SQL returns, for episodes that insert, update, delete, cascade,
write a table twice, or write through `Episode.connection` where no call records it (`unlogged_writes`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest

import stateforge.evaluate.grader as grader_module
from stateforge.diff import Diff, diff_catalogs
from stateforge.episode import Episode
from stateforge.evaluate.delta import changed_groups, rowid_filter
from stateforge.evaluate.grader import Grader
from stateforge.evaluate.gradestate import EpisodeState
from stateforge.store.sql import quote_ident, quote_literal, table_ref
from stateforge.tasks import Task
from stateforge.tasks.model import Verifier
from stateforge.tasks.verifiers import KEYS_NAME, constraints_sql, keys_verifier, row_counts_sql
from stateforge.tasks.workspace import checksums_sql
from stateforge.validation.checks import build_checks

pytestmark = pytest.mark.xdist_group("evaluate")


@pytest.fixture(
    scope="module",
    params=[(4, "python"), (64, "python"), (4, "duckdb")],
    ids=["groups of 4", "groups of 64", "groups of 4 diffed in DuckDB"],
)
def grader(request: pytest.FixtureRequest, pack_db: Path) -> Iterator[Grader]:
    """A grader of the pack; the last one diffs every table in DuckDB (`Grader._engine_diff`), the path
    of tables without a key or with one Python cannot order."""
    group, where = request.param
    with Episode.open(pack_db) as episode:
        schema, config = episode.schema, episode.config
    with pytest.MonkeyPatch.context() as patch:
        if where == "duckdb":
            patch.setattr(grader_module, "python_diffs", lambda spec: False)
        made = Grader(pack_db, schema, config, group=group)
        yield made
        made.close()


def full_diff(base: Path, episode: Episode) -> Diff:
    """The naive diff: every table of the episode copied out whole, diffed against the base."""
    names = [t.name for t in episode.schema.tables]
    with duckdb.connect() as con:
        con.execute(f"ATTACH {quote_literal(str(base))} AS base (READ_ONLY)")
        con.execute("ATTACH ':memory:' AS after")
        for name in names:
            rows = episode.connection.sql(f"FROM {table_ref(name)}").to_arrow_table()
            target = f"after.main.{quote_ident(name)}"
            con.execute(f"CREATE TABLE {target} AS FROM base.main.{quote_ident(name)} LIMIT 0")
            con.register("rows_view", rows)
            con.execute(f"INSERT INTO {target} FROM rows_view")
            con.unregister("rows_view")
        return diff_catalogs(con, "base", "after", tables=names)


def _first(episode: Episode, sql: str) -> Any:
    return next(iter(episode.query(sql)[0].values()))


def _unplayed_track(episode: Episode) -> str:
    sql = "SELECT min(id) FROM main.tracks WHERE id NOT IN (SELECT track_id FROM main.plays)"
    return str(_first(episode, sql))


def _busiest_listener(episode: Episode) -> int:
    sql = "SELECT listener_id FROM main.plays GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1"
    return int(_first(episode, sql))


Step = Callable[[Episode], None]


def call(tool: str, arguments: Callable[[Episode], dict[str, Any]] | dict[str, Any]) -> Step:
    def step(episode: Episode) -> None:
        args = arguments(episode) if callable(arguments) else arguments
        result = episode.call(tool, args)
        assert result.ok, result.error

    return step


def unrecorded(sql: str) -> Step:
    """A write no call records (a privileged reader's connection)."""
    return lambda episode: episode.connection.execute(sql).fetchall() and None


SCENARIOS: dict[str, list[Step]] = {
    "nothing": [],
    "insert": [call("create_artist", {"name": "New Artist", "country": "FR"})],
    "update": [call("update_artist", {"id": 2, "name": "Renamed"})],
    "delete": [call("delete_track", lambda ep: {"id": _unplayed_track(ep)})],
    "cascade": [call("delete_listener", lambda ep: {"id": _busiest_listener(ep)})],
    "a table twice": [
        call("update_artist", {"id": 3, "name": "First"}),
        call("update_artist", {"id": 3, "name": "Second"}),
        call("create_artist", {"name": "Made", "country": "DE"}),
        call("update_artist", {"id": 3, "name": "Third"}),
    ],
    "unrecorded update": [unrecorded("UPDATE main.tracks SET title = title || '!' WHERE rowid = 7")],
    "unrecorded insert and delete": [
        unrecorded("INSERT INTO main.plays SELECT * REPLACE (seconds + 1 AS seconds, played_at + INTERVAL 1 "
                   "SECOND AS played_at) FROM main.plays WHERE rowid = 3"),
        unrecorded("DELETE FROM main.plays WHERE rowid = 900"),
    ],
    # appends only, logged (only the groups from the base's last one on are summed)
    "appends only": [
        call("create_artist", {"name": "One", "country": "FR"}),
        call("create_artist", {"name": "Two", "country": "DE"}),
    ],
    "appends, then an unrecorded one": [
        call("create_artist", {"name": "One", "country": "FR"}),
        unrecorded("INSERT INTO main.plays SELECT * REPLACE (seconds + 2 AS seconds, played_at + INTERVAL 2 "
                   "SECOND AS played_at) FROM main.plays WHERE rowid = 11"),
    ],
    # the last row deleted, then a row appended: not appends only, the whole table is summed
    "the last row deleted, then one appended": [
        unrecorded("DELETE FROM main.plays WHERE rowid = (SELECT max(rowid) FROM main.plays)"),
        unrecorded("INSERT INTO main.plays SELECT * REPLACE (seconds + 3 AS seconds, played_at + INTERVAL 3 "
                   "SECOND AS played_at) FROM main.plays WHERE rowid = 12"),
    ],
    # updates and deletes scattered over a table
    "scattered updates and deletes": [
        unrecorded("UPDATE main.plays SET seconds = CASE WHEN seconds > 1 THEN seconds - 1 ELSE 2 END, "
                   "played_at = played_at + INTERVAL 1 SECOND WHERE rowid % 7 = 3"),
        unrecorded("DELETE FROM main.plays WHERE rowid % 11 = 5"),
        unrecorded("UPDATE main.tracks SET title = title || '?' WHERE rowid IN (0, 2)"),
    ],
    # plays keeps its rows, but the listener its rows point to is gone: orphans in an unchanged table
    "unrecorded orphans": [unrecorded("DELETE FROM main.listeners WHERE id = 5")],
    # a changed row pointing nowhere, and a handle longer than its VARCHAR(40)
    "unrecorded orphan row and long text": [
        unrecorded("INSERT INTO main.plays SELECT * REPLACE (987654 AS listener_id) FROM main.plays "
                   "WHERE rowid = 5"),
        unrecorded("UPDATE main.listeners SET handle = repeat('x', 41) WHERE id = 6"),
    ],
}
BROKEN = {
    "unrecorded orphans": {"plays"},
    "unrecorded orphan row and long text": {"plays", "listeners"},
}
"""Scenarios that break the constraints of some tables: their verifiers must fail (the same way)."""


def _verifiers(grader: Grader, task: Task) -> tuple[list[Verifier], set[str]]:
    """Every verifier with a short cut, over every table: checksums, row counts, keys and constraints (of
    the whole table, and of its foreign keys into one parent: the SQL texts of those are the set)."""
    names = sorted(t.name for t in grader.schema.tables)
    out = [Verifier(kind="goal", name="nothing changed", sql=checksums_sql(names), expected=[]),
           Verifier(kind="side_effect", name="row counts", sql=row_counts_sql(names), expected=[])]
    only_keys: set[str] = set()
    for name in names:
        checks = build_checks(grader.schema, [name])
        sql = constraints_sql([(q.constraint, q.offenders) for q in checks])
        out.append(Verifier(kind="integrity", name=f"{KEYS_NAME}{name}", sql=sql, expected=[]))
        for fk in grader.schema.table(name).foreign_keys:  # an untouched child's: its keys into one parent
            keys = keys_verifier(grader.schema, name, [fk.ref_table])
            if keys is not None and keys.sql != sql:
                out.append(keys)
                only_keys.add(keys.sql)
    return out, only_keys


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_the_grader_s_diff_and_verifiers_are_the_full_ones(
    scenario: str, pack_db: Path, grader: Grader, tasks: list[Task]
) -> None:
    task = next(t for t in tasks if not t.diff.tables)  # an infeasible task: its diff names no table
    with Episode.open(pack_db) as episode:
        for step in SCENARIOS[scenario]:
            step(episode)
        expected = full_diff(pack_db, episode)
        state = grader._export(task, episode, episode.log)
        assert grader._diff(task, state).to_json() == expected.to_json()
        whole = EpisodeState(written=None)
        verifiers, only_keys = _verifiers(grader, task)
        for verifier in verifiers:
            assert grader._plan(verifier) is not None, verifier.name
            fast = grader._verify(task, episode, verifier, state)
            full = grader._verify(task, episode, verifier, whole)
            assert fast.passed == full.passed and fast.actual == full.actual, (scenario, verifier.name)
            broken = BROKEN.get(scenario, set())
            if verifier.name.removeprefix(KEYS_NAME) in broken and verifier.sql not in only_keys:
                assert not fast.passed and fast.actual, verifier.name  # the offences are seen
    assert scenario == "nothing" or not expected.empty


def test_an_unrecorded_write_is_caught(pack_db: Path, grader: Grader) -> None:
    every = set(grader._specs)
    with Episode.open(pack_db) as episode:
        assert episode.unlogged_writes() is False and grader._written(episode, episode.log) == (set(), True)
        result = episode.call("update_artist", {"id": 2, "name": "Renamed"})
        assert result.ok and grader._written(episode, episode.log) == ({"artists"}, True)
        assert not episode.call("update_artist", {"id": 999_999, "name": "x"}).ok  # a refusal writes nothing
        assert episode.unlogged_writes() is False
        episode.connection.execute("SELECT count(*) FROM main.albums").fetchall()  # a read is no write
        assert episode.unlogged_writes() is False
        episode.connection.execute("UPDATE main.albums SET title = 'x' WHERE rowid = 1").fetchall()
        assert episode.unlogged_writes() is True
        assert grader._written(episode, episode.log) == (every, False)  # every table is summed
        assert episode.call("create_artist", {"name": "New", "country": "FR"}).ok
        assert episode.unlogged_writes() is True  # once seen, always
    with Episode.open(pack_db) as episode:  # a write between two calls
        assert episode.call("update_artist", {"id": 2, "name": "Renamed"}).ok
        episode.connection.execute("UPDATE main.artists SET name = 'y' WHERE id = 3").fetchall()
        assert episode.call("update_artist", {"id": 2, "name": "Again"}).ok
        assert episode.unlogged_writes() is True


def test_unlogged_writes_cannot_tell_once_the_main_file_is_written(pack_db: Path, grader: Grader) -> None:
    with Episode.open(pack_db) as episode:
        assert episode.call("update_artist", {"id": 2, "name": "Renamed"}).ok
        episode.connection.execute("CHECKPOINT").fetchall()
        assert episode.unlogged_writes() is None
        assert grader._written(episode, episode.log) == (set(grader._specs), False)
    with Episode.open(pack_db, keep=True) as kept:  # not a pooled copy
        assert kept.unlogged_writes() is None
        kept_path = kept.path
    kept_path.unlink()


def test_groups_and_their_rowid_ranges() -> None:
    assert changed_groups({0: (4, 1), 1: (4, 2)}, {0: (4, 1), 1: (4, 3), 2: (1, 9)}) == [1, 2]
    assert changed_groups({0: (4, 1)}, {}) == [0]
    expected = "(rowid >= 10 AND rowid < 40) OR (rowid >= 70 AND rowid < 80)"
    assert rowid_filter([3, 1, 2, 7], size=10) == expected
    assert rowid_filter([]) == "false"
