"""Golden cases for every strategy, the inference rules, CHECK derivation and the Arrow type mapping."""

from __future__ import annotations

import json
import re
from datetime import date, datetime, time
from decimal import Decimal
from typing import Any

import pyarrow as pa
import pytest

from stateforge.constraints.checks import After, derive_checks, unhandled_checks
from stateforge.domain.config import DomainConfig
from stateforge.fill.generator import TableGenerator, strategy_for
from stateforge.fill.strategies import STRATEGIES
from stateforge.fill.strategies_vocab import NAME_VOCABULARIES
from stateforge.schema.model import Check, Column, ForeignKey, Table
from stateforge.types import arrow_type

N = 400


def generate(
    column: Column,
    hint: dict[str, Any] | None = None,
    *,
    n: int = N,
    checks: list[str] = (),
    extra: list[Column] = (),
    table: str = "t",
    seed: int = 1,
) -> list[Any]:
    """The values of `column` in a batch of a one-column table (plus an id and `extra` columns)."""
    t = Table(
        table,
        [Column("id", "BIGINT", nullable=False), *extra, column],
        primary_key=("id",),
        checks=[Check(sql) for sql in checks],
    )
    hints = {f"{table}.{column.name}": hint} if hint else {}
    config = DomainConfig(name="x", columns=hints, null_rate=0.0)
    return TableGenerator(t, config, seed=seed).generate(n, 0).column(column.name).to_pylist()


def matching(pattern: str):
    return lambda v: re.fullmatch(pattern, v) is not None


def between(lo: Any, hi: Any):
    return lambda v: lo <= v <= hi


IS_STR = lambda v: isinstance(v, str) and v != ""  # noqa: E731
SMALL_WORDS = {"of", "the", "in", "on", "to", "a", "and", "for", "from", "at", "x", "&", "/", "with"}


def TITLED(value: str) -> bool:  # noqa: N802 - used like the constants beside it
    """Title case: every word capitalised (or a number, a bracket, a small word), single spaces."""
    words = value.split(" ")
    return value == value.strip() and all(
        w and (w[0].isupper() or w[0] in "(0123456789" or w in SMALL_WORDS) for w in words
    ) and words[0][0] not in "&/"


def SENTENCES(value: str) -> bool:  # noqa: N802
    """One or more sentences: a capital (or a digit) first, single spaces, ending in . ! or ?"""
    return re.fullmatch(r"[A-Z0-9\"'][^\n]*[.!?]", value) is not None and "  " not in value
WINDOW = (datetime(2023, 1, 1), datetime(2026, 6, 30, 23, 59, 59, 999999))

