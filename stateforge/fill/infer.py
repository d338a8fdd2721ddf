"""Choosing a strategy for a column that has no hint: from its type, name, length and description.

`infer(column, table)` returns the strategy's name and the parameters the name implies (a duration's
unit, an age's range, a small pool for category-like columns, ...). The rules are ordered tables of
name patterns; a pattern matches a whole `snake_case` word run of the column name (`email` matches
`email`, `contact_email` and `email_address`). When the name says nothing, the column's description (its
DDL comment) is tried with the same rules, then the type decides.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from stateforge.fill.topics import vocabulary_for
from stateforge.schema.model import Column, Table
from stateforge.types import text_length, type_kind


@dataclass
class Inference:
    strategy: str
    params: dict[str, Any] = field(default_factory=dict)
    reason: str = "type"
    """What decided: "name", "description" or "type"."""


def kind_of(column: Column) -> str:
    """The column's type family (`stateforge.types.type_kind`): int, float, decimal, str, bool, ts, ..."""
    return type_kind(column.type)


NUMERIC = ("int", "float", "decimal")

_PEOPLE_TABLES = set(
    "user customer employee artist player member people person author contact student teacher agent staff "
    "listener participant guest attendee host driver patient doctor account owner manager speaker instructor "
    "client friend follower creator musician organizer reviewer".split()
)
_COMPANY_TABLES = set(
    "company companies vendor supplier organization organisation publisher brand label merchant partner "
    "employer sponsor".split()
)

Rule = tuple[str, str, dict[str, Any]]
"""(strategy, space-separated name patterns, parameters)."""

# Text columns. Earlier rules win (`ip_address` before `address`, `job_title` before `title`).
_TEXT_RULES: tuple[Rule, ...] = (
    ("email", "email e_mail mail_address", {}),
    ("first_name", "first_name firstname given_name fname forename", {}),
    ("last_name", "last_name lastname surname family_name lname", {}),
    (
        "full_name",
        "full_name fullname display_name contact_name customer_name person_name author_name real_name",
        {},
    ),
    ("username", "username user_name login handle nickname screen_name gamertag account_name nick", {}),
    ("ipv4", "ip ip_address ipv4 remote_addr client_ip", {}),
    ("timestamp", "timestamp datetime", {}),
    ("date", "date birthday dob", {}),
    (
        "company",
        "company company_name organization organisation org_name employer vendor supplier publisher "
        "brand manufacturer",
        {},
    ),
    ("job_title", "job_title job occupation profession", {}),
    ("phone", "phone mobile telephone tel cell fax msisdn", {}),
    ("street", "street street_name", {}),
    ("address", "address street_address address_line address1 address_line1 addr", {}),
    ("city", "city town city_name", {}),
    ("country_code", "country_code country_iso iso_country nationality_code", {}),
    ("country", "country nationality country_name", {}),
    ("postcode", "zip zipcode zip_code postcode postal_code post_code", {}),
    ("latitude", "lat latitude", {}),
    ("longitude", "lng lon long longitude", {}),
    ("timezone", "timezone time_zone tz tz_name", {}),
    ("language_code", "language lang locale language_code", {}),
    ("currency_code", "currency currency_code ccy", {}),
    ("user_agent", "user_agent useragent", {}),
    ("uuid", "uuid guid", {}),
    ("url", "url uri website homepage link href avatar image photo picture thumbnail logo icon cover", {}),
    ("domain", "domain hostname host_name", {}),
    ("slug", "slug permalink", {}),
    ("color", "color colour", {}),
    (
        "hex",
        "hash checksum sha sha1 sha256 md5 token secret password password_hash api_key salt digest "
        "fingerprint",
        {},
    ),
    ("file_path", "path file_path filename file_name filepath", {}),
    ("mime_type", "mime mime_type content_type media_type", {}),
    ("json", "metadata meta settings preferences attributes payload properties", {}),
    ("title", "title headline subject caption", {}),
    (
        "sentence",
        "description desc bio about comment comments notes note body content message text summary "
        "review details remarks instructions feedback reason lyrics transcript agenda",
        {},
    ),
    (
        "code",
        "code sku barcode serial serial_number isbn reference ref coupon voucher promo_code confirmation "
        "tracking_number invoice_number order_number number no",
        {},
    ),
    (
        "word",
        "status state type kind category stage phase tier level mode role genre tag gender plan platform "
        "channel source device region priority visibility format method",
        {"pool": 8},
    ),
)

# Number columns.
_NUMBER_RULES: tuple[Rule, ...] = (
    ("latitude", "lat latitude", {}),
    ("longitude", "lng lon long longitude", {}),
    ("bool", "is has can should was allow allows", {}),
    ("timestamp", "created updated modified timestamp epoch", {}),
    ("year", "year", {}),
    (
        "int",
        "count num views plays likes followers clicks downloads visits",
        {"min": 0, "max": 10_000, "distribution": "zipf"},
    ),
    (
        "price",
        "price amount cost fee total subtotal balance salary wage revenue charge payment budget spend tax "
        "refund deposit fare tip cents income",
        {},
    ),
    ("rating", "rating stars score", {}),
    ("duration", "duration_ms length_ms ms millis milliseconds", {"unit": "ms"}),
    ("duration", "minutes mins duration_min duration_minutes", {"unit": "min"}),
    ("duration", "duration seconds secs elapsed runtime length duration_s", {"unit": "s"}),
    ("int", "age", {"min": 18, "max": 80, "distribution": "normal"}),
    ("float", "percent percentage pct", {"min": 0, "max": 100}),
    ("float", "ratio rate share probability weight", {"min": 0, "max": 1}),
    ("int", "quantity qty", {"min": 1, "max": 10, "distribution": "zipf"}),
    ("int", "position rank sort_order seq slot ordinal index order level", {"min": 1, "max": 100}),
)

