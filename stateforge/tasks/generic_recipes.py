"""The generic recipe set (see `stateforge.tasks.generic`): `GENERIC_RECIPES` works on any built DDL."""

from __future__ import annotations

from stateforge.tasks.generic import GENERIC_RECIPES

__all__ = ["GENERIC_RECIPES"]
