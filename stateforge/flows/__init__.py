"""Prefect flows: thin orchestration over the library (`stateforge`). Read them top to bottom to see the
whole pipeline."""

from __future__ import annotations
