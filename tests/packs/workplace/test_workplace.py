"""The workplace pack: HR, ITSM and the meeting pack composed in one DuckDB file, each in its own schema.

Built once (scale 0.5) for the module: every member's rules and the links between them hold (audit 0
violations), a person is one worker in the three schemas, the union toolkit runs each member's tools in
its schema as the signed-in worker, and the diff of what they change names tables by their identities.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import shutil
from decimal import Decimal
from pathlib import Path

import anyio
import duckdb
import pytest
from mcp import Client

from stateforge.build import build_domain
from stateforge.diff import diff_files
from stateforge.domain import load_domain
from stateforge.domain.compose import Qualifier
from stateforge.episode import Episode
from stateforge.errors import DomainError
from stateforge.evaluate import evaluate
from stateforge.evaluate.rundir import EPISODES_FILE
from stateforge.mcp import serve_mcp
from stateforge.packs.workplace.tasks import RECIPES as WORKPLACE_RECIPES
from stateforge.tasks.runner import generate_tasks
from stateforge.tools.actor import NoActor
from stateforge.tools.loader import load_toolkit
from tests.test_build import assert_every_rule_holds

pytestmark = pytest.mark.xdist_group("workplace_pack")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("workplace")
    report = build_domain("workplace", scale=0.5, out=out)  # its min_scale
    assert_every_rule_holds("workplace", report, out / "workplace.duckdb")
    return out / "workplace.duckdb"


@pytest.fixture(scope="module")
def worker(built: Path) -> str:
    """An active worker who holds ITSM roles beyond employee (their work e-mail: the workplace's actor)."""
    with duckdb.connect(str(built), read_only=True) as con:
        return con.execute(
            "SELECT e.work_email FROM hr.employees AS e WHERE e.status = 'active' "
            "AND e.security_role = 'employee' AND EXISTS (SELECT 1 FROM itsm.user_roles AS ur "
            "WHERE ur.user_id = e.employee_id) ORDER BY e.employee_id LIMIT 1").fetchone()[0]


def test_each_member_is_a_schema_and_people_are_hr_workers(built: Path):
    pack = load_domain("workplace")
    assert pack.schema.namespaces == ["hr", "itsm", "meeting"]
    links = {(t.name, fk.ref_table) for t in pack.schema.tables for fk in t.foreign_keys
             if fk.ref_table.split(".")[0] != t.namespace}
    assert links == {("itsm.users", "hr.employees"), ("meeting.employees", "hr.employees")}
    with duckdb.connect(str(built), read_only=True) as con:
        per_schema = dict(con.execute(
            "SELECT schema_name, count(*) FROM duckdb_tables() WHERE schema_name <> 'stateforge' "
            "GROUP BY ALL").fetchall())
        unlike = con.execute(
            "SELECT count(*) FROM hr.employees AS e JOIN itsm.users AS u ON u.user_id = e.employee_id "
            "JOIN meeting.employees AS m ON m.employee_id = e.employee_id "
            "WHERE u.email <> e.work_email OR m.email <> e.work_email OR m.employee_no <> e.employee_number "
            "OR m.is_active <> (e.status <> 'terminated')"
        ).fetchone()[0]
        counts = con.execute("SELECT (SELECT count(*) FROM hr.employees), (SELECT count(*) FROM itsm.users), "
                             "(SELECT count(*) FROM meeting.employees)").fetchone()
        future = con.execute("SELECT count(*) FROM meeting.meetings WHERE start_at > "
                             "TIMESTAMP '2026-06-30 12:00:00'").fetchone()[0]
    assert per_schema == {"hr": 28, "itsm": 35, "meeting": 18}
    assert unlike == 0
    assert counts[0] == counts[1] == counts[2]
    assert future > 100  # the meeting pack's future, shifted onto the workplace's one clock


def test_member_sql_is_qualified_and_shifted():
    q = Qualifier("meeting", frozenset({"meetings", "employees"}), dt.timedelta(days=91))
    sql = q.sql("WITH employees AS (SELECT 1 AS id) SELECT m.meeting_id FROM meetings AS m, employees, "
                "hr.employees AS h WHERE m.start_at > TIMESTAMP '2026-03-31 12:00:00' "
                "AND m.day < DATE '2026-01-01'", where="test")
    assert "FROM meeting.meetings AS m, employees, hr.employees AS h" in sql
    assert "'2026-06-30 12:00:00'" in sql and "'2026-04-02'" in sql
    with pytest.raises(DomainError, match="schema meeting"):
        q.sql("SELECT FROM WHERE (", where="rules x.check")


def test_union_toolkit_prefixes_shared_names_and_declares_qualified_tables():
    kit = load_toolkit("workplace")
    names = kit.names
    assert len(names) == len(set(names)) > 190
    assert {"hr_list_direct_reports", "meeting_list_direct_reports"} <= set(names)
    assert "list_direct_reports" not in names
    assert kit["get_my_profile"].reads and all(t.startswith("hr.") for t in kit["get_my_profile"].reads)
    assert all(t.startswith("itsm.") for t in (*kit["create_incident"].reads, *kit["create_incident"].writes))


def test_member_tools_act_for_the_signed_in_worker_in_their_schema(built: Path, worker: str):
    with Episode.open(built, actor=worker) as ep:
        [(before,)] = ep.connection.execute("SELECT current_setting('search_path')").fetchall()
        profile = ep.call("get_my_profile", {})
        account = ep.call("get_user", {"user": worker.split("@")[0]})
        people = ep.call("search_people", {"query": worker.split(".")[0]})
        [(path,)] = ep.connection.execute("SELECT current_setting('search_path')").fetchall()
    assert profile.ok and profile.value["work_email"] == worker
    assert account.ok and account.value["email"] == worker
    assert people.ok and worker in {row["email"] for row in people.value["rows"]}
    assert path == before  # the member's search path is put back after each call
    with pytest.raises(NoActor, match="work_email"):
        Episode.open(built, actor="nobody@people.example.com")


def test_mcp_serves_the_union_as_the_signed_in_worker(built: Path, worker: str):
    async def session(url: str) -> tuple[set[str], dict, dict, str]:
        async with Client(url) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            profile = await client.call_tool("get_my_profile", {})
            account = await client.call_tool("get_user", {"user": worker.split("@")[0]})
            return names, profile.structured_content, account.structured_content, client.instructions or ""

    with serve_mcp(built, port=0, actor=worker) as handle:
        names, profile, account, instructions = anyio.run(session, handle.url)
    assert {"get_my_profile", "create_incident", "schedule_meeting", "hr_list_direct_reports"} <= names
    assert profile["work_email"] == account["email"] == worker
    assert "Procedures you must follow" in instructions
    assert "taken off every ITSM assignment group" in instructions


def test_the_diff_of_member_writes_names_tables_by_their_schema(built: Path, worker: str, tmp_path: Path):
    base, after = tmp_path / "base.duckdb", tmp_path / "after.duckdb"
    shutil.copy(built, base)
    shutil.copy(built, after)
    with Episode.open(after, actor=worker, persist=True) as ep:
        added = ep.call("add_emergency_contact", {"name": "Sam Rivera", "relationship": "friend",
                                                  "phone": "+1 512 555 0100"})
        assert added.ok, added.error
    diff = diff_files(base, after)
    assert set(diff.tables) == {"hr.emergency_contacts"}
    [row] = diff.tables["hr.emergency_contacts"].inserted
    assert row["name"] == "Sam Rivera"


@pytest.fixture(scope="module")
def tasks(built: Path) -> list[dict]:
    generate_tasks(built, n=5, seed=5, out=built.parent)
    return [json.loads(line) for line in (built.parent / "tasks.jsonl").read_text().splitlines()]


def test_storylines_cross_systems_and_grade_by_the_procedure(built: Path, tasks: list[dict], tmp_path: Path):
    recipes = {t["provenance"]["recipe"] for t in tasks}
    assert len(recipes) >= 2 and recipes <= {r.name for r in WORKPLACE_RECIPES}
    feasible = [t for t in tasks if t["feasible"]]
    assert feasible and len(feasible) < len(tasks)
    assert "offboard_lead_everywhere" in recipes
    for task in tasks:
        if not task["feasible"]:
            assert task["provenance"]["infeasible"]["policy"] == BLOCKERS[task["provenance"]["recipe"]]
    leavers = [t for t in feasible if t["provenance"]["recipe"].startswith("offboard")]
    for task in feasible:
        tools = [c["tool"] for c in task["reference_calls"]]
        schemas = {t.split(".")[0] for t in task["expected_diff"]["tables"]}
        recipe = task["provenance"]["recipe"]
        if task in leavers:  # HR, then the calendar, as the HR partner who speaks
            assert tools.index("terminate_worker") < tools.index("offboard_employee")
            if recipe == "offboard_lead_everywhere":  # HR's own steps, their SQL qualified into `hr`
                assert tools.index("change_manager") < tools.index("terminate_worker")
                assert any("hr.employees" in g["sql"] for g in task["verifiers"] if g["kind"] == "goal")
            # a team handed over moves its managers in ITSM too (sync:)
            assert schemas == {"hr", "meeting"} | ({"itsm"} if "change_manager" in tools else set())
            assert "policy leavers_offboarded_everywhere" in {v["name"] for v in task["verifiers"]}
        elif recipe == "onboard_everywhere":  # a hire: HR, the workplace's provisioning, then the calendar
            order = [tools.index(t) for t in ("hire_worker", "provision_accounts", "schedule_meeting")]
            assert order == sorted(order)
            assert schemas == {"hr", "itsm", "meeting"}
        elif recipe == "before_my_leave":  # the manager's own leave in HR first, the calendar after it
            assert tools[:2] == ["get_leave_balances", "request_leave"] and "set_out_of_office" in tools
            assert {"hr", "meeting"} <= schemas
        else:  # a move: HR (its manager change reaching ITSM and the calendar), then the calendar
            assert recipe == "transfer_everywhere" and tools[1] == "transfer_worker"
            assert schemas == {"hr", "itsm", "meeting"}
    oracle = evaluate(built, solver="oracle", out=tmp_path / "oracle", report=False)
    assert oracle["passed"] == oracle["episodes"] == len(tasks)
    noop = evaluate(built, solver="noop", out=tmp_path / "noop", report=False)
    assert noop["passed"] == len(tasks) - len(feasible)
    # stopping after HR (the calendar left open) fails by the workplace's procedure, by name
    early = evaluate(built, solver="mutant:stop-early", out=tmp_path / "early", report=False,
                     task_filter=",".join(f"id:{t['id']}" for t in feasible))
    assert early["failed"] == len(feasible)
    records = [json.loads(line) for line in (Path(early["folder"]) / EPISODES_FILE).read_text().splitlines()]
    # where the calendar is the last thing closed, stopping early leaves a terminated worker's calendar open
    leaving = {t["id"] for t in leavers if t["reference_calls"][-1]["tool"] == "offboard_employee"}
    assert all("policy check leavers_offboarded_everywhere" in r["failures"] for r in records
               if r["task_id"] in leaving)


def _partner_and_worker(built: Path) -> tuple[str, str, int, str, str]:
    """An HR partner, a current worker of a unit they partner, and a colleague there to be their manager."""
    with duckdb.connect(str(built), read_only=True) as con:
        return con.execute(
            "SELECT p.work_email, w.employee_number, w.employee_id, h.employee_number, x.work_email "
            "FROM hr.employees AS w JOIN hr.org_units AS o ON o.org_unit_id = w.org_unit_id "
            "JOIN hr.employees AS p ON p.employee_id = o.hr_partner_id AND p.status = 'active' "
            "JOIN hr.employees AS h ON h.org_unit_id = w.org_unit_id AND h.status = 'active' "
            "JOIN hr.employees AS x ON x.security_role = 'employee' AND x.status = 'active' "
            "AND x.employee_id NOT IN (p.employee_id, w.employee_id) "
            "WHERE w.status = 'active' AND w.employee_id <> o.head_id "
            "AND p.employee_id NOT IN (w.employee_id, h.employee_id) "
            "AND h.employee_id NOT IN (w.employee_id, w.manager_id) AND h.manager_id <> w.employee_id "
            "ORDER BY w.employee_id, h.employee_id, x.employee_id LIMIT 1").fetchone()


def test_a_manager_change_in_hr_reaches_itsm_and_the_calendar_in_the_same_call(built: Path):
    partner, number, key, boss, _ = _partner_and_worker(built)
    with Episode.open(built, actor=partner) as ep:
        moved = ep.call("change_manager", {"employee": number, "manager": boss})
        assert moved.ok, moved.error
        assert set(moved.changes) == {"hr.employees", "itsm.users", "meeting.employees"}
        [row] = ep.query(
            "SELECT e.manager_id AS hr, u.manager_id AS itsm, m.manager_id AS calendar "
            "FROM hr.employees AS e "
            "JOIN itsm.users AS u ON u.user_id = e.employee_id JOIN meeting.employees AS m "
            "ON m.employee_id = e.employee_id WHERE e.employee_id = ?", [key])
        assert row["hr"] == row["itsm"] == row["calendar"] is not None


def test_a_promotion_in_hr_retitles_the_worker_in_itsm_and_the_calendar(built: Path):
    """HR's job title is the worker's title everywhere (sync: derived), kept by the call that changes it."""
    with duckdb.connect(str(built), read_only=True) as con:
        partner, number, key, code, title = con.execute(
            "SELECT p.work_email, w.employee_number, w.employee_id, x.code, j.title FROM hr.employees AS w "
            "JOIN hr.org_units AS o ON o.org_unit_id = w.org_unit_id "
            "JOIN hr.employees AS p ON p.employee_id = o.hr_partner_id AND p.status = 'active' "
            "JOIN hr.compensation AS c ON c.employee_id = w.employee_id "
            "JOIN hr.positions AS x ON x.org_unit_id = w.org_unit_id AND x.status = 'open' "
            "JOIN hr.job_profiles AS j ON j.job_profile_id = x.job_profile_id "
            "JOIN hr.pay_grades AS g ON g.pay_grade_id = j.pay_grade_id "
            "JOIN hr.positions AS mine ON mine.position_id = w.position_id "
            "WHERE w.status = 'active' AND w.employee_id <> p.employee_id "
            "AND mine.job_profile_id <> x.job_profile_id "
            "AND c.base_salary BETWEEN g.min_salary AND g.max_salary "
            "ORDER BY w.employee_id, x.code LIMIT 1").fetchone()
    with Episode.open(built, actor=partner) as ep:
        promoted = ep.call("promote_worker", {"employee": number, "position": code})
        assert promoted.ok, promoted.error
        assert {"itsm.users", "meeting.employees"} <= set(promoted.changes)
        [row] = ep.query(
            "SELECT u.title AS itsm, m.job_title AS calendar FROM itsm.users AS u "
            "JOIN meeting.employees AS m ON m.employee_id = u.user_id WHERE u.user_id = ?", [key])
        assert row == {"itsm": title, "calendar": title}


def test_a_hire_gets_accounts_from_the_partner_only(built: Path):
    partner, _, _, _, outsider = _partner_and_worker(built)
    with duckdb.connect(str(built), read_only=True) as con:
        code = con.execute(
            "SELECT x.code FROM hr.positions AS x JOIN hr.org_units AS o USING (org_unit_id) "
            "JOIN hr.employees AS p ON p.employee_id = o.hr_partner_id WHERE p.work_email = ? "
            "AND x.status = 'open' ORDER BY x.code LIMIT 1", [partner]).fetchone()
        if code is None:
            pytest.skip("the partner's units have no opening at this scale")
        low = con.execute(
            "SELECT g.min_salary FROM hr.positions AS x JOIN hr.job_profiles AS j USING (job_profile_id) "
            "JOIN hr.pay_grades AS g ON g.pay_grade_id = j.pay_grade_id WHERE x.code = ?", code).fetchone()[0]
    with Episode.open(built, actor=partner) as ep:
        hired = ep.call("hire_worker", {"first_name": "Ada", "last_name": "Quill", "position": code[0],
                                        "start_date": "2026-07-06", "base_salary": str(low)})
        assert hired.ok, hired.error
        opened = ep.call("provision_accounts", {"employee": hired.value["employee_number"]})
        assert opened.ok, opened.error
        assert opened.changes == {"itsm.users": {"inserted": 1}, "meeting.employees": {"inserted": 1},
                                  "meeting.working_hours": {"inserted": 5}}
        again = ep.call("provision_accounts", {"employee": hired.value["employee_number"]})
        assert not again.ok and "already has" in again.error
    with Episode.open(built, actor=outsider) as ep:
        refused = ep.call("provision_accounts", {"employee": _partner_and_worker(built)[1]})
        assert not refused.ok and refused.policy == "accounts_by_partner_or_it", refused.error


BLOCKERS = {"onboard_over_grade": "salary_within_grade", "onboard_other_unit": "hr_partner_scope",
            "leave_calendar_open": "leavers_offboarded_everywhere",
            "move_up_as_transfer": "lateral_moves_keep_the_grade",
            "move_lead_blocked": "reports_reassigned_first",
            "offboard_lead_blocked": "reports_reassigned_first", "leave_over_balance": "leave_within_balance"}
"""Each infeasible storyline and the one policy that proves it (the lead's is in the `tasks` fixture's set;
the others are generated by the test below)."""


def test_every_infeasible_request_is_proven_by_its_own_policy(built: Path, tmp_path: Path):
    """An all-or-nothing request is proven by the one policy it names: a refusal, or a write that breaks
    the procedure; nothing is changed."""
    wanted = set(BLOCKERS) - {"offboard_lead_blocked"}
    recipes = [r for r in WORKPLACE_RECIPES if r.name in wanted]
    generate_tasks(built, n=len(wanted), seed=2, out=tmp_path, recipes=recipes)
    tasks = [json.loads(line) for line in (tmp_path / "tasks.jsonl").read_text().splitlines()]
    assert {t["provenance"]["recipe"] for t in tasks} == wanted
    for task in tasks:
        recipe, tools = task["provenance"]["recipe"], [c["tool"] for c in task["reference_calls"]]
        assert not task["feasible"] and task["provenance"]["infeasible"]["policy"] == BLOCKERS[recipe]
        assert tools[-1] == "cannot_complete" and not task["expected_diff"]["tables"]


def test_before_my_leave_decides_by_the_stated_rules_and_varies_the_plan(built: Path, tmp_path: Path):
    """A manager going on leave: their leave first, then each waiting decision by the rule the request
    states (the team's leave by notice, catalogue items by price), so the plans differ between managers."""
    recipes = [r for r in WORKPLACE_RECIPES if r.name in {"before_my_leave", "leave_over_balance"}]
    generate_tasks(built, n=5, seed=3, out=tmp_path, recipes=recipes)
    tasks = [json.loads(line) for line in (tmp_path / "tasks.jsonl").read_text().splitlines()]
    feasible = [t for t in tasks if t["feasible"]]
    assert len(feasible) >= 3
    assert len({tuple(c["tool"] for c in t["reference_calls"]) for t in feasible}) == len(feasible)
    decided = 0
    with duckdb.connect(str(built), read_only=True) as con:
        for task in feasible:
            calls, said = task["reference_calls"], task["instruction"]
            [leave] = [c["arguments"] for c in calls if c["tool"] == "request_leave"]
            [away] = [c["arguments"] for c in calls if c["tool"] == "set_out_of_office"]
            assert away["starts_at"].startswith(str(leave["start_date"]))
            # the rules as the request states them: "less than two weeks' notice", "up to 1,000"
            notice = 14 if "two weeks' notice" in said else 7
            price = re.search(r"(?:up to|cost) ([\d,]+)", said)
            for call in calls:
                tool, args = call["tool"], call["arguments"]
                if tool in ("approve_leave_request", "reject_leave_request"):
                    kind, ahead = con.execute(
                        "SELECT t.name, datediff('day', CAST(l.requested_at AS DATE), l.start_date) "
                        "FROM hr.leave_requests AS l JOIN hr.leave_types AS t USING (leave_type_id) "
                        "WHERE l.request_id = ?", [args["request_id"]]).fetchone()
                    assert (tool == "reject_leave_request") == (kind != "Sick Leave" and ahead < notice)
                    decided += 1
                elif tool in ("approve_requested_item", "reject_requested_item"):
                    [cost] = con.execute(
                        "SELECT i.price * r.quantity FROM itsm.requested_items AS r "
                        "JOIN itsm.catalog_items AS i USING (item_id) WHERE r.number = ?",
                        [args["number"]]).fetchone()
                    top = Decimal(price[1].replace(",", ""))
                    assert (tool == "approve_requested_item") == (cost <= top), (cost, top)
                    decided += 1
    assert decided >= len(feasible)
    for task in tasks:
        if not task["feasible"]:
            assert task["provenance"]["infeasible"]["policy"] == "leave_within_balance"
