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
    loans = read_pages(ctx, "list_loans", {"state": "overdue"}, step="List the member's overdue loans",
                       per_page=20)
    barcodes = [row["barcode"] for row in loans]
    ctx.call("return_copies", {"barcodes": barcodes}, step=f"Return the {len(barcodes)} overdue copies")
    return barcodes


def shelf_barcode(ctx: RecipeContext, title: str, branch: str) -> tuple[str, str]:
    """Find a title through the tools (its ISBN, then its copies): (isbn, a copy on the branch's shelf)."""
    found = ctx.read("search_books", {"query": title}, step=f"Find \"{title}\" for its ISBN")
    isbn = next(b["isbn"] for b in found["rows"] if b["title"] == title)
    copies = ctx.read("list_copies", {"isbn": isbn}, step="List its copies")
    barcode = next(c["barcode"] for c in copies["copies"]
                   if c["branch"] == branch and c["status"] == "on_shelf")
    return isbn, barcode


def member_holding_a_shelved_title(ctx: RecipeContext) -> tuple[dict[str, Any], dict[str, Any]]:
    """A member free to borrow who has out a book (its title names one book) that also has a copy on their
    home branch's shelf, and that book (isbn, title, author, branch)."""
    held = ctx.pick(
        f"{MEMBER}, loans AS l, copies AS c, books AS b, copies AS s WHERE l.member_id = m.member_id "
        "AND l.returned_at IS NULL AND c.copy_id = l.copy_id AND b.book_id = c.book_id "
        "AND s.book_id = b.book_id AND s.status = 'on_shelf' AND s.branch_id = m.home_branch_id "
        "AND NOT EXISTS (SELECT 1 FROM loans AS o WHERE o.member_id = m.member_id "
        f"AND {OVERDUE.replace('l.', 'o.')}) "
        "AND (SELECT count(*) FROM loans AS o WHERE o.member_id = m.member_id AND o.returned_at IS NULL) < 8 "
        "AND (SELECT count(*) FROM books AS t WHERE t.title = b.title) = 1",
        what="member with a book out that is also on their branch's shelf",
    )
    book = ctx.one(
        "SELECT b.isbn, b.title, b.author, br.name AS branch FROM loans AS l "
        "JOIN copies AS c USING (copy_id) JOIN books AS b USING (book_id) "
        "JOIN members AS m USING (member_id) JOIN copies AS s ON s.book_id = b.book_id "
        "AND s.status = 'on_shelf' AND s.branch_id = m.home_branch_id "
        "JOIN branches AS br ON br.branch_id = m.home_branch_id "
        "WHERE l.member_id = ? AND l.returned_at IS NULL "
        "AND (SELECT count(*) FROM books AS t WHERE t.title = b.title) = 1 ORDER BY b.isbn LIMIT 1",
        [held["member_id"]],
    )
    if book is None:
        ctx.skip("no such book", "the member's held title has no shelf copy at their branch")
    return held, book


def open_loans_show(ctx: RecipeContext, isbn: str) -> None:
    """List the member's open loans through the tool, page by page (the solver must see the held title)."""
    loans = read_pages(ctx, "list_loans", {"state": "open"}, step="List the member's open loans", per_page=20)
    if not any(row["isbn"] == isbn for row in loans):
        ctx.skip("held title not listed", "list_loans does not show the title the member has out")


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
    isbn, barcode = shelf_barcode(ctx, book["title"], book["branch"])
    ctx.call("borrow_copy", {"barcode": barcode}, step=f"Lend copy {barcode}")
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
    isbn, barcode = shelf_barcode(ctx, book["title"], book["branch"])
    ctx.call("borrow_copy", {"barcode": barcode}, step=f"Lend copy {barcode}")
    ctx.goal("the late books are back and the new one is out",
             "SELECT c.barcode, l.returned_at IS NULL AS still_out FROM loans AS l JOIN members AS m "
             "USING (member_id) JOIN copies AS c USING (copy_id) WHERE m.card_number = ? "
             "AND (list_contains(?, c.barcode) OR l.returned_at IS NULL) ORDER BY c.barcode",
             [who["card_number"], returned])


@recipe(capabilities=("cross_step_dependency", "full_data_acquisition"), difficulty="medium")
def borrow_titles_one_copy_each(ctx: RecipeContext) -> None:
    """A member asks for two titles, one of which they already have out (the procedure `one_copy_per_title`:
    the assistant lends the other one only). The tools would lend both; the policy verifier checks the
    end state, so a solver that skips the member's open loans breaks the procedure."""
    held, held_book = member_holding_a_shelved_title(ctx)
    new = shelf_copy_at_home(ctx, held["member_id"])
    out = {r["isbn"] for r in ctx.sql(
        "SELECT b.isbn FROM loans AS l JOIN copies AS c USING (copy_id) JOIN books AS b USING (book_id) "
        "WHERE l.member_id = ? AND l.returned_at IS NULL", [held["member_id"]])}
    if new["isbn"] in out:
        ctx.skip("no second title", "the shelf book is one the member already has out")
    introduce(ctx, held)
    ctx.say([
        "Could you lend me \"{first}\" by {first_author} and \"{second}\" by {second_author}? I'll pick them "
        "up at {branch}.",
        "I'd like to take out \"{first}\" ({first_author}) and \"{second}\" ({second_author}) from {branch}.",
    ], first=new["title"], first_author=new["author"], second=held_book["title"],
       second_author=held_book["author"], branch=new["branch"])
    open_loans_show(ctx, held_book["isbn"])
    isbn, barcode = shelf_barcode(ctx, new["title"], new["branch"])
    ctx.call("borrow_copy", {"barcode": barcode},
             step=f"Lend copy {barcode} only: \"{held_book['title']}\" is already out to them")
    ctx.goal("the new title is out and the held one still once",
             "SELECT b.isbn, count(*) AS copies_out FROM loans AS l JOIN members AS m USING (member_id) "
             "JOIN copies AS c USING (copy_id) JOIN books AS b USING (book_id) WHERE m.card_number = ? "
             "AND l.returned_at IS NULL AND list_contains(?, b.isbn) GROUP BY b.isbn ORDER BY b.isbn",
             [held["card_number"], [isbn, held_book["isbn"]]])


@recipe(capabilities=("cross_step_dependency", "full_data_acquisition"), difficulty="medium")
def borrow_a_title_already_out(ctx: RecipeContext) -> None:
    """A member asks for a title they already have out, without saying so: the kiosk would lend a second
    copy, the procedure `one_copy_per_title` says no (they can ask at the desk). Found only by working: the
    member's open loans show the title. The reference lists them, finds the book, and declines; the gate
    proves it by lending the copy on its own episode and finding the procedure broken."""
    held, book = member_holding_a_shelved_title(ctx)
    introduce(ctx, held)
    ctx.say([
        "Could you lend me \"{title}\" by {author}? I'd pick up a copy at {branch}.",
        "I'd like to take out \"{title}\" ({author}) from the {branch} shelf, please.",
    ], title=book["title"], author=book["author"], branch=book["branch"])
    open_loans_show(ctx, book["isbn"])
    _, barcode = shelf_barcode(ctx, book["title"], book["branch"])
    ctx.provenance["knobs"] = {"found_by_working": "the member already has the title out (list_loans)"}
    ctx.blocked("borrow_copy", {"barcode": barcode}, kind="forbidden", policy="one_copy_per_title",
                because=f"{held['name']} already has \"{book['title']}\" out: one copy of a title at a time "
                        "(they can ask the staff at the desk)")
