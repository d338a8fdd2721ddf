"""The generic recipe set: tasks for any built DDL, through the generic toolkit (docs/tasks.md).

`edits` change one row found by its name; `bulk` change every row a filter or a parent picks out;
`relations` work across a foreign key (a child under a named parent, the parent with the most children,
a count of children); `moves` move one named child to another parent and delete a parent whose children
follow ON DELETE CASCADE / SET NULL. `facts` and `filters` are what they share.
"""

from __future__ import annotations

from stateforge.tasks.generic.bulk import (
    bulk_delete_filter,
    bulk_update_filter,
    delete_children,
    reassign_children,
    shift_numbers,
)
from stateforge.tasks.generic.edits import (
    clear_value,
    copy_value,
    delete_named,
    rename_row,
    set_choice,
    set_number,
)
from stateforge.tasks.generic.moves import delete_with_dependents, move_child
from stateforge.tasks.generic.relations import (
    busy_parents_update,
    count_into_parent,
    create_child,
    top_parent_update,
)

GENERIC_RECIPES = (
    rename_row,
    set_choice,
    set_number,
    clear_value,
    copy_value,
    delete_named,
    bulk_update_filter,
    bulk_delete_filter,
    delete_children,
    reassign_children,
    shift_numbers,
    create_child,
    top_parent_update,
    busy_parents_update,
    count_into_parent,
    move_child,
    delete_with_dependents,
)
"""Every generic recipe, in a fixed order (the scheduler shuffles it with the run's seed)."""

__all__ = ["GENERIC_RECIPES"]
