"""What the library's tools share: finding a member by card, the loan period, the page size."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from stateforge.tools import Env, ToolError

LOAN_DAYS = 21
LOAN_LIMIT = 8
PAGE = 20

Limit = Annotated[int, Field(ge=1, le=PAGE, description=f"Items per page (at most {PAGE}).")]
Offset = Annotated[int, Field(ge=0, le=1_000_000, description="Items to skip.")]


def member(env: Env, card_number: str) -> dict[str, Any]:
    """The member holding `card_number`; a `ToolError` saying what to send when there is none."""
    row = env.one("SELECT * FROM members WHERE card_number = ?", [card_number.strip().upper()])
    if row is None:
        raise ToolError(
            f"no member has the library card {card_number!r}; give the card number (LC + 8 digits)."
        )
    return row
