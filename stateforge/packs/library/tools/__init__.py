"""The library's self-service tools: what a member can do at the kiosk or in the app.

Three parts, one module each: the catalogue (finding books and their copies), the member's account and
loans, and the desk (borrowing and returning). Every write acts for the member named by card number and
refuses what the pack's policies forbid, naming the policy.
"""

from __future__ import annotations

from .account import get_member, list_loans
from .catalog import list_copies, search_books
from .desk import borrow_copy, return_copies

TOOLS = [search_books, list_copies, get_member, list_loans, borrow_copy, return_copies]
