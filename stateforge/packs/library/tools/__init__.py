"""The library's self-service tools: what a member can do at the kiosk or in the app.

Three parts, one module each: the catalogue (finding books and their copies), the member's account and
loans, and the desk (borrowing and returning). Every tool acts for the signed-in member (`env.actor`,
domain.yaml `actors:`), never for a card number it is given, and refuses what the product's policies
forbid, naming the policy. The procedure `one_copy_per_title` is the assistant's to follow: no tool
refuses it.
"""

from __future__ import annotations

from .account import get_member, list_loans
from .catalog import list_copies, search_books
from .desk import borrow_copy, return_copies

TOOLS = [search_books, list_copies, get_member, list_loans, borrow_copy, return_copies]
