"""The `release` flow: the stages of `stateforge.release.STAGES`, each one a Prefect task.

    build -> generate-tasks -> baseline-<solver> (each one asked) -> bundle -> document -> publish

The stages, their order and their work live in `stateforge.release.make`; this flow only says how to run one
(as a task named after it), so the CLI and the flow write byte-identical bundles. The release's summary is
also a markdown artifact.
"""

from __future__ import annotations

from typing import Any

from prefect import flow, get_run_logger
from prefect.artifacts import create_markdown_artifact

from stateforge.flows.stage_task import as_task
from stateforge.llm.settings import llm_settings
from stateforge.release import ReleaseRun, baseline_names, run_release
from stateforge.release.card import release_markdown
from stateforge.tasks.llm.options import generator_backend


@flow(name="release", log_prints=True)
def release(
    version: str,
    domain: str = "music",
    out: str | None = None,
    baseline: str | None = None,
    scale: float = 1.0,
    rows: int | None = None,
    n: int = 150,
    seed: int | None = None,
    task_seed: int = 0,
    force: bool = False,
    backend: str | None = None,
    model: str | None = None,
    base_url: str | None = None,
) -> dict[str, Any]:
    """Make a benchmark release of a domain pack: build, tasks, the baselines asked (`baseline="oracle,noop"`)
    and a byte-reproducible bundle in artifacts/releases/<domain>-<version>/ (or `out`). Returns the
    manifest."""
    chosen, options = generator_backend(backend, model=model, base_url=base_url)
    run = ReleaseRun(
        domain, version, out=out, force=force, scale=scale, rows=rows, seed=seed, n=n, task_seed=task_seed,
        baselines=baseline_names(baseline), llm=llm_settings(backend=backend, model=model, base_url=base_url),
        task_backend=chosen, generator_options=options,
    )
    manifest = run_release(run, runner=as_task)
    create_markdown_artifact(
        release_markdown(manifest),
        key=f"release-{manifest.domain}".lower().replace("_", "-"),
        description=f"Release {manifest.domain} {manifest.version}",
    )
    get_run_logger().info(
        "released %s %s -> %s (%s files, release id %s)", manifest.domain, manifest.version, run.path,
        len(manifest.files), manifest.release_id[:16],
    )
    return manifest.model_dump(mode="json")
