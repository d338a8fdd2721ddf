"""The ITSM pack: a schema of EnterpriseOps-Gym's density that builds with every rule and state policy
holding and heavy-tailed fan-outs; a toolkit of the product's size whose refusals name their policy; the
procedures (CAB review of high-risk changes, the major-incident manager informed of a P1) allowed by the tools
and caught by their end-state check; a reason for every reassignment refused until it is given. Every
episode is signed in as one person (domain.yaml `actors:`): no tool takes whom to act as, and what the
person sees and may do follows their roles."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb
import pytest

from stateforge.domain import DomainPack
from stateforge.episode import Episode
from stateforge.tools import load_toolkit
from stateforge.tools.actor import Actor

pytestmark = pytest.mark.xdist_group("itsm_pack")


def test_the_schema_has_the_size_and_density_of_an_enterprise_domain(pack: DomainPack):
    schema = pack.schema
    tables = schema.tables
    fks = sum(len(t.foreign_keys) for t in tables)
    assert len(tables) >= 25
    assert fks / len(tables) >= 1.7


def test_every_check_holds_and_fan_outs_have_heavy_tails(pack: DomainPack, itsm_db: Path):
    config = pack.config
    checks = {r.name: r.check for r in config.rules} | {p.name: p.check for p in config.policies if p.check}
    with duckdb.connect(str(itsm_db), read_only=True) as con:
        broken = {n: con.execute(f"SELECT count(*) FROM ({sql})").fetchone()[0] for n, sql in checks.items()}
        per_group = [
            r[0]
            for r in con.execute(
                "SELECT count(*) FROM incidents GROUP BY assignment_group_id ORDER BY 1"
            ).fetchall()
        ]
        per_ci = [
            r[0]
            for r in con.execute(
                "SELECT count(*) FROM ci_relationships GROUP BY parent_ci_id ORDER BY 1"
            ).fetchall()
        ]
    assert {n: c for n, c in broken.items() if c} == {}
    assert per_group[-1] >= 5 * per_group[len(per_group) // 2]
    assert per_ci[-1] >= 5 * per_ci[len(per_ci) // 2]


def test_the_toolkit_is_product_sized_and_no_tool_takes_whom_to_act_as(itsm_db: Path):
    toolkit = load_toolkit("itsm")
    names = [t.name for t in toolkit if t.name != "cannot_complete"]
    assert len(names) >= 60
    taken = {k for t in toolkit for k in t.parameters.get("properties", {})}
    assert not taken & {"as_user", "user_name"}  # the episode's actor acts; nobody is named to act as
    with Episode.open(itsm_db) as ep:  # no one signed in: a tool says how to sign in, it acts for no one
        failed = ep.call("list_incidents", {})
        assert not failed.ok and "--as" in failed.error


def test_roles_decide_what_the_signed_in_person_sees(itsm_db: Path, people: dict[str, str], tmp_path: Path):
    employee, net = people["employee"], people["network"]
    with Episode.open(itsm_db, workdir=tmp_path, actor=employee) as ep:
        assert ep.actor.roles == ("employee",)
        mine = ep.call(
            "create_incident",
            {"short_description": "Laptop dead", "category_name": "Hardware", "subcategory": "Laptop"},
        ).value["number"]
        listed = ep.call("list_incidents", {"state": "any", "limit": 50}).value
        own = ep.query(
            "SELECT i.number FROM incidents AS i JOIN users AS u ON u.user_id IN (i.caller_id, i.opened_by) "
            "WHERE u.user_name = ? ORDER BY i.number",
            [employee],
        )
        assert mine in {r["number"] for r in listed["rows"]}
        assert sorted(r["number"] for r in listed["rows"]) == [r["number"] for r in own]  # their own only
        others = ep.query("SELECT number FROM incidents WHERE number <> ? ORDER BY number LIMIT 1", [mine])
        assert ep.call("get_incident", {"number": others[0]["number"]}).policy == "ticket_visibility"
        assert ep.call("list_changes", {}).policy == "ticket_visibility"
        assert ep.call("list_incident_activity", {"number": mine, "kind": "work_note"}).policy == (
            "ticket_visibility"
        )
    with Episode.open(itsm_db, workdir=tmp_path, actor=net) as ep:
        assert "itil" in ep.actor.roles
        seen = ep.call("list_incidents", {"state": "any", "limit": 50}).value
        assert seen["total"] == ep.query("SELECT count(*) AS n FROM incidents")[0]["n"]  # IT staff see all
    # signed in in one role only (`--role employee`): the itil role they hold does not act
    with Episode.open(itsm_db, workdir=tmp_path, actor=Actor(person=net, roles=("employee",))) as ep:
        assert ep.call("list_changes", {}).policy == "ticket_visibility"


def test_a_p1_worked_without_informing_the_major_incident_manager_breaks_the_procedure(
    pack: DomainPack, itsm_db: Path, people: dict[str, str], tmp_path: Path
):
    net, mim = people["network"], people["mim"]
    check = procedure_check(pack, "major_incident_procedure")
    with Episode.open(itsm_db, workdir=tmp_path, actor=net) as ep:
        for informed in (False, True):
            ep.reset()
            made = ep.call(
                "create_incident",
                {
                    "short_description": "VPN down for everyone",
                    "category_name": "Network",
                    "subcategory": "VPN",
                    "impact": 1,
                    "urgency": 1,
                },
            )
            assert made.ok and made.value["priority"] == 1
            number = made.value["number"]
            assert ep.call("assign_incident", {"number": number, "assignee": net}).ok
            if informed:
                notify = {"number": number, "manager": mim}
                assert ep.call("notify_major_incident_manager", notify).ok
            resolve = {"number": number, "close_code": "solved", "close_notes": "Restarted."}
            # the tools resolve it either way: the procedure is the agent's to follow, its check tells
            assert ep.call("resolve_incident", resolve).ok
            assert bool(ep.query(check)) is not informed
        slas = ep.call("get_incident", {"number": number}).value["slas"]
        assert {s["stage"] for s in slas} == {"achieved"}


def procedure_check(pack: DomainPack, name: str) -> str:
    """The end-state check of the pack's procedure `name` (a `kind: procedure` policy)."""
    policy = next(p for p in pack.config.policies if p.name == name)
    assert policy.kind == "procedure" and policy.check
    return policy.check


