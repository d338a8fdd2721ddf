"""The grader's short cut for checksum verifiers ('untouched tables keep their rows', 'nothing changed'):
tables an episode never wrote are answered from the base, and the rows must be those the full SQL returns
on the end state, for episodes that write nothing, the verifier's tables, other tables, or a table through
an ON DELETE CASCADE."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from stateforge.domain import DomainConfig
from stateforge.episode import Episode
from stateforge.evaluate.grader import Grader
from stateforge.evaluate.gradestate import EpisodeState
from stateforge.schema.model import Schema
from stateforge.tasks import Task
from stateforge.tasks.model import Verifier
from stateforge.tasks.verifiers import checksum_tables
from stateforge.tasks.workspace import checksums_sql

pytestmark = pytest.mark.xdist_group("evaluate")


@pytest.fixture(scope="module")
def grader(pack_db: Path) -> Iterator[Grader]:
    with Episode.open(pack_db) as episode:
        schema: Schema = episode.schema
        config: DomainConfig = episode.config
    made = Grader(pack_db, schema, config)
    yield made
    made.close()


def _verifiers(pack_db: Path, grader: Grader) -> list[Verifier]:
    """'nothing changed' over every table and 'untouched tables keep their rows' of a task that changes
    artists, with the base's rows as expected (read on a fresh episode with the full SQL)."""
    everything = sorted(t.name for t in grader.schema.tables)
    others = [t for t in everything if t != "artists"]
    out = []
    with Episode.open(pack_db) as clean:
        for name, tables in (("nothing changed", everything), ("untouched tables keep their rows", others)):
            sql = checksums_sql(tables)
            out.append(Verifier(kind="side_effect", name=name, sql=sql, expected=clean.query(sql)))
    return out


def _an_id(episode: Episode, tool: str) -> int:
    """An artist's id, or the id of the listener with the most plays (whose delete cascades into them)."""
    sql = {
        "update_artist": "SELECT min(id) AS id FROM main.artists",
        "delete_listener":
            "SELECT listener_id AS id FROM main.plays GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1",
    }[tool]
    return int(episode.query(sql)[0]["id"])


SCENARIOS = {
    "no call": ([], {"nothing changed": True, "untouched tables keep their rows": True}),
    "a failed call": (
        [("update_artist", {"id": 987654, "name": "Nobody"})],
        {"nothing changed": True, "untouched tables keep their rows": True},
    ),
    "the task's table": (
        [("update_artist", {"id": None, "name": "Renamed Artist"})],
        {"nothing changed": False, "untouched tables keep their rows": True},
    ),
    "another table, cascading": (
        [("delete_listener", {"id": None})],
        {"nothing changed": False, "untouched tables keep their rows": False},
    ),
}


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_checksum_verifiers_give_the_full_sql_s_rows(
    scenario: str, pack_db: Path, grader: Grader, tasks: list[Task]
) -> None:
    calls, verdicts = SCENARIOS[scenario]
    verifiers = _verifiers(pack_db, grader)
    with Episode.open(pack_db) as episode:
        for tool, arguments in calls:
            if arguments.get("id", 0) is None:
                arguments = {**arguments, "id": _an_id(episode, tool)}
            result = episode.call(tool, arguments)
            assert result.ok == (scenario != "a failed call"), result.error
        written, _ = grader._written(episode, episode.log)
        assert written is not None
        if scenario == "another table, cascading":
            assert written == {"listeners", "plays"}  # plays changed through ON DELETE CASCADE only
        state = grader._export(tasks[0], episode, episode.log)
        for verifier in verifiers:
            assert checksum_tables(verifier.sql) is not None
            fast = grader._verify(tasks[0], episode, verifier, state)
            full = grader._verify(tasks[0], episode, verifier, EpisodeState(written=None))
            assert fast.passed == full.passed == verdicts[verifier.name], (scenario, verifier.name)
            assert fast.actual == full.actual  # None when both passed, else the same rows in the same order


def test_an_episode_that_is_not_a_fresh_copy_of_the_grader_s_base_is_read_whole(
    pack_db: Path, grader: Grader, tmp_path: Path
) -> None:
    copy = tmp_path / pack_db.name
    shutil.copyfile(pack_db, copy)
    with Episode.open(pack_db) as episode:
        config = episode.config
    own = Grader(copy, grader.schema, config)
    with Episode.open(copy) as episode:  # a fresh copy of another base
        assert own._written(episode, episode.log)[0] == set()
        assert grader._written(episode, episode.log) == (None, False)
    own.close()  # its instance holds the file, which a persisting episode opens itself
    with Episode.open(copy, persist=True) as episode:  # writes to its base: no copy at all
        assert own._written(episode, episode.log) == (None, False)


def test_only_the_exact_checksum_sql_is_recognised() -> None:
    sql = checksums_sql(["albums", "o'brien", "sales.orders"])
    assert checksum_tables(sql) == ["albums", "o'brien", "sales.orders"]
    assert checksum_tables(sql + " ") is None
    assert checksum_tables(sql.replace("hash(t)", "hash(t.id)")) is None
    assert checksum_tables(sql.replace('ORDER BY "table"', 'WHERE "rows" > 0 ORDER BY "table"')) is None
    assert checksum_tables("SELECT count(*) AS violations FROM main.albums") is None
