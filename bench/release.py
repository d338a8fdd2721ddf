"""Release time: every stage of `stateforge release` timed, against the build measured in the same run.

    .venv/bin/python bench/release.py                       # music at scale 1, 150 tasks, oracle + noop
    .venv/bin/python bench/release.py --scale 0.1 --repeat 3 --no-write

Each stage is timed by the runner the CLI and the flow use (wall and CPU seconds of the process); then
`verify-release` on the bundle. The baseline is the build of the same run: the table gives each stage's
median and its ratio to the build's, so the cost of releasing (bundle, card, manifest, verification) reads
as a multiple of building. The machine is shared: CPU seconds are the steadier figure.
"""

from __future__ import annotations

import resource
import shutil
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._doc import bench_parser, publish  # noqa: E402
from stateforge.release import ReleaseRun, Stage, baseline_names, run_release  # noqa: E402
from stateforge.release.verify import verify_release  # noqa: E402


def cpu() -> float:
    """CPU seconds of this process so far (every thread)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def once(domain: str, scale: float, n: int, baselines: list[str]) -> tuple[dict[str, list[float]], int, int]:
    """One release and its verification: ({stage: [wall, cpu]} (baselines summed as `baseline`), the rows
    and the bundle's bytes)."""
    times: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])

    def timed(stage: Stage, label: str, work: Callable[[], None]) -> None:
        wall, used = time.perf_counter(), cpu()
        work()
        times[stage.name][0] += time.perf_counter() - wall
        times[stage.name][1] += cpu() - used

    folder = Path(tempfile.mkdtemp(prefix="bench-release-"))
    try:
        run = ReleaseRun(domain, "bench", out=folder / "bundle", scale=scale, n=n, baselines=baselines)
        run_release(run, runner=timed)
        wall, used = time.perf_counter(), cpu()
        result = verify_release(folder / "bundle")
        times["verify-release"] = [time.perf_counter() - wall, cpu() - used]
        if not result.ok:
            raise SystemExit(f"verify-release failed: {result.problems[:3]}")
        assert run.manifest is not None
        rows, size = run.manifest.database.rows, sum(f.bytes for f in run.manifest.files.values())
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return dict(times), rows, size


def main() -> None:
    parser = bench_parser(__doc__)
    parser.add_argument("--domain", default="music")
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--n", type=int, default=150)
    parser.add_argument("--baseline", default="oracle,noop")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    made = [once(args.domain, args.scale, args.n, baseline_names(args.baseline)) for _ in range(args.repeat)]
    runs = [m[0] for m in made]
    rows, size = made[0][1], made[0][2]
    stages = list(runs[0])
    med = {s: (statistics.median(r[s][0] for r in runs), statistics.median(r[s][1] for r in runs))
           for s in stages}
    build_cpu = med["build"][1]
    lines = [
        f"Command: `.venv/bin/python bench/release.py --domain {args.domain} --scale {args.scale:g} "
        f"--n {args.n} --baseline {args.baseline} --repeat {args.repeat}` ({time.strftime('%Y-%m-%d')}; "
        "2 shared cores). "
        f"{int(rows):,} rows, {args.n} tasks, a bundle of {size / 1e6:,.1f} MB; medians of {args.repeat} "
        "run(s). The baseline is the build of the same run.",
        "",
        "| stage | wall s | CPU s | CPU vs build |",
        "|---|---:|---:|---:|",
    ]
    for stage in stages:
        wall, used = med[stage]
        lines.append(f"| {stage} | {wall:,.1f} | {used:,.1f} | {used / build_cpu:.2f}x |")
    total_wall = sum(med[s][0] for s in stages if s != "verify-release")
    total_cpu = sum(med[s][1] for s in stages if s != "verify-release")
    lines.append(f"| **release, all stages** | **{total_wall:,.1f}** | **{total_cpu:,.1f}** | "
                 f"**{total_cpu / build_cpu:.2f}x** |")
    publish("Release (bench/release.py)", lines, write=not args.no_write)


if __name__ == "__main__":
    main()
