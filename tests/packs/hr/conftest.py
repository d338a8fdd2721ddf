"""The HR pack built small once per test session, and people picked from it by role and place."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from stateforge.build import build_domain
from stateforge.domain import DomainPack, load_domain


@pytest.fixture(scope="session")
def pack() -> DomainPack:
    """The pack as loaded (schema and domain.yaml), once."""
    return load_domain("hr")


@pytest.fixture(scope="session")
def hr_db(pack: DomainPack, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The pack at scale 0.2 (about 10,000 rows, a few seconds): every rule and state policy must hold."""
    out = tmp_path_factory.mktemp("hr")
    report = build_domain(pack, scale=0.2, out=out)
    assert report["totals"]["violations"] == 0
    return out / "hr.duckdb"


@pytest.fixture(scope="session")
def people(hr_db: Path) -> dict[str, str]:
    """Employee numbers by what the tests need them for."""
    current = "e.status = 'active' AND e.termination_date IS NULL"
    with duckdb.connect(str(hr_db), read_only=True) as con:
        one = lambda sql: con.execute(sql).fetchone()[0]  # noqa: E731
        lead = one(
            f"SELECT min(e.employee_number) FROM employees AS e WHERE {current} AND EXISTS (SELECT 1 FROM "
            "employees AS r WHERE r.manager_id = e.employee_id AND r.status <> 'terminated') AND NOT EXISTS "
            "(SELECT 1 FROM org_units AS o WHERE o.head_id = e.employee_id)"
        )
        return {
            "lead": lead,
            "partner": one(
                "SELECT p.employee_number FROM employees AS e JOIN org_units AS o USING (org_unit_id) "
                f"JOIN employees AS p ON p.employee_id = o.hr_partner_id WHERE e.employee_number = '{lead}'"
            ),
            "report": one(
                "SELECT min(r.employee_number) FROM employees AS r JOIN employees AS m ON m.employee_id = "
                f"r.manager_id WHERE m.employee_number = '{lead}' AND r.status = 'active'"
            ),
            "it": one(
                f"SELECT min(e.employee_number) FROM employees AS e WHERE {current} AND security_role = "
                "'it_admin'"
            ),
            "payroll": one(
                f"SELECT min(e.employee_number) FROM employees AS e WHERE {current} "
                "AND security_role = 'payroll_admin'"
            ),
        }
