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

from stateforge.domain import list_domains
from stateforge.flows.build_domain import build_domain
from stateforge.flows.evaluate import evaluate
from stateforge.flows.generate_tasks import generate_tasks
from stateforge.flows.release import release

# Each flow served per pack, with what its deployment does ({pack} is the pack's name).
_FLOWS = (
    (build_domain, "Build the {pack} domain pack offline into artifacts/{pack}/."),
    (generate_tasks, "Generate the {pack} tasks on artifacts/{pack}/{pack}.duckdb (build it first)."),
    (
        evaluate,
        "Evaluate a solver (-p solver=NAME) on the {pack} tasks; the run goes to artifacts/{pack}/runs/.",
    ),
    (
        release,
        "Release the {pack} pack (-p version=V, -p baseline=oracle,noop): build, tasks, baselines and a "
        "reproducible bundle in artifacts/releases/{pack}-<V>/.",
    ),
)


def deployments(packs: list[str] | None = None) -> list:
    """The `build-domain/<pack>`, `generate-tasks/<pack>`, `evaluate/<pack>` and `release/<pack>`
    deployments of each pack (all packs by default)."""
    return [
        flow.to_deployment(
            name=pack,
            parameters={"domain": pack},
            description=description.format(pack=pack),
            tags=["stateforge", pack],
        )
        for pack in packs or list_domains()
        for flow, description in _FLOWS
    ]


def serve_deployments(packs: list[str] | None = None, *, limit: int | None = 1) -> None:
    """Block, serving the deployments (one run at a time by default: builds, generation and evaluation are
    CPU-bound)."""
    serve(*deployments(packs), limit=limit)
