"""Performance: review cycles, reviews (the worker's self review, the manager's rating), goals."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from stateforge.tools import Env, ToolError, tool
from stateforge.tools.policies import refuse

from .common import PEOPLE, Limit, Number, Offset, actor, require, require_active, worker

PERF = ("review_cycles", "reviews", "goals", *PEOPLE)


def open_cycle(env: Env) -> dict:
    return env.one("SELECT * FROM review_cycles WHERE status = 'open' ORDER BY cycle_id DESC LIMIT 1")


def cycle_named(env: Env, name: str | None) -> dict:
    if not name:
        return open_cycle(env)
    row = env.one("SELECT * FROM review_cycles WHERE lower(name) = lower(?)", [name.strip()])
    if row is None:
        raise ToolError(
            f"no review cycle is called {name!r}; list_review_cycles shows them.", argument="cycle"
        )
    return row


@tool(reads=PERF)
def list_review_cycles(env: Env) -> dict:
    """The review cycles (half-years), with their period and status (open while reviews are written)."""
    actor(env)
    return {
        "cycles": env.query(
            "SELECT name, period_start, period_end, status FROM review_cycles ORDER BY cycle_id"
        )
    }


@tool(reads=PERF)
def list_reviews(
    env: Env,
    cycle: str | None = None,
    scope: Literal["team", "mine", "employee"] = "team",
    employee: Number | None = None,
    status: Literal["not_started", "self_review", "manager_review", "completed", "all"] = "all",
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict:
    """Reviews of a cycle (the open one unless named), a page at a time: your direct reports' (team), your
    own, or one worker's (their manager or HR partner).

    Args:
        cycle: The cycle's name (H2 2025 review); the open cycle when left out.
        scope: team, mine or employee.
        employee: The worker, for scope employee.
        status: not_started, self_review (writing it), manager_review (waiting for the manager),
            completed, or all.
        limit: Reviews per page.
        offset: Reviews to skip.
    """
    me = actor(env)
    c = cycle_named(env, cycle)
    if scope == "employee":
        if not employee:
            raise ToolError("scope employee needs `employee`.", argument="employee")
        who = worker(env, employee)
        require(env, me, who, {"self", "manager", "partner"}, "manager_scope", "see the reviews")
        where, params = ["v.employee_id = ?"], [who["employee_id"]]
    elif scope == "mine":
        where, params = ["v.employee_id = ?"], [me.id]
    else:
        where, params = ["w.manager_id = ?", "w.status <> 'terminated'"], [me.id]
    where.append("v.cycle_id = ?")
    params.append(c["cycle_id"])
    if status != "all":
        where.append("v.status = ?")
        params.append(status)
    sql = (
        "SELECT y.name AS cycle, w.employee_number AS employee, w.first_name || ' ' || w.last_name AS name, "
        "v.status, v.rating, v.completed_at, r.employee_number AS reviewer FROM reviews AS v "
        "JOIN review_cycles AS y USING (cycle_id) JOIN employees AS w ON w.employee_id = v.employee_id "
        f"LEFT JOIN employees AS r ON r.employee_id = v.reviewer_id WHERE {' AND '.join(where)}"
    )
    return env.page(sql, params, order_by="name, employee", limit=limit, offset=offset)


def the_review(env: Env, who: dict) -> dict:
    c = open_cycle(env)
    row = env.one(
        "SELECT * FROM reviews WHERE cycle_id = ? AND employee_id = ?", [c["cycle_id"], who["employee_id"]]
    )
    if row is None:
        raise refuse("review_cycle_rules", f"{who['employee_number']} has no review in {c['name']}")
    return row


@tool(kind="write", reads=PERF, writes=("reviews",), idempotent=True)
def submit_self_review(env: Env) -> dict:
    """Submit your self review of the open cycle: it goes to your manager."""
    me = actor(env)
    rev = the_review(env, me.row)
    if rev["status"] not in ("not_started", "self_review"):
        raise refuse("review_cycle_rules", f"your review is already {rev['status']}")
    env.update("reviews", rev["review_id"], {"status": "manager_review"})
    return {"status": "manager_review"}


@tool(kind="write", reads=PERF, writes=("reviews",), idempotent=True)
def complete_review(env: Env, employee: Number, rating: Annotated[int, Field(ge=1, le=5)]) -> dict:
    """Complete a direct report's review of the open cycle with a rating (managers), once they have
    submitted their self review.

    Args:
        employee: The report's employee number.
        rating: 1 below expectations, 2 partly meets, 3 meets, 4 exceeds, 5 outstanding.
    """
    me = actor(env)
    who = worker(env, employee)
    require(env, me, who, {"manager"}, "manager_scope", "complete the review")
    rev = the_review(env, who)
    if rev["status"] != "manager_review":
        raise refuse(
            "review_cycle_rules",
            f"{employee}'s review is {rev['status'].replace('_', ' ')}: "
            "it is completed once they submit their self review",
        )
    env.update(
        "reviews",
        rev["review_id"],
        {"status": "completed", "rating": rating, "completed_at": env.now, "reviewer_id": me.id},
    )
    return {"employee": who["employee_number"], "rating": rating, "status": "completed"}


@tool(reads=PERF)
def list_goals(env: Env, employee: Number | None = None, cycle: str | None = None) -> dict:
    """A worker's goals in a cycle (the open one unless named), with their weights: yours or a report's.

    Args:
        employee: Their employee number; leave out for your own.
        cycle: The cycle's name.
    """
    me = actor(env)
    who = worker(env, employee) if employee else me.row
    require(env, me, who, {"self", "manager", "partner"}, "manager_scope", "see the goals")
    c = cycle_named(env, cycle)
    rows = env.query(
        "SELECT goal_id, title, weight, status FROM goals WHERE employee_id = ? AND cycle_id = ? "
        "ORDER BY goal_id",
        [who["employee_id"], c["cycle_id"]],
    )
    used = sum(r["weight"] for r in rows if r["status"] != "cancelled")
    return {"employee": who["employee_number"], "cycle": c["name"], "goals": rows, "weight_used": used}


@tool(kind="write", reads=PERF, writes=("goals",), idempotent=False)
def add_goal(
    env: Env,
    title: Annotated[str, Field(min_length=3, max_length=80)],
    weight: Annotated[int, Field(ge=5, le=100)],
    employee: Number | None = None,
) -> dict:
    """Add a goal in the open cycle, for yourself or (managers) a direct report; a worker's goals weigh 100
    at most together.

    Args:
        title: What the goal is.
        weight: Its weight, 5 to 100.
        employee: The report's employee number; leave out for yourself.
    """
    me = actor(env)
    who = worker(env, employee) if employee else me.row
    require(env, me, who, {"self", "manager"}, "manager_scope", "add a goal")
    require_active(who, "get goals")
    c = open_cycle(env)
    used = env.scalar(
        "SELECT coalesce(sum(weight), 0) FROM goals WHERE employee_id = ? AND cycle_id = ? "
        "AND status <> 'cancelled'",
        [who["employee_id"], c["cycle_id"]],
    )
    if used + weight > 100:
        raise refuse(
            "goal_weight_limit",
            f"{who['employee_number']}'s goals already weigh {used}: {weight} more would pass 100",
            argument="weight",
        )
    row = env.insert(
        "goals",
        {
            "employee_id": who["employee_id"],
            "cycle_id": c["cycle_id"],
            "title": title.strip(),
            "weight": weight,
            "status": "in_progress",
        },
    )
    return {"goal_id": row["goal_id"], "weight_used": used + weight}


@tool(kind="write", reads=PERF, writes=("goals",), idempotent=True)
def set_goal_status(
    env: Env, goal_id: int, status: Literal["in_progress", "achieved", "missed", "cancelled"]
) -> dict:
    """Set the status of a goal of the open cycle (yours, or a direct report's as their manager).

    Args:
        goal_id: The goal (from list_goals).
        status: in_progress, achieved, missed or cancelled.
    """
    me = actor(env)
    goal = env.get("goals", goal_id)
    if goal is None:
        raise ToolError(f"no goal {goal_id}; list_goals shows them.", argument="goal_id")
    require(
        env,
        me,
        env.get("employees", goal["employee_id"]),
        {"self", "manager"},
        "manager_scope",
        "change the goal",
        argument="goal_id",
    )
    if goal["cycle_id"] != open_cycle(env)["cycle_id"]:
        raise refuse("review_cycle_rules", f"goal {goal_id} belongs to a closed cycle", argument="goal_id")
    env.update("goals", goal_id, {"status": status})
    return {"goal_id": goal_id, "status": status}


PERFORMANCE_TOOLS = [
    list_review_cycles,
    list_reviews,
    submit_self_review,
    complete_review,
    list_goals,
    add_goal,
    set_goal_status,
]
