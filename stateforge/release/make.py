"""The stages of a release and the one driver that runs them.

    manifest = make_release("music", version="1.0.0", baselines=["oracle", "noop"])
    manifest = run_release(ReleaseRun("music", "1.0.0"), runner=as_prefect_task)   # the `release` flow

    build -> generate-tasks -> baseline-<solver> (each asked) -> bundle -> document -> publish

The build and the tasks are made in a scratch folder beside the target; the bundle is written to a
temporary folder beside it and moved into place in one rename (`files.publish`), so a release that fails
at any stage leaves nothing at the target and no temporary folder behind.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stateforge.build import BuildRun, run_build
from stateforge.domain import DomainPack, load_domain
from stateforge.domain.loader import schemas_dir
from stateforge.errors import NotCleanError
from stateforge.evaluate import evaluate
from stateforge.llm.settings import LLMSettings
from stateforge.release.bundle import Written, baseline_file, write_bundle
from stateforge.release.card import dataset_card
from stateforge.release.files import (
    bundle_files,
    check_target,
    check_version,
    discard,
    hash_files,
    open_staging,
    publish,
    sha256_file,
)
from stateforge.release.inputs import code_version, llm_inputs, pack_hashes, package_versions, prompt_hashes
from stateforge.release.manifest import baseline_entry, database_info, task_counts
from stateforge.release.model import MANIFEST, Code, Inputs, Manifest, release_id
from stateforge.resources import artifacts_dir
from stateforge.stages import Runner, Stage, direct, each, run_stages
from stateforge.store import connect, read_model
from stateforge.tasks import generate_tasks, read_tasks
from stateforge.tools import toolkit_for

README = "README.md"
BASELINE_SOLVERS = ("oracle", "noop")
"""The baselines `--baseline` names by default (`--baseline all`)."""


def default_target(domain: str, version: str) -> Path:
    """Where a release goes by default: `artifacts/releases/<domain>-<version>/`."""
    return artifacts_dir() / "releases" / f"{domain}-{version}"


@dataclass
class ReleaseRun:
    """One release: what was asked for, then what each stage produced."""

    domain: str
    version: str
    out: str | Path | None = None
    """The bundle's folder (default: `default_target`)."""
    force: bool = False
    scale: float = 1.0
    rows: int | None = None
    seed: int | None = None
    n: int = 150
    task_seed: int = 0
    baselines: list[str] = field(default_factory=list)
    llm: LLMSettings | None = None
    task_backend: str = "offline"
    generator_options: dict[str, Any] = field(default_factory=dict)

    pack: DomainPack | None = None
    code: Code | None = None
    """The code version, taken when the release starts (the code that made it)."""
    target: Path | None = None
    staging: Path | None = None
    work: Path | None = None
    build: BuildRun | None = None
    build_report: dict[str, Any] | None = None
    generation_report: dict[str, Any] | None = None
    summaries: dict[str, dict[str, Any]] = field(default_factory=dict)
    written: Written | None = None
    manifest: Manifest | None = None
    path: Path | None = None

    @property
    def db(self) -> Path:
        """The built database in the scratch folder."""
        assert self.build is not None and self.build.path is not None
        return self.build.path


# --- the stages, in order ------------------------------------------------------------------------


def build(run: ReleaseRun) -> None:
    """Check the version and the target, then build the domain into the scratch folder."""
    check_version(run.version)
    run.code = code_version()
    run.pack = load_domain(run.domain)
    run.target = Path(run.out) if run.out else default_target(run.pack.name, run.version)
    run.staging, run.work = open_staging(run.target, force=run.force)
    run.build = BuildRun(
        run.pack, scale=run.scale, rows=run.rows, seed=run.seed, out=run.work / "build", llm=run.llm
    )
    run.build_report = run_build(run.build)


def make_tasks(run: ReleaseRun) -> None:
    """Generate the tasks on the built database; fewer than asked fails the release."""
    report = generate_tasks(
        run.db, n=run.n, seed=run.task_seed, backend=run.task_backend,
        generator_options=run.generator_options,
    )
    if not report["target_met"]:
        raise NotCleanError(f"release {run.domain} {run.version}: {report['why']} No release was written.")
    run.generation_report = report


def baseline(run: ReleaseRun, solver: str) -> None:
    """Evaluate one baseline solver on the tasks (k=1); a harness failure fails the release."""
    assert run.work is not None
    # No report.html of the run: the bundle has its own reports (and the page names the run's folder).
    summary = evaluate(run.db, solver=solver, k=1, out=run.work / "runs", seed=run.task_seed, report=False)
    if not summary["harness"]["ok"]:
        raise NotCleanError(f"baseline {solver}: {summary['harness']['why']} No release was written.")
    run.summaries[solver] = summary