# (strategy, column type, extra hint keys, check of every value)
GOLDEN: list[tuple[str, str, dict[str, Any], Any]] = [
    ("first_name", "VARCHAR(40)", {}, matching(r"[A-Z][A-Za-z' -]+")),
    ("last_name", "VARCHAR(40)", {}, matching(r"[A-Z][A-Za-z' -]+")),
    ("full_name", "VARCHAR(80)", {}, matching(r"\S+ \S+")),
    ("username", "VARCHAR(30)", {}, matching(r"[a-z0-9._]+")),
    ("email", "VARCHAR(120)", {}, matching(r"[a-z0-9._]+@[a-z0-9.-]+\.[a-z]+")),
    ("phone", "VARCHAR(20)", {}, matching(r"\(\d{3}\) \d{3}-\d{4}")),
    ("company", "VARCHAR(80)", {"pool": 50}, IS_STR),
    ("job_title", "VARCHAR(80)", {"pool": 50}, IS_STR),
    ("address", "VARCHAR(120)", {"pool": 50}, lambda v: "\n" not in v and "," in v),
    ("street", "VARCHAR(80)", {"pool": 50}, matching(r"\d+ .+")),
    ("city", "VARCHAR(60)", {"pool": 50}, IS_STR),
    ("state", "VARCHAR(40)", {"pool": 50}, IS_STR),
    ("country", "VARCHAR(60)", {"pool": 50}, IS_STR),
    ("country_code", "VARCHAR(2)", {"pool": 50}, matching(r"[A-Z]{2}")),
    ("postcode", "VARCHAR(10)", {"pool": 50}, matching(r"\d{5}")),
    ("latitude", "DOUBLE", {}, between(-90, 90)),
    ("longitude", "DOUBLE", {}, between(-180, 180)),
    ("timezone", "VARCHAR(40)", {"pool": 50}, matching(r"[A-Za-z_]+(/[A-Za-z_+\-0-9]+)*")),
    ("language_code", "VARCHAR(8)", {"pool": 50}, matching(r"[a-z]{2,3}")),
    ("currency_code", "VARCHAR(3)", {"pool": 50}, matching(r"[A-Z]{3}")),
    ("url", "VARCHAR(200)", {}, matching(r"https://www\.[a-z0-9.]+/[a-z-]+")),
    ("domain", "VARCHAR(60)", {}, matching(r"[a-z0-9]+\.[a-z]+")),
    (
        "ipv4",
        "VARCHAR(15)",
        {},
        lambda v: all(0 <= int(o) <= 255 for o in v.split(".")) and v.count(".") == 3,
    ),
    ("user_agent", "VARCHAR(300)", {"pool": 50}, IS_STR),
    ("uuid", "UUID", {}, matching(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")),
    ("slug", "VARCHAR(80)", {}, matching(r"[a-z]+(-[a-z]+)+")),
    ("color", "VARCHAR(20)", {}, matching(r"[A-Za-z]+")),
    ("hex", "VARCHAR(40)", {}, matching(r"[0-9a-f]{40}")),
    ("file_path", "VARCHAR(100)", {"pool": 50}, matching(r"/.+\..+")),
    ("mime_type", "VARCHAR(60)", {"pool": 50}, matching(r"[a-z]+/.+")),
    ("word", "VARCHAR(20)", {}, matching(r"[a-z']+")),
    ("words", "VARCHAR(60)", {}, matching(r"[A-Z][a-z']*( [A-Z][a-z']*){0,2}")),
    ("title", "VARCHAR(80)", {}, TITLED),
    ("sentence", "VARCHAR(200)", {}, SENTENCES),
    ("paragraph", "VARCHAR(1000)", {}, SENTENCES),
    *((name, "VARCHAR(30)", {}, TITLED) for name in sorted(NAME_VOCABULARIES - {"words", "title"})),
    ("artist_name", "VARCHAR(60)", {}, TITLED),
    ("tag", "VARCHAR(5)", {}, matching(r"[A-Z]{2,5}")),
    *((name, "VARCHAR(400)", {}, SENTENCES) for name in ("bio", "comment", "description", "note", "message")),
    ("agenda", "VARCHAR(500)", {}, matching(r"1\. [A-Z][^\n]*(\n\d\. [A-Z][^\n]*)*")),
    ("text", "VARCHAR(300)", {"pool": 50}, matching(r"[A-Z](.|\n)*\.")),
    ("code", "VARCHAR(12)", {"pattern": "SKU-####-??"}, matching(r"SKU-\d{4}-[A-Z]{2}")),
    ("json", "JSON", {}, lambda v: isinstance(json.loads(v), dict)),
    ("int", "INTEGER", {"min": 5, "max": 9}, lambda v: isinstance(v, int) and 5 <= v <= 9),
    ("float", "DOUBLE", {"min": 1, "max": 2, "decimals": 3}, lambda v: 1 <= v <= 2 and round(v, 3) == v),
    ("decimal", "DECIMAL(6,2)", {"min": -10, "max": 10}, lambda v: -10 <= v <= 10 and v == round(v, 2)),
    ("price", "DECIMAL(10,2)", {}, lambda v: isinstance(v, Decimal) and Decimal("1") <= v <= Decimal("500")),
    ("rating", "SMALLINT", {}, between(1, 5)),
    ("bool", "BOOLEAN", {"p": 1.0}, lambda v: v is True),
    ("sequence", "INTEGER", {}, lambda v: 1 <= v <= N),
    ("year", "SMALLINT", {"min": 1990, "max": 2000}, between(1990, 2000)),
    ("timestamp", "TIMESTAMP", {}, lambda v: v.tzinfo is None and WINDOW[0] <= v <= WINDOW[1]),
    (
        "date",
        "DATE",
        {"min": "2024-01-01", "max": "2024-01-31"},
        between(date(2024, 1, 1), date(2024, 1, 31)),
    ),
    ("time", "TIME", {"min": "09:00:00", "max": "17:00:00"}, between(time(9), time(17))),
    ("duration", "INTEGER", {"unit": "ms"}, between(1000, 600_000)),
    ("values", "VARCHAR(10)", {"values": ["a", "b"], "weights": [1, 0]}, lambda v: v == "a"),
    ("constant", "INTEGER", {"constant": 42}, lambda v: v == 42),
    ("faker", "VARCHAR(80)", {"faker": "catch_phrase", "pool": 50}, IS_STR),
    ("bytes", "BLOB", {}, lambda v: isinstance(v, bytes) and 8 <= len(v) <= 64),
]


def test_golden_cases_cover_every_strategy() -> None:
    assert {g[0] for g in GOLDEN} | {"expr"} == set(STRATEGIES)


@pytest.mark.parametrize(("strategy", "type_", "hint", "check"), GOLDEN, ids=[g[0] for g in GOLDEN])
def test_strategy_golden(strategy: str, type_: str, hint: dict[str, Any], check: Any) -> None:
    values = generate(Column("c", type_), {"strategy": strategy, **hint})
    assert len(values) == N and None not in values
    bad = [v for v in values if not check(v)]
    assert not bad, f"{strategy}: {bad[:5]}"
    length = re.search(r"VARCHAR\((\d+)\)", type_)
    if length:
        assert max(len(v) for v in values) <= int(length.group(1))


def test_varchar_length_is_honoured_by_truncation() -> None:
    values = generate(Column("c", "VARCHAR(7)"), {"strategy": "paragraph", "pool": 20})
    assert max(len(v) for v in values) <= 7


def test_code_pattern_shortened_to_column_length() -> None:
    values = generate(Column("code", "CHAR(3)"))
    assert all(re.fullmatch(r"[A-Z]{3}", v) for v in values)


@pytest.mark.parametrize(
    ("type_", "low", "high"),
    [
        ("TINYINT", -128, 127),
        ("UTINYINT", 0, 255),
        ("SMALLINT", -32768, 32767),
        ("USMALLINT", 0, 65535),
    ],
)
def test_integer_widths_clip_hint_ranges(type_: str, low: int, high: int) -> None:
    values = generate(Column("c", type_), {"strategy": "int", "min": -(10**6), "max": 10**6})
    assert min(values) >= low and max(values) <= high


def test_decimal_stays_within_precision() -> None:
    values = generate(Column("c", "DECIMAL(4,2)"), {"strategy": "decimal", "min": -1000, "max": 1000})
    assert all(abs(v) <= Decimal("99.99") and v == round(v, 2) for v in values)


def test_zipf_is_a_long_tail_near_min() -> None:
    values = sorted(
        generate(
            Column("c", "BIGINT"),
            {"strategy": "int", "min": 0, "max": 1_000_000, "distribution": "zipf"},
            n=2000,
        )
    )
    assert values[len(values) // 2] < 20_000 and values[-1] > 100_000


def test_email_is_made_from_the_row_names() -> None:
    t = Table(
        "people",
        [
            Column("id", "BIGINT", nullable=False),
            Column("first_name", "VARCHAR(30)"),
            Column("last_name", "VARCHAR(30)"),
            Column("email", "VARCHAR(100)"),
        ],
        primary_key=("id",),
        unique=[("email",)],
    )
    rows = TableGenerator(t, DomainConfig(name="x", null_rate=0), seed=3).generate(300, 0).to_pylist()
    for row in rows:
        local = row["email"].split("@")[0]
        last = re.sub(r"[^a-z]", "", row["last_name"].lower())
        assert last in local and local[0] == row["first_name"][0].lower()


# --- inference ------------------------------------------------------------------------------------

INFERRED: list[tuple[Column, str]] = [
    (Column("email", "VARCHAR(100)"), "email"),
    (Column("contact_email", "TEXT"), "email"),
    (Column("phone_number", "VARCHAR(20)"), "phone"),
    (Column("first_name", "VARCHAR(40)"), "first_name"),
    (Column("surname", "VARCHAR(40)"), "last_name"),
    (Column("full_name", "VARCHAR(80)"), "full_name"),
    (Column("username", "VARCHAR(30)"), "username"),
    (Column("handle", "VARCHAR(30)"), "username"),
    (Column("city", "VARCHAR(60)"), "city"),
    (Column("country", "VARCHAR(60)"), "country"),
    (Column("country", "CHAR(2)"), "country_code"),
    (Column("country_code", "VARCHAR(2)"), "country_code"),
    (Column("address", "VARCHAR(200)"), "address"),
    (Column("zip", "VARCHAR(10)"), "postcode"),
    (Column("website", "VARCHAR(200)"), "url"),
    (Column("avatar_url", "VARCHAR(200)"), "url"),
    (Column("ip_address", "VARCHAR(45)"), "ipv4"),
    (Column("title", "VARCHAR(200)"), "title"),
    (Column("job_title", "VARCHAR(80)"), "job_title"),
    (Column("bio", "TEXT"), "bio"),
    (Column("comment", "VARCHAR(140)"), "comment"),
    (Column("agenda", "TEXT"), "agenda"),
    (Column("summary", "VARCHAR(300)"), "description"),
    (Column("message", "VARCHAR(300)"), "message"),
    (Column("notes", "VARCHAR(30)"), "words"),
    (Column("price", "DECIMAL(10,2)"), "price"),
    (Column("total_amount", "DECIMAL(10,2)"), "price"),
    (Column("created_at", "TIMESTAMP"), "timestamp"),
    (Column("updated", "TIMESTAMP"), "timestamp"),
    (Column("created_at", "VARCHAR(30)"), "timestamp"),
    (Column("birthday", "DATE"), "date"),
    (Column("due_date", "VARCHAR(10)"), "date"),
    (Column("duration_ms", "INTEGER"), "duration"),
    (Column("length_seconds", "INTEGER"), "duration"),
    (Column("rating", "SMALLINT"), "rating"),
    (Column("score", "DOUBLE"), "rating"),
    (Column("is_active", "BOOLEAN"), "bool"),
    (Column("has_paid", "TINYINT"), "bool"),
    (Column("lat", "DOUBLE"), "latitude"),
    (Column("lng", "DOUBLE"), "longitude"),
    (Column("color", "VARCHAR(20)"), "color"),
    (Column("currency", "CHAR(3)"), "currency_code"),
    (Column("language", "VARCHAR(8)"), "language_code"),
    (Column("timezone", "VARCHAR(40)"), "timezone"),
    (Column("guid", "VARCHAR(36)"), "uuid"),
    (Column("token", "UUID"), "uuid"),
    (Column("sku", "VARCHAR(12)"), "code"),
    (Column("status", "VARCHAR(12)"), "word"),
    (Column("status", "VARCHAR(12)", allowed_values=["open", "closed"]), "values"),
    (Column("payload", "JSON"), "json"),
    (Column("avatar", "BLOB"), "bytes"),
    (Column("opens_at", "TIME"), "time"),
    (Column("release_year", "SMALLINT"), "year"),
    (Column("quantity", "INTEGER"), "int"),
    (Column("weight_kg", "REAL"), "float"),
    (Column("amount", "HUGEINT"), "price"),
    (Column("x", "INTEGER", description="Unit price in USD"), "price"),
    (Column("x", "VARCHAR(3)", description="ISO currency code"), "currency_code"),
    (Column("misc", "VARCHAR(8)"), "word"),
    (Column("misc", "VARCHAR(50)"), "words"),
    (Column("misc", "TEXT"), "sentence"),
    (Column("misc", "DECIMAL(8,2)"), "decimal"),
]


@pytest.mark.parametrize(("column", "expected"), INFERRED, ids=[f"{c.name}:{c.type}" for c, _ in INFERRED])
def test_inferred_strategy(column: Column, expected: str) -> None:
    table = Table("things", [Column("id", "BIGINT", nullable=False), column], primary_key=("id",))
    assert strategy_for(table, column.name, DomainConfig(name="x")) == expected


@pytest.mark.parametrize(
    ("table", "expected"),
    [("users", "full_name"), ("vendors", "company"), ("playlists", "playlist_name"),
     ("artists", "artist_name"), ("clans", "clan_name"), ("guilds", "clan_name"), ("tracks", "song_title"),
     ("things", "words")],
)
def test_bare_name_depends_on_the_table(table: str, expected: str) -> None:
    t = Table(
        table, [Column("id", "BIGINT", nullable=False), Column("name", "VARCHAR(80)")], primary_key=("id",)
    )
    assert strategy_for(t, "name", DomainConfig(name="x")) == expected


def test_keys_checks_and_foreign_keys_decide_before_names() -> None:
    t = Table(
        "orders",
        [
            Column("id", "INTEGER", nullable=False),
            Column("user_id", "BIGINT"),
            Column("state", "VARCHAR(9)"),
            Column("code", "VARCHAR(12)"),
        ],
        primary_key=("id",),
        foreign_keys=[ForeignKey(("user_id",), "users", ("id",))],
        checks=[Check("state IN ('new', 'paid')")],
    )
    config = DomainConfig(name="x", columns={"orders.code": {"strategy": "uuid"}})
    assert [strategy_for(t, c, config) for c in ("id", "user_id", "state", "code")] == [
        "sequence",
        "foreign_key",
        "values",
        "uuid",
    ]


# --- CHECK derivation -----------------------------------------------------------------------------


def _facts(*checks: str):
    table = Table("t", [Column(c, "INTEGER") for c in ("a", "b", "c")], checks=[Check(s) for s in checks])
    return derive_checks(table)


def test_check_in_list() -> None:
    assert _facts("a IN ('x', 'y')").get("a").values == ["x", "y"]


def test_check_between_and_comparisons() -> None:
    facts = _facts("a BETWEEN -5 AND 10", "b > 0 AND b <= 100", "100 >= c")
    a, b, c = facts.get("a"), facts.get("b"), facts.get("c")
    assert (a.lo, a.hi) == (-5, 10)
    assert (b.lo, b.lo_strict, b.hi, b.hi_strict) == (0, True, 100, False)
    assert c.hi == 100 and c.lo is None
    assert not facts.unhandled


def test_check_dates_and_lengths() -> None:
    facts = _facts("a >= DATE '2024-01-01'", "length(b) <= 8 AND char_length(b) > 2", "c <> ''")
    assert facts.get("a").lo == date(2024, 1, 1)
    assert (facts.get("b").min_len, facts.get("b").max_len) == (3, 8)
    assert facts.get("c").min_len == 1


@pytest.mark.parametrize(
    ("sql", "column", "after"),
    [
        ("b > a", "b", After("a", True)),
        ("b >= a", "b", After("a", False)),
        ("a < b", "b", After("a", True)),
        ("b IS NULL OR b > a", "b", After("a", True)),
        ("b >= a + 2", "b", After("a", False, 2.0)),
    ],
)
def test_check_column_against_column(sql: str, column: str, after: After) -> None:
    assert _facts(sql).get(column).after == [after]


def test_underivable_checks_are_reported() -> None:
    table = Table(
        "t",
        [Column("a", "INTEGER"), Column("b", "INTEGER")],
        checks=[Check("a > 0"), Check("a % 2 = 0"), Check("(a = 1) = (b IS NULL)")],
    )
    assert [c.sql for c in unhandled_checks(table)] == ["a % 2 = 0", "(a = 1) = (b IS NULL)"]


def test_generated_values_satisfy_derived_checks() -> None:
    values = generate(Column("c", "INTEGER"), checks=["c > 10 AND c < 15"])
    assert set(values) <= {11, 12, 13, 14}


# --- Arrow types ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("duck", "arrow"),
    [
        ("BIGINT", pa.int64()),
        ("INTEGER", pa.int32()),
        ("SMALLINT", pa.int16()),
        ("TINYINT", pa.int8()),
        ("UTINYINT", pa.uint8()),
        ("UBIGINT", pa.uint64()),
        ("HUGEINT", pa.decimal128(38, 0)),
        ("DOUBLE", pa.float64()),
        ("REAL", pa.float32()),
        ("DECIMAL(10,2)", pa.decimal128(10, 2)),
        ("DECIMAL", pa.decimal128(18, 3)),
        ("VARCHAR(20)", pa.string()),
        ("TEXT", pa.string()),
        ("UUID", pa.string()),
        ("JSON", pa.string()),
        ("BOOLEAN", pa.bool_()),
        ("TIMESTAMP", pa.timestamp("us")),
        ("TIMESTAMPTZ", pa.timestamp("us", tz="UTC")),
        ("DATE", pa.date32()),
        ("TIME", pa.time64("us")),
        ("BLOB", pa.binary()),
        ("INTERVAL", pa.month_day_nano_interval()),
        ("INTEGER[]", pa.list_(pa.int32())),
    ],
)
def test_arrow_type_mapping(duck: str, arrow: pa.DataType) -> None:
    assert arrow_type(duck) == arrow


UNIQUE_CASES = [
    ("hex", "VARCHAR(40)"),
    ("hex", "VARCHAR(8)"),
    ("ipv4", "VARCHAR(15)"),
    ("phone", "VARCHAR(20)"),
    ("slug", "VARCHAR(30)"),
    ("url", "VARCHAR(100)"),
    ("domain", "VARCHAR(40)"),
    ("full_name", "VARCHAR(40)"),
    ("word", "VARCHAR(12)"),
    ("uuid", "UUID"),
    ("int", "SMALLINT"),
    ("decimal", "DECIMAL(6,2)"),
    ("timestamp", "TIMESTAMP"),
    ("date", "DATE"),
    ("values", "VARCHAR(10)"),
    ("username", "VARCHAR(12)"),
]


@pytest.mark.parametrize(("strategy", "type_"), UNIQUE_CASES, ids=[f"{s}:{t}" for s, t in UNIQUE_CASES])
def test_unique_hint_is_distinct_across_batches(strategy: str, type_: str) -> None:
    hint = {"strategy": strategy, "unique": True}
    if strategy == "values":
        hint["values"] = ["a", "b", "c"]
    t = Table("t", [Column("id", "BIGINT", nullable=False), Column("c", type_)], primary_key=("id",))
    g = TableGenerator(t, DomainConfig(name="x", null_rate=0, columns={"t.c": hint}), seed=2)
    values = g.generate(600, 0).column("c").to_pylist() + g.generate(600, 600).column("c").to_pylist()
    assert len(set(values)) == len(values)
    length = re.search(r"VARCHAR\((\d+)\)", type_)
    if length:
        assert max(len(v) for v in values) <= int(length.group(1))
