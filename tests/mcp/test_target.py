"""What `stateforge mcp` serves and says: DOMAIN_OR_DB resolved, the instructions, and its errors (exit 2)."""

from __future__ import annotations

import datetime as dt
import shutil
import socket
from pathlib import Path

import pytest

from stateforge.cli import main
from stateforge.domain import DomainConfig
from stateforge.errors import DomainError, StoreError
from stateforge.mcp import instructions, resolve_database
from stateforge.mcp.errors import ServeError


def test_a_pack_name_means_its_build_under_artifacts(game_db: Path, tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(StoreError, match=r"artifacts/game/game\.duckdb.*stateforge build-domain game"):
        resolve_database("game")
    built = tmp_path / "artifacts" / "game" / "game.duckdb"
    built.parent.mkdir(parents=True)
    shutil.copy(game_db, built)
    db, pack = resolve_database("game")
    assert db.resolve() == built
    assert pack is not None and pack.name == "game" and (pack / "tools" / "__init__.py").is_file()
    assert resolve_database("game", db=game_db)[0] == game_db
    assert resolve_database(game_db) == (game_db, None)
    with pytest.raises(ServeError, match="give the database once"):
        resolve_database(game_db, db=game_db)
    with pytest.raises(DomainError, match='Did you mean "game"'):
        resolve_database("gmae")
    with pytest.raises(StoreError, match="does not exist"):
        resolve_database(tmp_path / "nope.duckdb")


def test_instructions_give_the_description_policies_and_date_never_the_schema():
    config = DomainConfig.model_validate(
        {
            "name": "music",
            "description": "A music app.\n  Listeners build playlists.",
            "policies": [
                {"name": "cap", "description": "A playlist holds at most 500 songs.", "check": "SELECT 1"},
                {"name": "owner", "description": "Only its owner renames a playlist.", "kind": "action"},
            ],
        }
    )
    text = instructions(config, dt.datetime(2026, 6, 30, 12, 0), "music")
    assert text.startswith("A music app. Listeners build playlists.")
    assert "- A playlist holds at most 500 songs.\n- Only its owner renames a playlist." in text
    assert "2026-06-30T12:00:00" in text and "Tuesday 30 June 2026" in text
    assert "SELECT" not in text  # a policy's check is for verifiers, not for agents
    bare = instructions(DomainConfig.default("shop"), dt.datetime(2025, 1, 1, 12, 0), "shop")
    assert bare.startswith("The shop service.") and "Policies" not in bare


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["mcp", "musik"],
            'Did you mean "music"? Available: game, hr, itsm, library, meeting, music, workplace.',
        ),
        (["mcp", "{db}", "--transport", "sse"], "--transport is 'sse'; use stdio or http"),
        (["mcp", "{db}", "--transport", "http", "--port", "{port}"], "is already in use"),
    ],
)
def test_cli_errors_exit_2_with_one_clear_line(shop_db: Path, capsys, args: list[str], message: str):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = str(taken.getsockname()[1])
        with pytest.raises(SystemExit) as exited:
            main([a.format(db=shop_db, port=port) for a in args])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert message in " ".join(err.split()) and "Traceback" not in err
    assert err.startswith("error: ") and err.count("\n") == 1


def test_the_game_docs_state_the_packs_clock():
    from stateforge.domain import load_domain
    clock = load_domain("game").config.time_window.clock
    text = (Path(__file__).parents[2] / "docs" / "packs" / "game.md").read_text()
    assert clock.isoformat() == "2026-06-30T23:59:59" and clock.isoformat() in text
