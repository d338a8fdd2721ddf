"""Fixtures of the game pack's toolkit tests: the pack built once (scale 0.05), its toolkit, episodes over it,
and `Cast`: players, clans and heroes of the built data that the tests act as or on (found by SQL, so the
tests follow the data the generator makes rather than hard-coded names)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pytest

from stateforge.domain import DomainPack, load_domain
from stateforge.episode import Episode
from stateforge.tools import Toolkit, load_toolkit
from tests.shared import pack_at

NOW = "TIMESTAMP '2026-06-30 23:59:59'"


@dataclass(frozen=True)
class Cast:
    """Who the tests act as, picked from the built data."""

    social: str
    """The player with the most friends (and plenty of mail, matches and pending requests)."""
    rich: str
    """The player with the most diamonds who is not banned."""
    banned: str
    """A player serving a ban at 'now'."""
    leader: str
    """The leader of the biggest clan ..."""
    clan: str
    """... that clan's name ..."""
    elder: str
    """... one of its elders ..."""
    member: str
    """... and one of its ordinary members."""
    loner: str
    """A player in no clan, not banned, with no rune pages."""
    open_clan: str
    """The tag of a recruiting clan with free places."""
    closed_clan: str
    """The tag of a clan that is not recruiting."""


def _one(con: duckdb.DuckDBPyConnection, sql: str) -> str:
    rows = con.execute(sql).fetchall()
    assert rows, f"the built game data has no row for: {sql}"
    return rows[0][0]


@pytest.fixture(scope="session")
def game_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The game pack built at scale 0.05, once for the session (the MCP tests read the same build). Never
    write to it."""
    return pack_at(tmp_path_factory, "game", 0.05)


@pytest.fixture(scope="session")
def pack() -> DomainPack:
    """The game pack as loaded from stateforge/packs/game (schema model, domain.yaml, policies included)."""
    return load_domain("game")


@pytest.fixture(scope="session")
def kit() -> Toolkit:
    """The game pack's toolkit, loaded as every episode loads it (stateforge/packs/game/tools/)."""
    return load_toolkit("game")


@pytest.fixture(scope="session")
def cast(game_db: Path) -> Cast:
    with duckdb.connect(str(game_db), read_only=True) as con:
        biggest = (
            "(SELECT clan_id FROM clan_members GROUP BY clan_id "
            "HAVING count(*) FILTER (WHERE role = 'elder') > 0 ORDER BY count(*) DESC, clan_id LIMIT 1)"
        )
        member_of = (
            "SELECT p.nickname FROM clan_members AS m JOIN players AS p ON p.player_id = m.player_id "
            f"WHERE m.clan_id = {biggest} AND m.role = '{{}}' ORDER BY p.player_id LIMIT 1"
        )
        return Cast(
            social=_one(
                con,
                "SELECT p.nickname FROM players AS p JOIN (SELECT player_a_id AS id FROM friendships "
                "UNION ALL SELECT player_b_id FROM friendships) AS f ON f.id = p.player_id "
                "GROUP BY p.nickname ORDER BY count(*) DESC, p.nickname LIMIT 1",
            ),
            rich=_one(
                con,
                f"SELECT nickname FROM players WHERE banned_until IS NULL OR banned_until <= {NOW} "
                "ORDER BY diamonds DESC, player_id LIMIT 1",
            ),
            banned=_one(
                con, f"SELECT nickname FROM players WHERE banned_until > {NOW} ORDER BY player_id LIMIT 1"
            ),
            leader=_one(con, member_of.format("leader")),
            clan=_one(con, f"SELECT name FROM clans WHERE clan_id = {biggest}"),
            elder=_one(con, member_of.format("elder")),
            member=_one(con, member_of.format("member")),
            loner=_one(
                con,
                "SELECT nickname FROM players AS p WHERE player_id NOT IN (SELECT player_id FROM "
                "clan_members) AND player_id NOT IN (SELECT player_id FROM rune_pages) "
                f"AND (banned_until IS NULL OR banned_until <= {NOW}) ORDER BY player_id LIMIT 1",
            ),
            open_clan=_one(
                con,
                "SELECT tag FROM clans AS c WHERE is_recruiting AND (SELECT count(*) FROM "
                "clan_members AS m WHERE m.clan_id = c.clan_id) < max_members ORDER BY clan_id LIMIT 1",
            ),
            closed_clan=_one(con, "SELECT tag FROM clans WHERE NOT is_recruiting ORDER BY clan_id LIMIT 1"),
        )


@pytest.fixture
def open_episode(game_db: Path, kit: Toolkit, tmp_path: Path) -> Iterator[Callable[[], Episode]]:
    """Opens fresh episodes over the built pack (closed at the end of the test)."""
    opened: list[Episode] = []

    def make() -> Episode:
        opened.append(Episode.open(game_db, toolkit=kit, workdir=tmp_path))
        return opened[-1]

    yield make
    for episode in opened:
        episode.close()


@pytest.fixture
def ep(open_episode: Callable[[], Episode]) -> Episode:
    """A fresh episode over the built pack."""
    return open_episode()


@pytest.fixture(scope="module")
def reader(game_db: Path, kit: Toolkit, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Episode]:
    """One episode for a module's read-only tests (they never write, so they can share it)."""
    with Episode.open(game_db, toolkit=kit, workdir=tmp_path_factory.mktemp("reader")) as episode:
        yield episode
