"""How common real-world codes are: weights for categorical columns whose meaning is known.

Weights are relative (they need not sum to anything) and rounded on purpose: what matters is that English
is far more common than Quechua and the United States than Nauru, not the second digit. The numbers are
data, in `frequencies.toml` beside this module (package data); their sources, as rounded estimates (the
project wrote these tables; update the numbers, keep the shape):

- COUNTRIES: internet users in millions, ~2023 (ITU "Facts and Figures" and DataReportal country reports).
- LANGUAGES: total speakers (first and second language) in millions (Ethnologue 2024 top-200 list).
- MUSIC_LANGUAGES: share of tracks in streaming catalogues and charts in percent (IFPI Engaging with Music
  and Luminate year-end reports, 2023-2024; English about half, Spanish the clear second).
- CURRENCIES: share of international payments by value in percent (SWIFT RMB Tracker, 2024).
- TIMEZONES: people living in each IANA zone in millions (UN World Population Prospects 2024 per country,
  split by region for the countries with several zones).
"""

from __future__ import annotations

import functools
import tomllib
from collections.abc import Iterable, Sequence
from importlib import resources
from typing import Any


@functools.cache
def _document() -> dict[str, dict[str, Any]]:
    text = resources.files(__package__).joinpath("frequencies.toml").read_text("utf-8")
    return tomllib.loads(text)


def _table(name: str) -> tuple[tuple[str, float], ...]:
    return tuple((code, float(weight)) for code, weight in _document()[name].items())


COUNTRY_NAMES: dict[str, str] = dict(_document()["country_names"])
COUNTRIES = _table("country_code")
LANGUAGES = _table("language_code")
MUSIC_LANGUAGES = _table("music_language_code")
CURRENCIES = _table("currency_code")
TIMEZONES = _table("timezone")
COUNTRY_NAME_WEIGHTS = tuple((COUNTRY_NAMES[code], weight) for code, weight in COUNTRIES)

TABLES: dict[str, tuple[tuple[str, float], ...]] = {
    "country_code": COUNTRIES,
    "country": COUNTRY_NAME_WEIGHTS,
    "language_code": LANGUAGES,
    "music_language_code": MUSIC_LANGUAGES,
    "currency_code": CURRENCIES,
    "timezone": TIMEZONES,
}
"""Frequency tables by the strategy that draws from them (`music_language_code`: languages in a music
context, chosen by the column's topic)."""

FLOOR = 0.01
"""Weight, relative to the table's smallest, of an allowed value the table does not know."""


def table_for(strategy: str, topic: str = "") -> tuple[tuple[str, float], ...] | None:
    """The frequency table of a strategy (in `topic`), or None when it has none."""
    if strategy == "language_code" and topic == "music":
        return MUSIC_LANGUAGES
    return TABLES.get(strategy)


@functools.lru_cache(maxsize=64)
def _lookup(table: tuple[tuple[str, float], ...]) -> dict[str, float]:
    return {code.lower(): weight for code, weight in table}


def weights_for(values: Sequence[object], table: Iterable[tuple[str, float]]) -> list[float]:
    """Weights of `values` (allowed values of a column, or a hint's list) by `table`, case-insensitively.

    A value the table does not know weighs `FLOOR` times the table's smallest weight: rare, not absent.
    """
    lookup = _lookup(tuple(table))
    floor = min(lookup.values()) * FLOOR
    return [lookup.get(str(v).lower(), floor) if v is not None else floor for v in values]
