"""What the generator needs of a domain config beyond its references to the schema.

    check_config(pack.config, pack.schema)      # before a fill: DomainError naming file and key path

`DomainConfig.validate_against` (in `stateforge.domain`, below this package) checks that every table,
column and foreign key a config names exists. The rest depends on the generator: that each `strategy`
is one of `STRATEGIES`, and that hints on foreign-key columns only ask what the key's draw can honour
(`key_kinds.check_key_hints`).
"""

from __future__ import annotations

from stateforge.domain.config import DomainConfig
from stateforge.fill.key_kinds import check_key_hints
from stateforge.fill.strategies import STRATEGIES
from stateforge.graph.plan import FillPlan
from stateforge.schema.model import Schema, suggest


def check_config(config: DomainConfig, schema: Schema, plan: FillPlan | None = None) -> None:
    """Raise `DomainError` for anything in `config` this schema and the generator cannot honour."""
    config.validate_against(schema)
    for key, hint in config.columns.items():
        if hint.strategy is not None and hint.strategy not in STRATEGIES:
            config.fail(
                f"columns.{key}.strategy",
                f'no strategy "{hint.strategy}".{suggest(hint.strategy, list(STRATEGIES))}',
            )
    check_key_hints(config, schema, plan)
