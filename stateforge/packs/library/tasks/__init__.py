"""The library's recipes: bring back what is overdue, borrow a title at one's branch, and both at once
(the policy detour: overdue books block borrowing until they are back)."""

from __future__ import annotations

from .desk import borrow_a_title, return_overdue_books, return_then_borrow

RECIPES = [return_overdue_books, borrow_a_title, return_then_borrow]
