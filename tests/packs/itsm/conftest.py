"""The ITSM pack built small once per test session, and people picked from it by role and group."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from stateforge.build import build_domain
from stateforge.domain import DomainPack, load_domain


@pytest.fixture(scope="session")
def pack() -> DomainPack:
    """The pack as loaded (schema and domain.yaml), once."""
    return load_domain("itsm")


@pytest.fixture(scope="session")
def itsm_db(pack: DomainPack, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The pack at scale 0.1 (about 7,500 rows, some 12 s): every rule and state policy must hold."""
    out = tmp_path_factory.mktemp("itsm")
    report = build_domain(pack, scale=0.1, out=out)
    assert report["totals"]["violations"] == 0
    return out / "itsm.duckdb"


@pytest.fixture(scope="session")
def people(itsm_db: Path) -> dict[str, str]:
    """User names by what the tests need them for."""
    role = (
        "SELECT min(u.user_name) FROM users AS u JOIN user_roles AS ur USING (user_id) JOIN roles AS r "
        "USING (role_id) WHERE u.active AND r.name = '{}'"
    )
    with duckdb.connect(str(itsm_db), read_only=True) as con:
        one = lambda sql: con.execute(sql).fetchone()[0]  # noqa: E731
        return {
            "mim": one(role.format("major_incident_manager")),
            "change_manager": one(role.format("change_manager")),
            "cab": one(role.format("cab_member")),
            "network": one(
                "SELECT min(u.user_name) FROM users AS u JOIN group_members AS gm USING (user_id) "
                "WHERE u.active AND gm.group_id = 3"
            ),
            "desk": one(
                "SELECT min(u.user_name) FROM users AS u JOIN group_members AS gm USING (user_id) "
                "WHERE u.active AND gm.group_id = 1 AND u.user_id NOT IN (SELECT user_id FROM group_members "
                "WHERE group_id = 3)"
            ),
            "employee": one(
                "SELECT min(user_name) FROM users WHERE active AND user_id NOT IN "
                "(SELECT user_id FROM user_roles)"
            ),
            "app": one(
                "SELECT min(name) FROM configuration_items WHERE class_id = 4 AND "
                "operational_status = 'operational'"
            ),
        }
