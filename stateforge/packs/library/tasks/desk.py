"""Recipes at the desk: each finds a member in a situation, acts through the tools, and writes the request."""

from __future__ import annotations

from typing import Any

from stateforge.tasks import RecipeContext, recipe
from stateforge.tasks.picks import read_pages

from .common import OVERDUE, introduce, shelf_copy_at_home

MEMBER = "SELECT m.member_id, m.card_number, m.name FROM members AS m"


def overdue_member(ctx: RecipeContext) -> dict[str, Any]:
    """A member with at least one overdue book."""
    return ctx.pick(
        f"{MEMBER} WHERE EXISTS (SELECT 1 FROM loans AS l WHERE l.member_id = m.member_id AND {OVERDUE})",
        what="member with an overdue book",
    )


def return_all_overdue(ctx: RecipeContext, who: dict[str, Any]) -> list[str]:
    """List the member's overdue loans through the tool, page by page, and return every copy."""
    loans = read_pages(ctx, "list_loans", {"card_number": who["card_number"], "state": "overdue"},
                       step="List the member's overdue loans", per_page=20)
    barcodes = [row["barcode"] for row in loans]
    ctx.call("return_copies", {"card_number": who["card_number"], "barcodes": barcodes},
             step=f"Return the {len(barcodes)} overdue copies")
    return barcodes


@recipe(capabilities=("full_data_acquisition",), difficulty="easy")
def return_overdue_books(ctx: RecipeContext) -> None:
    """A member brings back every book that is past its due date (they do not know which ones): the overdue
    loans are listed, then returned in one call."""
    who = overdue_member(ctx)
    introduce(ctx, who)
    ctx.say([
        "I've got a bag of books here: please check in everything I have that's overdue.",
        "I'm returning whatever of mine is past its due date. Could you check those back in?",
    ])
    return_all_overdue(ctx, who)
    ctx.goal("no overdue loan is left", "SELECT count(*) AS overdue FROM loans AS l JOIN members AS m "
             f"USING (member_id) WHERE m.card_number = ? AND {OVERDUE}", [who["card_number"]])


@recipe(capabilities=("cross_step_dependency",), difficulty="medium")
def borrow_a_title(ctx: RecipeContext) -> None:
    """A member with nothing overdue borrows a book by its title, a copy from their home branch's shelf.
    Variant: a member with an overdue book asks the same (refused by overdue_blocks_borrowing)."""
    who = ctx.pick(
        f"{MEMBER} WHERE NOT EXISTS (SELECT 1 FROM loans AS l WHERE l.member_id = m.member_id AND {OVERDUE}) "
        "AND (SELECT count(*) FROM loans AS l WHERE l.member_id = m.member_id AND l.returned_at IS NULL) < 8",
        what="member free to borrow",
    )
    book = shelf_copy_at_home(ctx, who["member_id"])
    introduce(ctx, who)
    ctx.say([
        "I'd like to borrow \"{title}\" by {author}, a copy from the {branch} shelf.",
        "Can I take out \"{title}\" ({author})? I'll pick it up at {branch}.",
    ], title=book["title"], author=book["author"], branch=book["branch"])
    found = ctx.read("search_books", {"query": book["title"]}, step=f"Find \"{book['title']}\" for its ISBN")
    isbn = next(b["isbn"] for b in found["rows"] if b["title"] == book["title"])
    copies = ctx.read("list_copies", {"isbn": isbn}, step="List its copies")
    barcode = next(c["barcode"] for c in copies["copies"]
                   if c["branch"] == book["branch"] and c["status"] == "on_shelf")
    ctx.call("borrow_copy", {"card_number": who["card_number"], "barcode": barcode},
             step=f"Lend copy {barcode}")
    ctx.goal("the member has the book", "SELECT b.title FROM loans AS l JOIN members AS m USING (member_id) "
             "JOIN copies AS c USING (copy_id) JOIN books AS b USING (book_id) "
             "WHERE m.card_number = ? AND l.returned_at IS NULL AND b.isbn = ?", [who["card_number"], isbn])
    blocked = overdue_member(ctx)
    ctx.infeasible(
        "forbidden",
        because=f"{blocked['name']} has an overdue book: it must come back before they can borrow",
        swap={who["card_number"]: blocked["card_number"], who["name"]: blocked["name"]},
        policy="overdue_blocks_borrowing",
    )


@recipe(capabilities=("cross_step_dependency", "full_data_acquisition"), difficulty="hard")
def return_then_borrow(ctx: RecipeContext) -> None:
    """A member with overdue books wants a new one: the overdue books come back first (the policy detour),
    then the title is borrowed from their branch's shelf."""
    who = overdue_member(ctx)
    book = shelf_copy_at_home(ctx, who["member_id"])
    introduce(ctx, who)
    ctx.say([
        "I'm bringing back everything I have that's overdue, and then I'd like to take out \"{title}\" by "
        "{author} from {branch}.",
        "Please check in all my late books and lend me \"{title}\" ({author}), a copy at {branch}.",
    ], title=book["title"], author=book["author"], branch=book["branch"])
    returned = return_all_overdue(ctx, who)
    found = ctx.read("search_books", {"query": book["title"]}, step=f"Find \"{book['title']}\" for its ISBN")
    isbn = next(b["isbn"] for b in found["rows"] if b["title"] == book["title"])
    copies = ctx.read("list_copies", {"isbn": isbn}, step="List its copies")
    barcode = next(c["barcode"] for c in copies["copies"]
                   if c["branch"] == book["branch"] and c["status"] == "on_shelf")
    ctx.call("borrow_copy", {"card_number": who["card_number"], "barcode": barcode},
             step=f"Lend copy {barcode}")
    ctx.goal("the late books are back and the new one is out",
             "SELECT c.barcode, l.returned_at IS NULL AS still_out FROM loans AS l JOIN members AS m "
             "USING (member_id) JOIN copies AS c USING (copy_id) WHERE m.card_number = ? "
             "AND (list_contains(?, c.barcode) OR l.returned_at IS NULL) ORDER BY c.barcode",
             [who["card_number"], returned])