def write_files(run: ReleaseRun) -> None:
    """Write the database, the Parquet files, the tasks, the tools, the sources and the reports."""
    assert run.pack is not None and run.staging is not None
    assert run.build_report is not None and run.generation_report is not None
    with connect(run.db, read_only=True) as con:
        schema, plan = read_model(con)
    run.written = write_bundle(
        run.staging,
        pack=run.pack, schema=schema, plan=plan, built_db=run.db, tasks_file=run.db.parent / "tasks.jsonl",
        toolkit=toolkit_for(schema, run.pack.name, pack_dir=run.pack.root),
        build_report=run.build_report, generation_report=run.generation_report, baselines=run.summaries,
    )


def document(run: ReleaseRun) -> None:
    """Write the dataset card and the manifest (the hash of every other file)."""
    assert run.staging is not None and run.written is not None and run.pack is not None
    manifest = assemble(run, files={})
    (run.staging / README).write_text(
        dataset_card(manifest, run.pack.config.description or ""), encoding="utf-8", newline="\n"
    )
    skip = (MANIFEST, run.written.database)  # the database is verified by its table hashes, not its bytes
    files = hash_files(run.staging, bundle_files(run.staging, skip=skip))
    run.manifest = assemble(run, files=files)
    (run.staging / MANIFEST).write_text(run.manifest.to_json(), encoding="utf-8", newline="\n")


def publish_bundle(run: ReleaseRun) -> None:
    """Move the bundle into place and remove the scratch folder."""
    assert run.staging is not None and run.target is not None
    run.path = publish(run.staging, run.target, force=run.force)
    discard(run.work)


def assemble(run: ReleaseRun, *, files: dict[str, Any]) -> Manifest:
    """The manifest of the run's bundle, with `files` as its file list."""
    assert run.written is not None and run.pack is not None and run.staging is not None
    assert run.build_report is not None
    w, pack = run.written, run.pack
    folder = run.staging
    tasks = read_tasks(folder / "tasks.jsonl")
    inputs = Inputs(
        domain=pack.name,
        pack=pack.name if pack.root is not None and _is_shipped(pack) else None,
        ddl=w.ddl,
        ddl_sha256=_sha(folder / w.ddl),
        domain_yaml=w.domain_yaml,
        domain_yaml_sha256=_sha(folder / w.domain_yaml) if w.domain_yaml else None,
        pack_files=pack_hashes(pack.root),
        prompts=prompt_hashes(),
        seed=int(run.build_report["seed"]),
        task_seed=run.task_seed,
        scale=run.scale,
        rows=run.rows,
        tasks_asked=run.n,
        task_backend=run.task_backend,
        build_fingerprint=str(run.build_report["fingerprint"]),
        code=run.code or code_version(),
        packages=package_versions(),
        llm=llm_inputs(run.llm),
    )
    database = database_info(folder, w)
    return Manifest(
        domain=pack.name,
        version=run.version,
        release_id=release_id(files, database),
        inputs=inputs,
        database=database,
        tasks=task_counts(tasks),
        baselines={s: baseline_entry(w.reports[baseline_file(s)]) for s in sorted(run.summaries)},
        files=files,
    )


def _is_shipped(pack: DomainPack) -> bool:
    """Whether the pack is one of Stateforge's own (under `stateforge/packs/`)."""
    assert pack.root is not None
    return pack.root.resolve() == (schemas_dir() / pack.name).resolve()


def _sha(path: Path) -> str:
    return sha256_file(path)


STAGES: tuple[Stage, ...] = (
    Stage("build", build),
    Stage("generate-tasks", make_tasks),
    Stage("baseline", baseline, parts=each(lambda run: run.baselines)),
    Stage("bundle", write_files),
    Stage("document", document),
    Stage("publish", publish_bundle),
)
"""Every release, in this order: the CLI, the flow and the tests run exactly these."""


def run_release(run: ReleaseRun, runner: Runner = direct) -> Manifest:
    """Run every stage of `STAGES` on `run` through `runner`; return the manifest. On any failure the
    temporary folders are removed and nothing is left at the target."""
    try:
        run_stages(run, STAGES, runner)
    except BaseException:
        discard(run.staging, run.work)
        raise
    assert run.manifest is not None
    return run.manifest


def baseline_names(text: str | None) -> list[str]:
    """`--baseline oracle,noop` as a list (`all`: every default baseline), checked against the registry."""
    from stateforge.evaluate.registry import solver_entry

    if not text:
        return []
    names = list(BASELINE_SOLVERS) if text.strip() == "all" else [s.strip() for s in text.split(",")]
    names = list(dict.fromkeys(n for n in names if n))
    for name in names:
        solver_entry(name)  # an unknown name: SolverError with the closest match
    return names


def make_release(domain: str, *, version: str, **options: Any) -> Manifest:
    """Make a release with every stage called directly (the CLI); see `ReleaseRun` for the options."""
    run = ReleaseRun(domain, version, **options)
    if run.out is not None:
        check_target(Path(run.out), force=run.force)
    return run_release(run)

