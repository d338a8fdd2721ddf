"""The on-disk cache of Faker pools: a hit is what Faker makes, a miss or a broken file changes nothing."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from stateforge.fill import pools
from stateforge.fill.pool_cache import PoolCache, pool_cache

CASES = [
    ("city", {}, False),
    ("date_between", {"start_date": "-3y", "end_date": "today"}, False),
    ("pydecimal", {"left_digits": 3, "right_digits": 2, "positive": True}, False),
    ("user_name", {}, True),
    ("boolean", {}, False),
    ("date_time_between", {"start_date": "-1y", "end_date": "now"}, False),
]


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh cache folder for this test, and no pool remembered in memory."""
    monkeypatch.setenv("STATEFORGE_POOL_CACHE", str(tmp_path / "pools"))
    pools._pool.cache_clear()
    yield tmp_path / "pools"
    pools._pool.cache_clear()


def made(provider: str, args: dict, distinct: bool, monkeypatch: pytest.MonkeyPatch) -> pa.Array:
    """The pool straight from Faker, with the cache off."""
    monkeypatch.setenv("STATEFORGE_POOL_CACHE", "off")
    pools._pool.cache_clear()
    try:
        return pools.pool(provider, seed=4, size=300, args=args, distinct=distinct)
    finally:
        pools._pool.cache_clear()


@pytest.mark.parametrize(("provider", "args", "distinct"), CASES, ids=[c[0] for c in CASES])
def test_a_cached_pool_is_what_faker_makes_type_and_values(cache_dir, monkeypatch, provider, args, distinct):
    first = pools.pool(provider, seed=4, size=300, args=args, distinct=distinct)  # a miss: made and stored
    assert len(list(cache_dir.rglob("*.arrow"))) == 1
    pools._pool.cache_clear()
    hit = pools.pool(provider, seed=4, size=300, args=args, distinct=distinct)  # read from the file
    expected = made(provider, args, distinct, monkeypatch)
    assert hit.type == first.type == expected.type
    assert hit.equals(expected) and first.equals(expected)


def test_the_key_separates_seed_size_arguments_and_dedup(cache_dir):
    pools.pool("city", seed=1, size=50)
    pools.pool("city", seed=2, size=50)
    pools.pool("city", seed=1, size=60)
    pools.pool("city", seed=1, size=50, distinct=True)
    pools.pool("pyint", seed=1, size=50, args={"max_value": 9})
    pools.pool("pyint", seed=1, size=50, args={"max_value": 8})
    assert len(list(cache_dir.rglob("*.arrow"))) == 6
    cache = pool_cache()
    assert cache is not None and cache.root == cache_dir
    key = {"provider": "city", "seed": 1, "size": 50, "args": "{}", "locale": pools.LOCALE, "distinct": False}
    assert cache.path(key).exists()
    assert cache.path({**key, "seed": 2}) != cache.path(key)


def test_a_broken_or_unwritable_cache_only_costs_the_faker_calls(cache_dir, monkeypatch):
    expected = made("city", {}, False, monkeypatch)
    monkeypatch.setenv("STATEFORGE_POOL_CACHE", str(cache_dir))
    pools.pool("city", seed=4, size=300)
    [file] = list(cache_dir.rglob("*.arrow"))
    file.write_bytes(b"not arrow")
    pools._pool.cache_clear()
    assert pools.pool("city", seed=4, size=300).equals(expected)  # unreadable: made again (and rewritten)
    pools._pool.cache_clear()
    assert PoolCache(cache_dir).load({"provider": "x"}) is None
    blocked = cache_dir.parent / "blocked"
    blocked.write_text("a file where the cache folder should be")
    monkeypatch.setenv("STATEFORGE_POOL_CACHE", str(blocked))
    assert pools.pool("city", seed=4, size=300).equals(expected)


def test_off_turns_it_off(monkeypatch):
    for value in ("off", "0", "false"):
        monkeypatch.setenv("STATEFORGE_POOL_CACHE", value)
        assert pool_cache() is None
    monkeypatch.delenv("STATEFORGE_POOL_CACHE")
    assert pool_cache().root == Path.cwd() / "artifacts" / "cache" / "pools"
