"""The HR pack: a schema of EnterpriseOps-Gym's density that builds with every rule and state policy
holding; a toolkit of the product's size acting as the signed-in worker, whose refusals name their policy;
a procedure (access revoked at offboarding) that the tools let an agent break and its verifier catches."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from stateforge.domain import DomainPack
from stateforge.episode import Episode
from stateforge.tools import load_toolkit

pytestmark = pytest.mark.xdist_group("hr_pack")


def test_the_schema_has_the_size_and_density_of_an_enterprise_domain(pack: DomainPack):
    tables = pack.schema.tables
    assert len(tables) >= 25
    assert sum(len(t.foreign_keys) for t in tables) / len(tables) >= 1.7
    kinds = {p.kind for p in pack.config.policies}
    assert {"state", "action", "procedure"} <= kinds


def test_every_check_holds_and_leave_balances_add_up(pack: DomainPack, hr_db: Path):
    config = pack.config
    checks = {r.name: r.check for r in config.rules} | {p.name: p.check for p in config.policies if p.check}
    with duckdb.connect(str(hr_db), read_only=True) as con:
        broken = {n: con.execute(f"SELECT count(*) FROM ({sql})").fetchone()[0] for n, sql in checks.items()}
        pending = con.execute("SELECT count(*) FROM leave_requests WHERE status = 'pending'").fetchone()[0]
    assert {n: c for n, c in broken.items() if c} == {}
    assert pending > 0


def test_the_toolkit_is_product_sized_and_takes_no_actor_argument():
    toolkit = load_toolkit("hr")
    tools = [t for t in toolkit if t.name != "cannot_complete"]
    assert len(tools) >= 60
    assert not any("employee_number" in t.parameters["properties"] for t in tools)


def test_scopes_are_refused_by_policy_name(hr_db: Path, people: dict[str, str], tmp_path: Path):
    with Episode.open(hr_db, workdir=tmp_path, actor=people["partner"]) as ep:
        assert ep.call("get_compensation", {"employee": people["report"]}).ok
        raise_ = ep.call(
            "propose_salary_change", {"employee": people["report"], "new_salary": 1000000, "reason": "market"}
        )
        assert raise_.policy == "compensation_access"
        fire = ep.call("terminate_worker", {"employee": people["lead"], "last_day": "2026-06-30"})
        assert fire.policy == "reports_reassigned_first"
    with Episode.open(hr_db, workdir=tmp_path, actor=people["report"]) as ep:
        peek = ep.call("list_leave_requests", {"scope": "employee", "employee": people["lead"]})
        assert peek.policy == "manager_scope"


def test_offboarding_without_revoking_access_breaks_the_procedure(
    pack: DomainPack, hr_db: Path, people: dict[str, str], tmp_path: Path
):
    check = next(p.check for p in pack.config.policies if p.name == "offboarding_access_revoked")
    with Episode.open(hr_db, workdir=tmp_path, actor=people["partner"]) as ep:
        reports = ep.call("search_workers", {"manager": people["lead"], "limit": 50}).value["rows"]
        heir = next(
            r["employee_number"]
            for r in ep.call(
                "search_workers",
                {
                    "org_unit": ep.query(
                        "SELECT o.name FROM employees AS e JOIN org_units AS o USING (org_unit_id) WHERE "
                        "e.employee_number = ?",
                        [people["lead"]],
                    )[0]["name"],
                    "limit": 50,
                },
            ).value["rows"]
            if r["employee_number"] not in {people["lead"], *(x["employee_number"] for x in reports)}
        )
        for r in reports:
            assert ep.call("change_manager", {"employee": r["employee_number"], "manager": heir}).ok
        done = ep.call("terminate_worker", {"employee": people["lead"], "last_day": "2026-06-30"})
        assert done.ok, done.error
        held = ep.call("list_system_access", {"employee": people["lead"]}).value["access"]
        assert len(ep.query(check)) == len(held)  # the tools let it through; the verifier's check sees it
        for a in held:
            assert ep.call("revoke_access", {"employee": people["lead"], "system": a["system"]}).ok
        assert ep.query(check) == []


def test_the_first_page_mutant_leaves_out_one_item_writes_whose_item_a_later_page_showed(
    hr_db: Path, people: dict[str, str], tmp_path: Path
):
    """HR's writes take one worker a call (a bonus each): a solver that reads only the first page of a unit
    makes no bonus for the workers of the later pages, and the first-page mutant makes that mistake."""
    from stateforge.evaluate.handle import EpisodeHandle
    from stateforge.evaluate.solver import Limits
    from stateforge.evaluate.solvers.mutations import MutantRun, first_page
    from stateforge.tasks import Task
    from stateforge.tasks.model import ReferenceCall

    toolkit = load_toolkit("hr")
    with Episode.open(hr_db, workdir=tmp_path, actor=people["payroll"]) as ep:
        unit = ep.query(
            "SELECT o.name FROM employees AS e JOIN org_units AS o USING (org_unit_id) WHERE e.status <> "
            "'terminated' GROUP BY o.name ORDER BY count(*) DESC, o.name LIMIT 1"
        )[0]["name"]
        pages = [{"org_unit": unit, "limit": 5, "offset": k} for k in (0, 5)]
        first, later = (ep.call("search_workers", p).value["rows"][0]["employee_number"] for p in pages)
    bonus = {"run": "Payroll June 2026", "kind": "bonus", "amount": "250.00", "note": "Team bonus"}
    calls = [
        *(ReferenceCall(tool="search_workers", arguments=p) for p in pages),
        ReferenceCall(tool="add_payroll_adjustment", arguments={**bonus, "employee": first}),
        ReferenceCall(tool="add_payroll_adjustment", arguments={**bonus, "employee": later}),
    ]
    task = Task.model_construct(instruction=f"A bonus for everyone in {unit}.", feasible=True,
                                reference_calls=calls)
    with Episode.open(hr_db, workdir=tmp_path, actor=people["payroll"]) as ep:
        run = MutantRun(task, EpisodeHandle(ep, Limits()), {t.name: t.kind for t in toolkit})
        assert first_page(run) is None
        made = [r.arguments["employee"] for r in run.results if r.tool == "add_payroll_adjustment"]
        assert made == [first]
        assert any(later in d for d in run.did)