_END_WORDS = set(
    "end ended ends finish finished close closed resolved completed expire expires expired expiry until to "
    "updated modified checkout departure returned delivered shipped paid cancelled canceled last".split()
)
_START_WORDS = set(
    "start started starts begin began open opened from created issued checkin arrival placed ordered first "
    "joined registered signup".split()
)


def snake(name: str) -> str:
    """`createdAt` -> `created_at`; `Email-Address` -> `email_address`."""
    name = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name)
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


def matches(name: str, pattern: str) -> bool:
    """Whether `pattern` is a whole run of words of the snake_case `name`."""
    return f"_{pattern}_" in f"_{name}_"


def infer(column: Column, table: Table) -> Inference:
    """The strategy for a column without a hint (keys, allowed values and CHECKs are the caller's)."""
    kind = kind_of(column)
    fixed = {"bool": "bool", "uuid": "uuid", "json": "json", "bytes": "bytes", "interval": "duration"}
    fixed |= {"bit": "code", "time": "time"}
    if kind in fixed:
        params = {"pattern": "########"} if kind == "bit" else {}
        return Inference(fixed[kind], params)
    name = snake(column.name)
    found = _by_name(name, kind, column, table)
    if found:
        return Inference(found[0], found[1], "name")
    if column.description:
        found = _by_name(snake(column.description), kind, column, table, describing=True)
        if found:
            return Inference(found[0], found[1], "description")
    return Inference(_by_type(kind, column), {})


def _by_name(
    name: str, kind: str, column: Column, table: Table, *, describing: bool = False
) -> tuple[str, dict[str, Any]] | None:
    if kind in ("ts", "date"):
        birth = any(matches(name, w) for w in ("birth", "birthday", "dob", "birth_date", "date_of_birth"))
        if birth:
            return "date", {"min": "1950-01-01", "max": "2007-12-31"}
        return None
    rules = _TEXT_RULES if kind in ("str", "other", "list") else _NUMBER_RULES if kind in NUMERIC else ()
    for strategy, patterns, params in rules:
        if strategy == "word" and describing:
            continue
        if any(matches(name, p) for p in patterns.split()):
            return _refine(strategy, dict(params), name, column, table)
    if kind == "str" and not describing:
        if name.endswith("_at") or name.endswith("_time"):
            return "timestamp", {}
        if name.endswith("_on") or name.endswith("_date"):
            return "date", {}
        if name == "name" or name.endswith("_name"):
            return vocabulary_for("name", name, table) or _thing_name(table), {}
    if kind in NUMERIC and not describing and name.endswith("_at"):
        return "timestamp", {}
    return None


def _refine(
    strategy: str, params: dict[str, Any], name: str, column: Column, table: Table
) -> tuple[str, dict[str, Any]]:
    length = text_length(column.type, column.length)
    if strategy == "country" and length is not None and length <= 3:
        return "country_code", params
    if strategy == "sentence":
        if length is not None and length < 40:
            return "words", params
        prose = "sentence" if length is not None and length <= 200 else "paragraph"
        return vocabulary_for(prose, name, table) or prose, params
    if strategy == "title" or (strategy == "word" and name == "tag"):
        found = vocabulary_for("tag" if strategy == "word" else "title", name, table)
        if found:
            return found, {}
    if strategy == "price" and name.endswith("cents"):
        params.update(min=50, max=100_000)
    if strategy == "year" and "birth" in name:
        params.update(min=1950, max=2007)
    return strategy, params


def _thing_name(table: Table) -> str:
    words = set(snake(table.name).split("_"))
    singular = {w[:-1] if w.endswith("s") and not w.endswith("ss") else w for w in words}
    if (words | singular) & _PEOPLE_TABLES:
        return "full_name"
    if (words | singular) & _COMPANY_TABLES:
        return "company"
    return "words"


def _by_type(kind: str, column: Column) -> str:
    if kind in ("int", "float", "decimal"):
        return kind
    if kind == "ts":
        return "timestamp"
    if kind == "date":
        return "date"
    length = text_length(column.type, column.length)
    if kind == "str" and length is not None:
        if length <= 12:
            return "word"
        if length <= 60:
            return "words"
    return "sentence" if kind == "str" else "words"


def paired_start(column: Column, table: Table) -> str | None:
    """For an end-like column (`ended_at`, `end_date`, `updated_at`) the start-like column it follows."""
    name = snake(column.name)
    words = name.split("_")
    ends = [i for i, w in enumerate(words) if w in _END_WORDS]
    if not ends:
        return None
    i = ends[0]
    for other in table.columns:
        if other is column:
            continue
        other_words = snake(other.name).split("_")
        if len(other_words) != len(words) or other_words[i] not in _START_WORDS:
            continue
        if other_words[:i] + other_words[i + 1 :] == words[:i] + words[i + 1 :]:
            return other.name
    return None
