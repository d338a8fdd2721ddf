"""Serve the deployments of every domain pack from this process: `build-domain/<pack>`,
`generate-tasks/<pack>`, `evaluate/<pack>` and `release/<pack>`.

`make serve` starts a local Prefect server and runs this; then
`prefect deployment run build-domain/music --watch` builds the music pack,
`prefect deployment run generate-tasks/music --watch` makes its tasks and
`prefect deployment run evaluate/music -p solver=oracle -p k=3 --watch` evaluates a solver on them and
`prefect deployment run release/music -p version=1.0.0 -p baseline=oracle,noop --watch` makes a release.
"""

from __future__ import annotations

from prefect import serve

from flows.build_domain import build_domain
from flows.evaluate import evaluate
from flows.generate_tasks import generate_tasks
from flows.release import release
from pipeline.domain import list_domains


def deployments(packs: list[str] | None = None) -> list:
    """The `build-domain/<pack>`, `generate-tasks/<pack>`, `evaluate/<pack>` and `release/<pack>`
    deployments of each pack (all packs by default)."""
    out = []
    for pack in packs or list_domains():
        out.append(
            build_domain.to_deployment(
                name=pack,
                parameters={"domain": pack},
                description=f"Build the {pack} domain pack offline into artifacts/{pack}/.",
                tags=["stateforge", pack],
            )
        )
        out.append(
            generate_tasks.to_deployment(
                name=pack,
                parameters={"domain": pack},
                description=f"Generate the {pack} tasks on artifacts/{pack}/{pack}.duckdb (build it first).",
                tags=["stateforge", pack],
            )
        )
        out.append(
            evaluate.to_deployment(
                name=pack,
                parameters={"domain": pack},
                description=f"Evaluate a solver (-p solver=NAME) on the {pack} tasks; the run goes to "
                f"artifacts/{pack}/runs/.",
                tags=["stateforge", pack],
            )
        )
        out.append(
            release.to_deployment(
                name=pack,
                parameters={"domain": pack},
                description=f"Release the {pack} pack (-p version=V, -p baseline=oracle,noop): build, tasks, "
                f"baselines and a reproducible bundle in artifacts/releases/{pack}-<V>/.",
                tags=["stateforge", pack],
            )
        )
    return out


def serve_deployments(packs: list[str] | None = None, *, limit: int | None = 1) -> None:
    """Block, serving the deployments (one run at a time by default: builds, generation and evaluation are
    CPU-bound)."""
    serve(*deployments(packs), limit=limit)
