"""The gate on the real shop database: a kept task, and a draft made to break each rule, rejected with that
reason. Every check replays on real episodes and diffs real DuckDB files."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import duckdb
import pytest

from stateforge.diff import Diff
from stateforge.episode import Episode
from stateforge.tasks import Call, Draft, Gate, Goal, Reference, Workspace
from stateforge.tasks.draft import Observed
from stateforge.tasks.gate import REASONS
from stateforge.tasks.hidden import unreachable
from stateforge.tasks.model import Derivation, Infeasibility
from stateforge.tasks.verifiers import (
    constraint_names,
    integrity_verifiers,
    rows_match,
    side_effect_verifiers,
)
from stateforge.tasks.workspace import fetch
from stateforge.tools import Env, ToolError, Toolkit, generic_tools, tool
from stateforge.tools.policies import refuse


@pytest.fixture(scope="module")
def ws(shop_db: Path):
    with Workspace(shop_db) as workspace:
        yield workspace


@pytest.fixture
def gate(ws: Workspace, shop_kit: Toolkit) -> Gate:
    return Gate(ws, shop_kit)


@pytest.fixture(scope="module")
def customer(ws: Workspace) -> dict:
    return ws.query("SELECT customer_id, email, name FROM customers ORDER BY customer_id LIMIT 1")[0]


def rename(customer: dict, new: str = "Zed Quill", *, instruction: str | None = None, **extra) -> Draft:
    """A feasible draft: rename a customer found by their email."""
    fields = {
        "instruction": instruction or f"Rename the customer {customer['email']} to '{new}'.",
        "capabilities": ("cross_step_dependency",),
        "difficulty": "easy",
        "calls": [
            Call("search_customers", {"filters": [{"column": "email", "value": customer["email"]}]}),
            Call("update_customer", {"customer_id": customer["customer_id"], "name": new}),
        ],
        "goals": [Goal("renamed", "SELECT name FROM customers WHERE email = ?", [customer["email"]])],
        "references": [
            Reference(
                entity=f"customer {customer['email']}",
                sql="SELECT count(*) FROM customers WHERE email = ?",
                params=[customer["email"]],
            )
        ],
        "provenance": {"generator": "recipe", "recipe": "test", "seed": 1},
    }
    fields.update(extra)
    return Draft(**fields)


def reason(gate: Gate, draft: Draft) -> str | None:
    result = gate.check(draft)
    return result.rejection.reason if result.rejection else None


def test_a_kept_task_replays_to_its_diff_with_four_kinds_of_verifiers(
    gate: Gate, customer: dict, shop_db: Path, shop_kit: Toolkit, tmp_path: Path
):
    result = gate.check(rename(customer))
    task = result.task
    assert task is not None, result.rejection
    assert task.expected_diff["tables"]["customers"]["updated"] == [
        {
            "key": {"customer_id": customer["customer_id"]},
            "changes": {"name": [customer["name"], "Zed Quill"]},
        }
    ]
    assert {v.kind for v in task.verifiers} == {"goal", "integrity", "side_effect"}
    assert task.verifiers[0].expected == [{"name": "Zed Quill"}]
    assert "Zed Quill" in task.verifiers[0].sql or customer["email"] in task.verifiers[0].sql
    assert task.reference_plan[0].startswith("Find customers where email =")
    assert task.references[0].expected == 1 and task.provenance.recipe == "test"
    assert task.id == task.content_id() and task.db_fingerprint == gate.fingerprint
    # an independent check: the reference calls on a fresh episode give the expected diff, and every
    # verifier holds on that state
    with Episode.open(shop_db, toolkit=shop_kit, workdir=tmp_path, keep=True) as episode:
        for call in task.reference_calls:
            assert episode.call(call.tool, call.arguments).ok
        path = episode.path
    from stateforge.diff import diff_files

    assert diff_files(shop_db, path).to_dict() == task.expected_diff
    with duckdb.connect(str(path), read_only=True) as con:
        for verifier in task.verifiers:
            assert rows_match(fetch(con, verifier.sql), verifier.expected), verifier.name


def test_shape_rules(gate: Gate, customer: dict):
    assert reason(gate, rename(customer, capabilities=("telepathy",))) == "invalid"
    assert reason(gate, rename(customer, difficulty="extreme")) == "invalid"
    assert reason(gate, rename(customer, goals=[])) == "no_goal"
    assert reason(gate, rename(customer, calls=[])) == "invalid"
    assert reason(gate, rename(customer, policy={"customers.nmae": "ignore"})) == "invalid"


def test_duplicates_by_instruction_and_by_diff(gate: Gate, customer: dict):
    assert reason(gate, rename(customer)) is None
    assert (
        reason(gate, rename(customer, instruction=rename(customer).instruction.upper()))
        == "duplicate_instruction"
    )
    assert reason(gate, rename(customer, instruction=f"{customer['email']} is now called 'Zed Quill'.")) == (
        "duplicate_diff"
    )


def test_references_must_match_their_count(gate: Gate, customer: dict):
    everyone = Reference(entity="a customer", sql="SELECT count(*) FROM customers WHERE tier IS NOT NULL")
    assert reason(gate, rename(customer, references=[everyone])) == "ambiguous_reference"
    present = Reference(
        entity="customer",
        sql="SELECT count(*) FROM customers WHERE email = ?",
        params=[customer["email"]],
        expected=0,
    )
    draft = rename(
        customer,
        feasible=False,
        references=[present],
        infeasible=Infeasibility(kind="missing", because="no such customer"),
    )
    assert reason(gate, draft) == "not_absent"


def test_replays_that_fail_or_change_nothing(gate: Gate, customer: dict):
    missing = rename(customer, calls=[Call("update_customer", {"customer_id": 10**9, "name": "X"})])
    assert reason(gate, missing) == "replay_failed"
    same = rename(customer, customer["name"])
    assert reason(gate, same) == "empty_diff"
    bug = rename(customer, calls=[Call("wall_clock", {}), *rename(customer).calls])
    assert reason(gate, bug) == "tool_bug"
    elsewhere = rename(customer, observed_diff=Diff())
    assert reason(gate, elsewhere) == "replay_differs"


def test_nothing_hidden(gate: Gate, customer: dict):
    silent = f"Please fix the name of the customer {customer['email']}."
    result = gate.check(rename(customer, instruction=silent))
    assert result.rejection is not None and result.rejection.detail == "hidden value: customers.name"
    derived = rename(
        customer, instruction=silent, derived=[Derivation(value="Zed Quill", how="the name on file")]
    )
    assert reason(gate, derived) is None
    loose = rename(
        customer,
        "Zed Quill II",
        instruction=silent + " Any name will do.",
        policy={"customers.name": "any_non_null"},
    )
    assert reason(gate, loose) is None


def test_goals_must_fail_before_and_pass_after(gate: Gate, customer: dict):
    wrong = Goal(
        "renamed", "SELECT name FROM customers WHERE email = ?", [customer["email"]], [{"name": "Other"}]
    )
    assert reason(gate, rename(customer, goals=[wrong])) == "goal_not_met"
    always = Goal("customers", "SELECT count(*) AS n FROM customers")
    assert reason(gate, rename(customer, goals=[always])) == "goal_already_true"


def test_an_infeasible_task_is_proven_by_a_refusal_and_an_empty_diff(gate: Gate, customer: dict):
    absent = "nobody@nowhere.example"
    draft = Draft(
        instruction=f"Place an order of one item 'SKU-NOPE' for {absent}.",
        capabilities=("cross_step_dependency",),
        difficulty="easy",
        calls=[Call("place_order", {"email": absent, "items": [{"sku": "SKU-NOPE"}]})],
        feasible=False,
        references=[
            Reference(
                entity=f"customer {absent}",
                sql="SELECT count(*) FROM customers WHERE email = ?",
                params=[absent],
                expected=0,
            )
        ],
        infeasible=Infeasibility(kind="missing", because=f"there is no customer {absent}"),
        provenance={"generator": "recipe", "recipe": "test", "seed": 1},
    )
    result = gate.check(draft)
    task = result.task
    assert task is not None, result.rejection
    assert not task.feasible and task.diff.empty
    assert [c.tool for c in task.reference_calls] == ["place_order", "cannot_complete"]
    assert task.reference_calls[-1].arguments == {"reason": f"there is no customer {absent}"}
    assert task.reference_plan[-1].startswith("Decline with cannot_complete")
    assert [v.name for v in task.verifiers if v.kind == "goal"] == ["nothing changed"]
    assert task.provenance.infeasible is not None and "no customer" in task.provenance.infeasible.error


def test_infeasible_drafts_that_prove_nothing(gate: Gate, customer: dict):
    why = Infeasibility(kind="capacity", because="not allowed")
    accepted = rename(customer, "Yan Orr", feasible=False, infeasible=why, goals=[])
    assert reason(gate, accepted) == "infeasible_not_refused"
    bad_args = rename(
        customer,
        feasible=False,
        infeasible=why,
        goals=[],
        calls=[Call("update_customer", {"customer_id": customer["customer_id"], "nmae": "X"})],
    )
    assert reason(gate, bad_args) == "infeasible_wrong_error"
    half = rename(
        customer,
        "Yan Orr",
        feasible=False,
        infeasible=why,
        goals=[],
        calls=[
            *rename(customer, "Yan Orr").calls,
            Call("update_customer", {"customer_id": 10**9, "name": "X"}),
        ],
    )
    assert reason(gate, half) == "infeasible_changes_state"


def test_a_wall_clock_default_makes_a_replay_nondeterministic(pg_db: Path):
    with Workspace(pg_db) as ws:
        from stateforge.tools import toolkit_for

        gate = Gate(ws, toolkit_for(ws.schema, ws.domain))
        draft = Draft(
            instruction="Add an artist called 'Nina Stone'.",
            capabilities=("cross_step_dependency",),
            difficulty="easy",
            calls=[Call("create_artist", {"name": "Nina Stone"})],  # created_at DEFAULT CURRENT_TIMESTAMP
            goals=[Goal("added", "SELECT count(*) AS n FROM artists WHERE name = 'Nina Stone'")],
            policy={"artists.created_at": "ignore"},
        )
        assert reason(gate, draft) == "nondeterministic"


def test_a_policy_check_rejects_what_the_generic_tools_allow(league_db: Path):
    with Workspace(league_db) as ws:
        from stateforge.tools import toolkit_for

        gate = Gate(ws, toolkit_for(ws.schema, ws.domain))
        player = ws.query("SELECT player_id, name FROM players ORDER BY player_id LIMIT 1")[0]
        blocked = Draft(
            instruction=f"Rename the player '{player['name']}' to 'Blocked'.",
            capabilities=("cross_step_dependency",),
            difficulty="easy",
            calls=[Call("update_player", {"player_id": player["player_id"], "name": "Blocked"})],
            goals=[Goal("renamed", "SELECT count(*) AS n FROM players WHERE name = 'Blocked'")],
        )
        result = gate.check(blocked)
        assert result.rejection is not None and result.rejection.reason == "policy"
        assert "no_player_called_blocked" in result.rejection.detail


def test_the_domain_grading_defaults_are_merged_into_every_task(league_db: Path):
    from stateforge.tasks import domain_policy
    from stateforge.tools import toolkit_for

    with Workspace(league_db) as ws:
        gate = Gate(ws, toolkit_for(ws.schema, ws.domain), defaults=domain_policy(ws.config, ws.schema))
        player = ws.query("SELECT player_id, name FROM players ORDER BY player_id LIMIT 1")[0]
        draft = Draft(
            instruction=f"Set the note of the player '{player['name']}' to 'Team captain'.",
            capabilities=("cross_step_dependency",),
            difficulty="easy",
            calls=[Call("update_player", {"player_id": player["player_id"], "note": "Team captain"})],
            goals=[Goal("noted", "SELECT note FROM players WHERE player_id = ?", [player["player_id"]])],
            policy={"players.name": "exact"},
        )
        task = gate.check(draft).task
        assert task is not None
        assert task.policy == {"columns": {"players.name": "exact", "players.note": "normalized"}}


def test_unreachable_tables_are_named(ws: Workspace):
    readers = Toolkit(generic_tools(ws.schema, ops=("search", "get")), name="readers")
    diff = Diff.from_dict({"tables": {"carriers": {"deleted": [{"carrier_id": 1, "name": "Post"}]}}})
    assert unreachable(diff, readers.coverage(ws.schema), ws.schema) == ["carriers"]
    writers = Toolkit(generic_tools(ws.schema), name="all")
    assert unreachable(diff, writers.coverage(ws.schema), ws.schema) == []


def _broken_copy(shop_db: Path, tmp_path: Path, sql: str) -> Path:
    copy = tmp_path / "broken.duckdb"
    shutil.copy(shop_db, copy)
    with duckdb.connect(str(copy)) as con:
        con.execute(sql)
    return copy


def test_integrity_and_side_effect_verifiers_fail_on_a_state_the_tools_could_not_make(
    ws: Workspace, shop_db: Path, tmp_path: Path
):
    diff = Diff.from_dict(
        {
            "tables": {
                "wishlist": {
                    "inserted": [{"customer_id": 999999, "product_id": 1, "added_at": "2025-01-01T00:00:00"}]
                }
            }
        }
    )
    checks = integrity_verifiers(ws.schema, ws.config, diff) + side_effect_verifiers(ws, diff)
    orphan = _broken_copy(
        shop_db,
        tmp_path,
        "INSERT INTO wishlist VALUES (999999, 1, TIMESTAMP '2025-01-01');"
        "UPDATE carriers SET name = 'Pony' WHERE carrier_id = 1",
    )
    with duckdb.connect(str(orphan), read_only=True) as con:
        failed = {v.name for v in checks if not rows_match(fetch(con, v.sql), v.expected)}
    assert failed == {"keys and constraints of wishlist", "untouched tables keep their rows"}
    base = ws.query_json(checks[0].sql)
    assert rows_match(base, checks[0].expected)


def test_an_untouched_child_is_checked_by_its_keys_into_the_changed_tables(
    ws: Workspace, shop_db: Path, tmp_path: Path
):
    diff = Diff.from_dict({"tables": {"carriers": {"deleted": [{"carrier_id": 1, "name": "x"}]}}})
    checks = {v.name: v for v in integrity_verifiers(ws.schema, ws.config, diff)}
    assert {"keys and constraints of carriers", "keys and constraints of shipments"} <= set(checks)
    shipments = checks["keys and constraints of shipments"]
    # only its key into carriers: not its key into orders, nor what it holds of itself (NOT NULL, unique),
    # which the side effects keep by holding its rows to the base
    named = constraint_names(shipments.sql)
    assert named and all("carriers" in name for name in named), named
    assert len(constraint_names(checks["keys and constraints of carriers"].sql)) > len(named)
    gone = _broken_copy(shop_db, tmp_path, "UPDATE shipments SET carrier_id = 999999 WHERE rowid = 0")
    with duckdb.connect(str(gone), read_only=True) as con:
        assert not rows_match(fetch(con, shipments.sql), shipments.expected)
    assert rows_match(ws.query_json(shipments.sql), shipments.expected)


@tool(kind="write", reads=("players",), writes=("players",))
def change_player(env: Env, player_id: int, name: str | None = None, number: int | None = None) -> dict:
    """Rename a player or give them another number.

    Args:
        player_id: The player's id.
        name: Their new name.
        number: Their new shirt number.
    """
    if env.one("SELECT player_id FROM players WHERE player_id = ?", [player_id]) is None:
        raise ToolError(
            f"no player has the id {player_id}; pass a player_id of search_players.", argument="player_id"
        )
    if name == "Blocked":
        raise refuse("no_player_called_blocked", "nobody may be called Blocked", argument="name")
    if number is not None:
        raise refuse("numbers_are_kept", "a player keeps their number for the season", argument="number")
    return {"updated": env.update("players", {"player_id": player_id}, {"name": name})}


def test_a_forbidden_task_is_proven_by_exactly_the_policy_it_names(league_db: Path):
    with Workspace(league_db) as ws:
        gate = Gate(ws, Toolkit([change_player], name="league"))
        player = ws.query("SELECT player_id, name FROM players ORDER BY player_id LIMIT 1")[0]

        def forbidden(arguments: dict, policy: str | None) -> Draft:
            return Draft(
                instruction=f"Change the player '{player['name']}': {arguments}.",
                capabilities=("cross_step_dependency",),
                difficulty="easy",
                calls=[Call("change_player", {"player_id": player["player_id"], **arguments})],
                feasible=False,
                infeasible=Infeasibility(kind="forbidden", because="a policy forbids it", policy=policy),
            )

        named = gate.check(forbidden({"name": "Blocked"}, "no_player_called_blocked"))
        assert named.task is not None, named.rejection
        assert named.task.provenance.infeasible.policy == "no_player_called_blocked"
        wrong = gate.check(forbidden({"number": 7}, "no_player_called_blocked"))
        assert wrong.rejection is not None and wrong.rejection.reason == "infeasible_wrong_policy"
        assert "by policy numbers_are_kept, not by policy no_player_called_blocked" in wrong.rejection.detail
        untyped = gate.check(forbidden({"player_id": 10**9, "name": "X"}, "numbers_are_kept"))
        assert untyped.rejection is not None and untyped.rejection.reason == "infeasible_wrong_policy"
        unnamed = gate.check(forbidden({"number": 8}, None))
        assert unnamed.rejection is not None and unnamed.rejection.reason == "infeasible_no_policy"
        unknown = gate.check(forbidden({"number": 9}, "no_such_policy"))
        assert unknown.rejection is not None and unknown.rejection.reason == "invalid"
        assert "no_such_policy" in unknown.rejection.detail and "numbers_are_kept" in unknown.rejection.detail
        assert {"infeasible_wrong_policy", "infeasible_no_policy"} <= set(REASONS)


def _observed_run(ws: Workspace, kit: Toolkit, calls: list[Call]) -> Observed:
    """The calls run once on a fresh episode, left open as a generator hands it to the gate."""
    episode = ws.episode(kit, diffed=True)
    return Observed(episode, kit, [episode.call(c.tool, c.arguments) for c in calls])


def test_the_generators_own_run_is_the_first_replay_and_the_writes_run_again(
    gate: Gate, ws: Workspace, shop_kit: Toolkit, customer: dict
):
    draft = rename(customer)
    seen = _observed_run(ws, shop_kit, draft.calls)
    result = gate.check(replace(draft, observed=seen))
    assert result.task is not None, result.rejection
    assert seen.taken and seen.episode.closed  # diffed and removed by the gate
    gate.forget()
    again = gate.check(draft)  # no run handed over: replayed in full, the same task
    assert again.task is not None and again.task.expected_diff == result.task.expected_diff


def test_a_handed_over_run_that_the_writes_do_not_reproduce_is_nondeterministic(
    gate: Gate, ws: Workspace, shop_kit: Toolkit, customer: dict
):
    draft = rename(customer)
    other = rename(customer, "Another Name")
    seen = _observed_run(ws, shop_kit, other.calls)  # the generator's episode saw other writes
    assert reason(gate, replace(draft, observed=seen)) == "nondeterministic"


def test_a_handed_over_run_of_other_calls_is_not_taken(
    gate: Gate, ws: Workspace, shop_kit: Toolkit, customer: dict
):
    draft = rename(customer)
    seen = _observed_run(ws, shop_kit, draft.calls[1:])
    result = gate.check(replace(draft, observed=seen))
    assert result.task is not None, result.rejection
    assert not seen.taken
    ws.discard(seen.episode)


def test_an_infeasible_draft_refused_at_a_read_replays_no_write_past_it(
    gate: Gate, ws: Workspace, shop_kit: Toolkit, customer: dict
):
    """The second replay runs the writes the first one made and the call it stopped at: a lookup that is
    refused ends both, so the rename after it (which alone would succeed) runs in neither."""
    absent = 10**9
    draft = Draft(
        instruction=f"Rename customer {absent} to 'Zed Quill'.",
        capabilities=("cross_step_dependency",),
        difficulty="easy",
        calls=[
            Call("get_customer", {"customer_id": absent}),
            Call("update_customer", {"customer_id": customer["customer_id"], "name": "Zed Quill"}),
        ],
        feasible=False,
        infeasible=Infeasibility(kind="missing", because=f"there is no customer {absent}"),
        provenance={"generator": "recipe", "recipe": "test", "seed": 1},
    )
    result = gate.check(draft)
    assert result.task is not None, result.rejection
    assert [c.tool for c in result.task.reference_calls] == ["get_customer", "cannot_complete"]
    assert result.task.diff.empty
