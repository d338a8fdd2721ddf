"""What the library's tools share: the member they act for, the loan period, the page size."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from stateforge.tools import Env, ToolError

LOAN_DAYS = 21
LOAN_LIMIT = 8
PAGE = 20

Limit = Annotated[int, Field(ge=1, le=PAGE, description=f"Items per page (at most {PAGE}).")]
Offset = Annotated[int, Field(ge=0, le=1_000_000, description="Items to skip.")]


def member(env: Env) -> dict[str, Any]:
    """The member the session acts for (`env.actor`, named by card number: domain.yaml `actors:`); a
    `ToolError` when no one is signed in."""
    card = env.acting("member").person
    row = env.one("SELECT * FROM members WHERE card_number = ?", [card])
    if row is None:  # the episode checked the actor when it opened: only a deleted member gets here
        raise ToolError(f"the signed-in card {card} belongs to no member any more.")
    return row
