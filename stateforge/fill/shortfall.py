"""Why a table holds fewer rows than planned, in one sentence for the build's summary and report.

    reason = shortfall_reason(table, plan, config, keys, wanted=90, written=70, repairs={"drop_invalid": 20})

Two causes, read from what the fill did: the keys allow fewer rows than asked (`TableKeys.rows`: a
`per_parent` fan-out, a one-to-one key that needs a parent per row, unique pairs of a link table), or
rows were still invalid after every round of repairs and were dropped. The build adds a third: rows the
domain's rules (and their foreign-key cascades) deleted after the fill (`stateforge.build.report`).
"""

from __future__ import annotations

import math

from stateforge.domain.config import DomainConfig
from stateforge.fill.key_kinds import is_unique_fk, link_key
from stateforge.fill.keys import TableKeys
from stateforge.graph.plan import FillPlan
from stateforge.schema.model import Table


def shortfall_reason(table: Table, plan: FillPlan, config: DomainConfig, keys: TableKeys, *, wanted: int,
                     written: int, repairs: dict[str, int]) -> str:
    """The causes of `wanted - written` missing generated rows of `table`, joined with '; '."""
    reasons = []
    if keys.rows < wanted:
        reasons.append(f"its keys allow {keys.rows:,} of the {wanted:,} generated rows: "
                       f"{_capacity(table, plan, config, keys)}")
    dropped = keys.rows - written
    if dropped > 0:
        fixes = ", ".join(f"{k} {v}" for k, v in sorted(repairs.items()) if v and k != "drop_invalid")
        reasons.append(f"{dropped:,} rows were still invalid after every round of repairs and were dropped"
                       + (f" (repairs made: {fixes})" if fixes else ""))
    return "; ".join(reasons) or "fewer rows were written than planned"


def _capacity(table: Table, plan: FillPlan, config: DomainConfig, keys: TableKeys) -> str:
    pairs_drawn = zip(keys.fks, keys.parents, strict=False)
    sizes = {fk.ref_table.lower(): parent.num_rows for fk, parent in pairs_drawn}
    cfg = config.table_config(table.name)
    if cfg is not None and cfg.per_parent is not None:
        return (f"tables.{table.name}.per_parent in domain.yaml sets the rows per parent; raise its bounds "
                "or the parents' rows")
    for fk in keys.fks:
        if is_unique_fk(table, fk) and fk.ref_table.lower() != table.name.lower():
            parents = sizes.get(fk.ref_table.lower(), 0)
            return (f"each row needs its own {fk.ref_table} ({', '.join(fk.columns)} is UNIQUE) and "
                    f"{fk.ref_table} has {parents:,} rows; give {fk.ref_table} more rows")
    link = link_key(table, plan)
    if link is not None:
        parents = [fk for fk in keys.fks if {c.lower() for c in fk.columns} <= {c.lower() for c in link}]
        pairs = math.prod(sizes.get(fk.ref_table.lower(), 0) for fk in parents)
        names = " x ".join(f"{fk.ref_table} ({sizes.get(fk.ref_table.lower(), 0):,})" for fk in parents)
        return (f"({', '.join(link)}) is unique, so at most {names} = {pairs:,} distinct combinations fit "
                "(fewer where the pairs must also be in order); give the parents more rows")
    return "the parents' keys leave no more distinct rows; give the parents more rows"
