"""The catalogue: search books by title or author, and see where their copies are."""

from __future__ import annotations

from stateforge.tools import Env, ToolError, tool

from .common import Limit, Offset


@tool(reads=("books", "copies"))
def search_books(env: Env, query: str, limit: Limit = 10, offset: Offset = 0) -> dict:
    """Find books whose title or author contains the words of `query`, best known first, a page at a time.

    Args:
        query: Words of the title or the author's name.
        limit: Books per page.
        offset: Books to skip.
    """
    words = [w for w in query.lower().split() if w]
    if not words:
        raise ToolError("query is blank: give words of the title or the author's name.")
    where = " AND ".join("lower(b.title || ' ' || b.author) LIKE ?" for _ in words)
    sql = (
        "SELECT b.isbn, b.title, b.author, b.published, "
        "count(c.copy_id) FILTER (WHERE c.status = 'on_shelf') AS copies_on_shelf "
        f"FROM books AS b LEFT JOIN copies AS c USING (book_id) WHERE {where} "
        "GROUP BY b.isbn, b.title, b.author, b.published"
    )
    return env.page(sql, [f"%{w}%" for w in words], order_by="title, isbn", limit=limit, offset=offset)


@tool(reads=("books", "copies", "branches"))
def list_copies(env: Env, isbn: str) -> dict:
    """The copies of a book: barcode, branch and whether each is on the shelf, on loan or lost.

    Args:
        isbn: The book's ISBN (13 digits, from search_books).
    """
    book = env.one("SELECT book_id, title FROM books WHERE isbn = ?", [isbn.strip()])
    if book is None:
        raise ToolError(f"no book has ISBN {isbn!r}; find it with search_books first.")
    copies = env.query(
        "SELECT c.barcode, br.name AS branch, c.status FROM copies AS c "
        "JOIN branches AS br USING (branch_id) WHERE c.book_id = ? ORDER BY br.name, c.barcode",
        [book["book_id"]],
    )
    return {"isbn": isbn.strip(), "title": book["title"], "copies": copies}
