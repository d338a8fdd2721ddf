"""What the library's recipes share: the member who speaks (the episode's actor), and the queries that
find situations."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from stateforge.tasks import RecipeContext

NAME_PHRASES = (
    "I'm {name}.",
    "Hi, this is {name}.",
    "Hello, {name} here.",
)
NOW = "TIMESTAMP '2026-06-30 23:59:59'"
OVERDUE = f"l.returned_at IS NULL AND l.due_on < CAST({NOW} AS DATE)"


def introduce(ctx: RecipeContext, member: Mapping[str, Any]) -> None:
    """Act as `member` (signed in by their card: every tool acts for them) and open the instruction with
    them speaking."""
    ctx.act_as("members", {"card_number": member["card_number"]}, roles=("member",))
    ctx.speaker(member["name"], variants=NAME_PHRASES)


def shelf_copy_at_home(ctx: RecipeContext, member_id: int) -> dict[str, Any]:
    """A book with a copy on the shelf at the member's home branch, whose title names one book."""
    return ctx.pick(
        "SELECT b.isbn, b.title, b.author, min(c.barcode) AS barcode, br.name AS branch "
        "FROM books AS b JOIN copies AS c USING (book_id) JOIN branches AS br ON br.branch_id = c.branch_id "
        "JOIN members AS m ON m.home_branch_id = c.branch_id "
        "WHERE m.member_id = ? AND c.status = 'on_shelf' "
        "AND (SELECT count(*) FROM books AS o WHERE o.title = b.title) = 1 "
        "GROUP BY b.isbn, b.title, b.author, br.name",
        [member_id],
        what="book on the shelf at the member's branch",
    )
