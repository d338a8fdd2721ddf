"""How every flow runs a pipeline's stages: each run of a stage as one Prefect task.

`as_task` is the `stateforge.stages.Runner` the four flows pass to their pipeline's driver; the task is named
after the stage (`fill-table`) and its run after the step's label (`fill-users`).
"""

from __future__ import annotations

from collections.abc import Callable

from prefect import task
from prefect.cache_policies import NO_CACHE

from stateforge.stages import Stage


# Results stay in memory: a flow's products are its files and reports, not Prefect results.
@task(cache_policy=NO_CACHE, persist_result=False)
def _stage(work: Callable[[], None]) -> None:
    work()


def as_task(stage: Stage, label: str, work: Callable[[], None]) -> None:
    """Run one step of a pipeline as a Prefect task: the stage's name, the step's label as the run's."""
    _stage.with_options(name=stage.name, task_run_name=lambda: label)(work)
