"""The work of each stage of a build (`stateforge.build.run.STAGES` puts them in order and runs them).

    prepare -> open_partial -> fill_one (each table, in plan order) -> finish_fill -> audit_partial
            -> publish

A build writes to `<out>/.<name>.duckdb.partial` and moves it onto `<out>/<name>.duckdb` only after a clean
audit, so a failed or interrupted build never touches the previous good database. The partial file records
which tables are complete (`stateforge.build_progress`) and a fingerprint of the build's inputs, so that
`resume=True` continues from the last completed table of the same build, and refuses a different one.
The file also records the domain's frozen "now" (`stateforge.store.build_meta`), the environment's clock.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb

from stateforge import __version__
from stateforge.build.report import build_report
from stateforge.domain import DomainConfig, DomainPack, load_domain
from stateforge.errors import BuildError, NotCleanError, guard
from stateforge.fill import check_config
from stateforge.fill.deferred import fill_deferred
from stateforge.fill.engine import fill_table
from stateforge.fill.report import TableReport
from stateforge.fill.seeds import restore_deferred, seeds_kept
from stateforge.fill.sizing import plan_rows
from stateforge.graph import FillPlan, plan_fill
from stateforge.llm.settings import LLMSettings
from stateforge.resources import artifacts_dir
from stateforge.store import create_tables, reset_sequences
from stateforge.store.build_meta import read_build_meta, write_build_meta
from stateforge.validation.audit import AuditReport, audit
from stateforge.validation.rules import apply_rules
from stateforge.validation.text_fit import fill_parent_texts
from stateforge.validation.views import install_views

if TYPE_CHECKING:
    from stateforge.llm.fill import LLMFill

PROGRESS_TABLE = "stateforge.build_progress"


@dataclass
class Build:
    """Everything a build needs, decided before a row is written."""

    pack: DomainPack
    plan: FillPlan
    rows: dict[str, int]
    seed: int
    scale: float
    out_dir: Path
    inputs: dict[str, Any] = field(default_factory=dict)
    """What determines the bytes of the result (hashed into the fingerprint and the report)."""
    llm: LLMSettings | None = None
    """The LLM that writes the columns needing meaning; None: offline only."""
    started: float = field(default_factory=time.perf_counter)
    """When `prepare` began (for the report's wall-clock time)."""

    @property
    def name(self) -> str:
        return self.pack.name

    @property
    def db_path(self) -> Path:
        return self.out_dir / f"{self.name}.duckdb"

    @property
    def partial_path(self) -> Path:
        return self.out_dir / f".{self.name}.duckdb.partial"

    @property
    def report_path(self) -> Path:
        return self.out_dir / "build_report.json"

    @property
    def fingerprint(self) -> str:
        return hashlib.sha256(json.dumps(self.inputs, sort_keys=True).encode()).hexdigest()[:16]


_ENVIRONMENT = (duckdb.OperationalError, duckdb.InterruptException)
"""DuckDB's I/O, memory and interrupt errors: the machine's, not a bug (they pass the guards unchanged)."""


def _guard(build: Build, stage: str, table: str | None = None) -> AbstractContextManager[None]:
    """Unexpected exceptions of a stage become an InternalError naming the DDL file, the stage and table."""
    source = str(build.pack.ddl_path or build.pack.name)
    return guard(stage, file=source, table=table, passthrough=_ENVIRONMENT)


def frozen_now(config: DomainConfig) -> str:
    """The domain's frozen "now" (`TimeWindow.clock`), as an ISO timestamp."""
    return config.time_window.clock.isoformat()


def prepare(
    domain: str | DomainPack,
    *,
    dialect: str | None = None,
    scale: float = 1.0,
    rows: int | None = None,
    seed: int | None = None,
    out: str | Path | None = None,
    llm: LLMSettings | None = None,
    drop_missing_references: bool = False,
    skip_missing_includes: bool = False,
    ignore_seed_inserts: bool = False,
) -> Build:
    """Parse the domain (a pack name, a pack folder or a DDL file; or a pack already loaded), check its
    config against the generator, plan the fill and size every table.

    With an LLM backend, the endpoint is checked here (key, model, reachability), before anything is written.
    `drop_missing_references` drops foreign keys to tables the DDL does not define (with a note);
    `skip_missing_includes` reads past include commands whose file is missing (a note each);
    `ignore_seed_inserts` leaves the DDL's INSERT ... VALUES rows out (they seed their tables otherwise).
    """
    if llm is not None and llm.backend == "offline":
        llm = None
    if scale <= 0:
        raise BuildError(f"--scale must be positive, got {scale}.")
    if rows is not None and rows < 1:
        raise BuildError(f"--rows must be at least 1, got {rows}.")
    if isinstance(domain, DomainPack):
        pack = domain
    else:
        pack = load_domain(domain, dialect=dialect, drop_missing_references=drop_missing_references,
                           skip_missing_includes=skip_missing_includes,
                           ignore_seed_inserts=ignore_seed_inserts)
    least = pack.config.min_scale
    if least is not None and rows is None and scale < least:
        where = pack.config.source or f"the {pack.name} pack's domain.yaml"
        raise BuildError(
            f"{pack.name} keeps its rules from --scale {least:g} up ({where}: min_scale), not at {scale:g}: "
            f"build it with --scale {least:g} or more."
        )
    plan = plan_fill(pack.schema)
    check_config(pack.config, pack.schema, plan)
    if rows is None and pack.root is None and pack.ddl_path is not None:
        rows = 100  # a bare DDL file: about 100 rows per root table
    sizes = plan_rows(pack.schema, plan, pack.config, scale=scale, rows=rows)
    seed = pack.config.seed if seed is None else seed
    out_dir = Path(out) if out else artifacts_dir() / pack.name
    inputs = {
        "stateforge": __version__,
        "domain": pack.name,
        **_schema_digest(pack),
        "config": pack.config.model_dump(mode="json"),
        "seed": seed,
        "rows": sizes,
        "now": frozen_now(pack.config),
    }
    if drop_missing_references:  # it changes the schema, so it is an input (absent: fingerprints as before)
        inputs["drop_missing_references"] = True
    if skip_missing_includes:
        inputs["skip_missing_includes"] = True
    if ignore_seed_inserts:
        inputs["ignore_seed_inserts"] = True
    if llm is not None:
        from stateforge.llm.backends import check_backend
        from stateforge.llm.prompts import prompt_hashes

        check_backend(llm)
        inputs["llm"] = {
            **llm.model_dump(
                mode="json",
                include={
                    "backend",
                    "model",
                    "temperature",
                    "seed",
                    "max_tokens",
                    "response_format",
                    "whole_rows",
                },
            ),
            "prompts": prompt_hashes(),
        }
    return Build(
        pack=pack, plan=plan, rows=sizes, seed=seed, scale=scale, out_dir=out_dir, inputs=inputs, llm=llm
    )


def _schema_digest(pack: DomainPack) -> dict[str, str]:
    """The hash of the DDL file; of the parsed model for a pack made in memory (no file)."""
    if pack.ddl_path is not None:
        return {"ddl_sha256": hashlib.sha256(pack.ddl_path.read_bytes()).hexdigest()}
    model = json.dumps(pack.schema.to_dict(), sort_keys=True, default=str)
    return {"schema_sha256": hashlib.sha256(model.encode()).hexdigest()}


def open_llm(build: Build) -> LLMFill | None:
    """The LLM fill of a build (the engine's `enrich` hook), or None for an offline build. Close it after."""
    if build.llm is None:
        return None
    from stateforge.llm.fill import LLMFill

    return LLMFill(build.pack.schema, build.pack.config, build.llm, seed=build.seed)


def open_partial(build: Build, *, resume: bool = False) -> list[str]:
    """Create the partial database, or reopen it with `resume`; return the tables already complete."""
    build.out_dir.mkdir(parents=True, exist_ok=True)
    path = build.partial_path
    if resume and path.exists():
        with duckdb.connect(str(path)) as con:
            if read_build_meta(con).get("fingerprint") == build.fingerprint:
                return [
                    r[0]
                    for r in con.sql(f"SELECT table_name FROM {PROGRESS_TABLE} ORDER BY position").fetchall()
                ]
        raise BuildError(
            f"cannot resume {path}: it was started with different inputs (DDL, domain.yaml, seed or sizes). "
            "Run again without --resume to start over."
        )
    for stale in (path, path.with_name(path.name + ".wal")):
        stale.unlink(missing_ok=True)
    with duckdb.connect(str(path)) as con, _guard(build, "creating the tables"):
        con.begin()  # one transaction: a commit (and WAL sync) per DDL statement costs ~5 ms each
        create_tables(con, build.pack.schema, build.plan)
        write_build_meta(
            con,
            {
                "fingerprint": build.fingerprint,
                "inputs": json.dumps(build.inputs, sort_keys=True),
                "now": build.inputs["now"],
            },
        )
        con.execute(
            f"CREATE TABLE {PROGRESS_TABLE} (position INTEGER, table_name VARCHAR PRIMARY KEY, "
            "rows BIGINT, seconds DOUBLE, report JSON)"
        )
        con.commit()
    return []


def fill_one(
    build: Build,
    table: str,
    *,
    con: duckdb.DuckDBPyConnection | None = None,
    on_batch: Callable[[str, int, int], None] | None = None,
    llm: LLMFill | None = None,
) -> TableReport:
    """Fill one table of the partial database and record it as complete (both in one transaction).

    Pass `con` to reuse one connection for many tables (opening and closing the file costs ~0.1 s).
    """
    if con is None:
        with duckdb.connect(str(build.partial_path)) as own:
            return fill_one(build, table, con=own, on_batch=on_batch, llm=llm)
    position = build.plan.order.index(table)

    def record(c: duckdb.DuckDBPyConnection, r: TableReport) -> None:
        data = r.to_dict() | ({"llm": llm.report(table)} if llm is not None else {})
        c.execute(
            f"INSERT OR REPLACE INTO {PROGRESS_TABLE} VALUES (?, ?, ?, ?, ?)",
            [position, table, r.rows, r.seconds, json.dumps(data)],
        )

    with _guard(build, "filling the table", table):
        return fill_table(
            con,
            build.pack.schema,
            build.plan,
            build.pack.config,
            table,
            seed=build.seed,
            rows=build.rows,
            on_batch=on_batch,
            record=record,
            enrich=llm,
        )


def finish_fill(build: Build) -> dict[str, Any]:
    """The second pass (deferred foreign keys, texts read through parents) and the domain's rules,
    repaired until they hold."""
    started = time.perf_counter()
    with duckdb.connect(str(build.partial_path)) as con:
        with _guard(build, "filling the deferred foreign keys (second pass)"):
            deferred = fill_deferred(con, build.pack.schema, build.plan, build.pack.config, seed=build.seed)
            restore_deferred(con, build.pack.schema, build.plan)  # the seed rows' own cycle keys
        with _guard(build, "choosing the texts read through parents (values_by via)"):
            texts = fill_parent_texts(con, build.pack.schema, build.pack.config)
        with _guard(build, "applying the domain's rules"):
            rules = apply_rules(con, build.pack.schema, build.pack.config)
        seeds = seeds_kept(con, build.pack.schema)  # the DDL's INSERT rows, as given, after the rules
    return {
        "deferred": deferred,
        "parent_texts": texts,
        "rules": [r.to_dict() for r in rules],
        "seeds": seeds,
        "seconds": round(time.perf_counter() - started, 3),
    }


def audit_partial(build: Build) -> AuditReport:
    """Audit the partial database; a build whose audit is not clean fails (`NotCleanError`, exit code 1)
    and publishes nothing. What DuckDB enforces in the file on every write (keys, NOT NULL, the CHECKs
    it runs) is left to it (`trust_declared`); foreign keys, lengths and the rest are queried."""
    with duckdb.connect(str(build.partial_path), read_only=True) as con:
        with _guard(build, "auditing the database"):
            report = audit(con, build.pack.schema, trust_declared=True)
    if not report.clean:
        worst = ", ".join(f"{v.check} {v.table} ({v.count})" for v in report.violations[:5])
        raise NotCleanError(
            f"the audit of {build.partial_path} found {report.total} violations ({worst}); nothing was "
            f"published and {build.db_path} is untouched. Run `stateforge audit {build.partial_path}` for "
            "the offending keys; a domain rule or hint is the likely cause."
        )
    return report


def publish(
    build: Build,
    finish: dict[str, Any],
    checked: AuditReport,
    *,
    resumed: list[str] | None = None,
    llm: LLMFill | None = None,
) -> tuple[Path, dict[str, Any]]:
    """Assemble the build report, install the audit views, store the report, and move the database into
    place atomically (one connection to the partial file, one commit); return the database and the report."""
    with duckdb.connect(str(build.partial_path)) as con:
        report = build_report(build, finish, checked, resumed=resumed, llm=llm, con=con)
        con.begin()  # one commit for the sequences, the views and the report, not one per statement
        reset_sequences(con, build.pack.schema)
        install_views(con, build.pack.schema, build.plan)
        con.execute("DROP TABLE IF EXISTS stateforge.build_report")
        con.execute("CREATE TABLE stateforge.build_report AS SELECT ?::JSON AS report", [json.dumps(report)])
        con.commit()
        con.execute("CHECKPOINT")
    os.replace(build.partial_path, build.db_path)
    tmp = build.report_path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(report, indent=2, default=str) + "\n")
    os.replace(tmp, build.report_path)
    return build.db_path, report
