"""The library's recipes: bring back what is overdue, borrow a title at one's branch, both at once (the
policy detour: overdue books block borrowing until they are back), and two titles of which the member
already has one out (the procedure `one_copy_per_title`, which no tool enforces), and one title they already
have out, declined by that procedure."""

from __future__ import annotations

from .desk import (
    borrow_a_title,
    borrow_a_title_already_out,
    borrow_titles_one_copy_each,
    return_overdue_books,
    return_then_borrow,
)

RECIPES = [return_overdue_books, borrow_a_title, return_then_borrow, borrow_titles_one_copy_each,
           borrow_a_title_already_out]
