"""Serve one `build-domain` deployment per domain pack from this process.

`make serve` starts a local Prefect server and runs this; then
`prefect deployment run build-domain/music --watch` builds the music pack.
"""

from __future__ import annotations

from prefect import serve

from flows.build_domain import build_domain
from pipeline.domain import list_domains


def deployments(packs: list[str] | None = None) -> list:
    """A `build-domain/<pack>` deployment for each pack (all packs under schemas/ by default)."""
    return [
        build_domain.to_deployment(
            name=pack,
            parameters={"domain": pack},
            description=f"Build the {pack} domain pack offline into artifacts/{pack}/.",
            tags=["stateforge", pack],
        )
        for pack in (packs or list_domains())
    ]


def serve_deployments(packs: list[str] | None = None, *, limit: int | None = 1) -> None:
    """Block, serving the deployments (one build at a time by default: builds are CPU-bound)."""
    serve(*deployments(packs), limit=limit)
