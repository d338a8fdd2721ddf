"""Prompt templates: loading by name, hashing, strict rendering into chat messages."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from stateforge.errors import TerminalError
from stateforge.llm.prompts import (
    PROMPTS_DIR,
    available,
    load,
    prompt_hashes,
    prompt_sha256,
    render_messages,
)

FILL_VALUES = {
    "domain": "A music app.",
    "table": "songs",
    "table_description": "Tracks in the catalogue.",
    "ddl": "CREATE TABLE songs (song_id BIGINT NOT NULL, title VARCHAR(200) NOT NULL);",
    "columns": "- title: VARCHAR(200); NOT NULL",
    "upstream": "albums (referenced by album_id):\n[\n{\"album_id\":1,\"title\":\"Blue Hour\"}\n]",
    "keys": "song_id",
    "n": 1,
    "rows": '[\n{"song_id":7,"title":null}\n]',
}


def test_the_fill_and_repair_templates_are_shipped_and_hashed() -> None:
    assert {"fill_rows", "repair_rows"} <= set(available())
    hashes = prompt_hashes()
    for name in ("fill_rows", "repair_rows"):
        expected = hashlib.sha256((PROMPTS_DIR / f"{name}.md").read_bytes()).hexdigest()
        assert hashes[name] == expected == prompt_sha256(name)


def test_fill_rows_renders_a_system_and_a_user_message_with_every_value() -> None:
    messages = render_messages("fill_rows", **FILL_VALUES)
    assert [m["role"] for m in messages] == ["system", "user"]
    system, user = (m["content"] for m in messages)
    assert "song_id" in system and "JSON" in system
    for value in ("A music app.", "Tracks in the catalogue.", "CREATE TABLE songs", "Blue Hour"):
        assert value in user
    assert user.endswith(FILL_VALUES["rows"]), "the rows to complete are the last JSON array of the prompt"
    assert "$" not in system + user
    assert "Placeholders" not in system + user, "the note above the first marker is not sent"


def test_repair_rows_needs_the_errors() -> None:
    with pytest.raises(TerminalError, match=r"repair_rows: no value for \$errors"):
        render_messages("repair_rows", **FILL_VALUES)
    messages = render_messages("repair_rows", **FILL_VALUES, errors="- song_id=7: title: too long")
    assert "- song_id=7: title: too long" in messages[-1]["content"]


def test_an_unknown_template_names_the_closest_one() -> None:
    with pytest.raises(TerminalError, match="Did you mean \"fill_rows\""):
        load("fill_row")


def test_templates_are_reread_when_they_change_and_dollars_can_be_escaped(tmp_path: Path) -> None:
    path = tmp_path / "greet.md"
    path.write_text("note\n<!-- role: system -->\nCost: $$5 for $who\n<!-- role: user -->\nHi ${who}!\n")
    first = load("greet", tmp_path)
    assert first.placeholders == {"who"}
    assert first.render(who="Ann") == [
        {"role": "system", "content": "Cost: $5 for Ann"},
        {"role": "user", "content": "Hi Ann!"},
    ]
    path.write_text("<!-- role: user -->\nBye $who, see you\n")
    second = load("greet", tmp_path)
    assert second.sha256 != first.sha256
    assert prompt_hashes(tmp_path) == {"greet": hashlib.sha256(path.read_bytes()).hexdigest()}
    assert second.render(who="Ann") == [{"role": "user", "content": "Bye Ann, see you"}]


def test_a_template_without_role_markers_is_refused(tmp_path: Path) -> None:
    (tmp_path / "bare.md").write_text("Just $text\n")
    with pytest.raises(TerminalError, match="role"):
        load("bare", tmp_path)
