"""What the library's recipes share: the member who speaks, and the queries that find situations."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from stateforge.tasks import RecipeContext
from stateforge.tasks.picks import introduce as introduce_speaker

CARD_PHRASES = (
    "I'm {name}, library card {handle}.",
    "Hi, this is {name} (card {handle}).",
    "Hello, {name} here, my card number is {handle}.",
)
NOW = "TIMESTAMP '2026-06-30 23:59:59'"
OVERDUE = f"l.returned_at IS NULL AND l.due_on < CAST({NOW} AS DATE)"


def introduce(ctx: RecipeContext, member: Mapping[str, Any]) -> None:
    """Open the instruction as `member` speaking, and record that their card names exactly one member."""
    introduce_speaker(ctx, "member", "members", {"card_number": member["card_number"]}, member["name"],
                      member["card_number"], variants=CARD_PHRASES)


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
