"""DomainConfig: durations, defaults, validation against a schema, and loading domain.yaml / packs."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from pydantic import ValidationError

import stateforge.domain.loader as domain_module
from stateforge.domain import ColumnHint, DomainConfig, list_domains, load_config, load_domain, parse_duration
from stateforge.errors import DomainError
from stateforge.schema.model import Column, ForeignKey, Schema, Table


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("30d", 30 * 86400),
        ("2h", 7200),
        ("15m", 900),
        ("90s", 90),
        ("1w", 7 * 86400),
        ("1.5h", 5400),
        (45, 45),
        (2.5, 2.5),
        ("120", 120),
    ],
)
def test_parse_duration(text: object, seconds: float) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["abc", "10x", "d", True, "1 day"])
def test_parse_duration_rejects(text: object) -> None:
    with pytest.raises(ValueError, match="duration"):
        parse_duration(text)


def test_hint_parses_durations_and_bounds() -> None:
    hint = ColumnHint(
        strategy="timestamp",
        after="started_at",
        min_gap="30d",
        max_gap="400d",
        min="2024-01-01",
        max="2024-02-01T10:00:00",
    )
    assert (hint.min_gap, hint.max_gap) == (30 * 86400, 400 * 86400)
    assert hint.min == date(2024, 1, 1) and hint.max.hour == 10


@pytest.mark.parametrize(
    ("hint", "message"),
    [
        ({"values": ["a", "b"], "weights": [1]}, "weights"),
        ({"min_gap": "1d"}, "need after"),
        ({"after": "a", "min_gap": "2d", "max_gap": "1d"}, "min_gap"),
        ({"min": 5, "max": 1}, "min must not exceed max"),
        ({"null_rate": 1.5}, "less than or equal"),
        ({"expr": "CASE WHEN"}, "expr"),
        ({"strategy": "int", "colour": 1}, "Extra inputs"),
    ],
)
def test_hint_validation(hint: dict, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        ColumnHint.model_validate(hint)


def test_defaults_for_a_bare_ddl_file() -> None:
    config = DomainConfig.default("shop")
    assert (config.name, config.seed, config.null_rate, config.batch_size) == ("shop", 0, 0.1, 50_000)
    assert (config.time_window.start, config.time_window.end) == (date(2023, 1, 1), date(2026, 6, 30))
    assert config.tables == {} and config.columns == {} and config.rules == []


def test_hint_lookup_is_case_insensitive() -> None:
    config = DomainConfig(name="x", columns={"Users.Email": {"strategy": "email"}})
    assert config.hint("users", "EMAIL").strategy == "email"
    assert config.hint("users", "name") is None


def test_per_parent_forms() -> None:
    DomainConfig(name="x", tables={"a": {"per_parent": {"fk": "p", "exactly": 3}}})
    DomainConfig(name="x", tables={"a": {"per_parent": {"fk": "p", "min": 0, "max": 5}}})
    with pytest.raises(ValidationError, match="either exactly or min/max"):
        DomainConfig(name="x", tables={"a": {"per_parent": {"fk": "p", "exactly": 3, "max": 5}}})


def test_fixed_size_tables() -> None:
    config = DomainConfig(name="x", tables={"genres": {"rows": 30, "scale": False}})
    assert config.table_config("GENRES").scale is False and config.table_config("genres").rows == 30
    assert DomainConfig(name="x", tables={"users": {"rows": 5}}).table_config("users").scale is True
    with pytest.raises(ValidationError, match="scale: false needs rows"):
        DomainConfig(name="x", tables={"genres": {"scale": False}})
    with pytest.raises(ValidationError, match="does not apply with per_parent.exactly"):
        per_parent = {"fk": "p", "exactly": 3}
        DomainConfig(name="x", tables={"a": {"rows": 9, "scale": False, "per_parent": per_parent}})


# --- against a schema ----------------------------------------------------------------------------

SCHEMA = Schema(
    tables=[
        Table(
            "users",
            [Column("id", "BIGINT"), Column("email", "VARCHAR(80)"), Column("created_at", "TIMESTAMP")],
            primary_key=("id",),
        ),
        Table(
            "orders",
            [Column("id", "BIGINT"), Column("user_id", "BIGINT"), Column("position", "INTEGER")],
            primary_key=("id",),
            foreign_keys=[ForeignKey(("user_id",), "users", ("id",))],
        ),
    ]
)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"tables": {"user": {"rows": 5}}}, 'no table "user". Did you mean "users"?'),
        ({"columns": {"users.emial": {"strategy": "email"}}}, 'no column "emial". Did you mean "email"?'),
        ({"columns": {"user.email": {}}}, 'Did you mean "users"?'),
        ({"columns": {"users.email": {"after": "created"}}}, 'Did you mean "created_at"?'),
        (
            {"columns": {"orders.position": {"strategy": "sequence", "within": ["usr_id"]}}},
            'Did you mean "user_id"?',
        ),
        ({"tables": {"orders": {"per_parent": {"fk": "userid", "exactly": 2}}}}, 'Did you mean "user_id"?'),
        ({"tables": {"orders": {"per_parent": {"fk": "position", "exactly": 2}}}}, "no foreign key column"),
        ({"columns": {"email": {}}}, 'is not "table.column"'),
        ({"columns": {"orders.position": {"after": "user_id"}}}, "is a foreign key column"),
    ],
)
def test_validate_against_names_the_closest_valid_name(data: dict, message: str) -> None:
    config = DomainConfig(name="x", **data)
    with pytest.raises(DomainError) as err:
        config.validate_against(SCHEMA)
    assert message in str(err.value)


def test_validate_against_accepts_a_good_config() -> None:
    DomainConfig(
        name="x",
        tables={"orders": {"per_parent": {"fk": "USER_ID", "min": 0, "max": 4}}},
        columns={"orders.position": {"strategy": "sequence", "within": ["user_id"]}},
    ).validate_against(SCHEMA)


# --- domain.yaml and packs -----------------------------------------------------------------------


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_yaml_syntax_error_names_file_and_line(tmp_path: Path) -> None:
    path = _write(tmp_path / "domain.yaml", "name: x\ncolumns:\n  users.email: {strategy: email\n  bad: [\n")
    with pytest.raises(DomainError, match=r"domain\.yaml:\d+: YAML syntax error") as err:
        load_config(path)
    assert str(path) in str(err.value)


def test_unknown_key_suggests_the_closest(tmp_path: Path) -> None:
    path = _write(tmp_path / "domain.yaml", "name: x\nseed: 3\ncolums:\n  users.email: {strategy: email}\n")
    with pytest.raises(DomainError) as err:
        load_config(path)
    assert f"{path}:3: colums: unknown key" in str(err.value)
    assert 'Did you mean "columns"?' in str(err.value)


def test_nested_errors_name_the_key_path_and_line(tmp_path: Path) -> None:
    text = "name: x\ncolumns:\n  users.email: {strategy: email}\n  users.age: {strategy: int, null_rate: 2}\n"
    path = _write(tmp_path / "domain.yaml", text)
    with pytest.raises(DomainError) as err:
        load_config(path)
    assert f'{path}:4: columns["users.age"].null_rate' in str(err.value)
    text = "name: x\ncolumns:\n  users.age: {strategy: int, minn: 2}\n"
    with pytest.raises(DomainError, match='Did you mean "min"'):
        load_config(_write(tmp_path / "d2.yaml", text))


def test_missing_name(tmp_path: Path) -> None:
    with pytest.raises(DomainError, match="name: this key is required"):
        load_config(_write(tmp_path / "domain.yaml", "seed: 1\n"))


DDL = "CREATE TABLE users (id INTEGER PRIMARY KEY, email VARCHAR(100) NOT NULL UNIQUE);\n"


@pytest.fixture
def packs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(domain_module, "schemas_dir", lambda: tmp_path / "schemas")
    _write(tmp_path / "schemas" / "shop" / "schema.sql", DDL)
    _write(
        tmp_path / "schemas" / "shop" / "domain.yaml", "name: shop\nseed: 4\ncolumns:\n  users.email: {}\n"
    )
    _write(tmp_path / "schemas" / "notes" / "README.md", "not a pack")
    return tmp_path


def test_list_and_load_packs(packs: Path) -> None:
    assert list_domains() == ["shop"]
    pack = load_domain("shop")
    assert (pack.name, pack.root, pack.config.seed) == ("shop", packs / "schemas" / "shop", 4)
    assert pack.schema.table("users").column("email").nullable is False
    assert load_domain(str(packs / "schemas" / "shop")).name == "shop"


def test_bare_sql_file_gets_a_default_config(packs: Path) -> None:
    pack = load_domain(str(_write(packs / "inventory.sql", DDL)))
    assert (pack.name, pack.root, pack.config.seed) == ("inventory", None, 0)


def test_unknown_pack_lists_the_packs(packs: Path) -> None:
    with pytest.raises(DomainError, match=r'no domain pack "shopp".*Did you mean "shop"\? Available: shop'):
        load_domain("shopp")
    with pytest.raises(DomainError, match="no such file"):
        load_domain(str(packs / "missing.sql"))


def test_pack_hints_are_checked_against_the_ddl(packs: Path) -> None:
    _write(
        packs / "schemas" / "shop" / "domain.yaml", "name: shop\ncolumns:\n  users.mail: {strategy: email}\n"
    )
    with pytest.raises(DomainError, match=r'domain\.yaml: columns\.users\.mail: .*Did you mean "email"'):
        load_domain("shop")


def test_policies_are_named_sentences_with_a_check_or_marked_as_actions() -> None:
    from stateforge.domain import DomainConfig, DomainPolicy

    config = DomainConfig.model_validate({
        "name": "shop",
        "policies": [
            {"name": "max_items", "description": "An order holds at most 50 items.",
             "check": "SELECT order_id FROM items GROUP BY order_id HAVING count(*) > 50"},
            {"name": "owner_only", "description": "Only the owner edits an order.", "kind": "action"},
        ],
    })
    assert [p.name for p in config.policies] == ["max_items", "owner_only"]
    assert isinstance(config.policies[1], DomainPolicy) and config.policies[1].check is None
    with pytest.raises(ValidationError):
        DomainConfig.model_validate({"name": "shop", "policies": [{"name": "x"}]})


def test_the_frozen_clock_is_the_window_s_last_second_or_the_pack_s_now() -> None:
    from datetime import datetime

    from stateforge.domain import TimeWindow

    assert TimeWindow(end="2026-06-30").clock == datetime(2026, 6, 30, 23, 59, 59)
    window = TimeWindow(start="2026-01-01", end="2026-06-30", now="2026-06-01T09:00:00")
    assert window.clock == datetime(2026, 6, 1, 9, 0)
    with pytest.raises(ValidationError, match="between start and end"):
        TimeWindow(start="2026-01-01", end="2026-06-30", now="2027-01-01T00:00:00")


def test_the_fast_yaml_loader_reads_every_shipped_pack_as_the_safe_loader_does() -> None:
    """`load_config` uses libyaml when PyYAML has it: the data must be the pure-Python loader's, and a
    syntax error must point at the same line."""
    import yaml

    if yaml.__with_libyaml__:
        assert domain_module.YAML_LOADER is yaml.CSafeLoader
    assert list_domains()
    for name in list_domains():
        text = (domain_module.schemas_dir() / name / "domain.yaml").read_text(encoding="utf-8")
        assert yaml.load(text, Loader=domain_module.YAML_LOADER) == yaml.safe_load(text), name
    broken = "name: x\ncolumns:\n  users.email: {strategy: email\n  bad: [\n"
    lines = []
    for loader in (domain_module.YAML_LOADER, yaml.SafeLoader):
        with pytest.raises(yaml.YAMLError) as err:
            yaml.load(broken, Loader=loader)
        lines.append(err.value.problem_mark.line)
    assert lines[0] == lines[1]
