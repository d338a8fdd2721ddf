"""Domain packs: what `domain.yaml` says that the DDL cannot, and finding and loading a pack.

    pack = load_domain("music")          # a pack name, a pack folder, or a bare .sql file
    pack.schema, pack.config             # the parsed DDL and the validated `DomainConfig`

`config`: the pydantic models of `domain.yaml` (docs/domain-packs.md is the contract); `loader`: finding
packs (shipped in the `stateforge.packs` package, or a folder or DDL file of yours) and reading them, with
errors
that name the file, line and key. Sits above `schema` and `graph` and below everything that reads a
config (store, validation, fill, llm, tools), so that any of them can import it.
"""

from __future__ import annotations

from stateforge.domain.config import (
    Actors,
    ColumnHint,
    DomainConfig,
    DomainPolicy,
    PerParent,
    Rule,
    TableConfig,
    TimeWindow,
    parse_duration,
)
from stateforge.domain.loader import DomainPack, list_domains, load_config, load_domain

__all__ = [
    "Actors",
    "ColumnHint",
    "DomainConfig",
    "DomainPack",
    "DomainPolicy",
    "PerParent",
    "Rule",
    "TableConfig",
    "TimeWindow",
    "list_domains",
    "load_config",
    "load_domain",
    "parse_duration",
]
