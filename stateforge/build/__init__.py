"""Building a domain into one audited DuckDB file.

    report = build_domain("music", scale=0.1, out="artifacts/music")

`run`: the stages in order (`STAGES`) and the one driver (`run_build`) that the CLI, the `build-domain`
flow and the tests all use; `stages`: the work of each stage (prepare, open the partial file, fill a
table, second pass and rules, audit, publish); `report`: the build report, as JSON and markdown.
"""

from __future__ import annotations

from stateforge.build.report import build_report, report_markdown
from stateforge.build.run import STAGES, BuildRun, Runner, Stage, build_domain, direct, run_build
from stateforge.build.stages import Build, frozen_now, prepare

__all__ = [
    "STAGES",
    "Build",
    "BuildRun",
    "Runner",
    "Stage",
    "build_domain",
    "build_report",
    "direct",
    "frozen_now",
    "prepare",
    "report_markdown",
    "run_build",
]