@contextmanager
def signed_in(db: Path, who: str) -> Iterator[Episode]:
    """An episode acting as `who` that writes to `db` itself (a copy of the build), so that the next person
    signed in sees what this one did: a scene of several people, each acting as themselves."""
    with Episode.open(db, persist=True, actor=who) as ep:
        yield ep


def test_assignment_roles_and_reassignment_reasons_are_refused_by_name(
    itsm_db: Path, people: dict[str, str], tmp_path: Path
):
    net, desk, employee = people["network"], people["desk"], people["employee"]
    db = tmp_path / "itsm.duckdb"
    shutil.copyfile(itsm_db, db)
    with signed_in(db, employee) as ep:
        number = ep.call(
            "create_incident",
            {
                "short_description": "Wi-Fi drops",
                "category_name": "Network",
                "subcategory": "Wi-Fi",
            },
        ).value["number"]
        no_role = ep.call("assign_incident", {"number": number, "assignee": net})
        assert no_role.policy == "itil_role_required"
    with signed_in(db, net) as ep:
        outsider = ep.call("assign_incident", {"number": number, "assignee": desk})
        assert outsider.policy == "assignee_in_assignment_group"
        move = {"number": number, "assignment_group": "Service Desk"}
        assert ep.call("reassign_incident", move).policy == "reassignment_work_note"
        assert ep.call("reassign_incident", {**move, "reason": "needs a desk visit", "assignee": desk}).ok
        notes = ep.query(
            "SELECT body FROM incident_journal AS j JOIN incidents AS i USING (incident_id) "
            "WHERE i.number = ? AND j.kind = 'work_note'",
            [number],
        )
        assert notes and "needs a desk visit" in notes[0]["body"]


