"""The `stateforge` command line. Every command calls the same library functions as the flows and tests.

Exit codes (the contract is in the README, "Exit codes"): 0 success, 1 the thing checked is not clean
(`NotCleanError`), 2 bad input or any other error. `main` is the one place that maps outcomes to codes;
an error is printed as one paragraph (a traceback only with `--debug`, accepted anywhere on the line).
"""

from __future__ import annotations

import atexit
import json
import os
import sys
import threading
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from stateforge.errors import NotCleanError, StateforgeError

app = typer.Typer(
    name="stateforge",
    help="Build stateful benchmark environments for tool-using agents from SQL DDL.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
# emoji=False: a `file:line:` such as `dump.sql:1234:` or `:100:` must print as written, not as an emoji code.
stdout = Console(soft_wrap=True, emoji=False)
err = Console(stderr=True, soft_wrap=True, emoji=False)

DialectOpt = Annotated[
    str | None,
    typer.Option(
        "--dialect", "-d", help="duckdb, postgres, mysql, sqlite, oracle or tsql (default: detected)."
    ),
]
DropRefsOpt = Annotated[
    bool,
    typer.Option(
        "--drop-missing-references",
        help="Drop foreign keys to tables the DDL does not define (installed separately), with a note "
        "each; without it they are an error.",
    ),
]
SkipIncludesOpt = Annotated[
    bool,
    typer.Option(
        "--skip-missing-includes",
        help="Read past include commands (`source f.dump`, `\\i f`, `@f`) whose file is not there, with a "
        "note each; without it they are an error.",
    ),
]
IgnoreSeedsOpt = Annotated[
    bool,
    typer.Option(
        "--ignore-seed-inserts",
        help="Leave the DDL's INSERT ... VALUES rows out; without it they are a table's first rows, kept.",
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of a summary.")]
ScaleOpt = Annotated[float, typer.Option(help="Multiply the pack's rows per table.")]
RowsOpt = Annotated[int | None, typer.Option(help="About N rows per root table, children scaled by fan-out.")]
KeepOpt = Annotated[int, typer.Option("--n", help="Tasks to keep (that pass the gate).")]
ModelOpt = Annotated[str | None, typer.Option(help="The model, with --backend openai.")]
BaseUrlOpt = Annotated[
    str | None, typer.Option(help="Server URL, e.g. http://localhost:11434/v1 (default: OPENAI_BASE_URL).")
]
NoCacheOpt = Annotated[bool, typer.Option("--no-cache", help="Ask the LLM again instead of the cache.")]


@app.command()
def schema(
    ddl_file: Annotated[Path, typer.Argument(help="A DDL file or dump.")],
    dialect: DialectOpt = None,
    as_json: JsonOpt = False,
    drop_missing_references: DropRefsOpt = False,
    skip_missing_includes: SkipIncludesOpt = False,
    ignore_seed_inserts: IgnoreSeedsOpt = False,
) -> None:
    """Parse a DDL file and show its tables, keys, fill order, cycles, skipped statements and notes
    (what was approximated or left out, with file:line)."""
    from stateforge.domain.config import DomainConfig
    from stateforge.graph import schema_report
    from stateforge.render import render_schema
    from stateforge.schema import load_ddl
    from stateforge.validation.time_order import time_notes

    model = load_ddl(ddl_file, dialect, drop_missing_references=drop_missing_references,
                     skip_missing_includes=skip_missing_includes, ignore_seed_inserts=ignore_seed_inserts)
    model.notes.extend(time_notes(model, DomainConfig.default(ddl_file.stem)))  # what the build orders
    report = schema_report(model)
    if as_json:
        print(json.dumps(report, indent=2))
    else:
        render_schema(stdout, report)


@app.command("init-db")
def init_db(
    ddl_file: Annotated[Path, typer.Argument(help="A DDL file or dump.")],
    db_file: Annotated[Path, typer.Argument(help="The DuckDB file to create.")],
    dialect: DialectOpt = None,
    overwrite: Annotated[bool, typer.Option("--overwrite", help="Replace DB_FILE if it exists.")] = False,
    drop_missing_references: DropRefsOpt = False,
    skip_missing_includes: SkipIncludesOpt = False,
) -> None:
    """Create an empty DuckDB database for a DDL file, with the model in its `stateforge` schema."""
    from stateforge.graph import plan_fill
    from stateforge.schema import load_ddl
    from stateforge.store import create_database
    from stateforge.validation.views import install_views

    model = load_ddl(ddl_file, dialect, drop_missing_references=drop_missing_references,
                     skip_missing_includes=skip_missing_includes)
    path = create_database(model, plan_fill(model), db_file, overwrite=overwrite, setup=install_views)
    stdout.print(f"created {path} with {len(model.tables)} tables")


@app.command()
def audit(
    db_file: Annotated[Path, typer.Argument(help="A database made by Stateforge.")],
    as_json: JsonOpt = False,
    sample: Annotated[int, typer.Option(help="Offending keys to show per violated constraint.")] = 5,
) -> None:
    """Check a database against its model: keys, NOT NULL, CHECK, foreign keys, allowed values.

    Exits 0 when the database is clean and 1 when it is not (2: no such database, or not Stateforge's).
    """
    from stateforge.render import render_audit
    from stateforge.store import connect
    from stateforge.validation.audit import audit as run_audit

    with connect(db_file, read_only=True) as con:
        report = run_audit(con, sample=sample)
    if as_json:
        print(json.dumps(report.to_dict(), indent=2, default=str))
    else:
        render_audit(stdout, report)
    if not report.clean:
        raise NotCleanError(f"{db_file}: {report.total:,} violations in {len(report.violations)} checks.")


@app.command()
def report(
    db_file: Annotated[Path, typer.Argument(help="A database made by Stateforge.")],
    out: Annotated[
        Path | None, typer.Option(help="The HTML file to write (default: <db>.report.html beside DB_FILE).")
    ] = None,
    sample_rows: Annotated[
        int | None,
        typer.Option(help="Tables above this many rows: distributions from a sample of about this many "
                     "(default 200,000)."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Also print the report's data as JSON.")] = False,
) -> None:
    """Write a self-contained HTML audit report of a database: per table rows, NULL rates, distinct
    counts, value distributions, foreign-key fan-out, domain rules and violations, with plots.

    Opens the file read-only and needs no network (the page neither). Writes the report in every case;
    exits 0 when the audit is clean and every domain rule holds, 1 when not (like `audit`), 2 on bad input.
    """
    from stateforge.html.fmt import plural
    from stateforge.report import SAMPLE_ROWS, write_report
    from stateforge.values import dumps

    result = write_report(db_file, out, sample_rows=SAMPLE_ROWS if sample_rows is None else sample_rows)
    profile = result.profile
    if as_json:
        print(dumps(profile.to_dict(), indent=2))
    else:
        sampled = sum(1 for t in profile.tables if t.sampled is not None)
        stdout.print(
            f"wrote {result.path} ({result.bytes / 1024:,.0f} KiB): {len(profile.tables)} tables, "
            f"{profile.rows:,} rows, {plural(profile.audit.get('violations', 0), 'audit violation')}"
            + (f", {sampled} tables sampled" if sampled else ""),
            highlight=False,
        )
    if profile.violations:
        broken = [r.name for r in profile.rules if r.kind == "rule" and r.violations]
        raise NotCleanError(
            f"{db_file}: {plural(profile.audit.get('violations', 0), 'audit violation')}"
            + (f" and rows breaking rule(s) {', '.join(broken)}" if broken else "")
            + f"; the report at {result.path} names them."
        )


@app.command()
def diff(
    base: Annotated[Path, typer.Argument(help="The database before (e.g. a built domain).")],
    after: Annotated[Path, typer.Argument(help="The database after (e.g. an episode's copy).")],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the canonical diff JSON instead of tables.")
    ] = False,
    table: Annotated[
        list[str] | None, typer.Option("--table", "-t", help="Only this table (repeatable).")
    ] = None,
    limit: Annotated[int, typer.Option(help="Rows shown per kind of change and table.")] = 50,
) -> None:
    """Show the rows inserted, deleted and updated from BASE to AFTER (two DuckDB files, opened read-only).

    Exits 0 whether or not they differ, 2 when a file is missing or not DuckDB or their tables differ.
    """
    from stateforge.diff import diff_files
    from stateforge.diff.render import render_diff

    result = diff_files(base, after, tables=table or None)
    if as_json:
        print(result.to_json(indent=2))
    else:
        render_diff(stdout, result, limit=limit)


@app.command("build-domain")
def build_domain(
    domain: Annotated[
        str, typer.Argument(help="A pack name under stateforge/packs/, a pack folder, or a DDL file.")
    ],
    dialect: DialectOpt = None,
    scale: ScaleOpt = 1.0,
    rows: RowsOpt = None,
    seed: Annotated[int | None, typer.Option(help="Random seed (default: the pack's).")] = None,
    out: Annotated[Path | None, typer.Option(help="Output folder (default: artifacts/<name>/).")] = None,
    resume: Annotated[bool, typer.Option("--resume", help="Continue an interrupted build.")] = False,
    backend: Annotated[
        str | None, typer.Option(help="offline (default) or openai: any OpenAI-compatible server.")
    ] = None,
    model: ModelOpt = None,
    base_url: BaseUrlOpt = None,
    concurrency: Annotated[
        int | None, typer.Option(help="LLM requests in flight at once (default 8).")
    ] = None,
    whole_rows: Annotated[
        bool,
        typer.Option(
            "--whole-rows", help="Send whole rows to the LLM, not only the columns needing meaning."
        ),
    ] = False,
    no_cache: NoCacheOpt = False,
    drop_missing_references: DropRefsOpt = False,
    skip_missing_includes: SkipIncludesOpt = False,
    ignore_seed_inserts: IgnoreSeedsOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Build a domain into a fully consistent DuckDB database and audit it (offline unless --backend openai).

    Writes OUT/<name>.duckdb and OUT/build_report.json; exits 0 only when the final audit is clean,
    1 when it is not (nothing is published), 2 on bad input or any other error.
    """
    from stateforge.build import build_domain as run_build
    from stateforge.llm.settings import llm_settings
    from stateforge.render import BuildProgress, render_build

    llm = llm_settings(
        backend=backend,
        model=model,
        base_url=base_url,
        concurrency=concurrency,
        whole_rows=whole_rows,
        no_cache=no_cache,
    )
    with BuildProgress(err, enabled=not as_json) as progress:
        report = run_build(
            domain,
            dialect=dialect,
            scale=scale,
            rows=rows,
            seed=seed,
            out=out,
            resume=resume,
            llm=llm,
            on_table_start=progress.start_table,
            on_batch=progress.advance,
            drop_missing_references=drop_missing_references,
            skip_missing_includes=skip_missing_includes,
            ignore_seed_inserts=ignore_seed_inserts,
        )
    if as_json:
        print(json.dumps(report, indent=2, default=str))
    else:
        render_build(stdout, report)


@app.command("tools")
def tools_cmd(
    domain_or_db: Annotated[str, typer.Argument(help="A pack name or folder, a DDL file, or a database.")],
    as_json: JsonOpt = False,
    pack: Annotated[
        Path | None,
        typer.Option(help="The pack folder of a database built from a pack outside stateforge/packs/."),
    ] = None,
) -> None:
    """List the tools a solver gets (name, kind, parameters, description) and which tables each covers."""
    from stateforge.tools.loader import resolve
    from stateforge.tools.report import render_tools, tools_report

    schema, toolkit = resolve(domain_or_db, pack=pack)
    report = tools_report(toolkit, schema)
    if as_json:
        print(json.dumps(report, indent=2))
    else:
        render_tools(stdout, report)


@app.command("call")
def call_cmd(
    db_file: Annotated[Path, typer.Argument(help="A database built by Stateforge.")],
    tool_name: Annotated[str, typer.Argument(metavar="TOOL", help="The tool to call.")],
    args: Annotated[str, typer.Option("--args", help="The arguments as a JSON object.")] = "{}",
    persist: Annotated[
        bool, typer.Option("--persist", help="Write to DB_FILE itself instead of a throwaway copy.")
    ] = False,
    pack: Annotated[
        Path | None, typer.Option(help="The pack folder, for a pack outside stateforge/packs/.")
    ] = None,
    actor: Annotated[
        str | None,
        typer.Option("--as", metavar="PERSON", help="Call as this person (the pack's actors.key)."),
    ] = None,
    role: Annotated[
        list[str] | None, typer.Option("--role", help="With --as: a role they act in (repeatable).")
    ] = None,
) -> None:
    """Call one tool on a database and print the result as JSON (on an episode copy unless --persist).

    Exits 0 when the call succeeds and 1 when the tool returns an error (nothing is changed then).
    """
    from stateforge.episode import Episode
    from stateforge.errors import StateforgeError as Bad
    from stateforge.values import dumps

    try:
        arguments = json.loads(args)
    except json.JSONDecodeError as exc:
        raise Bad(f"--args is not JSON ({exc.msg} at column {exc.colno}); pass an object like "
                  '\'{"name": "x"}\'.') from None
    from stateforge.tools.actor import Actor

    if role and actor is None:
        raise Bad("--role needs --as PERSON (whose role it is).")
    who = Actor(person=actor, roles=tuple(role or ())) if actor is not None else None
    with Episode.open(db_file, persist=persist, pack=pack, actor=who) as episode:
        result = episode.call(tool_name, arguments)
    print(dumps(result.model_dump(), indent=2))
    raise typer.Exit(0 if result.ok else 1)


@app.command("mcp")
def mcp_cmd(
    domain_or_db: Annotated[
        str, typer.Argument(help="A database file, or a pack name or folder (its build under artifacts/).")
    ],
    db: Annotated[
        Path | None, typer.Option("--db", help="The pack's database (default: artifacts/PACK/PACK.duckdb).")
    ] = None,
    transport: Annotated[
        str, typer.Option(help="stdio (the process is the session) or http (streamable HTTP at /mcp).")
    ] = "stdio",
    host: Annotated[str, typer.Option(help="The address to listen on, with --transport http.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="The port, with --transport http (0: any free port).")] = 8765,
    persist: Annotated[
        bool,
        typer.Option("--persist", help="Write to the database itself (one session at a time), not copies."),
    ] = False,
    pack: Annotated[
        Path | None, typer.Option(help="The pack folder, for a pack outside stateforge/packs/.")
    ] = None,
    idle_timeout: Annotated[
        float, typer.Option(help="HTTP: seconds without a request before a session ends.")
    ] = 300.0,
    max_sessions: Annotated[
        int, typer.Option(help="HTTP: open sessions at once (each holds a copy of the database).")
    ] = 64,
    evict_idle: Annotated[
        float,
        typer.Option(help="HTTP: when full, a new session ends the one idle longest, if idle this long."),
    ] = 60.0,
    actor: Annotated[
        str | None,
        typer.Option("--as", metavar="PERSON", help="Act as this person (the pack's actors.key value) in "
                     "every session: the tools act for them, the instructions say so."),
    ] = None,
    role: Annotated[
        list[str] | None,
        typer.Option("--role", help="With --as: a role they act in (repeatable; default: all they hold)."),
    ] = None,
) -> None:
    """Serve a database's business tools over MCP, each session on its own episode (a private copy).

    Logs go to stderr. SIGINT / SIGTERM stop the server cleanly (exit 0); a port in use, an unknown --as
    person or a role they do not hold is exit 2.
    """
    from stateforge.mcp.run import run_mcp

    run_mcp(
        domain_or_db,
        db=db,
        transport=transport,
        host=host,
        port=port,
        persist=persist,
        pack=pack,
        idle_timeout=idle_timeout,
        max_sessions=max_sessions,
        evict_idle=evict_idle,
        actor=actor,
        roles=tuple(role or ()),
    )


@app.command("generate-tasks")
def generate_tasks_cmd(
    target: Annotated[
        str,
        typer.Argument(metavar="DOMAIN_OR_DDL", help="A pack name or folder, a DDL file, or a database."),
    ],
    db: Annotated[
        Path | None, typer.Option("--db", help="The built database (default: artifacts/<d>/<d>.duckdb).")
    ] = None,
    n: KeepOpt = 150,
    seed: Annotated[int, typer.Option(help="Seed of every choice: the same seed, the same tasks.")] = 0,
    backend: Annotated[
        str | None,
        typer.Option(
            help="offline (recipes) or openai (an LLM agent on any OpenAI-compatible server). Default: "
            "openai when a model or base URL is given (or set: STATEFORGE_LLM_MODEL, OPENAI_BASE_URL), "
            "else offline."
        ),
    ] = None,
    out: Annotated[
        Path | None, typer.Option(help="Folder for tasks.jsonl and its report (default: the database's).")
    ] = None,
    model: ModelOpt = None,
    base_url: BaseUrlOpt = None,
    no_cache: NoCacheOpt = False,
    max_turns: Annotated[
        int | None, typer.Option(help="LLM turns per generated task's conversation (default 60).")
    ] = None,
    max_tool_calls: Annotated[
        int | None, typer.Option(help="Tool calls per conversation (default 120: room for 30+ writes).")
    ] = None,
    max_tokens: Annotated[
        int | None, typer.Option(help="Prompt + completion tokens per conversation (default 400000).")
    ] = None,
    timeout: Annotated[
        float | None,
        typer.Option(help="Seconds to wait for one LLM request (default 60, or STATEFORGE_LLM_TIMEOUT).",
                     min=0.1),
    ] = None,
    tier: Annotated[
        str | None,
        typer.Option(help="The pack's task tier: long (composed storylines, the default) or warmup (short, "
                     "single-step tasks)."),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Generate tasks on a built database: recipes (or an LLM agent, --backend openai) act through the
    solver's tools, the gate replays and checks every draft, and the kept tasks go to tasks.jsonl with
    generation_report.json beside it.

    Exits 0 when N tasks passed the gate, 1 when fewer did (the file is still written and the report says
    why), 2 on bad input (no such pack or database, a broken pack `tasks/`, an unknown backend, an LLM
    server that cannot be reached or does not serve the model).
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from stateforge.tasks import generate_tasks
    from stateforge.tasks.llm.options import generator_backend
    from stateforge.tasks.report import render_report
    from stateforge.values import dumps

    chosen, options = generator_backend(
        backend, model=model, base_url=base_url, no_cache=no_cache, max_turns=max_turns,
        max_tool_calls=max_tool_calls, max_tokens=max_tokens, timeout=timeout,
    )

    columns = (
        TextColumn("tasks kept"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[tried]}"),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=err, disable=as_json, transient=True) as progress:
        bar = progress.add_task("tasks", total=n, tried="")

        def advance(attempt: object, kept: int) -> None:
            progress.update(bar, completed=kept, tried=f"{getattr(attempt, 'number', 0)} attempts")

        report = generate_tasks(
            target, n=n, seed=seed, backend=chosen, out=out, db=db, on_attempt=advance,
            generator_options=options, tier=tier,
        )
    if as_json:
        print(dumps(report, indent=2))
    else:
        render_report(stdout, report)
    if not report["target_met"]:
        raise NotCleanError(report["why"])


@app.command("tasks")
def tasks_cmd(
    tasks_file: Annotated[Path, typer.Argument(metavar="FILE", help="A tasks.jsonl file.")],
    as_json: JsonOpt = False,
) -> None:
    """Check every line of a tasks file against the task format and sum it up (capabilities, difficulty,
    feasible / infeasible, changed rows). Exits 0 when every line is a valid task, 1 when one is not."""
    from stateforge.tasks.summary import render_summary, summarize_tasks
    from stateforge.values import dumps

    summary = summarize_tasks(tasks_file)
    if as_json:
        print(dumps(summary, indent=2))
    else:
        render_summary(stdout, summary)
    if summary["invalid"]:
        first = summary["problems"][0]
        raise NotCleanError(f"{tasks_file}: {summary['invalid']} invalid lines; the first: {first}")


@app.command("evaluate")
def evaluate_cmd(
    domain: Annotated[
        str, typer.Argument(metavar="DOMAIN", help="A pack name or folder, a DDL file, or a built database.")
    ],
    solver: Annotated[
        str | None,
        typer.Option(help="oracle, noop, another registered solver, or a factory as module:attribute."),
    ] = None,
    model: Annotated[str | None, typer.Option(help="The model, for solvers that call one.")] = None,
    k: Annotated[int | None, typer.Option("-k", help="Trials per task (default 1).")] = None,
    db: Annotated[
        Path | None, typer.Option("--db", help="The built database (default: artifacts/<d>/<d>.duckdb).")
    ] = None,
    tasks_file: Annotated[
        Path | None, typer.Option("--tasks-file", help="The tasks (default: tasks.jsonl by the database).")
    ] = None,
    tasks: Annotated[
        str | None,
        typer.Option(
            "--tasks", help="Select tasks: capabilities, easy/medium/hard, feasible/infeasible, id prefixes "
            "(comma-separated; one kind: any of them, several kinds: all)."
        ),
    ] = None,
    limit: Annotated[int | None, typer.Option(help="At most N tasks (after --tasks).")] = None,
    concurrency: Annotated[int, typer.Option(help="Episodes at once (threads).")] = 4,
    resume: Annotated[
        str | None, typer.Option(help="Continue run RUN_ID: its finished episodes are skipped.")
    ] = None,
    base_url: Annotated[
        str | None, typer.Option(help="An OpenAI-compatible server, for solvers that call one.")
    ] = None,
    option: Annotated[
        list[str] | None, typer.Option(help="KEY=VALUE for the solver (repeatable).")
    ] = None,
    agent_cmd: Annotated[
        str | None,
        typer.Option(
            "--agent-cmd", help="The mcp solver's agent command; {url} becomes the episode's MCP URL "
            "(same as --option cmd=...)."
        ),
    ] = None,
    max_tool_calls: Annotated[int, typer.Option(help="Tool calls per episode.")] = 200,
    max_turns: Annotated[int, typer.Option(help="Model turns per episode (LLM solvers).")] = 30,
    max_tokens: Annotated[
        int | None, typer.Option(help="Prompt + completion tokens per episode (LLM solvers; default: none).")
    ] = None,
    timeout: Annotated[float, typer.Option(help="Wall seconds per episode.")] = 600.0,
    retries: Annotated[int, typer.Option(help="Reruns of an episode after an infrastructure error.")] = 2,
    max_infra_share: Annotated[
        float, typer.Option(help="Exit 1 when more than this share of episodes are infrastructure errors.")
    ] = 0.1,
    seed: Annotated[int, typer.Option(help="The run's seed (solvers derive theirs from it).")] = 0,
    distractors: Annotated[
        int | None,
        typer.Option(help="Add N tools of other packs to each episode's toolkit, none of them needed (an "
                     "ablation: 5, 10, 15); they answer with an error and change nothing. Default 0."),
    ] = None,
    with_plan: Annotated[
        bool,
        typer.Option("--with-plan", help="Give the solver each task's reference plan in words (in its "
                     "instructions and the MCP server's): the human-plan ablation."),
    ] = False,
    out: Annotated[
        Path | None, typer.Option(help="Where run folders go (default: artifacts/<d>/runs).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
    pool: Annotated[
        str | None,
        typer.Option(help="Run the episodes as shards on this Prefect process work pool (created if missing; "
                     "workers: `prefect worker start --pool NAME --type process`). Needs PREFECT_API_URL."),
    ] = None,
    shards: Annotated[
        int | None, typer.Option(help="With --pool: shards to split the episodes into (default: the workers "
                                 "online, at least 2).")
    ] = None,
    pool_timeout: Annotated[
        float | None, typer.Option(help="With --pool: stop waiting for the shards after this many seconds.")
    ] = None,
) -> None:
    """Evaluate a solver on a domain's tasks: every (task, trial) on a fresh episode, graded by its database
    diff and the task's verifiers; episodes.jsonl, summary.json, run.json and report.html under
    artifacts/<d>/runs/<id>/. With --pool, the episodes run as shards on the workers of a Prefect work pool
    (on several machines: docs/evaluate.md, "Scale-out") and merge into the same run.

    Exits 0 when the harness worked (whatever the score), 1 when more than --max-infra-share of the episodes
    (or every one) were infrastructure errors, 2 on bad input (no database or tasks, tasks made on other
    data, an unknown solver, a filter that selects nothing).
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from stateforge.evaluate import EvalRun, Limits, run_evaluation
    from stateforge.evaluate.report import render_summary
    from stateforge.values import dumps

    if not pool and (shards is not None or pool_timeout is not None):
        raise StateforgeError("--shards and --pool-timeout go with --pool NAME (a Prefect work pool).")
    options = {}
    for item in option or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise StateforgeError(f"--option {item!r}: give KEY=VALUE.")
        options[key.strip()] = value
    if agent_cmd is not None:
        options["cmd"] = agent_cmd
    try:
        limits = Limits(
            max_tool_calls=max_tool_calls, max_turns=max_turns, wall_seconds=timeout, max_tokens=max_tokens
        )
    except ValueError as exc:
        raise StateforgeError(f"limits: {str(exc).splitlines()[-1]}") from None
    columns = (
        TextColumn("episodes"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[score]}"),
        TimeElapsedColumn(),
    )
    passed = graded = 0
    with Progress(*columns, console=err, disable=as_json, transient=True) as progress:
        bar = progress.add_task("episodes", total=None, score="")

        def advance(record: object, done: int, total: int) -> None:
            nonlocal passed, graded
            if record is not None:  # None: shards on a work pool report episodes done, not each record
                outcome = getattr(record, "outcome", "")
                graded += outcome != "infra_error"
                passed += outcome == "pass"
            progress.update(bar, completed=done, total=total, score=f"{passed}/{graded} passed")

        run = EvalRun(
            domain,
            solver=solver, model=model, k=k, db=db, tasks_file=tasks_file, task_filter=tasks, limit=limit,
            concurrency=concurrency, resume=resume, base_url=base_url, options=options, limits=limits,
            retries=retries, max_infra_share=max_infra_share, seed=seed, out=out, on_record=advance,
            distractors=distractors, with_plan=True if with_plan else None,
        )
        if pool:
            from stateforge.flows.evaluate_pool import evaluate_on_pool

            summary = evaluate_on_pool(run, pool, shards, timeout=pool_timeout,
                                       say=lambda text: err.print(text, highlight=False))
        else:
            summary = run_evaluation(run)
    if as_json:
        print(dumps(summary, indent=2))
    else:
        render_summary(stdout, summary)
    if not summary["harness"]["ok"]:
        raise NotCleanError(f"run {summary['run_id']}: {summary['harness']['why']}")


@app.command("mutants")
def mutants_cmd(
    domain: Annotated[
        str, typer.Argument(metavar="DOMAIN", help="A pack name or folder, a DDL file, or a built database.")
    ],
    kind: Annotated[
        list[str] | None, typer.Option("--kind", help="Only this mutant kind (repeatable; default: all).")
    ] = None,
    db: Annotated[
        Path | None, typer.Option("--db", help="The built database (default: artifacts/<d>/<d>.duckdb).")
    ] = None,
    tasks_file: Annotated[
        Path | None, typer.Option("--tasks-file", help="The tasks (default: tasks.jsonl by the database).")
    ] = None,
    limit: Annotated[int | None, typer.Option(help="At most N tasks.")] = None,
    concurrency: Annotated[int, typer.Option(help="Episodes at once (threads).")] = 4,
    out: Annotated[Path | None, typer.Option(help="The report file (default: runs/mutants.json).")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Run every mutant solver (`mutant:<kind>`: the reference with one typical mistake) and report, per
    kind, the share of the tasks it applies to that the grading fails, every escape, and why the others
    did not apply (docs/evaluate.md, "Mutant solvers").

    Exits 0 when every kind that applies somewhere is failed on at least 99% of its tasks, 1 when one is not
    (the escapes are listed), 2 on bad input.
    """
    from stateforge.evaluate.mutants import render_mutants, run_mutants
    from stateforge.values import dumps

    report = run_mutants(domain, kinds=kind, out=out, db=db, tasks_file=tasks_file, limit=limit,
                         concurrency=concurrency)
    print(dumps(report, indent=2) if as_json else render_mutants(report))
    if not report["ok"]:
        short = [k["kind"] for k in report["kinds"] if not k["meets_target"]]
        raise NotCleanError(f"mutants escaped the grading: {', '.join(short)} (see the escapes above)")


@app.command("compare-runs")
def compare_runs_cmd(
    a: Annotated[str, typer.Argument(metavar="A", help="A run id (under artifacts/*/runs) or a run folder.")],
    b: Annotated[str, typer.Argument(metavar="B", help="The run to compare with A.")],
    as_json: JsonOpt = False,
    html: Annotated[
        Path | None,
        typer.Option("--html", help="Also write the paired view as a self-contained HTML page to this file "
                     "(it links into each run's report.html)."),
    ] = None,
) -> None:
    """Compare run B with run A on the tasks both graded: each one's Avg@k, B - A with a paired bootstrap
    interval, the tasks each did better on and an exact sign test, overall and per capability."""
    from stateforge.evaluate import compare_runs
    from stateforge.evaluate.report import render_comparison
    from stateforge.values import dumps

    result = compare_runs(a, b)
    if html is not None:
        from stateforge.evaluate.comparehtml import write_comparison

        written = write_comparison(a, b, html)
        err.print(f"wrote {written}", highlight=False)
    if as_json:
        print(dumps(result, indent=2))
    else:
        render_comparison(stdout, result)


@app.command("release")
def release_cmd(
    domain: Annotated[str, typer.Argument(help="A pack name under stateforge/packs/ or a pack folder.")],
    version: Annotated[str, typer.Option("--version", help="The release's version, e.g. 1.0.0.")],
    out: Annotated[
        Path | None, typer.Option(help="The bundle's folder (default: artifacts/releases/<d>-<V>/).")
    ] = None,
    baseline: Annotated[
        str | None,
        typer.Option(help="Baseline solvers to score on the tasks, comma-separated (e.g. oracle,noop; "
                     "all: oracle and noop)."),
    ] = None,
    scale: ScaleOpt = 1.0,
    rows: RowsOpt = None,
    n: KeepOpt = 150,
    seed: Annotated[int | None, typer.Option(help="Seed of the data (default: the pack's).")] = None,
    task_seed: Annotated[int, typer.Option(help="Seed of the tasks.")] = 0,
    force: Annotated[
        bool, typer.Option("--force", help="Replace an existing release of this version.")
    ] = False,
    backend: Annotated[
        str | None, typer.Option(help="offline (default) or openai: for the data and the tasks.")
    ] = None,
    model: ModelOpt = None,
    base_url: Annotated[
        str | None, typer.Option(help="Server URL (default: OPENAI_BASE_URL), with --backend openai.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the manifest instead of a summary.")] = False,
) -> None:
    """Make a benchmark release: build the domain, generate its tasks, score the baselines asked, and write
    a byte-reproducible bundle (database, Parquet, tasks, tools, dataset card, reports, manifest.json).

    The bundle is written beside its folder and moved into place at the end: a failed release leaves
    nothing behind. Exits 0 with the bundle written, 1 when fewer tasks than --n passed the gate or a
    baseline's harness failed (nothing is written), 2 on bad input (an existing version without --force).
    """
    from stateforge.llm.settings import llm_settings
    from stateforge.release import baseline_names, make_release
    from stateforge.release.show import render_release
    from stateforge.tasks.llm.options import generator_backend

    llm = llm_settings(backend=backend, model=model, base_url=base_url)
    chosen, options = generator_backend(backend, model=model, base_url=base_url)
    solvers = baseline_names(baseline)
    with err.status(f"releasing {domain} {version} (build, tasks, baselines, bundle)", spinner="dots"):
        manifest = make_release(
            domain, version=version, out=out, force=force, scale=scale, rows=rows, seed=seed, n=n,
            task_seed=task_seed, baselines=solvers, llm=llm, task_backend=chosen, generator_options=options,
        )
    if as_json:
        print(manifest.to_json(), end="")
    else:
        from stateforge.release import default_target

        render_release(stdout, manifest, out or default_target(manifest.domain, manifest.version))


@app.command("verify-release")
def verify_release_cmd(
    folder: Annotated[Path, typer.Argument(metavar="DIR", help="A release bundle's folder.")],
    as_json: JsonOpt = False,
) -> None:
    """Check a release bundle: every file's hash, the database (table hashes, audit), the Parquet files
    against the database, the tools, and every task replayed on a fresh episode against its expected diff.

    Exits 0 when all holds, 1 with the list of what does not, 2 when DIR is not a release bundle.
    """
    from stateforge.html.fmt import plural
    from stateforge.release.show import render_verification
    from stateforge.release.verify import verify_release
    from stateforge.values import dumps

    with err.status("verifying", spinner="dots") as status:
        result = verify_release(
            folder, on_task=lambda done, total: status.update(f"replaying tasks {done}/{total}")
        )
    if as_json:
        print(dumps(result.to_dict(), indent=2))
    else:
        render_verification(stdout, result)
    if not result.ok:
        raise NotCleanError(
            f"{folder}: {plural(len(result.problems), 'problem')}; the first: {result.problems[0]}"
        )


@app.command("release-diff")
def release_diff_cmd(
    a: Annotated[Path, typer.Argument(metavar="A", help="The older release bundle.")],
    b: Annotated[Path, typer.Argument(metavar="B", help="The newer release bundle.")],
    as_json: JsonOpt = False,
) -> None:
    """Show what changed from release A to release B: inputs, schema, rows per table, tasks added, removed
    and changed (by id and by content), and baseline scores. Exits 0 (2 when A or B is not a bundle)."""
    from stateforge.release.compare import release_diff
    from stateforge.release.show import render_diff
    from stateforge.values import dumps

    changes = release_diff(a, b)
    if as_json:
        print(dumps(changes, indent=2))
    else:
        render_diff(stdout, changes)


@app.command("eval-report")
def eval_report_cmd(
    run: Annotated[
        str, typer.Argument(metavar="RUN", help="A run id (under artifacts/*/runs) or a run folder.")
    ],
) -> None:
    """Write (again) the self-contained report.html of an evaluation run into its folder: scores with
    intervals, pass rates per capability, difficulty and plan length, cost against score, the commonest
    failures, infrastructure errors apart, and every episode's trajectory one click from its task."""
    from stateforge.evaluate.compare import default_runs_dirs
    from stateforge.evaluate.htmlreport import write_run_report
    from stateforge.evaluate.rundir import find_run

    path = write_run_report(find_run(run, default_runs_dirs()))
    stdout.print(f"wrote {path} ({path.stat().st_size / 1024:,.0f} KiB)", highlight=False)


@app.command("serve")
def serve_cmd(
    packs: Annotated[list[str] | None, typer.Argument(help="Packs to serve (default: all).")] = None,
    api_grace: Annotated[
        float, typer.Option(help="Seconds the Prefect API may stay gone before serving stops (exit 1).")
    ] = 60.0,
    pid_file: Annotated[
        Path | None, typer.Option(help="Write the process id here while serving (make serve-stop reads it).")
    ] = None,
) -> None:
    """Serve the `build-domain/<pack>`, `generate-tasks/<pack>`, `evaluate/<pack>` and `release/<pack>`
    Prefect deployments of each pack (needs PREFECT_API_URL; see `make serve`). SIGTERM or Ctrl-C stops it
    within seconds (exit 0), with or without the API; an API gone for `--api-grace` seconds, exit 1."""
    import logging

    from stateforge.flows.serve import serve_deployments

    if pid_file is not None:
        pid_file.parent.mkdir(parents=True, exist_ok=True)
        pid_file.write_text(f"{os.getpid()}\n")
    try:
        code = serve_deployments(packs or None, api_grace=api_grace)
    finally:
        if pid_file is not None:
            pid_file.unlink(missing_ok=True)
    # Prefect's client leaves non-daemon threads (its loop and events workers) that may wait on an API that
    # is gone: interpreter shutdown would join them. Everything of ours is done, so leave now.
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


@app.command("fake-llm")
def fake_llm(
    port: Annotated[int, typer.Option(help="Port on 127.0.0.1 (0: any free port).")] = 8000,
    host: Annotated[str, typer.Option(help="Loopback address to bind.")] = "127.0.0.1",
    latency: Annotated[float, typer.Option(help="Seconds before each answer.")] = 0.0,
    jitter: Annotated[float, typer.Option(help="Extra random seconds, up to this much.")] = 0.0,
    fault: Annotated[
        list[str] | None,
        typer.Option(help="NAME=RATE or NAME=every:N, repeatable (malformed, truncated, rate_limit, ...)."),
    ] = None,
    model: Annotated[list[str] | None, typer.Option(help="Model names to list (repeatable).")] = None,
    api_key: Annotated[str | None, typer.Option(help="Require this bearer key.")] = None,
    seed: Annotated[int, typer.Option(help="Seed of the answers and of fault choice.")] = 0,
    ignore_prompt: Annotated[
        bool, typer.Option(help="Answer json_schema requests from the schema alone, as a strict decoder.")
    ] = False,
) -> None:
    """Run a local OpenAI-compatible server answering with schema-conforming rows (tests, benchmarks)."""
    from stateforge.fakellm.server import serve

    options: dict = {
        "latency": latency,
        "jitter": jitter,
        "faults": fault or None,
        "seed": seed,
        "api_key": api_key,
        "follow_prompt": not ignore_prompt,
    }
    if model:
        options["models"] = tuple(model)
    serve(host, port, **options)


FAST_EXIT_COMMANDS = frozenset({"build-domain"})
"""Commands after which the `stateforge` process ends without tearing the interpreter down (`_exit_now`):
every DuckDB connection they open is closed before they return, and they leave no thread running."""


def main(argv: list[str] | None = None) -> None:
    """Console entry point: run the app and map its outcome to the exit code (README, "Exit codes").

    0: success; 1: `NotCleanError`, the thing checked is not clean; 2: any other Stateforge error, bad
    command-line usage (typer's own), or a bug; 130: interrupted. Always ends in `SystemExit` with that
    code, except as the `stateforge` process itself (`argv` None) after a command of `FAST_EXIT_COMMANDS`.
    """
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        _main(args)
    except SystemExit as exc:
        if argv is None and args[:1] and args[0] in FAST_EXIT_COMMANDS:
            _exit_now(exc.code)
        raise


def _main(args: list[str]) -> None:
    debug = "--debug" in args
    args = [a for a in args if a != "--debug"]
    try:
        app(args=args, prog_name="stateforge")
    except NotCleanError as exc:
        if debug:
            raise
        err.print(f"[bold red]not clean:[/] {escape(str(exc))}", highlight=False)
        sys.exit(1)
    except StateforgeError as exc:
        if debug:
            raise
        err.print(f"[bold red]error:[/] {escape(str(exc))}", highlight=False)
        sys.exit(2)
    except KeyboardInterrupt:
        err.print("interrupted")
        sys.exit(130)
    except Exception as exc:  # noqa: BLE001 - the last line of defence: no traceback without --debug
        if debug:
            raise
        err.print(
            f"[bold red]error:[/] {type(exc).__name__}: {escape(str(exc))}. This is a bug in Stateforge; "
            "run again with --debug for the traceback and report it.",
            highlight=False,
        )
        sys.exit(2)


def _exit_now(code: object) -> None:
    """End the process with `code` as `sys.exit` would, less the interpreter's teardown: freeing every
    module and object one by one costs a build 0.2-0.3 CPU s (pandas, sqlglot, pyarrow...), for memory the
    operating system takes back at once. Output is flushed and the `atexit` handlers run first; with a
    thread still running, or an exit code that is not a number, it returns (and `SystemExit` goes on)."""
    if code is not None and not isinstance(code, int):
        return
    if any(t.is_alive() and not t.daemon for t in threading.enumerate() if t is not threading.main_thread()):
        return
    if not _flushed():
        return
    atexit._run_exitfuncs()  # what the normal exit would run (logging's flush, for one); runs them once
    if _flushed():
        os._exit(code or 0)


def _flushed() -> bool:
    """Flush stdout and stderr; False if one cannot take it (a closed pipe, a closed file)."""
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (OSError, ValueError):
        return False
    return True


if __name__ == "__main__":
    main()
