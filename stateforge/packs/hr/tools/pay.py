"""Pay: compensation and salary changes (managers propose, payroll approves), payroll runs, payslips and
adjustments (payroll admins)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Annotated, Literal

from pydantic import Field

from stateforge.tools import Env, ToolError, tool
from stateforge.tools.policies import refuse

from .common import PEOPLE, Limit, Number, Offset, actor, require, require_active, require_role, unit, worker

PAY = ("compensation", "compensation_changes", "pay_grades", "reviews", "review_cycles", *PEOPLE)
RUNS = ("payroll_runs", "payslips", "payroll_adjustments", "compensation", *PEOPLE)
VIEWERS = {"self", "manager", "partner", "payroll"}
Money = Annotated[Decimal, Field(gt=0, max_digits=10, decimal_places=2)]
CHANGE = (
    "SELECT x.change_id, w.employee_number AS employee, w.first_name || ' ' || w.last_name AS name, "
    "o.name AS org_unit, x.old_salary, x.new_salary, round((x.new_salary / x.old_salary - 1) * 100, 1) AS "
    "percent, "
    "x.reason, x.effective_date, x.status, b.employee_number AS entered_by, x.entered_at, "
    "a.employee_number AS approved_by, x.decided_at FROM compensation_changes AS x "
    "JOIN employees AS w ON w.employee_id = x.employee_id JOIN org_units AS o ON o.org_unit_id = "
    "w.org_unit_id "
    "JOIN employees AS b ON b.employee_id = x.entered_by LEFT JOIN employees AS a ON a.employee_id = "
    "x.approved_by"
)


def in_grade(env: Env, employee_id: int, salary: Decimal) -> None:
    """Refuse (salary_within_grade) a salary outside the worker's pay grade."""
    g = env.one(
        "SELECT g.code, g.min_salary, g.max_salary FROM compensation AS c JOIN pay_grades AS g "
        "USING (pay_grade_id) WHERE c.employee_id = ?",
        [employee_id],
    )
    if not g["min_salary"] <= salary <= g["max_salary"]:
        raise refuse(
            "salary_within_grade",
            f"{salary} is outside grade {g['code']} ({g['min_salary']} to {g['max_salary']})",
            argument="new_salary",
        )


@tool(reads=PAY)
def get_compensation(env: Env, employee: Number | None = None) -> dict:
    """A worker's pay: base salary, currency, pay grade and its range, since when. Yours, or a worker you
    may see the pay of (your reports, your partnered units as HR partner, anyone as payroll).

    Args:
        employee: Their employee number; leave out for your own.
    """
    me = actor(env)
    who = worker(env, employee) if employee else me.row
    require(env, me, who, VIEWERS, "compensation_access", "see the pay")
    return env.one(
        "SELECT e.employee_number AS employee, c.base_salary, l.currency, g.code AS pay_grade, g.min_salary, "
        "g.max_salary, c.effective_date FROM compensation AS c JOIN employees AS e USING (employee_id) "
        "JOIN locations AS l ON l.location_id = e.location_id JOIN pay_grades AS g ON g.pay_grade_id = "
        "c.pay_grade_id "
        "WHERE c.employee_id = ?",
        [who["employee_id"]],
    )


