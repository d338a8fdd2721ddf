"""The LLM fill path: meaning columns, reply schemas and models, prompts, and the enricher end to end against
the fake OpenAI-compatible server on loopback (real `openai` client, real DuckDB, real validation).

The music pack is filled offline once, at a small scale; each test takes a fresh copy of the file, removes
one table's rows and hands them to the enricher as the offline batch the engine would have made.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pytest

from stateforge.build import build_domain
from stateforge.domain import DomainPack, load_domain
from stateforge.domain.config import ColumnHint, DomainConfig
from stateforge.errors import TerminalError
from stateforge.fakellm.server import FakeLLMServer
from stateforge.llm.columns import meaning_columns
from stateforge.llm.fill import LLMFill
from stateforge.llm.prompts import prompt_hashes
from stateforge.llm.rows import RowShape
from stateforge.llm.settings import LLMSettings
from stateforge.schema.model import Column, Table
from stateforge.types import batch_arrow_type
from stateforge.validation.batch import validate_batch
from tests.llm.servers import StrictKeywordsServer

SEED = 7


@dataclass
class Music:
    pack: DomainPack
    path: Path


@pytest.fixture(scope="module")
def music(tmp_path_factory: pytest.TempPathFactory) -> Music:
    out = tmp_path_factory.mktemp("music")
    build_domain("music", scale=0.02, seed=SEED, out=out)
    return Music(load_domain("music"), out / "music.duckdb")


@pytest.fixture
def db(music: Music, tmp_path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    copy = tmp_path / "music.duckdb"
    shutil.copyfile(music.path, copy)
    with duckdb.connect(str(copy)) as con:
        yield con


def take(con: duckdb.DuckDBPyConnection, table: Table) -> pa.Table:
    """The table's stored rows as an offline batch (DDL order, the engine's Arrow types), then deleted."""
    stored = con.sql(f'SELECT * FROM main."{table.name}" ORDER BY ALL').to_arrow_table()
    batch = pa.table({c.name: stored.column(c.name).cast(batch_arrow_type(c.type)) for c in table.columns})
    con.execute(f'DELETE FROM main."{table.name}"')
    return batch


def settings_for(server: FakeLLMServer, tmp_path: Path, **overrides: Any) -> LLMSettings:
    values: dict[str, Any] = {
        "backend": "openai", "model": "fake-model", "base_url": server.base_url, "api_key": "test",
        "cache_dir": tmp_path / "llm-cache", "timeout": 5.0, "max_retries": 3, "backoff_base": 0.01,
        "backoff_max": 0.05,
    }
    return LLMSettings(**(values | overrides))


def unchanged_except(before: pa.Table, after: pa.Table, written: list[str]) -> None:
    assert after.schema == before.schema
    for name in before.column_names:
        if name not in written:
            assert after.column(name).equals(before.column(name)), name


# --- which columns ------------------------------------------------------------------------------


def test_meaning_columns_of_the_music_pack(music: Music) -> None:
    schema, config = music.pack.schema, music.pack.config
    got = {t.name: meaning_columns(t, config) for t in schema.tables}
    assert got["songs"] == ["title"]
    assert got["albums"] == ["title", "label"]
    assert got["artists"] == ["name", "bio"]
    assert got["comments"] == []  # a comment's text is the one listed for its song's genre (values_by via)
    assert got["playlists"] == ["title", "description"]
    assert got["genres"] == []  # its description is the one listed for its name (values_by): no LLM text
    # ids, e-mails and handles, names other columns are made from, timestamps, enums, codes: offline
    assert got["users"] == []
    for table in ("payments", "subscriptions", "listening_history", "chart_entries", "devices"):
        assert got[table] == [], table


def test_hints_decide_and_keys_never_go_to_the_llm(music: Music) -> None:
    config = music.pack.config
    columns = dict(config.columns) | {
        "songs.title": ColumnHint(strategy="words", llm=False),
        "songs.language_code": ColumnHint(strategy="language_code", llm=True),
        "songs.album_id": ColumnHint(llm=True),
    }
    hinted = DomainConfig.model_validate(config.model_dump() | {"columns": columns})
    assert meaning_columns(music.pack.schema.table("songs"), hinted) == ["language_code"]


def test_whole_rows_writes_every_column_but_keys_and_tied_ones(music: Music) -> None:
    songs = music.pack.schema.table("songs")
    whole = meaning_columns(songs, music.pack.config, whole_rows=True)
    assert {"title", "duration_ms", "explicit", "bpm", "play_count"} <= set(whole)
    assert not {"song_id", "album_id", "artist_id", "track_number"} & set(whole)
    users = meaning_columns(music.pack.schema.table("users"), music.pack.config, whole_rows=True)
    assert not {"user_id", "display_name", "email", "username", "created_at", "last_active_at"} & set(users)


# --- reply schema and model ---------------------------------------------------------------------


def _strict(schema: dict[str, Any], root: dict[str, Any] | None = None) -> None:
    """Every object: all properties required, no additional properties (recursively, through $ref)."""
    root = root or schema
    if "$ref" in schema:
        schema = root["$defs"][schema["$ref"].removeprefix("#/$defs/")]
    if "object" in (schema.get("type"), *(schema.get("type") or [])) and "properties" in schema:
        assert schema["additionalProperties"] is False
        assert schema["required"] == list(schema["properties"])
        for sub in schema["properties"].values():
            _strict(sub, root)
    if "items" in schema:
        _strict(schema["items"], root)


def test_reply_schema_names_every_row_by_its_key_and_carries_the_constraints(music: Music) -> None:
    albums = music.pack.schema.table("albums")
    shape = RowShape.build(albums, ["album_id"], ["title", "album_type", "label"])
    labels = shape.labels([{"album_id": 4}, {"album_id": 9}, {"album_id": 4}])
    assert labels == ["album_id=4", "album_id=9", "album_id=4 #2"]
    schema = shape.reply_schema(labels)
    _strict(schema)
    rows = schema["properties"]["rows"]
    assert rows["required"] == labels and rows["additionalProperties"] is False
    assert all(sub == {"$ref": "#/$defs/row"} for sub in rows["properties"].values())
    props = schema["$defs"]["row"]["properties"]
    assert list(props) == ["title", "album_type", "label"], "keys are labels, never fields"
    assert props["title"] == {"type": "string", "maxLength": 200}
    assert props["album_type"]["enum"] == ["album", "single", "ep", "compilation", "live"]
    assert props["label"] == {"type": ["string", "null"], "maxLength": 100}
    songs = RowShape.build(music.pack.schema.table("songs"), ["song_id"], ["duration_ms", "bpm", "explicit",
                                                                         "play_count"])
    props = songs.row_schema()["properties"]
    assert props["duration_ms"] == {"type": "integer", "minimum": 15000, "maximum": 3600000}
    assert props["bpm"] == {"type": ["integer", "null"], "minimum": 40, "maximum": 250}
    assert props["explicit"] == {"type": "boolean"}
    assert props["play_count"] == {"type": "integer", "minimum": 0, "maximum": 2**63 - 1}  # BIGINT, >= 0
    short = {"duration_ms": 10, "bpm": None, "explicit": True, "play_count": 1}
    outcomes, kinds = songs.read_reply({"rows": {"song_id=1": short}}, ["song_id=1"])
    assert outcomes[0].values is None and kinds == {"range": 1}


NOTES = Table(
    "notes",
    [
        Column("note_id", "BIGINT", nullable=False),
        Column("mood", "VARCHAR(8)", nullable=False, allowed_values=["calm", "angry"], length=8),
        Column("title", "VARCHAR(10)", nullable=False, length=10),
        Column("body", "VARCHAR(100)", length=100),
        Column("score", "SMALLINT"),
    ],
    primary_key=("note_id",),
)


def test_integer_bounds_are_in_the_schema_and_the_model_alike() -> None:
    shape = RowShape.build(NOTES, ["note_id"], ["score"])
    assert shape.row_schema()["properties"]["score"] == {
        "type": ["integer", "null"], "minimum": -32768, "maximum": 32767}
    for score, kinds in ((32767, {}), (32768, {"range": 1}), (-32769, {"range": 1})):
        assert shape.read_reply({"rows": {"note_id=1": {"score": score}}}, ["note_id=1"])[1] == kinds


def test_reading_a_reply_finds_rows_by_label_and_names_every_failure_kind() -> None:
    shape = RowShape.build(NOTES, ["note_id"], ["mood", "title", "body", "score"])
    assert shape.reply_schema(["note_id=1"])["$defs"]["row"]["properties"]["mood"] == {
        "type": "string", "enum": ["calm", "angry"]}
    ok = {"mood": "calm", "title": "Fine", "body": None, "score": 3}
    labels = shape.labels([{"note_id": i} for i in range(1, 9)])
    reply = {"rows": {
        "note_id=1": ok,
        "note_id=2": {**ok, "mood": "happy", "title": "x" * 11},  # allowed_values, length
        "note_id=3": {**ok, "score": "n/a"},  # wrong_type
        "note_id=4": {**ok, "title": None},  # not_null
        "note_id=5": {**ok, "extra": "added"},  # extra_field: dropped, the row is kept
        "note_id=99": ok,  # invented_key (answers nothing)
        "note_id=6": {"mood": "calm", "title": "T", "score": 1},  # missing_field
        "note_id=7": {**ok, "score": 70_000},  # range (SMALLINT)
    }}  # note 8: missing_row
    outcomes, kinds = shape.read_reply(reply, labels)
    assert dict(kinds) == dict.fromkeys(
        ["allowed_values", "length", "wrong_type", "not_null", "extra_field", "invented_key",
         "missing_field", "range", "missing_row"], 1)
    assert outcomes[0].values == ok and outcomes[4].values == ok
    assert [i + 1 for i, o in enumerate(outcomes) if o.values is None] == [2, 3, 4, 6, 7, 8]
    assert any("title" in e and "10 characters" in e for e in outcomes[1].errors)
    assert "'note_id=99'" in outcomes[7].errors[0] and "label exactly" in outcomes[7].errors[0]
    bad, bad_kinds = shape.read_reply({"rows": [ok]}, ["note_id=1"])
    assert bad[0].values is None and bad_kinds == {"bad_shape": 1}


def test_rows_are_labelled_by_position_without_a_key() -> None:
    loose = Table("loose", [Column("body", "VARCHAR")])
    shape = RowShape.build(loose, [], ["body"])
    labels = shape.labels([{}, {}])
    assert labels == ["row 1", "row 2"]
    outcomes, kinds = shape.read_reply({"rows": {"row 1": {"body": "a"}, "row 2": {"body": None}}}, labels)
    assert [o.values for o in outcomes] == [{"body": "a"}, {"body": None}] and not kinds


# --- the enricher against the fake server -------------------------------------------------------


def test_the_prompt_carries_ddl_descriptions_upstream_names_and_fixed_keys(
    music: Music, db: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    songs = music.pack.schema.table("songs")
    batch = take(db, songs)
    with FakeLLMServer() as server:
        fill = LLMFill(music.pack.schema, music.pack.config, settings_for(server, tmp_path), seed=SEED)
        requests = fill.preview(db, songs, batch)
        fill.close()
        assert server.stats.requests == 0
    assert len(requests) == -(-batch.num_rows // 20)
    system, user = (m["content"] for m in requests[0].messages)
    assert "the label is the row's key: song_id" in system
    assert "CREATE TABLE songs (" in user and "CHECK (duration_ms BETWEEN 15000 AND 3600000)" in user
    assert "Tracks in the catalogue." in user and "Length of the track in milliseconds." in user
    assert "A music streaming app" in user
    first = batch.slice(0, 20).to_pylist()
    for row in first:
        keys = f'"song_id={row["song_id"]}":{{"album_id":{row["album_id"]},"artist_id":{row["artist_id"]}'
        assert keys in user
    album_ids = ",".join(str(a) for a in sorted({row["album_id"] for row in first}))
    titles = db.execute(f"SELECT title FROM albums WHERE album_id IN ({album_ids})").fetchall()
    artist = db.execute("SELECT name FROM artists WHERE artist_id = ?", [first[0]["artist_id"]]).fetchone()
    assert all(title in user for (title,) in titles) and artist[0] in user
    assert requests[0].schema["properties"]["rows"]["required"] == [f"song_id={r['song_id']}" for r in first]
    assert requests[0].cache_key["attempt"] == 0


def test_one_enrich_call_fills_the_meaning_columns(music: Music, db: duckdb.DuckDBPyConnection,
                                                    tmp_path: Path) -> None:
    albums = music.pack.schema.table("albums")
    batch = take(db, albums)
    with FakeLLMServer(seed=1) as server:
        fill = LLMFill(music.pack.schema, music.pack.config, settings_for(server, tmp_path), seed=SEED)
        out = fill(db, albums, batch, 0)
        report = fill.report("albums")
        fill.close()
        # 5 chunks of 20 rows, one call each, plus a repair request for any reply the validation sends back
        # (the fake model may repeat a title of the same artist: UNIQUE (artist_id, title))
        assert report["chunks"] == 5
        assert server.stats.requests == report["calls"] == 5 + report["repair_requests"]
    assert validate_batch(db, albums, out) == []
    unchanged_except(batch, out, ["title", "label"])
    changed = [a != b for a, b in zip(batch.column("title").to_pylist(), out.column("title").to_pylist(),
                                      strict=True)]
    assert sum(changed) > 90
    labels = zip(batch.column("label").to_pylist(), out.column("label").to_pylist(), strict=True)
    assert all(new is None for old, new in labels if old is None), "offline NULLs stay NULL"
    assert report["rows"] == report["rows_llm"] + report["rows_repaired"] == 100
    assert report["rows_fallback"] == 0
    assert report["rows_repaired"] <= report["repair_requests"] * 20
    assert report["llm"]["rows"] == 100 and report["prompt_tokens_per_row"] > 0


FAULTS = {
    "malformed": "malformed",
    "truncated": "truncated",
    "wrong_types": "wrong_type",
    "invented_fk": "invented_key",
    "duplicates": None,  # a row repeated under another label: valid values, nothing to reject
    "missing_fields": "missing_field",
    "extra_fields": "extra_field",
    "rate_limit": "rate_limit",
    "server_error": "server_error",
    "timeout": "timeout",
}


@pytest.mark.parametrize("fault", list(FAULTS))
def test_every_fault_class_ends_in_a_valid_batch_and_is_counted(
    fault: str, music: Music, db: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    albums = music.pack.schema.table("albums")
    batch = take(db, albums)
    # one request at a time: the server's faults follow its request sequence, so the run is repeatable
    # a held reply (the timeout fault) outlasts the client's timeout; a normal one never does, loaded or not
    with FakeLLMServer(seed=5, faults={fault: 0.5}, retry_after=0.01, timeout_delay=60) as server:
        settings = settings_for(server, tmp_path, concurrency=1, timeout=2.0 if fault == "timeout" else 5.0)
        fill = LLMFill(music.pack.schema, music.pack.config, settings, seed=SEED)
        out = fill(db, albums, batch, 0)
        report = fill.report(albums)
        fill.close()
        assert server.stats.faults.get(fault, 0) > 0
    assert validate_batch(db, albums, out) == []
    unchanged_except(batch, out, ["title", "label"])
    paths = report["rows_llm"] + report["rows_repaired"] + report["rows_fallback"] + report["rows_transport"]
    assert paths == report["rows"] == batch.num_rows
    kind = FAULTS[fault]
    if fault in ("rate_limit", "server_error", "timeout"):
        assert report["llm"]["retries"][kind] > 0 and report["retries"] > 0
    elif kind is not None:
        assert report["failures"][kind] > 0
    if fault not in ("extra_fields", "duplicates", "rate_limit", "server_error", "timeout"):
        assert report["repair_requests"] > 0 and report["rows_repaired"] > 0
    if fault == "extra_fields":  # counted, dropped, the row kept
        assert report["rows_fallback"] == 0 and report["rows_llm"] >= batch.num_rows - 2
    if fault == "duplicates":  # valid values, unless they repeat a title of the same artist (UNIQUE)
        assert report["rows_fallback"] == 0 and report["rows_repaired"] == report["failures"].get("unique", 0)


def test_whole_rows_mode_writes_every_free_column_and_keeps_the_keys(
    music: Music, db: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    songs = music.pack.schema.table("songs")
    batch = take(db, songs)
    with FakeLLMServer(seed=3) as server:
        fill = LLMFill(music.pack.schema, music.pack.config, settings_for(server, tmp_path, whole_rows=True),
                       seed=SEED)
        out = fill(db, songs, batch, 0)
        report = fill.report(songs)
        fill.close()
    written = report["columns"]
    assert {"title", "duration_ms", "bpm", "explicit", "play_count"} <= set(written)
    assert validate_batch(db, songs, out) == []
    unchanged_except(batch, out, written)
    assert not out.column("duration_ms").equals(batch.column("duration_ms"))
    assert report["rows_llm"] + report["rows_repaired"] > 0.9 * batch.num_rows


def test_spent_retries_fall_back_to_the_offline_values(music: Music, db: duckdb.DuckDBPyConnection,
                                                       tmp_path: Path) -> None:
    albums = music.pack.schema.table("albums")
    batch = take(db, albums)
    with FakeLLMServer(faults={"server_error": 1.0}) as server:
        fill = LLMFill(music.pack.schema, music.pack.config, settings_for(server, tmp_path, max_retries=1),
                       seed=SEED)
        out = fill(db, albums, batch, 0)
        report = fill.report(albums)
        fill.close()
    assert out.equals(batch)
    assert report["rows_transport"] == 100 and report["failures"] == {"transport": 5}
    assert report["llm"]["gave_up"] == 5 and report["calls"] == 10


def test_a_refused_request_stops_with_a_terminal_error(music: Music, db: duckdb.DuckDBPyConnection,
                                                       tmp_path: Path) -> None:
    albums = music.pack.schema.table("albums")
    batch = take(db, albums)
    with FakeLLMServer() as server:
        fill = LLMFill(music.pack.schema, music.pack.config, settings_for(server, tmp_path, model="nope"),
                       seed=SEED)
        with pytest.raises(TerminalError, match="refused the request"):
            fill(db, albums, batch, 0)
        fill.close()


def test_a_rebuild_from_the_cache_makes_no_call_and_gives_identical_rows(
    music: Music, tmp_path: Path
) -> None:
    comments = music.pack.schema.table("comments")
    # the LLM writes comment bodies here (the pack picks them by the song's genre instead: values_by via)
    config = music.pack.config.model_copy(deep=True)
    config.columns["comments.body"] = ColumnHint(strategy="comment")
    outputs, reports = [], []
    with FakeLLMServer(seed=2, faults={"malformed": 0.15, "duplicates": 0.15, "invented_fk": 0.1}) as server:
        settings = settings_for(server, tmp_path, concurrency=4)
        for run in range(2):
            shutil.copyfile(music.path, tmp_path / f"run{run}.duckdb")
            with duckdb.connect(str(tmp_path / f"run{run}.duckdb")) as con:
                fill = LLMFill(music.pack.schema, config, settings, seed=SEED)
                outputs.append(fill(con, comments, take(con, comments), 0))
                reports.append(fill.to_dict())
                fill.close()
            if run == 0:
                requests = server.stats.requests
                assert requests > reports[0]["totals"]["chunks"], "the faults caused repair requests"
        assert server.stats.requests == requests, "the rebuild was answered by the cache alone"
    assert outputs[1].equals(outputs[0])
    first, second = reports[0]["totals"], reports[1]["totals"]
    assert second["calls"] == 0 and second["cache_hits"] == first["calls"]
    assert second["llm"]["cost_usd"] == 0
    for key in ("rows_llm", "rows_repaired", "rows_fallback", "failures"):
        assert second[key] == first[key], key


def test_the_report_has_prompt_hashes_settings_without_the_key_and_totals(
    music: Music, db: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    artists = music.pack.schema.table("artists")
    with FakeLLMServer() as server:
        fill = LLMFill(music.pack.schema, music.pack.config, settings_for(server, tmp_path), seed=SEED)
        batch = take(db, artists)
        fill(db, artists, batch, 0)
        chunks = -(-batch.num_rows // fill.rows_per_call)  # one call per chunk: no faults, no repairs
        users = music.pack.schema.table("users")
        assert fill(db, users, take(db, users), 0) is not None  # no meaning columns: no call
        data = fill.to_dict()
        fill.close()
    assert data["prompts"] == prompt_hashes()
    assert "api_key" not in data["settings"] and data["settings"]["api_key_set"] is True
    assert data["settings"]["model"] == "fake-model"
    assert set(data["tables"]) == {"artists"}
    assert data["totals"]["calls"] == data["tables"]["artists"]["calls"] == chunks
    assert fill.report("users")["rows"] == 0


@pytest.mark.parametrize("strict_keywords", [False, True], ids=["full-schema", "portable-subset"])
def test_a_server_that_follows_the_schema_but_not_the_prompt_cannot_invent_keys(
    strict_keywords: bool, music: Music, db: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    """Keys are fixed by construction: the rows are required properties of the reply, so a server whose
    decoding obeys the schema while its model ignores the prompt still answers every row it was asked,
    with the portable subset too (a server that rejects length keywords)."""
    albums = music.pack.schema.table("albums")
    batch = take(db, albums)
    server_type = StrictKeywordsServer if strict_keywords else FakeLLMServer
    with server_type(seed=4, follow_prompt=False) as server:
        fill = LLMFill(music.pack.schema, music.pack.config, settings_for(server, tmp_path), seed=SEED)
        out = fill(db, albums, batch, 0)
        report = fill.report(albums)
        fill.close()
    assert validate_batch(db, albums, out) == []
    unchanged_except(batch, out, ["title", "label"])
    assert not {"invented_key", "missing_row", "bad_shape"} & set(report["failures"])
    assert report["rows_fallback"] == 0 and report["rows_llm"] + report["rows_repaired"] == batch.num_rows
    if strict_keywords:
        # requests in flight when the first refusal came back are refused too, and resent once each
        assert 1 <= server.refused <= report["chunks"] and report["llm"]["fallbacks"] == 1
        rows = server.schemas[0]["properties"]["rows"]
        assert len(rows["required"]) == 20 and rows["required"] == list(rows["properties"])
        assert "maxLength" not in json.dumps(server.schemas[0])
