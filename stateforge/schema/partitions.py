"""Partitioned tables: every partition is folded into its parent, one logical table.

PostgreSQL writes a partition as `CREATE TABLE p PARTITION OF parent FOR VALUES ...` or (pg_dump) as a
table of its own that `ALTER TABLE parent ATTACH PARTITION p FOR VALUES ...` attaches. Filling the
partitions as separate tables would put rows outside their bounds and repeat the parent's keys across
them, so the parent is the one table: its rows may fall in any partition, and its keys hold across all.
The partitions' names are kept (`Table.partitions`) and noted; later statements on a partition
(its own copies of the parent's keys and indexes) are skipped. A `PARTITION BY` clause (PostgreSQL,
MySQL, Oracle) only says how rows are stored: it is read and noted.
"""

from __future__ import annotations

import re

from stateforge.schema.context import Context
from stateforge.schema.model import Table
from stateforge.schema.namespaces import ref_of_text
from stateforge.schema.split import Statement

_NAME = r"(?:\"[^\"]+\"|`[^`]+`|\[[^\]]+\]|[\w$#]+)(?:\s*\.\s*(?:\"[^\"]+\"|`[^`]+`|\[[^\]]+\]|[\w$#]+))*"
_PARTITION_OF = re.compile(
    rf"CREATE\s+(?:(?:UNLOGGED|TEMP|TEMPORARY|GLOBAL|LOCAL)\s+)*TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?"
    rf"(?P<name>{_NAME})\s+PARTITION\s+OF\s+(?P<parent>{_NAME})",
    re.IGNORECASE,
)
_ATTACH = re.compile(
    rf"ALTER\s+TABLE\s+(?:IF\s+EXISTS\s+)?(?:ONLY\s+)?(?P<parent>{_NAME})\s+(?P<verb>ATTACH|DETACH)\s+PARTITION\s+"
    rf"(?P<name>{_NAME})",
    re.IGNORECASE,
)


def is_partition_of(text: str) -> bool:
    """Whether `text` is a `CREATE TABLE ... PARTITION OF ...`."""
    return _PARTITION_OF.match(text) is not None


def is_attach(text: str) -> bool:
    """Whether `text` is an `ALTER TABLE ... ATTACH / DETACH PARTITION ...`."""
    return _ATTACH.match(text) is not None


def root(ctx: Context, name: str) -> Table | None:
    """The table the identity `name` stands for: itself, or the parent it was folded into (through
    sub-partitions)."""
    key = name.lower()
    return ctx.tables.get(key) or ctx.partitions.get(key)


def partition_of(ctx: Context, stmt: Statement) -> str:
    """CREATE TABLE p PARTITION OF parent ...: p is folded into parent (which must be defined above)."""
    match = _PARTITION_OF.match(stmt.text)
    assert match is not None
    name = ctx.relation_name(ref_of_text(match["name"]))
    parent_name = ctx.resolve(ref_of_text(match["parent"]))
    parent = root(ctx, parent_name) or ctx.find_table(parent_name, "PARTITION OF")
    _fold(ctx, parent, name)
    if stmt.text[match.end() :].lstrip().startswith("("):
        ctx.note(
            f"the constraints of partition {name} hold for its own rows only; not kept on {parent.name}",
            table=parent.name,
        )
    return "partition"


def attach(ctx: Context, stmt: Statement) -> str:
    """ALTER TABLE parent ATTACH PARTITION p: the table p (defined above) is folded into parent."""
    match = _ATTACH.match(stmt.text)
    assert match is not None
    if match["verb"].upper() == "DETACH":
        return "partition"
    name = ctx.resolve(ref_of_text(match["name"]))
    parent_name = ctx.resolve(ref_of_text(match["parent"]))
    parent = root(ctx, parent_name) or ctx.find_table(parent_name, "ATTACH PARTITION")
    table = ctx.tables.get(name.lower())
    if table is not None and table is not parent:
        ctx.tables.pop(name.lower())
        ctx.schema.tables.remove(table)
        ctx.open_keys = [key for key in ctx.open_keys if key.table is not table]
        for sub in table.partitions:  # its own partitions now belong to the parent
            ctx.partitions[sub.lower()] = parent
            parent.partitions.append(sub)
    _fold(ctx, parent, name)
    return "partition"


def _fold(ctx: Context, parent: Table, name: str) -> None:
    if name.lower() not in ctx.partitions:
        ctx.partitions[name.lower()] = parent
        parent.partitions.append(name)


def note_partitions(ctx: Context) -> None:
    """One note per partitioned table, naming the partitions folded into it."""
    for table in ctx.schema.tables:
        if table.partitions:
            names = ", ".join(table.partitions)
            ctx.note(
                f"partitions folded into this table: {names} (one table: keys hold across partitions, rows "
                "may fall in any of them)",
                table=table.name,
                line=table.line,
                file=table.file,
            )
