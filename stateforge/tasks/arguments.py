"""`given`: the optional arguments of a tool call that a recipe has, without an `if` for each.

    ctx.call("delete_mail", {"player": nick, "sent_before": day, **given(category=category, hero=hero)})

Only the values that are not None are passed, in the order written, so a call reads as the request says
("of one kind" when there is a kind) and the tool's own default holds otherwise.
"""

from __future__ import annotations

from typing import Any


def given(**values: Any) -> dict[str, Any]:
    """`values` without the ones that are None (False, 0 and "" are given: they say something)."""
    return {name: value for name, value in values.items() if value is not None}