def test_a_high_risk_change_started_without_the_cab_breaks_the_procedure(
    pack: DomainPack, itsm_db: Path, people: dict[str, str], tmp_path: Path
):
    cm, cab, app = people["change_manager"], people["cab"], people["app"]
    check = procedure_check(pack, "high_risk_cab_review")
    for reviewed in (True, False):
        db = tmp_path / f"itsm-{reviewed}.duckdb"
        shutil.copyfile(itsm_db, db)
        with signed_in(db, cm) as ep:
            number = ep.call(
                "request_change",
                {
                    "short_description": "Upgrade the runtime",
                    "ci_name": app,
                    "planned_start": "2026-07-20T21:00:00",
                    "planned_end": "2026-07-20T23:00:00",
                    "risk": "high",
                },
            ).value["number"]
            assert ep.call("assess_change", {"number": number, "risk": "high", "impact": 2}).ok
            assert ep.call("request_change_approval", {"number": number, "approvers": [cab]}).ok
            assert ep.call("schedule_change", {"number": number}).policy == "change_authorization"
            if cm != cab:  # the change manager was not asked: only the member asked approves
                assert ep.call("approve_change", {"number": number}).policy == "cab_approvers_only"
        with signed_in(db, cab) as ep:
            assert ep.call("approve_change", {"number": number}).ok
        with signed_in(db, cm) as ep:
            assert ep.call("schedule_change", {"number": number}).ok
            if reviewed:
                meeting = {"number": number, "meeting": "Weekly CAB #107"}
                assert ep.call("add_change_to_cab_agenda", meeting).ok
                assert ep.call("record_cab_outcome", {**meeting, "outcome": "approved"}).ok
            # started with or without the review: the tools allow both, the procedure's check does not
            assert ep.call("start_change_implementation", {"number": number}).ok
            assert bool(ep.query(check)) is not reviewed


def test_the_cmdb_relates_items_only_as_their_classes_suggest(itsm_db: Path, tmp_path: Path):
    """The seeded suggestions (schema.sql's INSERTs, kept as given) shape the built graph: a business service
    depends on applications, a virtual machine is hosted on a server, ..., every relation one of them, with a
    heavy tail of virtual machines per host; the tool refuses a relation no suggestion allows, by name."""
    with duckdb.connect(str(itsm_db), read_only=True) as con:
        suggested = con.execute("SELECT count(*) FROM ci_relation_suggestions").fetchone()[0]
        kinds = con.execute(
            "SELECT pk.name, t.parent_descriptor, ck.name, count(*) FROM ci_relationships AS r "
            "JOIN configuration_items AS p ON p.ci_id = r.parent_ci_id "
            "JOIN ci_classes AS pk USING (class_id) "
            "JOIN ci_relation_types AS t ON t.type_id = r.type_id "
            "JOIN configuration_items AS c ON c.ci_id = r.child_ci_id JOIN ci_classes AS ck "
            "ON ck.class_id = c.class_id GROUP BY ALL"
        ).fetchall()
        hosts = [
            r[0]
            for r in con.execute(
                "SELECT count(*) FROM ci_relationships WHERE type_id = 3 GROUP BY child_ci_id ORDER BY 1"
            ).fetchall()
        ]
        vm, service = con.execute(
            "SELECT (SELECT min(name) FROM configuration_items WHERE class_id = 2 AND operational_status = "
            "'operational'), (SELECT min(name) FROM configuration_items WHERE class_id = 7 AND "
            "operational_status = 'operational')"
        ).fetchone()
        admin = con.execute(
            "SELECT min(u.user_name) FROM users AS u JOIN user_roles AS ur USING (user_id) JOIN roles AS r "
            "USING (role_id) WHERE u.active AND r.name = 'itil_admin'"
        ).fetchone()[0]
    assert suggested == 18
    by_kind = {(p, rel, c): n for p, rel, c, n in kinds}
    assert len(by_kind) >= 12 and ("Virtual Machine", "Hosted on", "Server") in by_kind
    assert ("Business Service", "Depends on", "Application") in by_kind
    assert ("Virtual Machine", "Runs on", "Virtual Machine") not in by_kind
    assert hosts[-1] >= 5 * hosts[len(hosts) // 2]  # a few big hosts
    with Episode.open(itsm_db, workdir=tmp_path, actor=admin) as ep:
        wrong = ep.call("add_ci_relation", {"parent": vm, "child": service, "relation": "Depends on"})
        assert wrong.policy == "cmdb_relations_by_class" and "Business Service" in wrong.error
        assert ep.call("add_ci_relation", {"parent": service, "child": service, "relation": "Contains"}).error
