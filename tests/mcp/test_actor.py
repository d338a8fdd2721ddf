"""`stateforge mcp ... --as PERSON [--role R]` (issue 21 item 1), with the SDK's stdio client: every tool acts
for the person, the server's instructions say who that is (and the procedures to follow), and a person the
pack does not hold, a role they lack, or an actor for a pack that declares none is bad input (exit 2)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import anyio
import duckdb
import pytest
from mcp import Client, StdioServerParameters

from tests.mcp.conftest import STATEFORGE, built

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def library_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built(tmp_path_factory, "library")


def first_card(db: Path) -> str:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute("SELECT card_number FROM members ORDER BY member_id LIMIT 1").fetchone()[0]


def test_a_session_served_as_a_member_acts_for_them(library_db: Path, tmp_path: Path):
    card = first_card(library_db)
    args = ["mcp", str(library_db), "--as", card, "--role", "member"]
    server = StdioServerParameters(command=STATEFORGE, args=args, env={"TMPDIR": str(tmp_path)})

    async def session() -> dict[str, Any]:
        async with Client(server) as client:
            return {
                "instructions": client.instructions,
                "tools": {t.name: t for t in (await client.list_tools()).tools},
                "me": await client.call_tool("get_member", {}),
                "loans": await client.call_tool("list_loans", {"state": "all", "limit": 5}),
            }

    got = anyio.run(session)
    assert f"You act for members {card} (card_number), acting as member" in got["instructions"]
    assert "Procedures you must follow" in got["instructions"] and "Fair lending" in got["instructions"]
    assert "card_number" not in got["tools"]["borrow_copy"].input_schema["properties"]
    assert got["me"].is_error is False and got["me"].structured_content["card_number"] == card
    assert got["loans"].is_error is False
    with duckdb.connect(str(library_db), read_only=True) as con:
        mine = con.execute("SELECT count(*) FROM loans JOIN members USING (member_id) WHERE card_number = ?",
                           [card]).fetchone()[0]
    assert got["loans"].structured_content["total"] == mine


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--as", "LC00000000"], "no members row has card_number = 'LC00000000'"),
        (["--as", "{card}", "--role", "librarian"], "does not hold the role 'librarian'"),
        (["--role", "member"], "--role needs --as PERSON"),
    ],
)
def test_an_actor_the_pack_does_not_hold_is_bad_input(library_db: Path, args: list[str], says: str):
    argv = [a.replace("{card}", first_card(library_db)) for a in args]
    done = subprocess.run([STATEFORGE, "mcp", str(library_db), *argv], capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 2, done.stderr
    assert says in " ".join(done.stderr.split())


def test_a_pack_without_actors_refuses_as_and_serves_as_before(shop_db: Path):
    done = subprocess.run([STATEFORGE, "mcp", str(shop_db), "--as", "anyone"], capture_output=True,
                          text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 2
    assert "declares no `actors:`" in " ".join(done.stderr.split())
