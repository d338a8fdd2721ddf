"""The content-addressed LLM response cache: the key recipe, atomic entries, unreadable entries."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from stateforge.llm.cache import CACHE_FORMAT, CachedReply, ResponseCache, cache_key, canonical_json

BASE: dict[str, Any] = {
    "model": "gpt-4o-mini",
    "messages": [{"role": "user", "content": "Fill table songs."}],
    "name": "songs",
    "schema": {"type": "object", "properties": {"rows": {"type": "array"}}},
    "mode": "json_schema",
    "temperature": 0.0,
    "seed": 0,
    "max_tokens": None,
    "extra": None,
}


def entry(key: str, content: str = '{"rows": []}') -> CachedReply:
    return CachedReply(key=key, model="m", mode="json_schema", content=content, finish_reason="stop")


def test_key_is_stable_and_ignores_dict_order() -> None:
    key = cache_key(**BASE)
    assert len(key) == 64 and key == cache_key(**BASE)
    reordered = BASE | {"schema": {"properties": {"rows": {"type": "array"}}, "type": "object"}}
    assert cache_key(**reordered) == key
    assert cache_key(**(BASE | {"temperature": 0})) == key  # 0 and 0.0 are one temperature
    assert cache_key(**(BASE | {"extra": {}})) == key


@pytest.mark.parametrize(
    "change",
    [
        {"model": "gpt-4o"},
        {"messages": [{"role": "user", "content": "Fill table albums."}]},
        {"name": "albums"},
        {"schema": {"type": "object"}},
        {"mode": "auto"},
        {"temperature": 0.7},
        {"seed": 1},
        {"seed": None},
        {"max_tokens": 512},
        {"extra": {"repair_attempt": 1}},
    ],
)
def test_every_input_of_the_recipe_changes_the_key(change: dict[str, Any]) -> None:
    assert cache_key(**(BASE | change)) != cache_key(**BASE)


def test_canonical_json_is_compact_sorted_and_utf8() -> None:
    assert canonical_json({"b": 1, "a": "é"}) == '{"a":"é","b":1}'


def test_put_then_get_round_trips_atomically(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    key = cache_key(**BASE)
    assert cache.get(key) is None and len(cache) == 0
    path = cache.put(entry(key))
    assert path == tmp_path / key[:2] / f"{key}.json"
    assert cache.get(key) == entry(key) and len(cache) == 1
    assert json.loads(path.read_text())["format"] == CACHE_FORMAT
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary file left behind


def test_unreadable_or_foreign_entries_count_as_misses(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    key, other = cache_key(**BASE), cache_key(**(BASE | {"seed": 5}))
    cache.path(key).parent.mkdir(parents=True)
    cache.path(key).write_text("{not json")
    assert cache.get(key) is None
    cache.path(key).write_text(entry(other).model_dump_json())  # holds another key
    assert cache.get(key) is None
    cache.path(key).write_text(json.dumps(entry(key).model_dump() | {"surprise": 1}))  # extra="forbid"
    assert cache.get(key) is None


def test_concurrent_writers_of_one_key_leave_one_whole_entry(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    key = cache_key(**BASE)
    contents = [json.dumps({"rows": [{"n": i}] * 200}) for i in range(8)]
    threads = [threading.Thread(target=cache.put, args=(entry(key, c),)) for c in contents]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    found = cache.get(key)
    assert found is not None and found.content in contents
    assert len(list(cache.path(key).parent.iterdir())) == 1
