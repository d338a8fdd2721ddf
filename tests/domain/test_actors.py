"""domain.yaml `actors:` (issue 21 item 1): the people table, the key naming one person and the roles, checked
against the DDL when the pack loads (a table, a column that is no key, a roles column that does not exist)."""

from __future__ import annotations

import pytest

from stateforge.domain import load_domain
from stateforge.domain.config import DomainConfig
from stateforge.errors import DomainError


def library_with(actors: dict) -> tuple[DomainConfig, object]:
    pack = load_domain("library")
    data = pack.config.model_dump(exclude_none=True)
    data["actors"] = actors
    return DomainConfig.model_validate(data), pack.schema


def test_the_library_declares_its_members_as_actors():
    spec = load_domain("library").config.actors
    assert (spec.table, spec.key, spec.roles) == ("members", "card_number", ["member"])
    assert spec.role_column is None


@pytest.mark.parametrize(
    ("actors", "says"),
    [
        ({"table": "patrons", "key": "card_number"}, 'actors.table: the DDL has no table "patrons"'),
        ({"table": "members", "key": "name"}, 'actors.key: column "name" of members is not a key'),
        ({"table": "members", "key": "card", "roles": ["member"]}, 'actors.key: table members has no column'),
        ({"table": "members", "key": "card_number", "roles": "role"}, "actors.roles: table members has no"),
        (
            {"table": "members", "key": "card_number", "roles": {"query": "SELECT 'member'"}},
            r"actors.roles.query: must be one SELECT of the role names with exactly one `\?`",
        ),
    ],
)
def test_an_actor_declaration_the_ddl_does_not_hold_is_a_load_error(actors: dict, says: str):
    config, schema = library_with(actors)
    with pytest.raises(DomainError, match=says):
        config.validate_against(schema)


def test_a_roles_column_is_accepted_when_it_exists():
    config, schema = library_with({"table": "members", "key": "email", "roles": "home_branch_id"})
    config.validate_against(schema)
    assert config.actors.role_column == "home_branch_id"


def test_roles_granted_in_other_tables_are_a_query_of_the_person():
    """ITSM's roles live in user_roles: the query lists them, `employee` for everyone first."""
    spec = load_domain("itsm").config.actors
    assert (spec.table, spec.key, spec.role_column) == ("users", "user_name", None)
    assert spec.role_query is not None and spec.role_query.count("?") == 1
