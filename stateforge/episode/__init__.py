"""Episodes: isolated, writable copies of a built database on which a solver calls tools.

    from stateforge.episode import Episode

    with Episode.open("artifacts/music/music.duckdb") as ep:
        result = ep.call("search_users", {"filters": [{"column": "country_code", "value": "DE"}]})

See `episode.py` for the call protocol (one transaction per call, declared tables, domain rules, the log)
and `storage.py` for how the copy is opened (external access off, configuration locked).
"""

from __future__ import annotations

from stateforge.episode.domain_info import DomainInfo, read_domain_info
from stateforge.episode.episode import Episode, default_workdir
from stateforge.episode.results import ToolResult
from stateforge.episode.rules import RuleCheck, compile_rules

__all__ = [
    "DomainInfo",
    "Episode",
    "RuleCheck",
    "ToolResult",
    "compile_rules",
    "default_workdir",
    "read_domain_info",
]
