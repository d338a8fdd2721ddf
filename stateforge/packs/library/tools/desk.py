"""The desk: borrow a copy, bring copies back."""

from __future__ import annotations

import datetime as dt
from typing import Annotated

from pydantic import Field

from stateforge.tools import Env, ToolError, tool
from stateforge.tools.policies import refuse

from .common import LOAN_DAYS, LOAN_LIMIT, member


# destructive=False (the reading of the code sees the copy's status overwritten): a loan is added and
# the copy's status follows it
@tool(
    kind="write",
    reads=("members", "copies", "loans"),
    writes=("loans", "copies"),
    idempotent=False,
    destructive=False,
)
def borrow_copy(env: Env, barcode: str) -> dict:
    """Lend one copy to the signed-in member for 21 days.

    Args:
        barcode: The copy's barcode (from list_copies).
    """
    who = member(env)
    copy = env.one("SELECT copy_id, status FROM copies WHERE barcode = ?", [barcode.strip().upper()])
    if copy is None:
        raise ToolError(f"no copy has the barcode {barcode!r}; find the book's copies with list_copies.")
    if copy["status"] != "on_shelf":
        state = copy["status"].replace("_", " ")
        raise refuse("shelf_copies_only", f"copy {barcode} is {state}, not on the shelf", argument="barcode")
    loans = env.one(
        "SELECT count(*) AS open, count(*) FILTER (WHERE due_on < CAST(? AS DATE)) AS overdue "
        "FROM loans WHERE member_id = ? AND returned_at IS NULL",
        [env.now, who["member_id"]],
    )
    if loans["overdue"]:
        raise refuse(
            "overdue_blocks_borrowing",
            f"{who['name']} has {loans['overdue']} overdue book(s): return them before borrowing",
        )
    if loans["open"] >= LOAN_LIMIT:
        raise refuse(
            "loan_limit", f"{who['name']} already has {loans['open']} books on loan (at most {LOAN_LIMIT})"
        )
    due = (env.now + dt.timedelta(days=LOAN_DAYS)).date()
    env.insert("loans", {"copy_id": copy["copy_id"], "member_id": who["member_id"], "borrowed_at": env.now,
                         "due_on": due, "returned_at": None})
    env.update("copies", copy["copy_id"], {"status": "on_loan"})
    return {"barcode": barcode.strip().upper(), "due_on": due}


# destructive=False: the loan is closed (its return stamped, kept) and the copy's status follows
@tool(
    kind="write",
    reads=("members", "copies", "loans"),
    writes=("loans", "copies"),
    idempotent=True,
    destructive=False,
)
def return_copies(
    env: Env, barcodes: Annotated[list[str], Field(min_length=1, max_length=50)]
) -> dict:
    """Bring copies back: each open loan of the signed-in member for these barcodes ends now.

    Args:
        barcodes: The copies' barcodes (from list_loans), one or more.
    """
    who = member(env)
    wanted = sorted({b.strip().upper() for b in barcodes})
    open_loans = env.query(
        "SELECT l.loan_id, l.copy_id, c.barcode FROM loans AS l JOIN copies AS c USING (copy_id) "
        "WHERE l.member_id = ? AND l.returned_at IS NULL AND list_contains(?, c.barcode)",
        [who["member_id"], wanted],
    )
    missing = sorted(set(wanted) - {row["barcode"] for row in open_loans})
    if missing:
        raise ToolError(
            f"{who['name']} has no open loan of {', '.join(missing)}; list_loans shows what they have out."
        )
    for row in open_loans:
        env.update("loans", row["loan_id"], {"returned_at": env.now})
        env.update("copies", row["copy_id"], {"status": "on_shelf"})
    return {"returned": wanted}
