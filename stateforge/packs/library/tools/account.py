"""The signed-in member's account: their card and their loans (no tool names whose account it reads)."""

from __future__ import annotations

from typing import Literal

from stateforge.tools import Env, tool

from .common import Limit, Offset, member


@tool(reads=("members", "branches", "loans"))
def get_member(env: Env) -> dict:
    """The signed-in member's card: name, home branch, when they joined, how many books they have out and
    overdue."""
    who = member(env)
    counts = env.one(
        "SELECT count(*) FILTER (WHERE returned_at IS NULL) AS on_loan, "
        "count(*) FILTER (WHERE returned_at IS NULL AND due_on < CAST(? AS DATE)) AS overdue "
        "FROM loans WHERE member_id = ?",
        [env.now, who["member_id"]],
    )
    branch = env.scalar("SELECT name FROM branches WHERE branch_id = ?", [who["home_branch_id"]])
    return {
        "card_number": who["card_number"], "name": who["name"], "email": who["email"],
        "home_branch": branch, "joined_at": who["joined_at"], **(counts or {}),
    }


@tool(reads=("members", "loans", "copies", "books", "branches"))
def list_loans(
    env: Env,
    state: Literal["open", "overdue", "returned", "all"] = "open",
    limit: Limit = 10,
    offset: Offset = 0,
) -> dict:
    """The signed-in member's loans, newest first, a page at a time: the book, the copy's barcode, when it
    was borrowed, when it is due and when it came back.

    Args:
        state: open (not yet returned), overdue (open and past its due date), returned, or all.
        limit: Loans per page.
        offset: Loans to skip.
    """
    who = member(env)
    where = {
        "open": "l.returned_at IS NULL",
        "overdue": "l.returned_at IS NULL AND l.due_on < CAST($now AS DATE)",
        "returned": "l.returned_at IS NOT NULL",
        "all": "TRUE",
    }[state]
    sql = (
        "SELECT b.title, b.isbn, c.barcode, br.name AS branch, l.borrowed_at, l.due_on, l.returned_at "
        "FROM loans AS l JOIN copies AS c USING (copy_id) JOIN books AS b USING (book_id) "
        "JOIN branches AS br ON br.branch_id = c.branch_id "
        f"WHERE l.member_id = $member AND {where}"
    )
    params = {"member": who["member_id"], **({"now": env.now} if "$now" in where else {})}
    return env.page(sql, params, order_by="borrowed_at DESC, barcode", limit=limit, offset=offset)
