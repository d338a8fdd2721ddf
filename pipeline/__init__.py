"""Stateforge: stateful benchmark environments for tool-using agents, built from SQL DDL.

The library, one subpackage per stage: `schema` (DDL to model), `graph` (fill order), `store` (DuckDB),
`fill` (offline and LLM generation), and the CLI in `cli`.
"""

from __future__ import annotations

from pathlib import Path

__version__ = "0.1.0"

ROOT = Path(__file__).resolve().parent.parent
"""The project's root: `schemas/`, `prompts/` and `artifacts/` live here."""
