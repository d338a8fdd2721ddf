"""Pools of realistic values, made once per (provider, locale, seed, size, args) with a seeded Faker.

Faker costs about 60 us a value; sampling a pool with numpy costs about 1 us a row. So every Faker-made
value comes from a pool: `pool("city", seed=7)` calls Faker 2,000 times once (then reads the pool from
the on-disk cache, `stateforge.fill.pool_cache`, in later processes), and the hot path only draws indices
with `rng.integers` and `take`s them.
"""

from __future__ import annotations

import functools
import hashlib
import json
import threading
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

from stateforge.errors import DomainError
from stateforge.fill.pool_cache import pool_cache
from stateforge.schema.model import suggest

if TYPE_CHECKING:
    from faker import Faker

LOCALE = "en_US"
DEFAULT_POOL = 2000
_LOCK = threading.Lock()


def stable_hash(*parts: Any) -> int:
    """A 63-bit hash that is the same in every process (unlike `hash()`, which is salted per process)."""
    text = json.dumps(parts, default=str, sort_keys=True)
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little") >> 1


@functools.lru_cache(maxsize=8)
def _faker(locale: str) -> Faker:
    from faker import Faker  # imported on the first pool not in the cache: a warm build never needs it

    return Faker(locale)


@functools.lru_cache(maxsize=8)
def provider_names(locale: str = LOCALE) -> tuple[str, ...]:
    """Every public Faker provider method, for suggestions."""
    fake = _faker(locale)
    names = []
    for name in dir(fake):
        if name.startswith("_") or name in {"seed", "seed_instance", "seed_locale", "random", "factories"}:
            continue
        try:
            if callable(getattr(fake, name)):
                names.append(name)
        except (AttributeError, TypeError, NotImplementedError):
            continue
    return tuple(names)


def pool(
    provider: str,
    *,
    seed: int = 0,
    size: int = DEFAULT_POOL,
    args: dict[str, Any] | None = None,
    locale: str = LOCALE,
    distinct: bool = False,
) -> pa.Array:
    """`size` values of the Faker provider `provider`, as an Arrow array (cached per process).

    With `distinct`, duplicates are dropped (so the pool may be smaller than `size`); the first-seen
    order is kept so that the result depends only on the arguments.
    """
    frozen = json.dumps(args or {}, sort_keys=True, default=str)
    return _pool(provider, seed, size, frozen, locale, distinct)


@functools.lru_cache(maxsize=512)
def _pool(provider: str, seed: int, size: int, frozen_args: str, locale: str, distinct: bool) -> pa.Array:
    cache = pool_cache()
    key = {"provider": provider, "seed": seed, "size": size, "args": frozen_args, "locale": locale,
           "distinct": distinct}
    found = cache.load(key) if cache is not None else None
    if found is not None:
        return found
    made = _make(provider, seed, size, frozen_args, locale, distinct)
    if cache is not None:
        cache.store(key, made)
    return made


def _make(provider: str, seed: int, size: int, frozen_args: str, locale: str, distinct: bool) -> pa.Array:
    """The pool, from Faker."""
    args = json.loads(frozen_args)
    with _LOCK:  # one Faker instance per locale, reseeded for each pool
        fake = _faker(locale)
        method = getattr(fake, provider, None) if not provider.startswith("_") else None
        if method is None or not callable(method):
            raise DomainError(
                f'no Faker provider "{provider}".{suggest(provider, list(provider_names(locale)))}'
            )
        fake.seed_instance(stable_hash(seed, provider, frozen_args, locale))
        try:
            values = [method(**args) for _ in range(size)]
        except TypeError as exc:
            raise DomainError(f'Faker provider "{provider}" rejected args {args}: {exc}') from None
    if distinct:
        values = list(dict.fromkeys(values))
    return _to_arrow(values)


def _to_arrow(values: list[Any]) -> pa.Array:
    try:
        array = pa.array(values)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        array = pa.array([str(v) for v in values])
    if pa.types.is_null(array.type) or pa.types.is_nested(array.type):
        array = pa.array([None if v is None else str(v) for v in values], pa.string())
    return array


def sample(values: pa.Array, rng: np.random.Generator, n: int) -> pa.Array:
    """`n` values drawn uniformly, with replacement."""
    return values.take(rng.integers(0, len(values), n))
