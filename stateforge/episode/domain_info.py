"""What an episode needs to know about its database, read from the file itself and cached per content.

The schema model (`stateforge.model`), the domain's name and config (`stateforge.build_meta` 'inputs', the
JSON of the build's inputs) and the frozen clock: `build_meta` 'now' when the build recorded one, else
the config's `TimeWindow.clock`. A database made by `init-db` has no build_meta: it
gets the default config of its DDL's name. Parsing is cached by a hash of the stored texts, so opening
many episodes over one base parses once.
"""

from __future__ import annotations

import datetime as dt
import json
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
from pydantic import ValidationError

from stateforge.domain import DomainConfig
from stateforge.episode.rules import RuleCheck, compile_rules
from stateforge.errors import StoreError
from stateforge.graph.plan import FillPlan
from stateforge.schema.model import Schema
from stateforge.store.metadata import read_model
from stateforge.tools.context import SchemaIndex

NOON = dt.time(12, 0)
_CACHE: dict[str, DomainInfo] = {}
_LOCK = threading.Lock()


@dataclass(frozen=True)
class DomainInfo:
    """The model, config, clock and rules of one database content."""

    name: str
    schema: Schema
    plan: FillPlan
    index: SchemaIndex
    config: DomainConfig
    now: dt.datetime
    rules: tuple[RuleCheck, ...]


def read_domain_info(con: duckdb.DuckDBPyConnection, path: str, *, file_key: str | None = None) -> DomainInfo:
    """The `DomainInfo` of the connected database (`path` is for messages).

    `file_key` names the exact bytes the connection holds (the base file's path, size, mtime and inode, for
    a fresh copy of it): a second episode of the same base then reads nothing at all.
    """
    if file_key is not None:
        with _LOCK:
            found = _CACHE.get(file_key)
        if found is not None:
            return found
    info = _read(con, path)
    if file_key is not None:
        with _LOCK:
            _CACHE[file_key] = info
    return info


def file_key(path: Path) -> str:
    """A cache key for the content of a database file: its resolved path, size, mtime and inode."""
    stat = path.stat()
    return f"{path.resolve()}:{stat.st_size}:{stat.st_mtime_ns}:{stat.st_ino}"


def _read(con: duckdb.DuckDBPyConnection, path: str) -> DomainInfo:
    try:
        [(model_md5,)] = con.execute(
            "SELECT md5(schema_json::VARCHAR || plan_json::VARCHAR) FROM stateforge.model"
        ).fetchall()
    except (duckdb.CatalogException, ValueError) as exc:
        raise StoreError(
            f"{path} is not a Stateforge database (no single row in stateforge.model); build it "
            "with `stateforge build-domain` or create it with `stateforge init-db`."
        ) from exc
    try:
        [(meta_md5,)] = con.execute(
            "SELECT md5(string_agg(key || '=' || value, '\x1f' ORDER BY key)) FROM stateforge.build_meta"
        ).fetchall()
        has_meta = True
    except duckdb.CatalogException:  # a database made by init-db: no build
        meta_md5, has_meta = "", False
    digest = f"{model_md5}:{meta_md5}"
    with _LOCK:
        found = _CACHE.get(digest)
    if found is not None:
        return found
    meta = dict(con.execute("SELECT key, value FROM stateforge.build_meta").fetchall()) if has_meta else {}
    schema, plan = read_model(con)
    inputs = json.loads(meta["inputs"]) if "inputs" in meta else {}
    name = inputs.get("domain") or _stem(schema.source) or "domain"
    config = _config(inputs, name, path)
    now = _now(meta.get("now"), config, path)
    info = DomainInfo(
        name=name,
        schema=schema,
        plan=plan,
        index=SchemaIndex(schema),
        config=config,
        now=now,
        rules=tuple(compile_rules(config.rules, schema)),
    )
    with _LOCK:
        _CACHE[digest] = info
    return info


def _stem(source: str | None) -> str | None:
    if not source:
        return None
    return source.replace("\\", "/").rsplit("/", 1)[-1].rsplit(".", 1)[0]


def _config(inputs: dict[str, Any], name: str, path: str) -> DomainConfig:
    raw = inputs.get("config")
    if raw is None:
        return DomainConfig.default(name)
    try:
        return DomainConfig.model_validate(raw)
    except ValidationError as exc:
        raise StoreError(
            f"{path}: the domain config its build recorded does not validate ({exc.errors()[0]['msg']} at "
            f"{'.'.join(map(str, exc.errors()[0]['loc']))}); rebuild the database with this Stateforge."
        ) from exc


def _now(value: Any, config: DomainConfig, path: str) -> dt.datetime:
    if value is None:
        return config.time_window.clock
    text = str(value).strip().strip('"')
    try:
        if len(text) == 10:
            return dt.datetime.combine(dt.date.fromisoformat(text), NOON)
        return dt.datetime.fromisoformat(text)
    except ValueError as exc:
        raise StoreError(
            f"{path}: stateforge.build_meta 'now' is {text!r}, not an ISO date or timestamp; "
            "rebuild the database."
        ) from exc