@tool(reads=PAY)
def list_salary_changes(
    env: Env,
    status: Literal["proposed", "approved", "rejected", "all"] = "proposed",
    employee: Number | None = None,
    org_unit: str | None = None,
    reason: Literal["merit", "promotion", "market", "correction"] | None = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict:
    """Salary changes, oldest first, a page at a time: payroll admins see all; managers those of their
    direct reports; anyone their own.

    Args:
        status: proposed (waiting for payroll), approved, rejected or all.
        employee: Only this worker's.
        org_unit: Only workers of this org unit (name or code).
        reason: Only changes for this reason.
        limit: Changes per page.
        offset: Changes to skip.
    """
    me = actor(env)
    where, params = [], []
    if me.role != "payroll_admin":
        where.append("(w.manager_id = ? OR w.employee_id = ?)")
        params += [me.id, me.id]
    if status != "all":
        where.append("x.status = ?")
        params.append(status)
    if employee:
        where.append("x.employee_id = ?")
        params.append(worker(env, employee)["employee_id"])
    if org_unit:
        where.append("w.org_unit_id = ?")
        params.append(unit(env, org_unit)["org_unit_id"])
    if reason:
        where.append("x.reason = ?")
        params.append(reason)
    sql = CHANGE + (f" WHERE {' AND '.join(where)}" if where else "")
    return env.page(sql, params, order_by="entered_at, change_id", limit=limit, offset=offset)


@tool(kind="write", reads=PAY, writes=("compensation_changes",), idempotent=False)
def propose_salary_change(
    env: Env,
    employee: Number,
    new_salary: Money,
    reason: Literal["merit", "promotion", "market", "correction"],
) -> dict:
    """Propose a new base salary for a direct report (managers) or anyone (payroll admins), effective the
    first of next month; payroll approves it.

    Args:
        employee: Their employee number.
        new_salary: The new annual base salary, inside their pay grade.
        reason: merit (after a review), promotion, market or correction.
    """
    me = actor(env)
    who = worker(env, employee)
    require(env, me, who, {"manager", "payroll"}, "compensation_access", "propose a salary change")
    if who["employee_id"] == me.id:
        raise refuse("compensation_access", "nobody proposes their own salary change")
    require_active(who, "change their pay")
    in_grade(env, who["employee_id"], new_salary)
    current = env.scalar("SELECT base_salary FROM compensation WHERE employee_id = ?", [who["employee_id"]])
    first = (env.today.replace(day=1) + dt.timedelta(days=32)).replace(day=1)
    row = env.insert(
        "compensation_changes",
        {
            "employee_id": who["employee_id"],
            "old_salary": current,
            "new_salary": new_salary,
            "reason": reason,
            "effective_date": first,
            "status": "proposed",
            "entered_by": me.id,
            "entered_at": env.now,
        },
    )
    return {
        "change_id": row["change_id"],
        "old_salary": current,
        "new_salary": new_salary,
        "effective_date": first,
    }


def decide_change(env: Env, change_id: int, approve: bool) -> dict:
    me = actor(env)
    require_role(me, "payroll_admin", "compensation_access", "decide salary changes")
    change = env.get("compensation_changes", change_id)
    if change is None:
        raise ToolError(
            f"no salary change {change_id}; list_salary_changes shows them.", argument="change_id"
        )
    if change["status"] != "proposed":
        raise refuse(
            "compensation_access",
            f"salary change {change_id} is already {change['status']}",
            argument="change_id",
        )
    if approve:
        in_grade(env, change["employee_id"], change["new_salary"])
        env.update(
            "compensation",
            change["employee_id"],
            {
                "base_salary": change["new_salary"],
                "effective_date": change["effective_date"],
                "updated_by": me.id,
            },
        )
    status = "approved" if approve else "rejected"
    env.update(
        "compensation_changes", change_id, {"status": status, "approved_by": me.id, "decided_at": env.now}
    )
    return {"change_id": change_id, "status": status}


@tool(kind="write", reads=PAY, writes=("compensation_changes", "compensation"), idempotent=True)
def approve_salary_change(env: Env, change_id: int) -> dict:
    """Approve a proposed salary change (payroll admins): the worker's base salary becomes the new one.

    Args:
        change_id: The change (from list_salary_changes).
    """
    return decide_change(env, change_id, True)


@tool(kind="write", reads=PAY, writes=("compensation_changes", "compensation"), idempotent=True)
def reject_salary_change(env: Env, change_id: int) -> dict:
    """Reject a proposed salary change (payroll admins).

    Args:
        change_id: The change (from list_salary_changes).
    """
    return decide_change(env, change_id, False)


def run_of(env: Env, name: str) -> dict:
    row = env.one("SELECT * FROM payroll_runs WHERE lower(name) = lower(?)", [name.strip()])
    if row is None:
        raise ToolError(f"no payroll run is called {name!r}; list_payroll_runs shows them.", argument="run")
    return row


@tool(reads=RUNS)
def list_payroll_runs(env: Env, limit: Limit = 20, offset: Offset = 0) -> dict:
    """Payroll runs, newest first: period, pay date, status, who calculated and approved them, payslips and
    their total (payroll admins).

    Args:
        limit: Runs per page.
        offset: Runs to skip.
    """
    me = actor(env)
    require_role(me, "payroll_admin", "payroll_admins_only", "see payroll runs")
    sql = (
        "SELECT r.name, r.period_start, r.period_end, r.pay_date, r.status, c.employee_number AS "
        "calculated_by, "
        "a.employee_number AS approved_by, (SELECT count(*) FROM payslips AS p WHERE p.run_id = r.run_id) "
        "AS payslips, "
        "(SELECT sum(p.gross) FROM payslips AS p WHERE p.run_id = r.run_id) AS total_gross FROM "
        "payroll_runs AS r "
        "LEFT JOIN employees AS c ON c.employee_id = r.calculated_by LEFT JOIN employees AS a ON "
        "a.employee_id = r.approved_by"
    )
    return env.page(sql, [], order_by="period_start DESC, name", limit=limit, offset=offset)


@tool(reads=RUNS)
def list_payroll_adjustments(
    env: Env,
    run: str,
    kind: Literal["bonus", "overtime", "allowance", "deduction"] | None = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict:
    """The adjustments of a payroll run, a page at a time (payroll admins).

    Args:
        run: The run's name (Payroll June 2026).
        kind: Only adjustments of this kind.
        limit: Adjustments per page.
        offset: Adjustments to skip.
    """
    me = actor(env)
    require_role(me, "payroll_admin", "payroll_admins_only", "see payroll adjustments")
    r = run_of(env, run)
    sql = (
        "SELECT a.adjustment_id, e.employee_number AS employee, a.kind, a.amount, a.note, b.employee_number "
        "AS entered_by "
        "FROM payroll_adjustments AS a JOIN employees AS e ON e.employee_id = a.employee_id "
        "JOIN employees AS b ON b.employee_id = a.entered_by WHERE a.run_id = ?"
        + (" AND a.kind = ?" if kind else "")
    )
    return env.page(
        sql, [r["run_id"], *([kind] if kind else [])], order_by="adjustment_id", limit=limit, offset=offset
    )


@tool(reads=RUNS)
def list_payslips(
    env: Env, run: str | None = None, employee: Number | None = None, limit: Limit = 20, offset: Offset = 0
) -> dict:
    """Payslips: yours (or a report's, as their manager), or a run's (payroll admins), a page at a time.

    Args:
        run: The run's name (payroll admins: every payslip of the run).
        employee: Only this worker's payslips; leave out (and run too) for your own.
        limit: Payslips per page.
        offset: Payslips to skip.
    """
    me = actor(env)
    where, params = [], []
    if employee or not run or me.role != "payroll_admin":
        who = worker(env, employee) if employee else me.row
        require(env, me, who, VIEWERS, "compensation_access", "see the payslips")
        where.append("p.employee_id = ?")
        params.append(who["employee_id"])
    if run:
        where.append("p.run_id = ?")
        params.append(run_of(env, run)["run_id"])
    sql = (
        "SELECT r.name AS run, e.employee_number AS employee, p.gross, p.deductions, p.net, l.currency "
        "FROM payslips AS p JOIN payroll_runs AS r USING (run_id) JOIN employees AS e ON e.employee_id = "
        "p.employee_id "
        f"JOIN locations AS l ON l.location_id = e.location_id WHERE {' AND '.join(where)}"
    )
    return env.page(sql, params, order_by="run DESC, employee", limit=limit, offset=offset)


def reopen(env: Env, run: dict) -> None:
    """A change to a calculated run's items sends it back to draft: its payslips go."""
    if run["status"] in ("approved", "paid"):
        raise refuse("payroll_admins_only", f"{run['name']} is {run['status']} and frozen", argument="run")
    if run["status"] == "calculated":
        env.delete_where("payslips", "run_id = ?", [run["run_id"]])
        env.update("payroll_runs", run["run_id"], {"status": "draft", "calculated_by": None})


@tool(kind="write", reads=RUNS, writes=("payroll_adjustments", "payroll_runs", "payslips"), idempotent=False)
def add_payroll_adjustment(
    env: Env,
    run: str,
    employee: Number,
    kind: Literal["bonus", "overtime", "allowance", "deduction"],
    amount: Money,
    note: Annotated[str, Field(max_length=120)] | None = None,
) -> dict:
    """Add a one-off pay item to a worker in a draft or calculated run (payroll admins); a calculated run
    goes back to draft and must be calculated again.

    Args:
        run: The run's name (Payroll June 2026).
        employee: The worker's employee number.
        kind: bonus, overtime, allowance or deduction.
        amount: The amount, in the worker's currency.
        note: What it is for.
    """
    me = actor(env)
    require_role(me, "payroll_admin", "payroll_admins_only", "enter pay adjustments")
    r = run_of(env, run)
    who = worker(env, employee)
    if who["hire_date"] > r["period_end"] or (
        who["termination_date"] and who["termination_date"] < r["period_start"]
    ):
        raise refuse("active_workers_only", f"{employee} is not employed in {r['name']}'s period")
    reopen(env, r)
    row = env.insert(
        "payroll_adjustments",
        {
            "run_id": r["run_id"],
            "employee_id": who["employee_id"],
            "kind": kind,
            "amount": amount,
            "entered_by": me.id,
            "note": note,
        },
    )
    return {"adjustment_id": row["adjustment_id"], "run_status": "draft"}


@tool(kind="write", reads=RUNS, writes=("payroll_adjustments", "payroll_runs", "payslips"), idempotent=True)
def remove_payroll_adjustment(env: Env, adjustment_id: int) -> dict:
    """Remove an adjustment from a draft or calculated run (payroll admins); a calculated run goes back to
    draft.

    Args:
        adjustment_id: The adjustment (from list_payroll_adjustments).
    """
    me = actor(env)
    require_role(me, "payroll_admin", "payroll_admins_only", "remove pay adjustments")
    adj = env.get("payroll_adjustments", adjustment_id)
    if adj is None:
        raise ToolError(f"no adjustment {adjustment_id}; list_payroll_adjustments shows them.")
    reopen(env, env.get("payroll_runs", adj["run_id"]))
    env.delete("payroll_adjustments", adjustment_id)
    return {"removed": adjustment_id}


@tool(kind="write", reads=RUNS, writes=("payroll_runs", "payslips"), idempotent=False)
def calculate_payroll_run(env: Env, run: str) -> dict:
    """Calculate a draft run (payroll admins): one payslip per worker employed in the period, a twelfth of
    the base salary plus the run's additions, less 28% and the deductions.

    Args:
        run: The run's name.
    """
    me = actor(env)
    require_role(me, "payroll_admin", "payroll_admins_only", "calculate payroll")
    r = run_of(env, run)
    if r["status"] != "draft":
        raise refuse("payroll_admins_only", f"{r['name']} is {r['status']}, not draft", argument="run")
    rows = env.query(
        "SELECT e.employee_id, round(c.base_salary / 12 + coalesce((SELECT sum(a.amount) FROM "
        "payroll_adjustments AS a "
        "WHERE a.run_id = $run AND a.employee_id = e.employee_id AND a.kind <> 'deduction'), 0), 2) AS "
        "gross, "
        "round((c.base_salary / 12 + coalesce((SELECT sum(a.amount) FROM payroll_adjustments AS a WHERE "
        "a.run_id = $run "
        "AND a.employee_id = e.employee_id AND a.kind <> 'deduction'), 0)) * 0.28 + coalesce((SELECT "
        "sum(a.amount) "
        "FROM payroll_adjustments AS a WHERE a.run_id = $run AND a.employee_id = e.employee_id AND a.kind = "
        "'deduction'), 0), 2) "
        "AS deductions FROM employees AS e JOIN compensation AS c USING (employee_id) WHERE e.hire_date <= "
        "$end "
        "AND (e.termination_date IS NULL OR e.termination_date >= $start) ORDER BY e.employee_id",
        {"run": r["run_id"], "start": r["period_start"], "end": r["period_end"]},
    )
    env.insert_many(
        "payslips",
        [
            {
                "run_id": r["run_id"],
                "employee_id": x["employee_id"],
                "gross": x["gross"],
                "deductions": x["deductions"],
                "net": x["gross"] - x["deductions"],
            }
            for x in rows
        ],
    )
    env.update("payroll_runs", r["run_id"], {"status": "calculated", "calculated_by": me.id})
    return {"run": r["name"], "payslips": len(rows), "total_gross": sum(x["gross"] for x in rows)}


@tool(kind="write", reads=RUNS, writes=("payroll_runs",), idempotent=True)
def approve_payroll_run(env: Env, run: str) -> dict:
    """Approve a calculated run (payroll admins); it can then be paid.

    Args:
        run: The run's name.
    """
    me = actor(env)
    require_role(me, "payroll_admin", "payroll_admins_only", "approve payroll")
    r = run_of(env, run)
    if r["status"] != "calculated":
        raise refuse("payroll_admins_only", f"{r['name']} is {r['status']}, not calculated", argument="run")
    env.update("payroll_runs", r["run_id"], {"status": "approved", "approved_by": me.id})
    return {"run": r["name"], "status": "approved"}


@tool(kind="write", reads=RUNS, writes=("payroll_runs",), idempotent=True)
def pay_payroll_run(env: Env, run: str) -> dict:
    """Release an approved run for payment on its pay date (payroll admins).

    Args:
        run: The run's name.
    """
    me = actor(env)
    require_role(me, "payroll_admin", "payroll_admins_only", "pay payroll")
    r = run_of(env, run)
    if r["status"] != "approved":
        raise refuse("payroll_admins_only", f"{r['name']} is {r['status']}, not approved", argument="run")
    env.update("payroll_runs", r["run_id"], {"status": "paid"})
    return {"run": r["name"], "status": "paid"}


PAY_TOOLS = [
    get_compensation,
    list_salary_changes,
    propose_salary_change,
    approve_salary_change,
    reject_salary_change,
    list_payroll_runs,
    list_payroll_adjustments,
    list_payslips,
    add_payroll_adjustment,
    remove_payroll_adjustment,
    calculate_payroll_run,
    approve_payroll_run,
    pay_payroll_run,
]
